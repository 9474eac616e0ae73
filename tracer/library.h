/* The tracer's side of the preloaded library: keeping it in every process's
 * environment, answering its handshake (preload/region.h), giving each process image
 * its counter slot, and reading the slot back when the image ends. */
#ifndef SYSTRACE_LIBRARY_H
#define SYSTRACE_LIBRARY_H

#include <stdbool.h>
#include <stdint.h>

#include "options.h"
#include "tasks.h"

/* Finds libsystrace.so next to the systrace executable (or in ../lib/systrace) and
 * puts it in systrace's own environment for the command. False with a message when
 * it cannot be found or the region cannot be made. */
bool library_setup(enum patch_mode mode, unsigned region_slots, bool with_log, bool with_time, char *err,
		   size_t errlen);
bool library_enabled(void);
/* At an execve's seccomp stop (args as the kernel has them): puts the library back in
 * the environment the new program gets if the caller took it out. */
void library_on_execve(struct thread *t, bool is_execveat, const uint64_t *args);
/* At the exit of an execve that failed: the program gets back the environment
 * argument it passed (in its register), not the one put in its place. */
void library_on_execve_failed(struct thread *t, bool is_execveat);
/* Whether a seccomp stop is the library talking (SYSTRACE_CONTROL_NR with the magic). */
bool library_is_control(long nr, const uint64_t *args);
/* Answers it; the call itself never reaches the kernel. */
void library_on_control(struct thread *t, uint64_t site, const uint64_t *args);
/* In an image set up at exec, at its first call outside the loader (the libraries
 * are loaded, none has run): its in-process path is up, and its library is told it
 * need not send READY (region.h). False if the image cannot be brought up so (not
 * set up at exec, threads, %gs taken): it waits for READY. */
bool library_up_without_ready(struct thread *t);
/* A new image's library state and address space: an exec'd image starts without
 * either; a child inherits its creator's (a fork child a copy of the patches, a
 * child sharing the memory the same ones). */
void library_image_starts(struct image *img, const struct image *creator, bool shares_memory);
/* At a new thread's first stop, before it runs: its own counter slot, through %gs. */
void library_thread_starts(struct thread *t);
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
