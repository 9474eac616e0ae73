/* The tracer's side of the temporal log (--log; stats/log_format.h): the entries of
 * ptraced calls, written once their result is known, and those of in-process calls,
 * moved from each thread's buffer in the region (region.h) to the file. A thread's
 * buffer is emptied before any later entry of its own is written, so the file is in
 * time order per thread. No allocation per call: entries go through one fixed
 * buffer; only a site seen for the first time in the run costs a row of the sites
 * file. */
#ifndef SYSTRACE_SYSCALL_LOG_H
#define SYSTRACE_SYSCALL_LOG_H

#include <stdbool.h>
#include <stdint.h>

#include "tasks.h"

struct syscall_log_stats {
	uint64_t entries, inprocess_entries, bytes, sites, flushes;
	uint64_t tracer_ns;     /* the tracer's time spent on the log */
};

/* Creates DIR's log files; false with a message naming the file. */
bool syscall_log_open(const char *dir, char *err, size_t errlen);
bool syscall_log_on(void);
/* t entered a ptraced call, counted at site (an address in its image's table): its
 * entry waits in t for the result. */
void syscall_log_enter(struct thread *t, int index, uint64_t site);
/* The waiting call's result: its entry is written (the caller leaves out a result
 * that means "restarted", which keeps it waiting). */
void syscall_log_result(struct thread *t, int64_t ret);
/* t will not return from its waiting call (it ended, or a handler interrupted it):
 * its entry is written without a result. */
void syscall_log_unfinished(struct thread *t);
/* Moves t's in-process entries from its buffer to the file (their early flag as the
 * counts of the same calls are taken: tracer/library.c). */
void syscall_log_drain(struct thread *t);
/* The same, asked by t's log routine: its buffer is full. */
void syscall_log_flush(struct thread *t);
/* Stores ret into t's in-process entry whose mark is mark, if its place in the buffer
 * is still its own (for a thread taken out of the log routine by a signal:
 * tracer/signal_fixups.c); an entry already taken gets it in the file at once. True
 * if the entry got it (and counts its error). */
bool syscall_log_set_result(struct thread *t, uint64_t mark, int64_t ret);
/* At the exit stop of a call a signal took out of the log routine, restarted at its
 * stub's traced syscall (signal_fixups.c, leave_gate: t->log_left_mark): its entry
 * gets the result ret. True when the entry counts it (its error, as the entries'
 * are counted); false when this exit is not that call's, or its entry is gone. */
bool syscall_log_answer_left(struct thread *t, int64_t ret);
/* Takes back t's in-process entry whose mark is mark, whose call was not made (the log
 * routine will make it again: tracer/signal_fixups.c); false if the tracer took it already. */
bool syscall_log_unmark(struct thread *t, uint64_t mark);
/* Writes what is buffered and closes the files; false with a message. */
bool syscall_log_close(struct syscall_log_stats *st, char *err, size_t errlen);

#endif
