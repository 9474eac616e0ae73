/* The shared region, and the calls between the in-process path and the tracer.
 *
 * The tracer creates the region (a memfd) once per run. Page 0 holds the gate code,
 * which each image maps at SYSTRACE_GATE_ADDR; the rest is an array of counter
 * slots, one per live thread, which the thread's %gs base points at (glibc leaves gs
 * alone on x86-64): each thread only ever writes its own, so the stubs count without
 * a lock. Each slot is followed by the tracer's staging area for a new image's
 * set-up (tracer/shared_region.h). The tracer reads a slot when its thread ends: a
 * killed process's counts are already there. An image maps gate and region at its
 * exec, before its loader runs (tracer/exec_blob.S); nothing is loaded into it.
 *
 * The one call the in-process path makes to the tracer uses a syscall number no
 * kernel has, which the filter traps and the tracer answers without the kernel:
 *   control(SYSTRACE_MAGIC, CONTROL_LOG_FLUSH)   the gate's log routine, its buffer
 *                                                full (--log) */
#ifndef SYSTRACE_REGION_H
#define SYSTRACE_REGION_H

#define SYSTRACE_CONTROL_NR 0x5157ace
#define SYSTRACE_MAGIC_HEX 0x7379737472616365 /* "systrace", as the assembler takes it */

#define REGION_GATE_SIZE 4096
#define REGION_NRS 512          /* per-number counters, for sites whose number varies */
#define REGION_SLOT_SITES 2552  /* site counters per slot (per address space's sites) */
/* The log routine's gs-relative layout (struct region_log below), for the assembler. */
#define REGION_LOG_ENTRIES 2048
#define REGION_LOG_AT 49152     /* sizeof(struct region_slot) */
#define REGION_LOG_HEAD REGION_LOG_AT
#define REGION_LOG_TAIL (REGION_LOG_AT + 8)
#define REGION_LOG_ENTRY_AT (REGION_LOG_AT + 64)

/* The gate's return pad (tracer/gate_code.S, gate_pad): a ptraced call the tracer
 * sends back through it, so that its result is known without a second stop, leaves
 * its result in the word REGION_SLOT_RESULT and goes on at REGION_SLOT_RETURN (the
 * address after the call's own syscall), both written by the tracer before it
 * resumes the call; REGION_RESULT_NONE until the call returns. */
#define REGION_SLOT_RETURN 1
#define REGION_SLOT_RESULT 2
#define REGION_SLOT_RETURN_AT (8 * REGION_SLOT_RETURN)
#define REGION_SLOT_RESULT_AT (8 * REGION_SLOT_RESULT)

/* The return pad's stamp (tracer/results.c): where the pad keeps rdx while it reads
 * the TSC, and the TSC when the call returned (low half first, high half last; 0
 * until the pad stamped it: the tracer zeroes it as it sends a call through the pad). */
#define REGION_SLOT_PAD_RDX 4
#define REGION_SLOT_PAD_END 5
#define REGION_SLOT_PAD_RDX_AT (8 * REGION_SLOT_PAD_RDX)
#define REGION_SLOT_PAD_END_AT (8 * REGION_SLOT_PAD_END)

/* With --time, each slot is followed by its thread's time counters (struct
 * region_time below), which the gate's time routine adds to (tracer/gate_code.S),
 * in TSC ticks, %gs-relative like the counters: per number the ticks in all, the
 * longest call and the bitwise NOT of the shortest (so that 0, a slot never written,
 * is no call at all), and per site the ticks in all. --time and --log do not go
 * together: the log buffer would sit in the same place. */
#define REGION_TIME_AT REGION_LOG_AT
#define REGION_TIME_NR_TICKS REGION_TIME_AT
#define REGION_TIME_NR_MAX (REGION_TIME_NR_TICKS + 8 * REGION_NRS)
#define REGION_TIME_NR_MIN_NOT (REGION_TIME_NR_MAX + 8 * REGION_NRS)
#define REGION_TIME_SITE_TICKS (REGION_TIME_NR_MIN_NOT + 8 * REGION_NRS)

