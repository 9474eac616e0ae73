/* A few bits per thread id that every serving thread can read and set: what one
 * serving thread must know of a tracee another one owns (docs/scaling.md, "Who owns
 * what": each thread's tables are its own): placement's (a traced program's
 * sched_getaffinity or sched_setaffinity may name a thread that another serving
 * thread keeps on its CPU), and the hand-off's (a program's ptrace attach must not
 * reach the kernel while the target is traced by no serving thread). A byte per tid up to the kernel's pid_max, each mark set
 * and cleared atomically; a page of them is made only when one of its tids is
 * marked (placement pins few: at most pid_max bytes, 4 MB where pid_max is
 * 4,194,304, however long the run). */
#ifndef SYSTRACE_TID_MARKS_H
#define SYSTRACE_TID_MARKS_H

#include <stdint.h>
#include <sys/types.h>

enum tid_mark {
	TID_PINNED = 1,       /* placement keeps it on its owner's CPU */
	TID_OWN_PENDING = 2,  /* a sched_setaffinity of it is under way */
	TID_OWN_AFFINITY = 4, /* a sched_setaffinity of it succeeded: its own choice */
	TID_PARKED = 8,       /* between two serving threads, traced by none (handoff.h) */
};

/* Once, before any serving thread starts (the table, sized by pid_max); without it
 * (no memory, no /proc) every tid reads no mark. */
void tid_marks_setup(void);
uint8_t tid_marks(pid_t tid);
void tid_mark_set(pid_t tid, uint8_t marks);
void tid_mark_clear(pid_t tid, uint8_t marks);
/* A thread gone, or new: none. */
void tid_marks_forget(pid_t tid);
/* A thread that took another tid (a non-leader's exec: the leader's): its marks go
 * with it. */
void tid_marks_move(pid_t from, pid_t to);

#endif
