/* Syscalls the kernel restarts after a signal. A signal that arrives while a thread
 * is blocked in a syscall makes the kernel leave it with -ERESTART*, deliver the
 * signal (under ptrace even an ignored one, such as SIGCHLD), and enter the same
 * syscall again, which stops the tracer a second time. The program made one call:
 * the second entry is recognised here and counted as a restart, not as a call. */
#ifndef SYSTRACE_RESTARTS_H
#define SYSTRACE_RESTARTS_H

#include <stdbool.h>
#include <stdint.h>

#include <sys/user.h>

#include "procfs.h"
#include "stub.h" /* the signal frame's layout */
#include "tasks.h"

/* -ERESTARTNOINTR's code: the call is entered again, whatever the handler. */
#define RESTART_CODE_NOINTR 513

/* Whether a syscall's return value is one of the kernel's -ERESTART* codes, which
 * a program never sees: the call is entered again (or returns EINTR). */
bool restart_is_code(long ret);
/* At a signal-delivery stop (d, with the thread's registers as they are now): notes
 * a syscall the signal interrupted. */
void restart_note_signal(struct thread *t, struct delivery *d, const struct user_regs_struct *regs);
/* At a PTRACE_EVENT_STOP (ours: write_protocol.c's PTRACE_INTERRUPT; else a group-stop):
 * a thread stopped out of a blocking call enters it again when resumed; one that
 * would see EINTR because of our stop alone is made to enter it again. Calls
 * through the gate are not seen again and need nothing. (Sites here are as
 * as_site_of gives them: a stub's own syscall stands for its site.) */
void restart_note_interrupt(struct thread *t, bool ours);
/* Whether a call that returned ret at an interrupt stop of ours is made again by
 * restart_note_interrupt: EINTR with no signal waiting (the stop caused it). */
bool restart_remakes_eintr(const struct thread *t, long ret);
/* At the thread's rt_sigreturn, with its stack pointer: a handler ran, and the frame
 * it returns to says whether the interrupted call is entered again. True if it
 * says the call returned EINTR instead (the call: t->restart_site, restart_nr). */
bool restart_note_sigreturn(struct thread *t, uint64_t stack_pointer);
/* patching.c borrowed the thread at its call at site (raw_nr) and put the call
 * back: its next entry there is that call again, even after a handler's (which the
 * signal and frame logic here follow as for a kernel restart). */
void restart_expect_reissue(struct thread *t, uint64_t site, long raw_nr);
/* At a seccomp stop: true if this entry is the restart of the interrupted call
 * (raw_nr as the kernel reports it; is_restart_syscall for restart_syscall). */
bool restart_is_repeat(struct thread *t, uint64_t site, long raw_nr, bool is_restart_syscall);

/* The rules behind the restart_note_* above, on what they read of the thread (pure,
 * for the unit tests): nr is orig_rax (-1 outside a syscall), ret rax, and a site
 * the site of an address as as_site_of gives it. */
/* At a signal-delivery stop; caught: the thread has a handler for the signal. */
void restart_rule_signal(struct thread *t, long nr, long ret, uint64_t site, bool caught);
/* At an interrupt or group stop (at_gate: the call was made through the gate; ours:
 * an interrupt of write_protocol.c). */
void restart_rule_interrupt(struct thread *t, long nr, long ret, uint64_t site, bool at_gate, bool ours);
/* At rt_sigreturn: the frame holds saved_rax and a rip whose site is rip_site, and
 * whose site two bytes back (the syscall it returns past) is before_rip_site. True
 * when the interrupted call returned EINTR. */
bool restart_rule_frame(struct thread *t, long saved_rax, uint64_t rip_site, uint64_t before_rip_site);

#endif
