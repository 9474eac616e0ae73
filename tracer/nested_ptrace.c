#include "nested_ptrace.h"

#include <elf.h>
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include "grow_array.h"
#include "held_statuses.h"
#include "library.h"
#include "procfs.h"
#include "tid_marks.h"
#include "tracer_threads.h"

/* What wait4 says of a thread just attached: stopped by SIGSTOP. */
#define ATTACH_STOP_STATUS ((SIGSTOP << 8) | 0x7f)
/* The largest register set copied (the xsave area is a few KiB). */
#define REGSET_MAX (64 * 1024)
/* How deep pid namespaces are looked into (NSpid's fields). */
#define NS_DEPTH_MAX 32
/* An attach posted to a thread the target has left meanwhile (its exec handed it
 * on): its TracerPid read again, this many times in all. */
#define ATTACH_TRIES 3
/* An ATTACH's answer when the target is not the receiver's (any more). */
#define NOT_HERE (-(long)ESRCH - 1000)

/* What a thread has to do with other serving threads (nested_ptrace.h). */
struct remote_attached {
	pid_t name, target;
	unsigned server;
};
struct nested_remote {
	/* as a target attached from another serving thread: which, and a thread there
	 * waiting for its stop (0: none) */
	int tracer_server;
	pid_t waiter, waiter_tgid;
	uint64_t waiter_status_at;
	uint32_t waiter_seq;
	unsigned waiter_server;
	/* as a caller: its call posted (NESTED_OP_NONE: none), answered by seq */
	uint32_t seq;
	enum nested_op pending;
	pid_t pending_target, pending_name;
	unsigned pending_server, tries;
	uint64_t args[4];
	/* the threads it attached there */
	struct remote_attached *attached;
	size_t nattached, cap;
};

static void (*resume)(pid_t tid, int request, int sig);

void nested_setup(void (*resume_fn)(pid_t tid, int request, int sig))
{
	resume = resume_fn;
}

static pid_t tgid_of(const struct thread *t)
{
	return t->img->rec.pid;
}

static struct nested_remote *remote_of(struct thread *t)
{
	if (!t->remote) {
		if (!(t->remote = calloc(1, sizeof(*t->remote))))
			abort();
		t->remote->tracer_server = -1;
	}
	return t->remote;
}

/* The call returns ret without reaching the kernel, and t goes on. */
static void answer(struct thread *t, long ret)
{
	struct user_regs_struct regs;

	if (ptrace(PTRACE_GETREGS, t->tid, 0, &regs) == 0) {
		regs.orig_rax = (uint64_t)-1;
		regs.rax = (uint64_t)ret;
		ptrace(PTRACE_SETREGS, t->tid, 0, &regs);
	}
	resume(t->tid, PTRACE_CONT, 0);
}

static bool put(pid_t tid, uint64_t addr, const void *bytes, size_t len)
{
	struct iovec local = { (void *)bytes, len }, remote = { (void *)addr, len };

	return process_vm_writev(tid, &local, 1, &remote, 1, 0) == (ssize_t)len;
}

static bool get(pid_t tid, uint64_t addr, void *bytes, size_t len)
{
	struct iovec local = { bytes, len }, remote = { (void *)addr, len };

	return process_vm_readv(tid, &local, 1, &remote, 1, 0) == (ssize_t)len;
}

/* Looking for the thread a caller names, in the caller's pid namespace. */
struct lookup {
	const struct thread *caller;
	pid_t name;
	size_t depth;   /* the caller's NSpid fields: its namespace is the last */
	uint64_t ns;
	struct thread *found;
};

static void match_in_ns(struct thread *u, void *arg)
{
	struct lookup *l = arg;
	uint64_t ids[NS_DEPTH_MAX];

	if (!l->found && u->img && !u->gone && procfs_status_list(u->tid, "NSpid", ids, NS_DEPTH_MAX) == l->depth
	    && ids[l->depth - 1] == (uint64_t)l->name && procfs_pid_ns(u->tid) == l->ns)
		l->found = u;
}

/* The thread systrace traces that caller means by name, or NULL. */
static struct thread *named(const struct thread *caller, pid_t name)
{
	uint64_t ids[NS_DEPTH_MAX];
	struct lookup l = { caller, name, 0, 0, NULL };
	struct thread *u;

