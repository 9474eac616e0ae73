/* One linear sweep (capstone) of an object's executable code: the syscall
 * instructions in it, the instruction starts just before each (x86 cannot be decoded
 * backwards), and the direct branch and call targets and function starts that land
 * near one. patch_plan.h decides from this whether a site can be patched. Addresses
 * are whatever space the caller gives the code in (the object's ELF addresses). */
#ifndef SYSTRACE_CODE_SCAN_H
#define SYSTRACE_CODE_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "elf_object.h"

/* Targets are kept only within this many bytes of a syscall instruction. */
#define SCAN_NEAR 32
/* Instruction starts kept before each syscall instruction. */
#define SCAN_PREV 4

struct scanned_syscall {
	uint64_t addr;            /* of the 0f 05 */
	uint64_t prev[SCAN_PREV]; /* starts of the instructions before it, nearest first */
	unsigned nprev;
};

struct code_scan {
	struct scanned_syscall *syscalls; /* sorted by addr */
	size_t nsyscalls, cap_syscalls;
	uint64_t *targets;                /* sorted, unique, only near a syscall */
	size_t ntargets, cap_targets;
};

/* Sweeps one executable range: len bytes that sit at address vaddr. s starts zeroed.
 * An undecodable byte is skipped, and the instructions before it are not kept as
 * prev[] of a later syscall. */
void code_scan_add(struct code_scan *s, const uint8_t *code, size_t len, uint64_t vaddr);
/* A place reached from elsewhere that the sweep cannot see (a function start). */
void code_scan_add_target(struct code_scan *s, uint64_t vaddr);
/* Sorts and drops the targets that are not near a syscall; call after the last add. */
void code_scan_finish(struct code_scan *s);
/* Sweeps every executable section of the ELF object open on fd, adds the starts of
 * o's function symbols as targets, and finishes. s is reset first. False (and s
 * empty) if it has no code. */
bool code_scan_object(struct code_scan *s, int fd, struct elf_object *o);
const struct scanned_syscall *code_scan_find(const struct code_scan *s, uint64_t addr);
/* Whether a branch target or function start lies strictly between lo and hi. */
bool code_scan_has_target(const struct code_scan *s, uint64_t lo, uint64_t hi);
/* Whether a branch target or function start is exactly at addr. */
bool code_scan_is_target(const struct code_scan *s, uint64_t addr);
void code_scan_free(struct code_scan *s);

#endif