/* Nonzero once the thread counted an error (the stubs set it with the count): the
 * error counters of a slot that never saw one are neither read nor cleared, and so
 * never take memory. */
#define REGION_SLOT_ERRORS 3
#define REGION_SLOT_ERRORS_AT (8 * REGION_SLOT_ERRORS)

/* The set-up at exec (tracer/exec_blob.S) that ended without a stop (gate_exec_tail)
 * leaves here how many calls it made, plus one: nonzero says it is over, and the
 * tracer takes it at the thread's next stop (early.c). */
#define REGION_SLOT_SETUP 6
#define REGION_SLOT_SETUP_AT (8 * REGION_SLOT_SETUP)

/* How many munmaps the thread made in-process: the stubs' munmap guard adds 1 before
 * each call it lets through (patcher/stub.h), so that the tracer, which does not see
 * them, knows when an object may have gone from under a site (tracer/site_reuse.h). */
#define REGION_SLOT_UNMAPS 7
#define REGION_SLOT_UNMAPS_AT (8 * REGION_SLOT_UNMAPS)

/* Nonzero: the thread's next rt_sigreturn through a patched restorer may go
 * in-process, once (the stub clears it; patcher/stub.h). The tracer sets it at a
 * signal's delivery whose frame needs nothing of it on return, and clears it at
 * every other stop (tracer/sigreturn_arm.h). */
#define REGION_SLOT_SIGRETURN 0
#define REGION_SLOT_SIGRETURN_AT (8 * REGION_SLOT_SIGRETURN)

/* The slot's words of the libraries' hook (tracer/lib_hook.h), at the end of the
 * counters (struct region_slot's pad_end): DONE (what the hook did, or INERT), the
 * calls counted before it ran (early), and the calls it made (instrument). And where
 * the site counters begin, which the hook sums. */
/* DONE: 0 until the hook ran; then bit REGION_HOOK_DONE_BIT, with bit k (k < 30) for
 * library k written whole and bit REGION_HOOK_PART_SHIFT + k for one written in
 * part, and REGION_HOOK_RESTORED_BIT once the hooked function's bytes are back; or
 * REGION_HOOK_INERT_BIT, set by the tracer in every slot it gives a thread but an
 * image's first: the hook is not its to run. */
#define REGION_HOOK_DONE_BIT 63
#define REGION_HOOK_INERT_BIT 62
#define REGION_HOOK_PART_SHIFT 32
#define REGION_HOOK_RESTORED_BIT 31
#define REGION_HOOK_DONE 0        /* indexes in pad_end, and their %gs offsets */
#define REGION_HOOK_EARLY 1
#define REGION_HOOK_CALLS 2
#define REGION_SLOT_HOOK_DONE_AT 49088

/* Where the gate's stackless entry goes on once its call returned (pad_end): the
 * stackless stub's landing, stored by the stub before it jumps there, copied by the
 * tracer into the slot of a child the call made (tracer/children.c). */
#define REGION_SLOT_STACKLESS 3
#define REGION_SLOT_STACKLESS_AT (REGION_SLOT_HOOK_DONE_AT + 8 * REGION_SLOT_STACKLESS)
#define REGION_SLOT_HOOK_EARLY_AT (REGION_SLOT_HOOK_DONE_AT + 8 * REGION_HOOK_EARLY)
#define REGION_SLOT_HOOK_CALLS_AT (REGION_SLOT_HOOK_DONE_AT + 8 * REGION_HOOK_CALLS)
#define REGION_SLOT_SITE_CALLS_AT 4160

/* CONTROL_LOG_FLUSH: made by the gate's log routine (tracer/gate_code.S) when the
 * thread's log buffer is full; the tracer moves it to the log file. */
#define CONTROL_LOG_FLUSH 3

#ifndef __ASSEMBLER__
#include <stddef.h>
#include <stdint.h>