	if (name <= 0)
		return NULL;
	l.depth = procfs_status_list(caller->tid, "NSpid", ids, NS_DEPTH_MAX);
	if (l.depth <= 1) {
		u = thread_find(name); /* the tracer's own namespace */
		return u && u->img && !u->gone ? u : NULL;
	}
	l.ns = procfs_pid_ns(caller->tid);
	tasks_for_each_thread(match_in_ns, &l);
	return l.found;
}

/* The thread that a thread of caller's group attached under name (by_thread: that
 * very caller, as ptrace requests must come from), or NULL. */
struct attached {
	const struct thread *caller;
	pid_t name;
	bool by_thread;
	struct thread *found;
};

static void match_attached(struct thread *u, void *arg)
{
	struct attached *a = arg;

	if (!a->found && u->nested != NESTED_NONE && u->ptraced_as == a->name
	    && (a->by_thread ? u->ptracer == a->caller->tid : u->ptracer_tgid == tgid_of(a->caller)))
		a->found = u;
}

static struct thread *attached(const struct thread *caller, pid_t name, bool by_thread)
{
	struct attached a = { caller, name, by_thread, NULL };

	if (name > 0)
		tasks_for_each_thread(match_attached, &a);
	return a.found;
}

/* Whether caller may attach target as the kernel's rule has it, short of
 * capabilities: the same user and group throughout, or an effective uid of 0. */
static bool may_attach(pid_t caller, pid_t target)
{
	uint64_t cu[4], cg[4], tu[4], tg[4];

	if (procfs_status_list(caller, "Uid", cu, 4) != 4 || procfs_status_list(caller, "Gid", cg, 4) != 4
	    || procfs_status_list(target, "Uid", tu, 4) != 4 || procfs_status_list(target, "Gid", tg, 4) != 4)
		return false;
	if (cu[1] == 0)
		return true;
	for (int i = 0; i < 3; i++)
		if (tu[i] != cu[0] || tg[i] != cg[0])
			return false;
	return true;
}

/* Across serving threads: a message to another (nested_ptrace.h). */
static void post(unsigned to, const struct nested_msg *m)
{
	struct inbox_item item = { .kind = INBOX_NESTED, .nested = *m };

	item.nested.from = tracer_threads_me();
	tracer_threads_post(to, &item);
}

static void post_answer(unsigned to, pid_t caller, uint32_t seq, long ret)
{
	post(to, &(struct nested_msg){ .op = NESTED_OP_ANSWER, .caller = caller, .seq = seq, .ret = ret });
}

/* The thread of the program waiting for x, if any: of the process that has it
 * attached (one that waited before another attached it is not woken, as natively). */
struct waiter {
	pid_t for_tid, tgid;
	struct thread *found;
};

static void match_waiter(struct thread *u, void *arg)
{
	struct waiter *w = arg;

	if (!w->found && u->waits_for == w->for_tid && u->img && tgid_of(u) == w->tgid)
		w->found = u;
}

static struct thread *waiter_of(const struct thread *x)
{
	struct waiter w = { x->tid, x->ptracer_tgid, NULL };

	tasks_for_each_thread(match_waiter, &w);
	return w.found;
}

/* caller (tid, tgid; its thread on serving thread `server`) attaches x. Its
 * waits must then stop (library_waits_stop): no stub may make them in-process. */
static long attach(pid_t caller, pid_t caller_tgid, unsigned server, struct thread *x, pid_t name)
{
	if (tgid_of(x) == caller_tgid || x->nested != NESTED_NONE || x->exit_event_seen)
		return -EPERM;
	if (!may_attach(caller, x->tid))
		return -EPERM;
	x->ptracer = caller;
	x->ptracer_tgid = caller_tgid;
	x->ptraced_as = name;
	x->nested = NESTED_STOPPING;
	x->nested_reported = false;
	if (server != tracer_threads_me())
		remote_of(x)->tracer_server = (int)server;
	/* a stop already in the event loop's queue is the one kept */
	if (!x->held && ptrace(PTRACE_INTERRUPT, x->tid, 0, 0) == 0)
		x->interrupted = true;
	return 0;
}

