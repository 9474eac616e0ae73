#include "code_scan.h"

#include <capstone/capstone.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "grow_array.h"

static void add_syscall(struct code_scan *s, const struct scanned_syscall *sc)
{
	s->syscalls = grow_array(s->syscalls, &s->cap_syscalls, s->nsyscalls, sizeof(*s->syscalls));
	s->syscalls[s->nsyscalls++] = *sc;
}

void code_scan_add_target(struct code_scan *s, uint64_t vaddr)
{
	s->targets = grow_array(s->targets, &s->cap_targets, s->ntargets, sizeof(*s->targets));
	s->targets[s->ntargets++] = vaddr;
}

/* Direct (relative) branches; detail is off for speed, so they are known by id. */
static bool is_direct_branch_id(unsigned id)
{
	switch (id) {
	case X86_INS_JAE: case X86_INS_JA: case X86_INS_JBE: case X86_INS_JB:
	case X86_INS_JCXZ: case X86_INS_JECXZ: case X86_INS_JRCXZ:
	case X86_INS_JE: case X86_INS_JGE: case X86_INS_JG: case X86_INS_JLE: case X86_INS_JL:
	case X86_INS_JNE: case X86_INS_JNO: case X86_INS_JNP: case X86_INS_JNS:
	case X86_INS_JO: case X86_INS_JP: case X86_INS_JS: case X86_INS_JMP:
	case X86_INS_CALL: case X86_INS_LOOP: case X86_INS_LOOPE: case X86_INS_LOOPNE:
	case X86_INS_XBEGIN: /* its operand is the abort handler */
		return true;
	default:
		return false;
	}
}

void code_scan_add(struct code_scan *s, const uint8_t *code, size_t len, uint64_t vaddr)
{
	csh h;
	cs_insn *insn;
	/* the last SCAN_PREV instruction starts, a ring indexed by count */
	uint64_t recent[SCAN_PREV];
	size_t nrecent = 0;

	if (cs_open(CS_ARCH_X86, CS_MODE_64, &h) != CS_ERR_OK)
		abort();
	insn = cs_malloc(h);
	while (len > 0) {
		uint64_t at = vaddr;

		if (!cs_disasm_iter(h, &code, &len, &vaddr, insn)) {
			/* the instructions before an undecodable byte do not lead to what follows */
			code++, len--, vaddr++;
			nrecent = 0;
			continue;
		}
		if (insn->id == X86_INS_SYSCALL) {
			struct scanned_syscall sc = { .addr = at };

			while (sc.nprev < SCAN_PREV && sc.nprev < nrecent) {
				sc.prev[sc.nprev] = recent[(nrecent - 1 - sc.nprev) % SCAN_PREV];
				sc.nprev++;
			}
			add_syscall(s, &sc);
		} else if (is_direct_branch_id(insn->id) && strncmp(insn->op_str, "0x", 2) == 0) {
			/* capstone prints a direct target as its absolute address */
			code_scan_add_target(s, strtoull(insn->op_str, NULL, 16));
		}
		recent[nrecent++ % SCAN_PREV] = at;
	}
	cs_free(insn, 1);
	cs_close(&h);
}

static int by_value(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

static int by_syscall_addr(const void *a, const void *b)
{
	return by_value(&((const struct scanned_syscall *)a)->addr, &((const struct scanned_syscall *)b)->addr);
}

void code_scan_finish(struct code_scan *s)
{
	size_t kept = 0, j = 0;

	/* qsort may not be given the NULL of an empty list */
	if (s->nsyscalls)
		qsort(s->syscalls, s->nsyscalls, sizeof(*s->syscalls), by_syscall_addr);
	if (s->ntargets)
		qsort(s->targets, s->ntargets, sizeof(*s->targets), by_value);
	/* both sorted: j walks to the first syscall not too far below each target */
	for (size_t i = 0; i < s->ntargets; i++) {
		uint64_t t = s->targets[i];

		if (kept > 0 && s->targets[kept - 1] == t)
			continue;
		while (j < s->nsyscalls && s->syscalls[j].addr + SCAN_NEAR < t)
			j++;
		if (j < s->nsyscalls && s->syscalls[j].addr <= t + SCAN_NEAR)
			s->targets[kept++] = t;
	}
	s->ntargets = kept;
}

bool code_scan_object(struct code_scan *s, int fd, struct elf_object *o)
{
	Elf *elf;
	Elf_Scn *scn = NULL;
	bool any = false;
	const struct elf_symbol *symbols;
	size_t nsymbols;

	memset(s, 0, sizeof(*s));
	if (elf_version(EV_CURRENT) == EV_NONE || !(elf = elf_begin(fd, ELF_C_READ_MMAP, NULL)))
		return false;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_EXECINSTR) || sh.sh_type == SHT_NOBITS
		    || !(data = elf_getdata(scn, NULL)) || !data->d_buf || data->d_size == 0)
			continue;
		code_scan_add(s, data->d_buf, data->d_size, sh.sh_addr);
		any = true;
	}
	elf_end(elf);
	if (!any)
		return false;
	symbols = elf_object_symbols(o, &nsymbols);
	for (size_t i = 0; i < nsymbols; i++)
		code_scan_add_target(s, symbols[i].addr);
	code_scan_finish(s);
	return true;
}

const struct scanned_syscall *code_scan_find(const struct code_scan *s, uint64_t addr)
{
	size_t lo = 0, hi = s->nsyscalls;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->syscalls[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < s->nsyscalls && s->syscalls[lo].addr == addr ? &s->syscalls[lo] : NULL;
}

/* The index of the first target above addr. */
static size_t first_target_above(const struct code_scan *s, uint64_t addr)
{
	size_t lo = 0, hi = s->ntargets;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->targets[mid] <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

bool code_scan_has_target(const struct code_scan *s, uint64_t lo, uint64_t hi)
{
	size_t i = first_target_above(s, lo);

	return i < s->ntargets && s->targets[i] < hi;
}

bool code_scan_is_target(const struct code_scan *s, uint64_t addr)
{
	size_t i = first_target_above(s, addr);

	return i > 0 && s->targets[i - 1] == addr;
}

void code_scan_free(struct code_scan *s)
{
	free(s->syscalls);
	free(s->targets);
	memset(s, 0, sizeof(*s));
}
