/* Several serving threads (--tracer-threads=N; docs/scaling.md, "Several tracer
 * threads"). Each owns the tracees it attached, and their children (auto-attach),
 * serves them with its own state (_Thread_local), and waits for their statuses only
 * (__WNOTHREAD). A process moves from one thread to another at one moment only, its
 * exec event (handoff.h); the first thread, which forked the command, keeps it.
 *
 *   thread 1 (main)                       threads 2..N
 *   tracer_threads_start ---------------> placement_thread_start
 *   events_run                            events_run
 *     ... an exec event: handoff_park,      ... its inbox: the image taken
 *         tracer_threads_post(to, m) ---->      (handoff_take), served
 *     a termination signal (only thread        a forwarded signal: passed on to
 *     1 takes them): passed on, and   ---->     its own tracees
 *     posted to every other
 *     no tracee left (ECHILD):              no tracee left:
 *       tracer_threads_idle: waits for        the same
 *       its inbox, or for every thread
 *       idle with nothing in flight
 *   tracer_threads_join: the sums   <---- serving_end, its sums published
 *   serving_end
 *
 * A post wakes the receiver with SIGALRM (tgkill: its waitpid returns EINTR); a
 * wake-up that lands between its look at the inbox and its waitpid is taken at its
 * next tick (placement.h), at most 16 ms later. */
#ifndef SYSTRACE_TRACER_THREADS_H
#define SYSTRACE_TRACER_THREADS_H

#include <stdbool.h>
#include <sys/types.h>

#include "handoff.h"
#include "nested_msg.h"
#include "serving_end.h"

#define TRACER_THREADS_MAX 64

/* What one thread posts to another. */
enum inbox_kind { INBOX_IMAGE, INBOX_SIGNAL, INBOX_NESTED };
struct inbox_item {
	enum inbox_kind kind;
	struct handoff handoff; /* INBOX_IMAGE */
	struct nested_msg nested; /* INBOX_NESTED */
	int sig;                /* INBOX_SIGNAL: as signals_take_forward gave it */
	pid_t from;
	uint64_t at_ns;
	struct inbox_item *next;
};

/* --tracer-threads=auto, the default: how many serve where the run may use `cpus`
 * CPUs. */
unsigned tracer_threads_for_cpus(unsigned cpus);
/* In main, before the first serving thread serves and after its nice value is set
 * (tracer_nice.h; the others are made with it): n threads in all (the calling one
 * the first), the others running serve (events_run). */
void tracer_threads_start(unsigned n, void (*serve)(void));
/* How many serve, and which one the calling thread is (0: the first, or the only). */
unsigned tracer_threads_count(void);
unsigned tracer_threads_me(void);
/* Which serving thread has the thread id tid (a tracee's TracerPid), or -1. */
int tracer_threads_server_of(pid_t tid);
/* Where an image handed off at an exec event goes: the next thread under
 * SYSTRACE_TEST_HANDOFF=every-exec, else one much less busy than this one, if
 * any (the design's rule); -1: it stays. */
int tracer_threads_pick(void);
/* Posts item (copied) to thread `to`, and wakes it; a nested_ptrace message to a
 * thread that has ended is dropped (what another's flush at the end of the run
 * tells it). */
void tracer_threads_post(unsigned to, const struct inbox_item *item);
/* Every other thread's event loop turns (its waitpid returns EINTR). */
void tracer_threads_wake_others(void);
/* The first thread: item to every other. */
void tracer_threads_post_all(const struct inbox_item *item);
/* The calling thread's oldest item, if any. */
bool tracer_threads_take(struct inbox_item *item);
/* The calling thread has no tracee: waits for an item (true) or for the end of the
 * run, every thread without tracees and nothing posted that is not taken (false). */
bool tracer_threads_idle(void);
/* Every thread told to end (the run gives up: a third termination request). */
void tracer_threads_stop_all(void);
/* In main, before its own serving_end: the other threads joined, their sums added
 * into *sums and their object caches into caches[1..] (caches has
 * TRACER_THREADS_MAX); images posted and never taken (the run gave up) killed and
 * put in the calling thread's tables. */
void tracer_threads_join(struct serving_sums *sums, struct object **caches[]);

#endif