/* x no longer the program's: a caller on another serving thread forgets it. (A
 * wait for it goes on, as natively: nothing wakes it.) */
static void unattach(struct thread *x)
{
	struct nested_remote *r = x->remote;

	if (r && r->tracer_server >= 0) {
		post((unsigned)r->tracer_server,
		     &(struct nested_msg){ .op = NESTED_OP_GONE, .caller = x->ptracer, .target = x->tid });
		r->tracer_server = -1;
	}
	x->nested = NESTED_NONE;
	x->ptracer = x->ptracer_tgid = x->ptraced_as = 0;
}

/* x gone, or dying (killed while kept): a wait for it fails (ECHILD). */
static void unattach_gone(struct thread *x)
{
	struct nested_remote *r = x->remote;
	struct thread *w;

	if (r && r->waiter && r->waiter_tgid == x->ptracer_tgid) {
		post_answer(r->waiter_server, r->waiter, r->waiter_seq, -ECHILD);
		r->waiter = 0;
	}
	if ((w = waiter_of(x))) {
		w->waits_for = 0;
		answer(w, -ECHILD);
	}
	unattach(x);
}

/* x no longer attached: the stop kept is handled as if it had just come. */
static void release(struct thread *x)
{
	bool stopped = x->nested == NESTED_STOPPED;

	unattach(x);
	if (stopped)
		held_status_push(x->tid, x->nested_status);
}

/* PTRACE_GETREGSET: the set into the caller's iovec, whose length says how much. */
static long copy_regset(pid_t caller, struct thread *x, uint64_t type, uint64_t iov_at)
{
	struct iovec theirs, mine;
	void *buf;
	long ret = 0;

	if (!get(caller, iov_at, &theirs, sizeof(theirs)))
		return -EFAULT;
	mine.iov_len = theirs.iov_len < REGSET_MAX ? theirs.iov_len : REGSET_MAX;
	if (!(buf = mine.iov_base = malloc(mine.iov_len ? mine.iov_len : 1)))
		abort();
	if (ptrace(PTRACE_GETREGSET, x->tid, (void *)type, &mine) < 0)
		ret = -errno;
	else if (!put(caller, (uint64_t)theirs.iov_base, buf, mine.iov_len)
		 || !put(caller, iov_at + offsetof(struct iovec, iov_len), &mine.iov_len, sizeof(mine.iov_len)))
		ret = -EFAULT;
	free(buf);
	return ret;
}

/* PTRACE_GETREGS, PTRACE_GETFPREGS: len bytes of x's registers at data. */
static long copy_regs(pid_t caller, struct thread *x, int request, uint64_t data, size_t len)
{
	union {
		struct user_regs_struct regs;
		struct user_fpregs_struct fpregs;
	} r;

	if (ptrace(request, x->tid, 0, &r) < 0)
		return -errno;
	return put(caller, data, &r, len) ? 0 : -EFAULT;
}

static long request(pid_t caller, struct thread *x, long req, const uint64_t *args)
{
	if (req == PTRACE_DETACH || req == PTRACE_KILL) {
		int sig = req == PTRACE_KILL ? SIGKILL : (int)args[3];

		if (sig > 0 && sig < NSIG)
			syscall(SYS_tgkill, tgid_of(x), x->tid, sig);
		release(x);
		return 0;
	}
	if (x->nested != NESTED_STOPPED)
		return -ESRCH; /* not stopped yet: as the kernel says */
	switch (req) {
	case PTRACE_GETREGS: return copy_regs(caller, x, PTRACE_GETREGS, args[3], sizeof(struct user_regs_struct));
	case PTRACE_GETFPREGS: return copy_regs(caller, x, PTRACE_GETFPREGS, args[3], sizeof(struct user_fpregs_struct));
	case PTRACE_GETREGSET: return copy_regset(caller, x, args[2], args[3]);
	default: return -EIO; /* not emulated */
	}
}

/* Whether a wait for x has its stop to take now: kept, and not reported yet. */
static bool stop_to_report(const struct thread *x)
{
	return x->nested == NESTED_STOPPED && !x->nested_reported;
}

