/* A serving thread's end (docs/scaling.md, "A per-thread finish step"): what it
 * counted in its own thread-local state is published as sums, which main adds up
 * once every serving thread has ended, and what it holds is freed, so that a
 * thread that ends leaks nothing (LeakSanitizer runs in the tests).
 *
 *   serving thread                               main, after the serving threads
 *   serving_begin()     its load (CPU, run delay) read as it starts serving
 *   serving_end(&mine):
 *     tasks_flush_all   every image ended, to the writer; tables freed
 *     the sums          site history, serve times, call times, hand-offs,
 *                       its load since serving_begin -> mine
 *     site history, /proc/PID/maps descriptors, held statuses freed; its
 *     object cache taken out, returned
 *                                                serving_sums_add(&all, &mine)
 *                                                offload_finish
 *                                                objects_free(each cache)
 *                                                the summary
 *
 * The object caches go last: an image handed from one tracer thread to another
 * carries names of the sender's objects, and is written by the writer when the
 * receiver ends it.
 *
 * The stop cost, the options and the numbers set at start-up are the run's, not a
 * thread's: they stay. */
#ifndef SYSTRACE_SERVING_END_H
#define SYSTRACE_SERVING_END_H

#include "call_times.h"
#include "handoff.h"
#include "objects.h"
#include "serve_times.h"
#include "serving_load.h"
#include "site_history.h"

struct serving_sums {
	unsigned threads; /* the serving threads added */
	struct history_sums history;
	struct serve_sums serves;
	struct call_times_stats call_times;
	struct handoff_stats handoffs;
	struct serving_load load; /* from serving_begin to serving_end */
};

/* The calling serving thread's start of serving (its load is read from here). */
void serving_begin(void);
/* The calling serving thread's end: its sums into *s; its object cache, to be
 * freed (objects_free) once the writer is done. */
struct object **serving_end(struct serving_sums *s);
void serving_sums_add(struct serving_sums *sum, const struct serving_sums *s);

#endif
