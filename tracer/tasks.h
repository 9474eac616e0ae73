/* The tracer's table of threads and process images. A thread belongs to one image;
 * an image lives until it has ended (exit or exec) and no thread refers to it, and
 * is then written out and freed, so memory follows the live processes. */
#ifndef SYSTRACE_TASKS_H
#define SYSTRACE_TASKS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "addr_space.h"
#include "image_record.h"
#include "log_format.h"
#include "output_dir.h"
#include "perf_counters.h"
#include "site_table.h"

struct libc_view;
struct object;
struct exec_setup;
struct image_times;

struct image {
	struct image_record rec;
	struct site_table sites;
	size_t unnamed_sites;
	int refs;             /* threads that point here */
	int live_threads;     /* threads that have not reached their exit stop */
	bool read_at_group_exit; /* events.c: named and timed at a whole-process exit */
	bool ended;
	bool hidden;          /* systrace's own child before it executes the command */
	uint64_t user_ns0, sys_ns0;     /* the group's times when the image began */
	/* the in-process path (library.c) */
	struct addr_space *as;          /* shared with threads, vfork and CLONE_VM children */
	bool owns_as;                   /* made it (exec, fork), rather than shares it */
	bool ready;                     /* its in-process path is up: sites may be patched */
	bool late;                      /* it has been up: calls are no longer early */
	struct perf_counters perf;      /* the process's; handed on at exec */
	struct libc_view *libc_calls;   /* --libc-calls: its libc and unwinder (libc_calls.c) */
	const struct object *exe_object; /* an exec'd image's executable, when known */
	uint64_t serial;                /* images in the order they began */
	struct image_times *times;      /* --time: its calls' ticks (call_times.c); NULL */
	bool own_filter;                /* a filter of the program's may be on its threads:
	                                   installed, or inherited (own_filter.h) */
	struct image *prev, *next;      /* the images not written yet */
	uint64_t own_copies;            /* events.c: the signals systrace was sent that it
	                                   had a copy of its own of, not passed on then */
	uint64_t copies_to_come;        /* of those, the ones seen pending: their delivery
	                                   stops are theirs */
	struct took { int sig; pid_t from; uint64_t at_ns; } took; /* events.c: the last
	                                   kill(2) signal it took that systrace had not
	                                   been sent (yet), from whom, when */
};

enum thread_state {
	THREAD_RUNNING,
	THREAD_AWAIT_INITIAL_STOP, /* new: its first stop is the attach stop */
};

struct thread {
	pid_t tid;
	enum thread_state state;
	struct image *img;
	bool exit_event_seen;
	int exec_index;                /* the execve it is in, counted at its exit; -1 */
	struct site_record exec_site;  /* named in the image that called it */
	bool exec_returned;            /* it failed, with exec_ret, which the pad left */
	int64_t exec_ret;
	uint64_t clone_flags;          /* of the clone-family call it is in */
	uint64_t stackless_landing;    /* made by a vfork through the gate's stackless
	                                  entry: where its creator's stub goes on, for
	                                  its own slot (patcher/stub.h); else 0 */
	bool creator_event_pending;    /* placed at its first stop, before its creator's event */
	bool gone;                     /* dead, kept only to absorb that event */
	bool held;                     /* stopped, its status waiting in events.c's queue */
	bool interrupted;              /* write_protocol.c asked it to stop (PTRACE_INTERRUPT) */
	bool in_vfork;                 /* resumed from its vfork event: asleep in the kernel
	                                  until its child execs or exits */
	bool sigreturn_armed;          /* its slot's word was armed at its last stop, and */
	unsigned handler_frames;       /* the frames of its handlers that may be live
	                                  (sigreturn_arm.h) */
	int slot;                      /* its counter slot in the region (%gs), or -1 */
	struct exec_setup *setup;      /* its image's set-up at exec, while it runs (early.c) */