/* x's stop reported to a wait: the status written where the wait wants it. */
static void report_stop(pid_t waiter, uint64_t status_at, struct thread *x)
{
	int status = ATTACH_STOP_STATUS;

	if (status_at)
		put(waiter, status_at, &status, sizeof(status));
	x->nested_reported = true;
}

/* Whether the thread ids caller names are systrace's too: its pid namespace. */
static bool names_are_ours(const struct thread *caller)
{
	uint64_t ids[NS_DEPTH_MAX];

	return procfs_status_list(caller->tid, "NSpid", ids, NS_DEPTH_MAX) <= 1;
}

/* The serving thread whose tracee caller names, when it is not this one, or -1:
 * its TracerPid, read in systrace's pid namespace, where the caller must be. */
static int server_of_name(const struct thread *caller, pid_t name)
{
	uint64_t tracer;
	int to;

	if (tracer_threads_count() == 1 || name <= 0 || !names_are_ours(caller)
	    || !procfs_status_u64(name, "TracerPid", 10, &tracer) || (to = tracer_threads_server_of((pid_t)tracer)) < 0
	    || (unsigned)to == tracer_threads_me())
		return -1;
	return to;
}

/* The calls this serving thread posted: an answer is matched to its call by this
 * number (never reset: a thread's record, and its tid, may be another's by the time
 * a late answer comes). */
static _Thread_local uint32_t calls_posted;

/* Whether the thread caller names is between two serving threads (handoff.h):
 * detached by one, not yet seized by the other, traced by no one. */
static bool parked(const struct thread *caller, pid_t name)
{
	return tracer_threads_count() > 1 && name > 0 && (tid_marks(name) & TID_PARKED) && names_are_ours(caller);
}

/* An attach that met its target parked waits for the receiver's seize, its caller
 * kept at its seccomp stop, and is made again at a later turn of the event loop
 * (nested_look_again): the receiver wakes the serving threads once it took the
 * image (nested_handoff_taken), their ticks are the backstop. Natively an attach
 * of a process in the middle of its exec works. One never taken after
 * PARKED_WAIT_NS is refused (EPERM), as the kernel refuses systrace's tracees. */
#define PARKED_WAIT_NS (2ull * 1000 * 1000 * 1000)
struct parked_attach {
	pid_t caller, name;
	uint64_t args[4];
	uint64_t until; /* monotonic_ns */
};
static _Thread_local struct parked_attach *parked_attaches;
static _Thread_local size_t nparked, parked_cap;
static atomic_uint attaches_waiting; /* in every serving thread's list */

static void wait_for_seize(const struct thread *t, pid_t name, const uint64_t *args)
{
	struct parked_attach *a;

	parked_attaches = grow_array(parked_attaches, &parked_cap, nparked, sizeof(*parked_attaches));
	a = &parked_attaches[nparked++];
	*a = (struct parked_attach){ .caller = t->tid, .name = name, .until = monotonic_ns() + PARKED_WAIT_NS };
	memcpy(a->args, args, sizeof(a->args));
	atomic_fetch_add(&attaches_waiting, 1);
}

void nested_handoff_taken(void)
{
	if (atomic_load(&attaches_waiting))
		tracer_threads_wake_others();
}

/* Whether t is still at the seccomp stop it was kept at: SIGKILL takes a thread out
 * of any stop to its exit stop, which must not be resumed before its event is seen
 * (events.c's seccomp_stop_gone). */
static bool still_kept(pid_t tid)
{
	siginfo_t si;

	return ptrace(PTRACE_GETSIGINFO, tid, 0, &si) == 0 && si.si_code == (SIGTRAP | (PTRACE_EVENT_SECCOMP << 8));
}

/* Entry i out of the list (the last in its place); the list freed once empty. */
static void parked_attach_drop(size_t i)
{
	parked_attaches[i] = parked_attaches[--nparked];
	atomic_fetch_sub(&attaches_waiting, 1);
	if (!nparked) {
		free(parked_attaches);
		parked_attaches = NULL;
		parked_cap = 0;
	}
}

/* t's call op on target (as it named it) posted to its serving thread; t stays at
 * its seccomp stop until the answer. */
