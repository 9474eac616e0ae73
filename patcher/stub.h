/* The stub a patched site jumps to, and the bytes of the patch itself. The stub runs
 * the covered instructions, counts the call in the process's counter slot and makes it
 * through the gate, without touching the red zone, any register the kernel keeps
 * (all but rax, rcx, r11), rflags or the vector registers:
 *
 *     <covered instructions before the syscall>       (PATCH_BEFORE)
 *     lea -128(%rsp),%rsp ; pushfq                   step over the red zone
 *     [run-time number: numbers >= nr_limit or in slow_nrs pop and go to slow]
 *     movabs $slot_ptr,%r11 ; mov (%r11),%r11        this process's slot
 *     lock incq site_counter(%r11)
 *     [run-time number: lock incq nr_counters(%r11,%rax,8)]
 *     popfq ; movabs $gate,%r11 ; call *%r11          syscall; ret at the gate
 *     lea 128(%rsp),%rsp ; jmp after
 *   slow_pop: popfq ; lea 128(%rsp),%rsp             (run-time number only)
 *   slow:  syscall                                   stops in the tracer
 *   after: <covered instructions after the syscall>  (PATCH_AFTER)
 *     jmp <back: site + 2, or end>
 *
 * `slow` is 2 bytes before `after`, so a call restarted there after a signal (the
 * kernel moves rip back by 2) enters the traced syscall again. */
#ifndef SYSTRACE_STUB_H
#define SYSTRACE_STUB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "patch_plan.h"

#define STUB_MAX_LEN 256

struct stub_config {
	uint64_t gate;             /* address of the gate's `syscall; ret` */
	uint64_t slot_ptr;         /* address of the process's pointer to its counter slot */
	int32_t site_counter;      /* byte offset of this site's counter in the slot */
	int32_t nr_counters;       /* byte offset of the per-number counters (8 bytes each) */
	uint32_t nr_limit;         /* run-time numbers at or above it take the slow path */
	const int *slow_nrs;       /* run-time numbers that must stop in the tracer */
	size_t nslow;
};

struct stub_layout {
	uint64_t addr;
	size_t len;
	uint64_t slow;             /* the stub's own, traced, syscall instruction */
	uint64_t after;            /* where a call continues once made: slow + 2 */
};

/* Builds the stub for plan, to sit at stub_addr, into out (cap bytes). Returns its
 * length, or 0 when it does not fit or a jump would not reach (beyond +-2 GiB); also 0
 * when plan's fixed number is in slow_nrs (such a site must stay traced) and, for a
 * run-time number, when nr_limit exceeds INT32_MAX (it is compared as an imm32). */
size_t stub_build(const struct patch_plan *plan, const struct stub_config *cfg, uint64_t stub_addr,
		  uint8_t *out, size_t cap, struct stub_layout *layout);
/* The plan->end - plan->start bytes that replace the covered ones: a jmp to the
 * stub, then int3. False when the stub is out of reach. */
bool patch_bytes(const struct patch_plan *plan, uint64_t stub_addr, uint8_t *out);
/* Where a thread stopped with rip strictly inside the covered bytes must continue
 * in the stub (the same instruction's copy; for PATCH_AFTER, site + 2 is `after`).
 * Returns rip unchanged when it is not strictly inside (start, end), and 0 when it
 * is inside but not at an instruction start (cannot happen to a running thread). */
uint64_t stub_translate(const struct patch_plan *plan, const struct stub_layout *layout, uint64_t rip);

#endif
