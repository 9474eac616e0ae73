#include "stub.h"

#include <string.h>
#include <sys/syscall.h>

/* Writes machine code at a known address; remembers overflow and jumps out of reach
 * instead of failing at each step. */
struct emitter {
	uint8_t *out;
	size_t cap, len;
	uint64_t addr; /* of out[0] */
	bool full, far;
};

static void emit(struct emitter *e, const void *bytes, size_t n)
{
	if (e->full || n > e->cap - e->len)
		e->full = true;
	else
		memcpy(e->out + e->len, bytes, n);
	e->len += n;
}

#define EMIT(e, ...) emit((e), (const uint8_t[]){ __VA_ARGS__ }, sizeof((const uint8_t[]){ __VA_ARGS__ }))

static void emit_u32(struct emitter *e, uint32_t v)
{
	emit(e, &v, sizeof(v)); /* x86 is little-endian, as is this host */
}

static void emit_u64(struct emitter *e, uint64_t v)
{
	emit(e, &v, sizeof(v));
}

static bool rel32(uint64_t next_insn, uint64_t target, int32_t *rel)
{
	int64_t d = (int64_t)(target - next_insn);

	*rel = (int32_t)d;
	return d == *rel;
}

/* A jump (opcode bytes then rel32) to target. */
static void emit_jump(struct emitter *e, const uint8_t *opcode, size_t n, uint64_t target)
{
	int32_t rel;

	if (!rel32(e->addr + e->len + n + 4, target, &rel))
		e->far = true;
	emit(e, opcode, n);
	emit_u32(e, (uint32_t)rel);
}

static const uint8_t JMP[] = { 0xe9 }, JAE[] = { 0x0f, 0x83 }, JE[] = { 0x0f, 0x84 }, JNE[] = { 0x0f, 0x85 },
		     JB[] = { 0x0f, 0x82 };

/* Where the forward jumps of the stub land, and where its count triples are, as
 * offsets in it. */
struct stub_marks {
	size_t slow_pop, slow, counted_errors, handoff, landing;
	size_t count_from[STUB_MAX_COUNTS], count_to[STUB_MAX_COUNTS];
	unsigned ncounts;
};

/* The SIB byte of %gs:disp32 alone, and of %gs:disp32(,%rax,8) and (,%rcx,8). */
enum count_index { BY_NONE = 0x25, BY_RAX = 0xc5, BY_RCX = 0xcd };

/* Adds 1 to the 8 bytes at %gs:disp, or at %gs:disp(,index,8): a load, a lea and a
 * store on r11, neither locked nor touching the flags. */
static void emit_count(struct emitter *e, int32_t disp, enum count_index index, struct stub_marks *m)
{
	uint8_t sib = (uint8_t)index;

	m->count_from[m->ncounts] = e->len;
	EMIT(e, 0x65, 0x4c, 0x8b, 0x1c, sib); /* mov %gs:disp(...),%r11 */
	emit_u32(e, (uint32_t)disp);
	EMIT(e, 0x4d, 0x8d, 0x5b, 0x01);      /* lea 1(%r11),%r11 */
	EMIT(e, 0x65, 0x4c, 0x89, 0x1c, sib); /* mov %r11,%gs:disp(...) */
	emit_u32(e, (uint32_t)disp);
	m->count_to[m->ncounts++] = e->len;
}

/* The guard of nr in cfg, or NULL. */
static const struct stub_guard *guard_of(const struct stub_config *cfg, int nr)
{
	for (size_t i = 0; i < cfg->nguards; i++)
		if (cfg->guards[i].nr == nr)
			return &cfg->guards[i];
	return NULL;
}

/* r11 - rdi below rcx (unsigned): r11 lies in [rdi, rdi + rcx), then to slow_pop. */
static void emit_in_range(struct emitter *e, const struct stub_marks *m)
{
	EMIT(e, 0x49, 0x29, 0xfb); /* sub %rdi,%r11 */
	EMIT(e, 0x49, 0x39, 0xcb); /* cmp %rcx,%r11 */
	emit_jump(e, JB, sizeof(JB), e->addr + m->slow_pop);
}

/* The check of a guarded number, with the flags saved and the stack pointer 136
 * bytes below the program's (the red-zone step and pushfq): to slow_pop when the
 * call must stop. */