static void send(struct thread *t, enum nested_op op, unsigned to, pid_t target, pid_t name, const uint64_t *args)
{
	struct nested_remote *r = remote_of(t);
	struct nested_msg m = { .op = op, .caller = t->tid, .caller_tgid = tgid_of(t), .target = target,
				.name = name, .seq = ++calls_posted };

	r->seq = m.seq;
	r->pending = op;
	r->pending_target = target;
	r->pending_name = name;
	r->pending_server = to;
	memcpy(r->args, args, sizeof(r->args));
	memcpy(m.args, args, sizeof(m.args));
	post(to, &m);
}

static struct remote_attached *remote_entry(const struct thread *t, pid_t name)
{
	for (size_t i = 0; t->remote && i < t->remote->nattached; i++)
		if (t->remote->attached[i].name == name)
			return &t->remote->attached[i];
	return NULL;
}

static void remote_drop(struct thread *t, struct remote_attached *e)
{
	*e = t->remote->attached[--t->remote->nattached];
}

/* A thread of caller's process that attached name on another serving thread. */
struct remote_lookup {
	const struct image *img;
	pid_t name;
	const struct remote_attached *found;
};

static void match_remote(struct thread *u, void *arg)
{
	struct remote_lookup *l = arg;

	if (!l->found && u->img == l->img)
		l->found = remote_entry(u, l->name);
}

/* t's attach of name: answered here, posted to the serving thread that has the
 * target, or kept until it is no longer between two (parked, traced by none: the
 * kernel's attach would take it from systrace); false when it is not systrace's,
 * for the kernel to decide. */
static bool try_attach(struct thread *t, pid_t name, const uint64_t *args)
{
	struct thread *x = named(t, name);
	long ret;
	int to;

	if (x) {
		if ((ret = attach(t->tid, tgid_of(t), tracer_threads_me(), x, name)) == 0)
			library_waits_stop(t);
		answer(t, ret);
	} else if ((to = server_of_name(t, name)) >= 0) {
		send(t, NESTED_OP_ATTACH, (unsigned)to, name, name, args);
	} else if (parked(t, name)) {
		wait_for_seize(t, name, args);
	} else {
		return false;
	}
	return true;
}

void nested_look_again(void)
{
	for (size_t i = 0; i < nparked;) {
		struct parked_attach a = parked_attaches[i];
		struct thread *t = thread_find(a.caller);
		/* (the caller's names were found to be systrace's when it was kept) */
		bool still_parked = tid_marks(a.name) & TID_PARKED;

		if (t && still_parked && monotonic_ns() < a.until) {
			i++;
			continue;
		}
		parked_attach_drop(i); /* (try_attach may add one again) */
		if (!t || !still_kept(t->tid))
			continue; /* gone, or on its way out: its exit event comes */
		if (still_parked)
			answer(t, -EPERM); /* never taken */
		else if (!try_attach(t, a.name, a.args))
			/* not systrace's any more: gone, or the receiver let it go */
			answer(t, kill(a.name, 0) == 0 || errno == EPERM ? -EPERM : -ESRCH);
	}
}

/* A request to become a tracer that is not emulated and that the kernel refuses
 * (EPERM): PTRACE_TRACEME (the caller has systrace as its tracer already), or
 * PTRACE_SEIZE of one of systrace's tracees. Said once, so that the program's
 * "Operation not permitted" has a reason. */
static void say_refused(const struct thread *t, long req)
{
	static atomic_bool said; /* once for the run, whichever tracer thread */
	const char *exe = t->img && t->img->rec.exe ? t->img->rec.exe : "?";

	if (atomic_exchange(&said, true))
		return;
	fprintf(stderr, "systrace: warning: %s (pid %d) asks to trace a process (ptrace %s), which the kernel "
			"refuses with EPERM: systrace is the tracer of every process of the command, and emulates "
			"ptrace only as LeakSanitizer uses it; debuggers and tracers cannot run under systrace "
			"(README, Limits)\n",
		exe, (int)tgid_of(t), req == PTRACE_TRACEME ? "PTRACE_TRACEME" : "PTRACE_SEIZE");
}