#include "gate.h"

#define SYSTRACE_MAGIC SYSTRACE_GATE_ULL_(SYSTRACE_MAGIC_HEX)


#define REGION_RESULT_NONE 0x8000000000000000ull /* no syscall returns it (region_slot) */

/* A thread's counters. The errors (calls that returned -4095..-1) lie apart from
 * the calls, so that a call that succeeds touches one cache line. */
struct region_slot {
	uint64_t pad[8];            /* the counters start on a cache line of their own;
	                               pad[REGION_SLOT_SIGRETURN],
	                               [REGION_SLOT_RETURN], [REGION_SLOT_RESULT],
	                               [REGION_SLOT_ERRORS], [REGION_SLOT_PAD_RDX],
	                               [REGION_SLOT_PAD_END], [REGION_SLOT_SETUP],
	                               [REGION_SLOT_UNMAPS]:
	                               see above */
	uint64_t nr_calls[REGION_NRS];
	uint64_t site_calls[REGION_SLOT_SITES];
	uint64_t nr_errors[REGION_NRS];
	uint64_t site_errors[REGION_SLOT_SITES];
	uint64_t pad_end[8];        /* the log buffer on a page boundary; [0..2]: the
	                               libraries' hook (REGION_SLOT_HOOK_*); [3]:
	                               REGION_SLOT_STACKLESS */
};

#define REGION_SLOT_SIZE sizeof(struct region_slot)

/* With --log, each slot is followed by its thread's log buffer, which the gate's log
 * routine fills (%gs-relative, like the counters) and the tracer empties into the log
 * file at the thread's stops, when it is full, and when the thread ends (so a killed
 * process loses nothing). An entry is reserved by one xadd on `head` (a sequence
 * number, never reset: entry seq lives at seq % REGION_LOG_ENTRIES), filled, and made
 * valid by its `mark` (seq | REGION_LOG_MARK) stored last, before the call is made;
 * `ret` follows once it returns. Entries from `tail` to `head` wait for the tracer. */
#define REGION_LOG_MARK (1ULL << 63)

struct region_log_entry {
	uint64_t tsc;           /* rdtsc when the call was made */
	uint64_t mark;          /* seq | REGION_LOG_MARK once the entry is whole */
	int64_t ret;
	uint16_t nr;            /* x86-64 syscall number */
	uint16_t counter;       /* the site's counter displacement in the slot */
	uint8_t has_ret;
	uint8_t pad[3];
};

struct region_log {
	uint64_t head, tail;
	uint64_t pad[6];
	struct region_log_entry entries[REGION_LOG_ENTRIES];
};

/* A thread's time counters under --time (see REGION_TIME_AT), in TSC ticks. */
struct region_time {
	uint64_t nr_ticks[REGION_NRS];
	uint64_t nr_max[REGION_NRS];
	uint64_t nr_min_not[REGION_NRS]; /* ~ticks of the shortest call; 0: none yet */
	uint64_t site_ticks[REGION_SLOT_SITES];
	uint64_t pad_end[8];             /* a whole number of pages */
};

_Static_assert(sizeof(struct region_slot) == REGION_LOG_AT, "the log follows the counters");
_Static_assert(offsetof(struct region_slot, pad_end) == REGION_SLOT_HOOK_DONE_AT, "the hook's words");
_Static_assert(offsetof(struct region_slot, site_calls) == REGION_SLOT_SITE_CALLS_AT, "the site counters");
_Static_assert(offsetof(struct region_time, site_ticks) == REGION_TIME_SITE_TICKS - REGION_TIME_AT, "time layout");
_Static_assert(sizeof(struct region_time) % 4096 == 0, "the time counters are whole pages");
_Static_assert(sizeof(struct region_log_entry) == 32, "log entries are 32 bytes");
_Static_assert(offsetof(struct region_log, entries) == REGION_LOG_ENTRY_AT - REGION_LOG_AT, "log layout");
#endif /* __ASSEMBLER__ */

#endif