static void emit_guard(struct emitter *e, const struct stub_guard *g, const struct stub_config *cfg,
		       const struct stub_marks *m)
{
	switch (g->kind) {
	case GUARD_SETS_GS:
	case GUARD_SETS_SECCOMP:
		/* cmp $ARCH_SET_GS or $PR_SET_SECCOMP,%edi: the kernel takes an int */
		EMIT(e, 0x81, 0xff);
		emit_u32(e, g->kind == GUARD_SETS_GS ? 0x1001 : 22);
		emit_jump(e, JE, sizeof(JE), e->addr + m->slow_pop);
		break;
	case GUARD_UNMAPS_OWN:
		/* the length in whole pages, as the kernel takes it, in rcx (which the
		 * syscall clobbers anyway) */
		EMIT(e, 0x48, 0x8d, 0x8e);       /* lea 4095(%rsi),%rcx */
		emit_u32(e, 4095);
		EMIT(e, 0x48, 0x81, 0xe1);       /* and $-4096,%rcx */
		emit_u32(e, (uint32_t)-4096);
		/* the stack from the program's rsp down to the deepest the stub and the
		 * gate's routines write: the range is a page or more, so if it meets
		 * that span it holds one of its ends; the same for the stub */
		EMIT(e, 0x4c, 0x8d, 0x9c, 0x24); /* lea 136(%rsp),%r11: the program's rsp */
		emit_u32(e, 136);
		emit_in_range(e, m);
		EMIT(e, 0x4c, 0x8d, 0x9c, 0x24); /* lea 136-depth(%rsp),%r11 */
		emit_u32(e, (uint32_t)(136 - STUB_STACK_DEPTH));
		emit_in_range(e, m);
		EMIT(e, 0x4c, 0x8d, 0x1d); /* lea start(%rip),%r11: this stub's first byte */
		emit_u32(e, (uint32_t)-(int32_t)(e->len + 4));
		emit_in_range(e, m);
		EMIT(e, 0x4c, 0x8d, 0x1d); /* lea start+STUB_MAX_LEN-1(%rip),%r11: past its last */
		emit_u32(e, (uint32_t)(STUB_MAX_LEN - 1 - (int32_t)(e->len + 4)));
		emit_in_range(e, m);
		EMIT(e, 0x49, 0xbb); /* movabs $gate,%r11 */
		emit_u64(e, cfg->gate);
		emit_in_range(e, m);
		/* it goes in-process: one more munmap the tracer does not see (the
		 * flags are saved here, and one instruction needs no rewind) */
		EMIT(e, 0x65, 0x48, 0xff, 0x04, 0x25); /* incq %gs:unmaps */
		emit_u32(e, (uint32_t)cfg->unmaps);
		break;
	case GUARD_NOT_A_FORK:
		EMIT(e, 0x49, 0x89, 0xfb); /* mov %rdi,%r11 */
		EMIT(e, 0x49, 0x81, 0xe3); /* and $~FORK_FLAGS,%r11 (sign-extended) */
		emit_u32(e, (uint32_t)~STUB_FORK_FLAGS);
		emit_jump(e, JNE, sizeof(JNE), e->addr + m->slow_pop);
		EMIT(e, 0x48, 0x85, 0xf6); /* test %rsi,%rsi: a new stack */
		emit_jump(e, JNE, sizeof(JNE), e->addr + m->slow_pop);
		break;
	}
}

/* The error's counts, and the mark that the slot has some. */
static void emit_error_counts(struct emitter *e, const struct stub_config *cfg, bool runtime_nr,
			      struct stub_marks *m)
{
	emit_count(e, cfg->site_errors, BY_NONE, m);
	if (runtime_nr)
		emit_count(e, cfg->nr_errors, BY_RCX, m);
	EMIT(e, 0x65, 0xc6, 0x04, 0x25); /* movb $1,%gs:errors_seen */
	emit_u32(e, (uint32_t)cfg->errors_seen);
	EMIT(e, 0x01);
}

/* After the gate's return: the call counted as an error if it returned -4095..-1.
 * With BMI2 the test touches no flag: rcx = (rax + 4096) >> 12 is 0 exactly for
 * -4096..-1 (-4096 is no result a syscall gives), which jrcxz tests. Without it,
 * a cmp, and r11 (the flags as the syscall left them: it restores rflags from
 * r11) pushed before and popped into rflags after, which costs some 5 ns. */
