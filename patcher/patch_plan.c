#include "patch_plan.h"

#include <capstone/capstone.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* The bytes memory holds around the site. */
struct window {
	const uint8_t *code;
	size_t len;
	uint64_t addr;
};

static const uint8_t *window_at(const struct window *w, uint64_t addr, size_t n)
{
	if (addr < w->addr || addr - w->addr > w->len || w->len - (addr - w->addr) < n)
		return NULL;
	return w->code + (addr - w->addr);
}

/* Decodes one instruction at addr (with detail) unless it would reach past limit. */
static bool decode(csh h, const struct window *w, uint64_t addr, uint64_t limit, cs_insn *insn)
{
	const uint8_t *p = window_at(w, addr, 1);
	size_t left;

	if (!p)
		return false;
	left = w->len - (size_t)(p - w->code);
	if (limit - addr < left)
		left = limit - addr;
	return cs_disasm_iter(h, &p, &left, &addr, insn);
}

/* Transfers after which the code does not fall through. */
static bool is_unconditional(const cs_insn *insn)
{
	switch (insn->id) {
	case X86_INS_JMP: case X86_INS_LJMP: case X86_INS_RET: case X86_INS_RETF: case X86_INS_RETFQ:
	case X86_INS_IRET: case X86_INS_IRETD: case X86_INS_IRETQ: case X86_INS_SYSRET: case X86_INS_SYSEXIT:
	case X86_INS_UD0: case X86_INS_UD2: case X86_INS_UD2B: case X86_INS_HLT: case X86_INS_INT3:
		return true;
	default:
		return false;
	}
}

/* Anything that reaches, or leaves to, another place, or enters the kernel: its copy
 * in the stub would not behave as the original. Groups catch the families, the ids
 * what capstone does not group. */
static bool is_control(csh h, const cs_insn *insn)
{
	static const uint8_t groups[] = { X86_GRP_JUMP, X86_GRP_CALL, X86_GRP_RET, X86_GRP_INT,
					  X86_GRP_IRET, X86_GRP_BRANCH_RELATIVE };

	for (size_t i = 0; i < sizeof(groups); i++)
		if (cs_insn_group(h, insn, groups[i]))
			return true;
	switch (insn->id) {
	case X86_INS_SYSCALL: case X86_INS_SYSENTER: case X86_INS_INT1: case X86_INS_INTO:
	case X86_INS_XBEGIN: case X86_INS_XEND: case X86_INS_XABORT:
		return true;
	default:
		return is_unconditional(insn);
	}
}

static bool is_rip_relative(const cs_insn *insn)
{
	const cs_x86 *x = &insn->detail->x86;

	for (unsigned i = 0; i < x->op_count; i++)
		if (x->operands[i].type == X86_OP_MEM
		    && (x->operands[i].mem.base == X86_REG_RIP || x->operands[i].mem.base == X86_REG_EIP))
			return true;
	return false;
}

/* Why an instruction cannot be copied into the stub, or NULL. */
static const char *refuse_insn(csh h, const cs_insn *insn)
{
	if (is_control(h, insn))
		return "control-flow";
	if (is_rip_relative(insn))
		return "rip-relative";
	return NULL;
}

static void add_insn(struct patch_plan *p, uint64_t addr)
{
	p->insn_off[p->ninsn++] = (uint8_t)(addr - p->start);
}

/* The number a `mov $imm,%eax`, `mov $imm,%rax` or `xor %eax,%eax` (either form,
 * either width) that fills [addr, site) puts in rax, or -1. */
static int number_set_by(const struct window *w, uint64_t addr, uint64_t site)
{
	size_t n = site - addr;
	const uint8_t *b = window_at(w, addr, n);
	int32_t imm;

	if (!b)
		return -1;
	if (n == 5 && b[0] == 0xb8) {
		memcpy(&imm, b + 1, 4);
		return imm >= 0 ? imm : -1;
	}
	if (n == 7 && b[0] == 0x48 && b[1] == 0xc7 && b[2] == 0xc0) {
		memcpy(&imm, b + 3, 4);
		return imm >= 0 ? imm : -1;
	}
	if ((n == 2 || (n == 3 && b[0] == 0x48)) && (b[n - 2] == 0x31 || b[n - 2] == 0x33) && b[n - 1] == 0xc0)
		return 0;
	return -1;
}