static bool on_ptrace(struct thread *t, const uint64_t *args)
{
	long req = (long)args[0];
	pid_t name = (pid_t)args[1];
	struct remote_attached *e;
	struct thread *x;

	if (req == PTRACE_SEIZE && parked(t, name)) {
		say_refused(t, req);
		answer(t, -EPERM); /* the kernel would give it: traced by no one, parked */
		return true;
	}
	if (req == PTRACE_TRACEME || (req == PTRACE_SEIZE && (named(t, name) || server_of_name(t, name) >= 0))) {
		say_refused(t, req);
		return false; /* the kernel's answer */
	}
	if (req == PTRACE_ATTACH) {
		if (t->remote)
			t->remote->tries = 0;
		return try_attach(t, name, args);
	}
	if ((x = attached(t, name, true))) {
		answer(t, request(t->tid, x, req, args));
		return true;
	}
	if (!(e = remote_entry(t, name)))
		return false;
	send(t, NESTED_OP_REQUEST, e->server, e->target, name, args);
	if (req == PTRACE_DETACH || req == PTRACE_KILL)
		remote_drop(t, e);
	return true;
}

/* The waiting caller w gets x's stop. */
static void give_stop(struct thread *w, struct thread *x)
{
	report_stop(w->tid, w->wait_status_at, x);
	w->waits_for = 0;
	answer(w, x->ptraced_as);
}

static bool on_wait4(struct thread *t, const uint64_t *args)
{
	struct thread *x = attached(t, (pid_t)args[0], false);
	struct remote_lookup l = { t->img, (pid_t)args[0], NULL };
	bool ready;

	if (!x) {
		if ((pid_t)args[0] > 0 && tracer_threads_count() > 1)
			tasks_for_each_thread(match_remote, &l);
		if (!l.found)
			return false; /* its own children, or anything: the kernel's */
		send(t, NESTED_OP_WAIT, l.found->server, l.found->target, l.name, args);
		return true;
	}
	ready = stop_to_report(x);
	t->waits_for = x->tid;
	t->wait_status_at = args[1];
	if (ready)
		give_stop(t, x);
	else if (args[2] & WNOHANG) {
		t->waits_for = 0;
		answer(t, 0);
	}
	/* else kept at its seccomp stop until x stops (nested_holds) */
	return true;
}

bool nested_on_call(struct thread *t, long nr, const uint64_t *args)
{
	if (nr == SYS_ptrace)
		return on_ptrace(t, args);
	if (nr == SYS_wait4)
		return on_wait4(t, args);
	return false;
}

bool nested_holds(struct thread *t, int status)
{
	struct nested_remote *r = t->remote;
	struct thread *w;

	if (t->nested == NESTED_NONE || !WIFSTOPPED(status))
		return false;
	if (t->nested == NESTED_STOPPED) {
		/* it moved though stopped (SIGKILL takes a thread out of any stop): what
		 * was kept is stale, and it is no longer the program's */
		unattach_gone(t);
		return false;
	}
	t->nested = NESTED_STOPPED;
	t->nested_status = status;
	if ((w = waiter_of(t)))
		give_stop(w, t);
	else if (r && r->waiter && r->waiter_tgid == t->ptracer_tgid) {
		report_stop(r->waiter, r->waiter_status_at, t);
		post_answer(r->waiter_server, r->waiter, r->waiter_seq, t->ptraced_as);
		r->waiter = 0;
	}
	return true;
}

static void detach_from(struct thread *u, void *tracer)
{
	/* (its own wait, if it waited for u, is over: it is gone) */
	if (u->remote && u->remote->waiter == *(pid_t *)tracer)
		u->remote->waiter = 0;
	if (u->nested != NESTED_NONE && u->ptracer == *(pid_t *)tracer)
		release(u);
}

/* What t had to do with other serving threads as a caller, ended with it: the
 * threads it attached there (and the one its posted call may attach) go on. */
static void remote_leaves(struct thread *t)
{
	struct nested_remote *r = t->remote;
	bool told[TRACER_THREADS_MAX] = { false };
	struct nested_msg left = { .op = NESTED_OP_LEFT, .caller = t->tid };

	for (size_t i = 0; i < r->nattached; i++)
		told[r->attached[i].server] = true;
	if (r->pending != NESTED_OP_NONE)
		told[r->pending_server] = true;
	for (unsigned i = 0; i < TRACER_THREADS_MAX; i++)
		if (told[i])
			post(i, &left);
	free(r->attached);
	free(r);
	t->remote = NULL;
}