	/* A syscall a signal interrupted: when the kernel restarts it, the second entry
	 * is the same call and is not counted again. */
	enum restart_state { RESTART_NONE, RESTART_NEXT, RESTART_IF_FRAME_SAYS } restart;
	enum restart_cause {
		RESTART_BY_SIGNAL,    /* the kernel's, after a signal: counted in `restarted` */
		RESTART_BY_INTERRUPT, /* the kernel's, after our PTRACE_INTERRUPT alone: not
		                         the program's (natively nothing stopped it) */
		RESTART_BY_REISSUE,   /* patching.c put the call back (restart_expect_reissue) */
	} restart_cause;
	uint64_t restart_site;
	long restart_nr;
	/* Its last seccomp stop was seen, and it may still be in that call (cleared
	 * once the call's end is known: its result, its creation event, its exec, a
	 * control call answered): at its exit event, a call it is in is then not one
	 * whose stop went unseen (events.c, count_unseen_entry). */
	bool entry_seen;
	/* A ptraced call whose result is still to come, for its error (results.h) */
	enum result_wait {
		RESULT_NONE,
		RESULT_EXPECTED,   /* counted at this stop; how to learn it not chosen yet */
		RESULT_AT_PAD,     /* sent back through the gate's return pad */
		RESULT_AT_EXIT,    /* resumed to its exit stop */
		RESULT_BY_EVENT,   /* a clone-family call: failed unless its event comes */
	} result_wait;
	int result_index;
	uint64_t result_site;
	/* An in-process call a caught signal took out of the gate before it returned
	 * (signal_fixups.c): its site, and its syscall index from its stub, which a
	 * restart_syscall the kernel put in its place does not say (results.h) */
	uint64_t left_gate_site;
	int left_gate_index;
	uint64_t moved_to;             /* where write_protocol.c moved it at this stop; 0 */
	/* own_filter.h: a call sent to its exit stop from the pad's address, for the
	 * program's filter to decide it there: where it returns (0: none); and the
	 * argument of a filter's installation pointed at the rewritten program */
	uint64_t recheck_return;
	bool filter_arg_moved;
	uint64_t filter_arg;
	uint64_t call_start;           /* --time: the TSC when its ptraced call was resumed;
	                                  0: none (call_times.h) */
	uint64_t intr_start, intr_end; /* --time: the call a signal interrupted with a
	                                  restart code: its start, and the signal's stop */
	/* placement.c: on the tracer's CPU or not, and how it has been stopping */
	bool pinned, own_affinity;
	unsigned quick_stops;
	uint64_t pin_after_ns;          /* not pinned again before (placement.c: crowded) */
	/* an affinity call resumed to its exit: a sched_getaffinity whose result is
	 * rewritten (into affinity_buf), a sched_setaffinity applied if it succeeds */
	enum { AFFINITY_NONE, AFFINITY_GET, AFFINITY_SET } affinity_call;
	uint64_t affinity_buf;
	pid_t affinity_target;
	uint64_t last_stop_ns, next_check_ns;
	uint64_t cpu_seen_ns, cpu_seen_at; /* its process's CPU time when last looked at */
	/* --log: its ptraced call's entry, waiting for the result (syscall_log.c) */
	struct log_entry log_waiting;
	bool log_is_waiting;
	/* in-process entries taken from its buffer before their result came (a handler's
	 * call emptied it meanwhile): the entry's number in the file, by seq, and its site */
	struct log_unanswered { uint64_t seq, number, site; uint32_t gen; struct log_entry entry; } log_unanswered[4];
	unsigned nlog_unanswered;
	/* the mark of its in-process entry whose call a signal took out of the log
	 * routine before it returned, and the call's site (signal_fixups.c); 0: none */
	uint64_t log_left_mark, log_left_site;
	/* A traced program's own ptrace of this thread (LeakSanitizer stopping the world),
	 * emulated by nested_ptrace.c: who attached it, the tid as that one named it,
	 * and systrace's own stop of it, kept while the program has it stopped */
	pid_t ptracer, ptracer_tgid, ptraced_as;
	enum nested_state { NESTED_NONE, NESTED_STOPPING, NESTED_STOPPED } nested;
	bool nested_reported;          /* its stop was given to the program's wait */
	int nested_status;
	/* ... and as that program: its wait for one of them, kept at its seccomp stop
	 * until the stop comes */
	pid_t waits_for;               /* 0: none */
	uint64_t wait_status_at;       /* where the wait status goes (0: nowhere) */
	/* the same across serving threads (--tracer-threads): NULL but while it has
	 * any (nested_ptrace.c) */
	struct nested_remote *remote;
	struct thread *hash_next;
	struct thread *live_prev, *live_next; /* every thread, oldest first (tasks.c) */
};

struct thread *thread_find(pid_t tid);
struct thread *thread_add(pid_t tid, struct image *img, enum thread_state state);
/* A thread alone in a new image, handed to another tracer thread at its exec event
 * (handoff.h): out of the calling thread's tables, its image too (thread_give), and
 * into the receiver's (thread_take). */
void thread_give(struct thread *t);
void thread_take(struct thread *t);
/* Moves a thread to another tid (a non-leader execve takes the leader's). */
void thread_rekey(struct thread *t, pid_t tid);
void thread_attach(struct thread *t, struct image *img);
/* Every live thread, oldest first; fn must not remove any. */
void tasks_for_each_thread(void (*fn)(struct thread *, void *), void *arg);
/* Whether another serving thread has a tracee, or one is on its way to it. */
bool tasks_traced_elsewhere(void);
/* Lets go of a thread's image, which is written out if that was the last reference. */
void thread_detach(struct thread *t);
/* Forgets a thread (detaching it first). */
void thread_remove(struct thread *t);

struct image *image_new(pid_t pid, unsigned image_no, pid_t ppid, char *exe);
/* The serial of the newest image so far. */
uint64_t tasks_last_serial(void);
/* Ends an image (end and code as in image_record); it is written once unreferenced. */
void image_end(struct image *img, enum image_end end, int code);
/* Ends it as a wait status says: exit:N or signal:N. */
void image_end_by_status(struct image *img, int wait_status);
/* Names the image's sites not named yet, and extra if not NULL, from the mappings
 * as seen by tid, a live thread of the image (a zombie leader has none). */
void image_name_sites(struct image *img, pid_t tid, struct site_record *extra);
/* Of those, the ones its memory's records name (planned sites: named when planned),
 * with no look at the mappings (an image whose memory an execve replaced). */
void image_name_sites_as_planned(struct image *img);
/* Reads the group's user and system time, and its counters, into the record (at its
 * last stop; again at a later one: the times since the image began, the counts
 * added). */
void image_take_times(struct image *img, pid_t pid);

/* What other parts do at the end of a thread's or an image's life, registered at
 * start (by main.c, in the order they must run), so that this table needs none of
 * them: a thread leaving its image (its death, its exec, the end of the run), and an
 * image complete (ended, every thread gone from it), just before it is written. */
typedef void thread_hook(struct thread *t);
typedef void image_hook(struct image *img);
void tasks_on_thread_leave(thread_hook *fn);
void tasks_on_image_complete(image_hook *fn);

/* Whether t is the only thread in its memory (another image sharing it, a vfork
 * child or its parent, counts as another). */
bool thread_alone_in_memory(const struct thread *t);

/* Ends every image still alive as running, hands them all to the writer
 * (offload.h) and frees the calling thread's tables. */
void tasks_flush_all(void);

#endif
