#include "nested_ptrace.h"

#include <elf.h>
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include "held_statuses.h"
#include "library.h"
#include "procfs.h"

/* What wait4 says of a thread just attached: stopped by SIGSTOP. */
#define ATTACH_STOP_STATUS ((SIGSTOP << 8) | 0x7f)
/* The largest register set copied (the xsave area is a few KiB). */
#define REGSET_MAX (64 * 1024)
/* How deep pid namespaces are looked into (NSpid's fields). */
#define NS_DEPTH_MAX 32

static void (*resume)(pid_t tid, int request, int sig);

void nested_setup(void (*resume_fn)(pid_t tid, int request, int sig))
{
	resume = resume_fn;
}

static pid_t tgid_of(const struct thread *t)
{
	return t->img->rec.pid;
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

static long attach(struct thread *t, struct thread *x, pid_t name)
{
	if (tgid_of(x) == tgid_of(t) || x->nested != NESTED_NONE || x->exit_event_seen)
		return -EPERM;
	if (!may_attach(t->tid, x->tid))
		return -EPERM;
	/* its waits must stop here: no stub may make them in-process */
	library_waits_stop(t);
	x->ptracer = t->tid;
	x->ptracer_tgid = tgid_of(t);
	x->ptraced_as = name;
	x->nested = NESTED_STOPPING;
	x->nested_reported = false;
	/* a stop already in the event loop's queue is the one kept */
	if (!x->held && ptrace(PTRACE_INTERRUPT, x->tid, 0, 0) == 0)
		x->interrupted = true;
	return 0;
}

/* x no longer attached: the stop kept is handled as if it had just come. */
static void release(struct thread *x)
{
	bool stopped = x->nested == NESTED_STOPPED;

	x->nested = NESTED_NONE;
	x->ptracer = x->ptracer_tgid = x->ptraced_as = 0;
	if (stopped)
		held_status_push(x->tid, x->nested_status);
}

/* PTRACE_GETREGSET: the set into the caller's iovec, whose length says how much. */
static long copy_regset(struct thread *t, struct thread *x, uint64_t type, uint64_t iov_at)
{
	struct iovec theirs, mine;
	void *buf;
	long ret = 0;

	if (!get(t->tid, iov_at, &theirs, sizeof(theirs)))
		return -EFAULT;
	mine.iov_len = theirs.iov_len < REGSET_MAX ? theirs.iov_len : REGSET_MAX;
	if (!(buf = mine.iov_base = malloc(mine.iov_len ? mine.iov_len : 1)))
		abort();
	if (ptrace(PTRACE_GETREGSET, x->tid, (void *)type, &mine) < 0)
		ret = -errno;
	else if (!put(t->tid, (uint64_t)theirs.iov_base, buf, mine.iov_len)
		 || !put(t->tid, iov_at + offsetof(struct iovec, iov_len), &mine.iov_len, sizeof(mine.iov_len)))
		ret = -EFAULT;
	free(buf);
	return ret;
}

/* PTRACE_GETREGS, PTRACE_GETFPREGS: len bytes of x's registers at data. */
static long copy_regs(struct thread *t, struct thread *x, int request, uint64_t data, size_t len)
{
	union {
		struct user_regs_struct regs;
		struct user_fpregs_struct fpregs;
	} r;

	if (ptrace(request, x->tid, 0, &r) < 0)
		return -errno;
	return put(t->tid, data, &r, len) ? 0 : -EFAULT;
}

static long request(struct thread *t, struct thread *x, long req, const uint64_t *args)
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
	case PTRACE_GETREGS: return copy_regs(t, x, PTRACE_GETREGS, args[3], sizeof(struct user_regs_struct));
	case PTRACE_GETFPREGS: return copy_regs(t, x, PTRACE_GETFPREGS, args[3], sizeof(struct user_fpregs_struct));
	case PTRACE_GETREGSET: return copy_regset(t, x, args[2], args[3]);
	default: return -EIO; /* not emulated */
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
	struct thread *x;

	if (req == PTRACE_TRACEME || (req == PTRACE_SEIZE && named(t, name))) {
		say_refused(t, req);
		return false; /* the kernel's answer */
	}
	if (req == PTRACE_ATTACH) {
		if (!(x = named(t, name)))
			return false; /* not systrace's: the kernel decides */
		answer(t, attach(t, x, name));
		return true;
	}
	if (!(x = attached(t, name, true)))
		return false;
	answer(t, request(t, x, req, args));
	return true;
}

/* The waiting caller w gets x's stop. */
static void give_stop(struct thread *w, struct thread *x)
{
	int status = ATTACH_STOP_STATUS;

	if (w->wait_status_at)
		put(w->tid, w->wait_status_at, &status, sizeof(status));
	x->nested_reported = true;
	w->waits_for = 0;
	answer(w, x->ptraced_as);
}

static bool on_wait4(struct thread *t, const uint64_t *args)
{
	struct thread *x = attached(t, (pid_t)args[0], false);
	bool ready;

	if (!x)
		return false; /* its own children, or anything: the kernel's */
	ready = x->nested == NESTED_STOPPED && !x->nested_reported;
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

/* The thread of the program waiting for x, if any. */
struct waiter {
	pid_t for_tid;
	struct thread *found;
};

static void match_waiter(struct thread *u, void *arg)
{
	struct waiter *w = arg;

	if (!w->found && u->waits_for == w->for_tid)
		w->found = u;
}

static struct thread *waiter_of(const struct thread *x)
{
	struct waiter w = { x->tid, NULL };

	tasks_for_each_thread(match_waiter, &w);
	return w.found;
}

bool nested_holds(struct thread *t, int status)
{
	struct thread *w;

	if (t->nested == NESTED_NONE || !WIFSTOPPED(status))
		return false;
	if (t->nested == NESTED_STOPPED) {
		/* it moved though stopped (SIGKILL takes a thread out of any stop): what
		 * was kept is stale, and it is no longer the program's */
		t->nested = NESTED_NONE;
		t->ptracer = t->ptracer_tgid = t->ptraced_as = 0;
		return false;
	}
	t->nested = NESTED_STOPPED;
	t->nested_status = status;
	if ((w = waiter_of(t)))
		give_stop(w, t);
	return true;
}

static void detach_from(struct thread *u, void *tracer)
{
	if (u->nested != NESTED_NONE && u->ptracer == *(pid_t *)tracer)
		release(u);
}

void nested_thread_leaves(struct thread *t)
{
	struct thread *w;

	tasks_for_each_thread(detach_from, &t->tid);
	if (t->nested != NESTED_NONE && (w = waiter_of(t))) {
		w->waits_for = 0;
		answer(w, -ECHILD);
	}
	t->nested = NESTED_NONE;
	t->ptracer = t->ptracer_tgid = t->ptraced_as = 0;
	t->waits_for = 0;
}