void nested_thread_leaves(struct thread *t)
{
	t->waits_for = 0; /* (not answered: it is gone, or past the call) */
	for (size_t i = 0; i < nparked;)
		if (parked_attaches[i].caller == t->tid)
			parked_attach_drop(i);
		else
			i++;
	tasks_for_each_thread(detach_from, &t->tid);
	if (t->nested != NESTED_NONE)
		unattach_gone(t);
	if (t->remote)
		remote_leaves(t);
}

/* The target's serving thread: an attach, a request or a wait posted for it;
 * false when its answer comes later (a wait, when the target stops). */
static bool on_posted_call(const struct nested_msg *m, long *ret)
{
	struct thread *x = thread_find(m->target);

	if (m->op == NESTED_OP_ATTACH)
		*ret = x && x->img && !x->gone ? attach(m->caller, m->caller_tgid, m->from, x, m->name) : NOT_HERE;
	else if (m->op == NESTED_OP_REQUEST)
		*ret = x && x->nested != NESTED_NONE && x->ptracer == m->caller ? request(m->caller, x, (long)m->args[0], m->args)
										  : -ESRCH;
	else if (!x || x->nested == NESTED_NONE || x->ptracer_tgid != m->caller_tgid)
		*ret = -ECHILD;
	else if (stop_to_report(x)) {
		report_stop(m->caller, m->args[1], x);
		*ret = x->ptraced_as;
	} else if (m->args[2] & WNOHANG)
		*ret = 0;
	else {
		remote_of(x)->waiter = m->caller;
		x->remote->waiter_tgid = m->caller_tgid;
		x->remote->waiter_status_at = m->args[1];
		x->remote->waiter_seq = m->seq;
		x->remote->waiter_server = m->from;
		return false;
	}
	return true;
}

/* The caller's serving thread: the answer to t's posted call. */
static void on_answer(struct thread *t, long ret)
{
	struct nested_remote *r = t->remote;
	enum nested_op op = r->pending;
	struct remote_attached *e;

	r->pending = NESTED_OP_NONE;
	if (op == NESTED_OP_ATTACH && ret == NOT_HERE) {
		/* it moved on (its exec handed it to another thread): where is it now */
		if (++r->tries < ATTACH_TRIES && try_attach(t, r->pending_name, r->args))
			return;
		ret = -ESRCH;
	}
	if (op == NESTED_OP_ATTACH && ret == 0) {
		library_waits_stop(t);
		if ((e = remote_entry(t, r->pending_name)))
			remote_drop(t, e); /* (one it had under that name is gone) */
		r->attached = grow_array(r->attached, &r->cap, r->nattached, sizeof(*r->attached));
		r->attached[r->nattached++] = (struct remote_attached){ r->pending_name, r->pending_target, r->pending_server };
	}
	answer(t, ret);
}

void nested_on_message(const struct nested_msg *m)
{
	struct thread *t;
	struct remote_attached *e;
	long ret;

	switch (m->op) {
	case NESTED_OP_ATTACH:
	case NESTED_OP_REQUEST:
	case NESTED_OP_WAIT:
		if (on_posted_call(m, &ret))
			post_answer(m->from, m->caller, m->seq, ret);
		break;
	case NESTED_OP_LEFT:
		tasks_for_each_thread(detach_from, (void *)&m->caller);
		break;
	case NESTED_OP_ANSWER:
		/* (a caller gone, or past that call, has no use for it) */
		if ((t = thread_find(m->caller)) && t->remote && t->remote->pending != NESTED_OP_NONE
		    && t->remote->seq == m->seq && t->remote->pending_server == m->from)
			on_answer(t, m->ret);
		break;
	case NESTED_OP_GONE:
		for (size_t i = 0; (t = thread_find(m->caller)) && t->remote && i < t->remote->nattached;)
			if ((e = &t->remote->attached[i])->target == m->target && e->server == m->from)
				remote_drop(t, e);
			else
				i++;
		break;
	case NESTED_OP_NONE:
		break;
	}
}