static void emit_errors(struct emitter *e, const struct stub_config *cfg, bool runtime_nr, struct stub_marks *m)
{
	/* not after the time routine: its sums change the flags after the call, and the
	 * popfq of r11 is what puts the program's back */
	if (cfg->flag_free_errors && !cfg->time_call) {
		EMIT(e, 0x48, 0x8d, 0x88);               /* lea 4096(%rax),%rcx */
		emit_u32(e, 4096);
		EMIT(e, 0x41, 0xbb, 0x0c, 0x00, 0x00, 0x00); /* mov $12,%r11d */
		EMIT(e, 0xc4, 0xe2, 0xa3, 0xf7, 0xc9);   /* shrx %r11,%rcx,%rcx */
		EMIT(e, 0xe3, 0x05);                     /* jrcxz past the jmp */
		emit_jump(e, JMP, sizeof(JMP), e->addr + m->counted_errors);
		if (runtime_nr)
			EMIT(e, 0x48, 0x8b, 0x0c, 0x24); /* mov (%rsp),%rcx: the number */
		emit_error_counts(e, cfg, runtime_nr, m);
		m->counted_errors = e->len;
		if (runtime_nr)
			EMIT(e, 0x48, 0x8d, 0x64, 0x24, 0x08); /* lea 8(%rsp),%rsp: drop it */
		return;
	}
	if (runtime_nr)
		EMIT(e, 0x59);               /* pop %rcx: the number */
	EMIT(e, 0x41, 0x53);                 /* push %r11 */
	EMIT(e, 0x48, 0x3d);                 /* cmp $-4095,%rax */
	emit_u32(e, (uint32_t)-4095);
	emit_jump(e, JB, sizeof(JB), e->addr + m->counted_errors);
	emit_error_counts(e, cfg, runtime_nr, m);
	m->counted_errors = e->len;
	EMIT(e, 0x9d);                       /* popfq */
}

static const uint8_t LEA_RSP_DOWN[] = { 0x48, 0x8d, 0x64, 0x24, 0x80 },            /* lea -0x80(%rsp),%rsp */
	LEA_RSP_UP[] = { 0x48, 0x8d, 0xa4, 0x24, 0x80, 0x00, 0x00, 0x00 }; /* lea 0x80(%rsp),%rsp */

/* The layout of stub.h. Every encoding has a fixed size, so a first pass learns the
 * marks that the second needs. */
/* Every stub's first bytes: the instructions the jump covers before the syscall. */
static void emit_covered_before(struct emitter *e, const struct patch_plan *plan, struct stub_marks *m)
{
	m->ncounts = 0;
	if (plan->shape == PATCH_BEFORE)
		emit(e, plan->original, plan->end - plan->start);
}

/* Every stub's last bytes: `slow`, its own traced syscall, then `after` (the covered
 * instructions after the syscall) and the jump back. */
static void emit_slow_and_back(struct emitter *e, const struct patch_plan *plan, struct stub_marks *m)
{
	m->slow = e->len;
	EMIT(e, 0x0f, 0x05); /* syscall */
	if (plan->shape == PATCH_AFTER)
		emit(e, plan->original + 2, plan->end - plan->start - 2);
	emit_jump(e, JMP, sizeof(JMP), plan->shape == PATCH_BEFORE ? plan->site + 2 : plan->end);
}

static void emit_stub(struct emitter *e, const struct patch_plan *plan, const struct stub_config *cfg,
		      struct stub_marks *m)
{
	bool runtime_nr = plan->nr < 0;
	const struct stub_guard *fixed_guard = runtime_nr ? NULL : guard_of(cfg, plan->nr);

