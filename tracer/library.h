/* Each process image's in-process path (processes.csv's `library` column): whether
 * it is up, or why not; each thread's counter slot in the region (%gs), read back
 * when the thread leaves the image; what the image's patches cost and paid. There is
 * no library loaded into the processes: tracer/early.c maps the gate, the region
 * and stub memory at each exec, before the loader runs. */
#ifndef SYSTRACE_LIBRARY_H
#define SYSTRACE_LIBRARY_H

#include <stdbool.h>
#include <stdint.h>

#include "options.h"
#include "tasks.h"

/* Makes the region (with --time, with room for the slots' time counters) and the
 * socket that hands it out (unless mode is off). False with a message when either
 * cannot be made. */
bool library_setup(enum patch_mode mode, unsigned region_slots, bool with_log, bool with_time, char *err,
		   size_t errlen);
bool library_enabled(void);
/* Whether a seccomp stop is a control call (SYSTRACE_CONTROL_NR with the magic: the
 * gate's log routine asking for its buffer to be emptied). */
bool library_is_control(long nr, const uint64_t *args);
/* Answers it; the call itself never reaches the kernel. */
void library_on_control(struct thread *t, uint64_t site, const uint64_t *args);
/* In an image set up at exec, once its libraries are loaded and before any has run
 * (at its first call outside the loader, early_calls < 0; or settling the hook that
 * wrote their known sites, lib_hook.h): its in-process path is up. The calls its
 * slot counted so far were early: all of them, or early_calls of them (the hook's
 * sum when it ran), the rest late. False if it cannot be (not set up at exec,
 * threads at the first call, %gs taken). */
bool library_up(struct thread *t, int64_t early_calls);
/* A new image's library state and address space: an exec'd image starts without
 * either; a child inherits its creator's (a fork child a copy of the patches, a
 * child sharing the memory the same ones). */
void library_image_starts(struct image *img, const struct image *creator, bool shares_memory);
/* At a new thread's first stop, before it runs: its own counter slot, through %gs. */
void library_thread_starts(struct thread *t);
/* At the first ptrace of systrace's threads by a process of t's memory: its waits,
 * and its calls of run-time numbers, go back to stopping (their patches written
 * back, with the memory's threads stopped), the rest of its path stays. */
void library_waits_stop(struct thread *t);
/* At an arch_prctl's seccomp stop: a program that sets its own %gs base gets its
 * memory's patches written back first, and stays on the ptrace path. */
void library_on_arch_prctl(struct thread *t, uint64_t code);
/* When a thread leaves its image (death, exec): its in-process counts go from its
 * slot into the image's record, and the slot is freed. */
void library_thread_ends(struct thread *t);
/* Once the image has ended and its threads' counts are in (it is about to be
 * written): the patches it wrote, whether each paid for itself, and the state of
 * each of its sites. */
void library_image_complete(struct image *img);
/* What a call saves in-process over a stop (measured at the start of the run), to
 * tell which patches paid for themselves. */
void library_set_saving(uint64_t ns);

#endif
