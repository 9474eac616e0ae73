/* Patching the sites of running processes (the protocol is in docs/patching.md):
 * after a trapped call in an image whose library is ready, its site is planned
 * (patcher/), a stub is written near it, and the jump over it, with every thread
 * that shares the memory stopped (--patch=safe), none (unsafe), or only when there
 * is no other (single). */
#ifndef SYSTRACE_PATCHING_H
#define SYSTRACE_PATCHING_H

#include <stdbool.h>
#include <stdint.h>

#include "options.h"
#include "tasks.h"

/* Stub memory is mapped this much at a time, near the code it serves. */
#define PATCH_AREA_SIZE (64 * 1024)

enum patch_result {
	PATCH_RESUME,  /* go on as usual */
	PATCH_REISSUE, /* t made an mmap for stub room and makes its own call again:
	                  resume it with PTRACE_CONT; that entry is not a new call */
	PATCH_HELD,    /* t did not come back (killed): its status waits in the queue */
};

/* ahead: --prepatch, every site that can be patched is, at each image's start. */
void patching_setup(enum patch_mode mode, bool ahead);
/* After the trapped call of t (syscall number nr, x86_64) at site has been counted;
 * at_stub: it trapped at the site's stub (see patching_site_of). */
enum patch_result patching_on_call(struct thread *t, uint64_t site, bool at_stub, long nr);
/* The original site of a trap at a stub's own syscall (a call whose number must stop
 * in the tracer, or a restart), else site itself. */
uint64_t patching_site_of(struct thread *t, uint64_t site);
/* At t's rt_sigreturn: a frame that returns into patched bytes (the signal came
 * before the patch) returns into the stub instead. */
void patching_on_sigreturn(struct thread *t, uint64_t stack_pointer);
/* At a signal-delivery stop of t (sig): a thread between the load and the store of
 * a stub's counter goes back to the load, so that a handler's call at the same site
 * is not overwritten (the stubs count without a lock, each thread in its own slot);
 * a thread in the gate about to run a handler is put back in the state of the
 * original syscall, so that its frame unwinds (pthread_cancel). */
void patching_on_signal(struct thread *t, int sig);
/* At a munmap's entry: patches in the range no longer stand for what is there. */
void patching_on_munmap(struct thread *t, uint64_t addr, uint64_t len);
/* Whether t is the only thread in its memory (cheap: from the counts kept). */
bool patching_alone(const struct thread *t);
/* Writes every patch of the address space back to the original bytes (with the
 * other threads stopped): a thread is about to run that has no counter slot. */
void patching_undo_all(struct thread *t, struct addr_space *as);
/* At the library's CONTROL_HELLO in a new image: the sites that earlier processes
 * patched in the objects now mapped are planned in t's memory. Returns where the
 * library should map stub memory for those out of reach of library_code (its stub
 * room), 0 if none. */
uint64_t patching_start_prepare(struct thread *t, uint64_t library_code);
/* At CONTROL_READY (t alone in its memory, before main): writes them all, with
 * stubs in the library's room and in area (0 if not mapped). */
void patching_start_apply(struct thread *t, uint64_t room, uint64_t room_size, uint64_t area);
/* Plans, in t's memory, the sites known in the object mapped at addr; how many. */
size_t patching_plan_known_at(struct thread *t, uint64_t addr);
/* Writes every site planned and not yet patched in the memory t has to itself, but
 * one whose bytes hold avoid (t's rip; 0 for none). */
void patching_apply_planned(struct thread *t, struct addr_space *as, uint64_t avoid);
/* Keeps a status that waitpid gave while the tracer waited for another (a thread
 * killed in the middle of a patch) for the event loop (patching_take_held). */
void patching_hold(pid_t tid, int status);
/* Statuses of other threads collected while they were stopped for a patch, to be
 * handled as if waitpid had just returned them; false when there are none. */
bool patching_take_held(pid_t *tid, int *status);

#endif
