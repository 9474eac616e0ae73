/* systrace-stats export: the run as Chrome/Perfetto trace-event JSON, streamed (the
 * "traceEvents" array format that ui.perfetto.dev and chrome://tracing open). */
#ifndef SYSTRACE_TRACE_EXPORT_H
#define SYSTRACE_TRACE_EXPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "run_tables.h"

struct trace_writer {
	FILE *out;
	uint64_t base_ns;  /* time 0 of the trace: the earliest start */
	uint64_t events;
};

/* Starts an event object ({ with its separator); the caller writes its members and
 * the closing brace. */
void trace_event_begin(struct trace_writer *w);

/* What the log part did, for the metadata. */
struct log_export_result {
	bool present;            /* DIR had the temporal log */
	uint64_t in_log, written, unmatched;  /* unmatched: pid with no process row */
	bool capped;             /* entries left unread by --max-syscalls */
	bool truncated;          /* the log ends inside an entry */
};

/* Writes an event per syscall of DIR's temporal log (if it has one), at most
 * max_syscalls, on the track of the process row each one belongs to. -1 with a
 * message on a bad log. */
int export_log_events(struct trace_writer *w, const char *dir, const struct process_table *t,
		      uint64_t max_syscalls, struct log_export_result *result, char *err, size_t errlen);
/* ts: ns since the base, as microseconds (a time before the base is 0). */
void trace_ts(struct trace_writer *w, uint64_t ns);

#endif
