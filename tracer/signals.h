/* systrace's own signals: termination requests are passed on to the traced command
 * (whose counts are then written completely), job-control stops are the command's
 * (systrace stops when the command does, after its tracees have taken theirs), and
 * the command starts with the signal state systrace was given. */
#ifndef SYSTRACE_SIGNALS_H
#define SYSTRACE_SIGNALS_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* Remembers the inherited dispositions and installs systrace's handlers. */
void signals_setup(void);
/* The signals those handlers take (termination, job-control stops, SIGCONT), into
 * set: the serving threads but the first block them. */
void signals_taken(sigset_t *set);
/* In the command's child, before execve: the inherited dispositions and mask. */
void signals_restore_inherited(void);
/* A termination request sent to systrace and not passed on yet, or 0; *from is its
 * sender's pid when it came from kill(2), which may have sent it to a whole process
 * group, else -1; *at_ns when it arrived (CLOCK_MONOTONIC). */
int signals_take_forward(pid_t *from, uint64_t *at_ns);
/* The same for a job-control stop (SIGTSTP, SIGTTIN, SIGTTOU) not sent by the
 * terminal: the command's to take. */
int signals_take_stop_forward(pid_t *from, uint64_t *at_ns);
/* Whether systrace passes sig on when it is sent one (termination, job-control
 * stops). */
bool signals_passed_on(int sig);
/* Whether sig from that sender (-1 for none) is waiting to be passed on. */
bool signals_forward_pending(int sig, pid_t from);

/* Set by the handlers, read by the event loop. */
extern volatile sig_atomic_t signals_give_up;         /* a third termination request */
extern volatile sig_atomic_t signals_last_termination;
extern volatile sig_atomic_t signals_job_stop;           /* the last SIGTSTP, SIGTTIN or SIGTTOU */
extern volatile sig_atomic_t signals_job_stop_forwarded; /* it was not the terminal's */
extern volatile sig_atomic_t signals_continued;          /* SIGCONTs received */

/* Stops systrace with sig, as a shell expects of a job whose command stopped,
 * unless a SIGCONT came since signals_continued read `continued` (the job was
 * continued before systrace could stop: natively it runs); returns when it is
 * continued. */
void signals_stop_self(int sig, sig_atomic_t continued);

#endif