/* Capstone never decodes more than 15 bytes into one instruction, and a plan stops
 * adding instructions at PATCH_JMP_LEN bytes, so the covered bytes always fit. */
_Static_assert(PATCH_JMP_LEN - 1 + 15 <= PATCH_MAX_COVER, "a plan may not fit in PATCH_MAX_COVER");

/* Whole instructions ending at the syscall, which stays. The sweep knows where they
 * start (x86 cannot be decoded backwards); memory must decode to the same starts. */
static const char *plan_before(csh h, cs_insn *insn, const struct code_scan *scan, const struct scanned_syscall *sc,
			       const struct window *w, struct patch_plan *p)
{
	unsigned n = 1; /* instructions taken: prev[0] .. prev[n - 1] */
	const char *why;

	while (n <= sc->nprev && sc->addr - sc->prev[n - 1] < PATCH_JMP_LEN)
		n++;
	if (n > sc->nprev)
		return "too-short";
	p->start = sc->prev[n - 1];
	p->end = sc->addr;
	for (unsigned i = n; i-- > 0;) {
		uint64_t addr = sc->prev[i], next = i ? sc->prev[i - 1] : sc->addr;

		if (!decode(h, w, addr, next, insn) || insn->size != next - addr)
			return "decode";
		if ((why = refuse_insn(h, insn)))
			return why;
		add_insn(p, addr);
	}
	/* a target at start reaches the jmp; one at the syscall still finds it */
	if (code_scan_has_target(scan, p->start, p->end))
		return "branch-target";
	/* a branch to the syscall bypasses the stub, so the stub only runs after prev[0] */
	p->nr = number_set_by(w, sc->prev[0], sc->addr);
	return NULL;
}

/* The syscall and whole instructions after it, up to the first that cannot be copied;
 * an unconditional transfer ends the code that can be taken. */
static const char *plan_after(csh h, cs_insn *insn, const struct code_scan *scan, const struct scanned_syscall *sc,
			      const struct window *w, struct patch_plan *p)
{
	uint64_t addr = sc->addr + 2;
	const char *why;

	p->start = sc->addr;
	add_insn(p, sc->addr);
	while (addr - p->start < PATCH_JMP_LEN) {
		if (!decode(h, w, addr, UINT64_MAX, insn))
			return "decode";
		if (is_unconditional(insn))
			return "too-short";
		if ((why = refuse_insn(h, insn)))
			return why;
		add_insn(p, addr);
		addr += insn->size;
	}
	p->end = addr;
	if (code_scan_has_target(scan, p->start, p->end))
		return "branch-target";
	/* a branch to the syscall may bring another number */
	if (sc->nprev > 0 && !code_scan_is_target(scan, sc->addr))
		p->nr = number_set_by(w, sc->prev[0], sc->addr);
	return NULL;
}

static void plan_reset(struct patch_plan *p, uint64_t site, enum patch_shape shape)
{
	memset(p, 0, sizeof(*p));
	p->site = site;
	p->shape = shape;
	p->nr = -1;
}

const char *patch_plan_make(const struct code_scan *scan, const uint8_t *code, size_t len,
			    uint64_t code_addr, uint64_t site, struct patch_plan *plan)
{
	const struct window w = { code, len, code_addr };
	const uint8_t *b = window_at(&w, site, 2);
	const struct scanned_syscall *sc = code_scan_find(scan, site);
	const char *why;
	csh h;
	cs_insn *insn;

	plan_reset(plan, site, PATCH_BEFORE);
	if (!b || b[0] != 0x0f || b[1] != 0x05 || !sc)
		return "not-a-syscall";
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &h) != CS_ERR_OK)
		abort();
	cs_option(h, CS_OPT_DETAIL, CS_OPT_ON);
	insn = cs_malloc(h);
	why = plan_before(h, insn, scan, sc, &w, plan);
	if (why) {
		plan_reset(plan, site, PATCH_AFTER);
		if (!plan_after(h, insn, scan, sc, &w, plan))
			why = NULL;
	}
	if (!why)
		memcpy(plan->original, window_at(&w, plan->start, 0), plan->end - plan->start);
	cs_free(insn, 1);
	cs_close(&h);
	return why;
}