	emit_covered_before(e, plan, m);
	if (runtime_nr || fixed_guard) {
		emit(e, LEA_RSP_DOWN, sizeof(LEA_RSP_DOWN));
		EMIT(e, 0x9c);       /* pushfq */
	}
	if (runtime_nr) {
		EMIT(e, 0x48, 0x3d); /* cmp $nr_limit,%rax */
		emit_u32(e, cfg->nr_limit);
		emit_jump(e, JAE, sizeof(JAE), e->addr + m->slow_pop);
		for (size_t i = 0; i < cfg->nslow; i++) {
			EMIT(e, 0x3d); /* cmp $nr,%eax */
			emit_u32(e, (uint32_t)cfg->slow_nrs[i]);
			emit_jump(e, JE, sizeof(JE), e->addr + m->slow_pop);
		}
		for (size_t i = 0; i < cfg->nguards; i++) {
			/* the guard's length, from emitting it nowhere */
			struct emitter probe = { .out = NULL, .cap = 0 };

			emit_guard(&probe, &cfg->guards[i], cfg, m);
			EMIT(e, 0x3d); /* cmp $nr,%eax ; jne past the guard */
			emit_u32(e, (uint32_t)cfg->guards[i].nr);
			emit_jump(e, JNE, sizeof(JNE), e->addr + e->len + sizeof(JNE) + 4 + probe.len);
			emit_guard(e, &cfg->guards[i], cfg, m);
		}
		if (!cfg->log_call) {
			emit_count(e, cfg->site_counter, BY_NONE, m);
			emit_count(e, cfg->nr_counters, BY_RAX, m);
		}
		EMIT(e, 0x9d); /* popfq */
		if (!cfg->log_call)
			EMIT(e, 0x50); /* push %rax: the number, for its error count */
	} else if (fixed_guard) {
		emit_guard(e, fixed_guard, cfg, m);
		if (!cfg->log_call)
			emit_count(e, cfg->site_counter, BY_NONE, m);
		EMIT(e, 0x9d); /* popfq */
	} else {
		if (!cfg->log_call)
			emit_count(e, cfg->site_counter, BY_NONE, m);
		emit(e, LEA_RSP_DOWN, sizeof(LEA_RSP_DOWN));
	}
	if (cfg->log_call || cfg->time_call) {
		EMIT(e, 0x68); /* push $site_counter (or $site_time): the routine's argument */
		emit_u32(e, (uint32_t)(cfg->log_call ? cfg->site_counter : cfg->site_time));
	}
	EMIT(e, 0x49, 0xbb); /* movabs $gate (or $log_call, $time_call),%r11 */
	emit_u64(e, cfg->log_call ? cfg->log_call : cfg->time_call ? cfg->time_call : cfg->gate);
	EMIT(e, 0x41, 0xff, 0xd3); /* call *%r11 */
	if (!cfg->log_call)
		emit_errors(e, cfg, runtime_nr, m);
	emit(e, LEA_RSP_UP, sizeof(LEA_RSP_UP));
	emit_jump(e, JMP, sizeof(JMP), e->addr + m->slow + 2);
	if (runtime_nr || fixed_guard) {
		m->slow_pop = e->len;
		EMIT(e, 0x9d); /* popfq */
		emit(e, LEA_RSP_UP, sizeof(LEA_RSP_UP));
	}
	emit_slow_and_back(e, plan, m);
}

/* The rt_sigreturn stub of stub.h: no stack, no call, its own slow syscall. */
static void emit_sigreturn_stub(struct emitter *e, const struct patch_plan *plan, const struct stub_config *cfg,
				struct stub_marks *m)
{
	emit_covered_before(e, plan, m);
	EMIT(e, 0x65, 0x80, 0x3c, 0x25); /* cmpb $0,%gs:sigreturn_armed */
	emit_u32(e, (uint32_t)cfg->sigreturn_armed);
	EMIT(e, 0x00);
	emit_jump(e, JE, sizeof(JE), e->addr + m->slow);
	EMIT(e, 0x65, 0xc6, 0x04, 0x25); /* movb $0,%gs:sigreturn_armed */
	emit_u32(e, (uint32_t)cfg->sigreturn_armed);
	EMIT(e, 0x00);
	emit_count(e, cfg->site_counter, BY_NONE, m);
	EMIT(e, 0x48, 0x8b, 0x8c, 0x24); /* mov SIGFRAME_RAX(%rsp),%rcx */
	emit_u32(e, SIGFRAME_RAX);
	EMIT(e, 0x48, 0x81, 0xf9);       /* cmp $-4095,%rcx */
	emit_u32(e, (uint32_t)-4095);
	emit_jump(e, JB, sizeof(JB), e->addr + m->counted_errors);
	emit_error_counts(e, cfg, false, m);
	m->counted_errors = e->len;
	EMIT(e, 0x49, 0xbb);             /* movabs $gate,%r11 */
	emit_u64(e, cfg->gate);
	EMIT(e, 0x41, 0xff, 0xe3);       /* jmp *%r11 */
	emit_slow_and_back(e, plan, m);
}

/* The stackless stub of stub.h (vfork): no call, no step before the syscall; the
 * landing stored in the slot, where the gate's stackless entry jumps back to. */
