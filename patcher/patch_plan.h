/* Whether and how one syscall site can be patched. A patch replaces whole
 * instructions next to the `syscall` with a 5-byte `jmp rel32` to a stub that runs
 * them (relocated) around the in-process call:
 *   PATCH_BEFORE covers instructions that end at the syscall, which stays in place,
 *     so a thread blocked in it, or a branch to it, still finds a `syscall`;
 *   PATCH_AFTER covers the syscall and the instructions after it (read() in glibc:
 *     `xor %eax,%eax; syscall; cmp ...`), used when the bytes before cannot be taken.
 * A site is unpatchable when the covered bytes hold a branch target or function
 * start, a branch, a rip-relative operand, another syscall, or when they cannot be
 * decoded: a wrong patch corrupts a program, an unpatched site only costs time. */
#ifndef SYSTRACE_PATCH_PLAN_H
#define SYSTRACE_PATCH_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "code_scan.h"

#define PATCH_JMP_LEN 5
#define PATCH_MAX_COVER 24

enum patch_shape { PATCH_BEFORE, PATCH_AFTER };

struct patch_plan {
	uint64_t site;                      /* the syscall instruction */
	uint64_t start, end;                /* the bytes rewritten: [start, end) */
	enum patch_shape shape;             /* BEFORE: end == site; AFTER: start == site */
	int nr;                             /* syscall number proven fixed at the site, or -1 */
	uint8_t original[PATCH_MAX_COVER];  /* the bytes [start, end) before the patch;
	                                       AFTER: they begin with the syscall's 0f 05 */
	unsigned ninsn;                     /* instructions in [start, end) */
	uint8_t insn_off[PATCH_MAX_COVER];  /* their starts, as offsets from start */
};

/* Plans the patch of the syscall at site. code holds len bytes of the running code
 * (what memory holds now) starting at code_addr, at least PATCH_MAX_COVER bytes on
 * each side of the site where the object has them; scan is the object's sweep in the
 * same address space. Returns NULL with *plan filled, or why the site cannot be
 * patched: a short static word for sites.csv's unpatchable:<reason>. PATCH_BEFORE is
 * tried first; when PATCH_AFTER is refused too, the reason is BEFORE's:
 *   not-a-syscall  no 0f 05 at site in code, or the sweep found no syscall there;
 *   decode         code does not hold, or does not decode to, the instructions the
 *                  sweep found;
 *   control-flow   a branch, call, return, interrupt or syscall would be covered;
 *   rip-relative   a covered instruction addresses memory relative to rip;
 *   branch-target  a branch target or function start lies strictly inside;
 *   too-short      fewer than PATCH_JMP_LEN bytes can be taken (the code before the
 *                  syscall is not known far enough, or it ends soon after it). */
const char *patch_plan_make(const struct code_scan *scan, const uint8_t *code, size_t len,
			    uint64_t code_addr, uint64_t site, struct patch_plan *plan);

#endif