static void emit_stackless_stub(struct emitter *e, const struct patch_plan *plan, const struct stub_config *cfg,
				struct stub_marks *m)
{
	emit_covered_before(e, plan, m);
	emit_count(e, cfg->site_counter, BY_NONE, m);
	m->handoff = e->len;
	EMIT(e, 0x4c, 0x8d, 0x1d);       /* lea landing(%rip),%r11 */
	emit_u32(e, (uint32_t)(m->landing - (e->len + 4)));
	EMIT(e, 0x65, 0x4c, 0x89, 0x1c, 0x25); /* mov %r11,%gs:stackless_return */
	emit_u32(e, (uint32_t)cfg->stackless_return);
	EMIT(e, 0x49, 0xbb);             /* movabs $stackless_gate,%r11 */
	emit_u64(e, cfg->stackless_gate);
	EMIT(e, 0x41, 0xff, 0xe3);       /* jmp *%r11 */
	m->landing = e->len;
	emit(e, LEA_RSP_DOWN, sizeof(LEA_RSP_DOWN));
	emit_errors(e, cfg, false, m);
	emit(e, LEA_RSP_UP, sizeof(LEA_RSP_UP));
	emit_jump(e, JMP, sizeof(JMP), e->addr + m->slow + 2);
	emit_slow_and_back(e, plan, m);
}

static bool is_slow(const struct stub_config *cfg, int nr)
{
	for (size_t i = 0; i < cfg->nslow; i++)
		if (cfg->slow_nrs[i] == nr)
			return true;
	return false;
}

size_t stub_build(const struct patch_plan *plan, const struct stub_config *cfg, uint64_t stub_addr,
		  uint8_t *out, size_t cap, struct stub_layout *layout)
{
	struct stub_marks m = { 0 };
	struct emitter e;

	bool sigreturn = plan->nr == SYS_rt_sigreturn && cfg->sigreturns_in_process;
	bool stackless = plan->nr == SYS_vfork && cfg->stackless_gate && !cfg->log_call && !cfg->time_call;

	/* a fixed number has no dispatch; the bound is compared as a sign-extended imm32 */
	if (plan->nr >= 0 ? is_slow(cfg, plan->nr) && !sigreturn && !stackless : cfg->nr_limit > INT32_MAX)
		return 0;
	for (int pass = 0; pass < 2; pass++) {
		e = (struct emitter){ .out = out, .cap = cap, .addr = stub_addr };
		if (sigreturn)
			emit_sigreturn_stub(&e, plan, cfg, &m);
		else if (stackless)
			emit_stackless_stub(&e, plan, cfg, &m);
		else
			emit_stub(&e, plan, cfg, &m);
	}
	if (e.full || e.far)
		return 0;
	*layout = (struct stub_layout){ .addr = stub_addr, .len = e.len, .slow = stub_addr + m.slow,
					.after = stub_addr + m.slow + 2, .ncounts = m.ncounts };
	if (stackless) {
		layout->handoff = stub_addr + m.handoff;
		layout->landing = stub_addr + m.landing;
	}
	for (unsigned i = 0; i < m.ncounts; i++) {
		layout->count_from[i] = stub_addr + m.count_from[i];
		layout->count_to[i] = stub_addr + m.count_to[i];
	}
	return e.len;
}

bool patch_bytes(const struct patch_plan *plan, uint64_t stub_addr, uint8_t *out)
{
	int32_t rel;

	if (!rel32(plan->start + PATCH_JMP_LEN, stub_addr, &rel))
		return false;
	out[0] = 0xe9;
	memcpy(out + 1, &rel, sizeof(rel));
	memset(out + PATCH_JMP_LEN, 0xcc, plan->end - plan->start - PATCH_JMP_LEN); /* int3 */
	return true;
}

uint64_t stub_translate(const struct patch_plan *plan, const struct stub_layout *layout, uint64_t rip)
{
	bool at_insn = false;

	if (rip <= plan->start || rip >= plan->end)
		return rip;
	for (unsigned i = 0; i < plan->ninsn; i++)
		at_insn |= plan->start + plan->insn_off[i] == rip;
	if (!at_insn)
		return 0;
	/* BEFORE: the copies open the stub; AFTER: they follow `after`, from site + 2 on */
	if (plan->shape == PATCH_BEFORE)
		return layout->addr + (rip - plan->start);
	return layout->after + (rip - (plan->site + 2));
}

uint64_t stub_rewind(const struct stub_layout *layout, uint64_t rip)
{
	if (layout->handoff < rip && rip < layout->landing)
		return layout->handoff;
	for (unsigned i = 0; i < layout->ncounts; i++)
		if (layout->count_from[i] < rip && rip < layout->count_to[i])
			return layout->count_from[i];
	return rip;
}
