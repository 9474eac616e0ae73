#include "handoff.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/pidfd.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "held_statuses.h"
#include "launch.h"
#include "park.h"
#include "procfs.h"
#include "tid_marks.h"
#include "tracee_wait.h"

/* x86-64's user code segment: an i386 program's differs (and has no 64-bit vDSO) */
#define USER_CS_64 0x33
/* the words of an exec-time stack read for its auxiliary vector: argc, argv and envp
 * before it (a command line longer than that is handed off with its vector read
 * from /proc) */
#define STACK_WORDS (4 * 4096 / 8)

static enum test_mode {
	TEST_NONE,
	TEST_EVERY_EXEC,
	TEST_AFTER_REUSE, /* every exec, taken once its pid is another process's */
	TEST_STOPPED,     /* every exec, stopped (SIGSTOP) while parked, continued
	                     (SIGCONT) once the seize found the stop */
	TEST_SLOW,        /* every exec, taken SLOW_TAKE_MS late */
} test_mode;
/* How long the slow test mode leaves an image parked: a program's attach of it has
 * the time to meet the hand-off (tests/programs/attach_other.c, parked). */
#define SLOW_TAKE_MS 200
static bool vdso_known;
static uint64_t vdso_syscall; /* its offset in the vDSO */
static _Thread_local struct handoff_stats stats;

void handoff_setup(void)
{
	const char *mode = getenv("SYSTRACE_TEST_HANDOFF");
	const uint8_t *vdso = (const uint8_t *)getauxval(AT_SYSINFO_EHDR);

	/* (the scan reads only what the vDSO's program headers say it holds) */
	vdso_known = vdso && park_vdso_syscall(vdso, (size_t)1 << 20, &vdso_syscall);
	if (!mode || !*mode)
		return;
	if (!strcmp(mode, "every-exec")) {
		test_mode = TEST_EVERY_EXEC;
	} else if (!strcmp(mode, "every-exec-after-reuse")) {
		test_mode = TEST_AFTER_REUSE;
	} else if (!strcmp(mode, "every-exec-stopped")) {
		test_mode = TEST_STOPPED;
	} else if (!strcmp(mode, "every-exec-slow")) {
		test_mode = TEST_SLOW;
	} else {
		fprintf(stderr, "systrace: warning: SYSTRACE_TEST_HANDOFF=%s: the modes are every-exec, "
				"every-exec-after-reuse, every-exec-stopped and every-exec-slow; no image is "
				"handed off\n", mode);
	}
}

bool handoff_every_exec(void)
{
	return test_mode != TEST_NONE;
}

bool handoff_possible(const struct thread *t, pid_t command)
{
	return vdso_known && t->img && !t->img->hidden && t->img->rec.pid != command && !t->img->own_filter
	       && !t->ptracer && t->nested == NESTED_NONE && !t->log_is_waiting && !t->held;
}

/* The new image's vDSO, from its auxiliary vector: above its stack pointer, or in
 * /proc/PID/auxv when argv and envp fill what was read. */
static bool vdso_of(pid_t pid, uint64_t sp, uint64_t *vdso)
{
	static _Thread_local uint64_t words[STACK_WORDS];
	struct iovec local = { words, sizeof(words) }, remote = { (void *)sp, sizeof(words) };
	char path[64];
	ssize_t n = process_vm_readv(pid, &local, 1, &remote, 1, 0);
	FILE *f;

	if (n < 8 || !park_auxv_value(words, (size_t)n / 8, AT_SYSINFO_EHDR, vdso)) {
		/* (a stack whose top is within those pages reads in part: the vector is
		 * whole in what was read) */
		snprintf(path, sizeof(path), "/proc/%d/auxv", (int)pid);
		if (!(f = fopen(path, "re")))
			return false;
		words[0] = 0; /* as argc 0, no argv, no envp: the pairs follow */
		words[1] = words[2] = 0;
		n = (ssize_t)fread(words + 3, 8, STACK_WORDS - 3, f);
		fclose(f);
		return park_auxv_value(words, (size_t)n + 3, AT_SYSINFO_EHDR, vdso);
	}
	return true;
}

/* PTRACE_INTERRUPT's trap (a group stop's has the stop signal). */
static bool interrupt_trap(int status)
{
	return WIFSTOPPED(status) && (unsigned)status >> 16 == PTRACE_EVENT_STOP && WSTOPSIG(status) == SIGTRAP;
}

/* Back as at the exec event, with the status that came on the way held. */
static enum handoff_result put_back(const struct handoff *m, int status)
{
	struct user_regs_struct regs = m->regs;

	regs.orig_rax = (uint64_t)-1;
	if (WIFSTOPPED(status)) {
		ptrace(PTRACE_SETREGS, m->tid, 0, &regs);
		ptrace(PTRACE_SETSIGMASK, m->tid, sizeof(m->mask), &m->mask);
	}
	held_status_push(m->tid, status);
	return HANDOFF_HELD;
}

/* The test mode's stop of a parked image, as a SIGSTOP from elsewhere would: in
 * its group stop before the receiver's seize (a stop still on its way could come
 * after the receiver's trap, and the hand-off would not meet it). */
static void stop_parked(const struct handoff *m)
{
	const struct timespec tenth_ms = { 0, 100 * 1000 };

	if (pidfd_send_signal(m->pidfd, SIGSTOP, NULL, 0) == 0)
		while (!strchr("TZX?", procfs_state(m->tid)))
			nanosleep(&tenth_ms, NULL);
}

static enum handoff_result park(struct thread *t, struct handoff *m)
{
	struct user_regs_struct regs;
	uint64_t all = ~(uint64_t)0, vdso;
	int status;

	m->tid = t->tid;
	m->began_ns = monotonic_ns();
	if (ptrace(PTRACE_GETREGS, m->tid, 0, &m->regs) < 0 || m->regs.cs != USER_CS_64
	    || !vdso_of(m->tid, m->regs.rsp, &vdso))
		return HANDOFF_NONE;
	/* the process itself, whatever takes its pid once it is reaped (at the exec
	 * event the thread is its leader) */
	if ((m->pidfd = pidfd_open(m->tid, 0)) < 0 || ptrace(PTRACE_GETSIGMASK, m->tid, sizeof(m->mask), &m->mask) < 0
	    || ptrace(PTRACE_SETSIGMASK, m->tid, sizeof(all), &all) < 0)
		return HANDOFF_NONE;
	regs = m->regs;
	regs.rip = vdso + vdso_syscall;
	regs.rdi = PARK_FDS;
	regs.rsi = regs.rdx = regs.r10 = 0;
	regs.r8 = PARK_SIGSETSIZE;
	if (ptrace(PTRACE_SETREGS, m->tid, 0, &regs) < 0 || ptrace(PTRACE_CONT, m->tid, 0, 0) < 0) {
		/* killed since it stopped: its exit event comes to the loop */
		return HANDOFF_HELD;
	}
	/* (an interrupt trap still due, sent by the patch protocol before the exec,
	 * comes first: the thread goes on to the call) */
	do
		if (!tracee_wait(m->tid, &status))
			abort(); /* a tracee of this thread's is waited for by no one else */
	while (interrupt_trap(status) && ptrace(PTRACE_CONT, m->tid, 0, 0) == 0);
	/* the execve's return made a read at the vDSO's `syscall` */
	if ((unsigned)status >> 16 != PTRACE_EVENT_SECCOMP || ptrace(PTRACE_GETREGS, m->tid, 0, &regs) < 0
	    || regs.orig_rax != 0 || regs.rip != vdso + vdso_syscall + 2)
		return put_back(m, status);
	regs.orig_rax = SYS_ppoll;
	/* traced by no one from the detach to the receiver's seize (nested_ptrace.c) */
	tid_mark_set(m->tid, TID_PARKED);
	if (ptrace(PTRACE_SETREGS, m->tid, 0, &regs) < 0 || ptrace(PTRACE_DETACH, m->tid, 0, 0) < 0) {
		tid_mark_clear(m->tid, TID_PARKED);
		return HANDOFF_HELD; /* killed in the stop: its exit event comes */
	}
	if (test_mode == TEST_STOPPED)
		stop_parked(m);
	return HANDOFF_PARKED;
}

enum handoff_result handoff_park(struct thread *t, struct handoff *m)
{
	enum handoff_result r;

	m->pidfd = -1;
	r = park(t, m);
	/* the pidfd goes with the message, closed by the receiver (handoff_take) */
	if (r != HANDOFF_PARKED && m->pidfd >= 0)
		close(m->pidfd);
	return r;
}

/* Lets go of a process seized by its pid once the parked one was reaped: another
 * process's now, untraced, which goes on as it was (but for what any ptrace attach
 * and detach does: a wait the kernel does not restart, sigtimedwait's, returns
 * EINTR). */
static void release_stranger(pid_t pid)
{
	int status;

	if (ptrace(PTRACE_INTERRUPT, pid, 0, 0) < 0 || !tracee_wait(pid, &status) || !WIFSTOPPED(status))
		return; /* (gone meanwhile) */
	/* a signal it was stopped by is its own, given back */
	ptrace(PTRACE_DETACH, pid, 0,
	       (unsigned)status >> 16 == 0 && WSTOPSIG(status) != SIGTRAP ? WSTOPSIG(status) : 0);
}

/* Whether the process seized at m's pid is the one parked: not reaped (a pid is
 * reused only once its process is reaped; a zombie still takes a signal). */
static bool still_parked_one(const struct handoff *m)
{
	return pidfd_send_signal(m->pidfd, 0, NULL, 0) == 0;
}

/* The test mode's wait: until the parked process was reaped and its pid is another
 * process's. */
static void wait_reused(const struct handoff *m)
{
	const struct timespec ms = { 0, 1000 * 1000 };

	while (still_parked_one(m) || kill(m->tid, 0) != 0)
		nanosleep(&ms, NULL);
}

static enum handoff_result take(const struct handoff *m)
{
	struct user_regs_struct regs = m->regs;
	int status;

	if (ptrace(PTRACE_SEIZE, m->tid, 0, LAUNCH_PTRACE_OPTIONS) < 0) {
		/* ESRCH, or EPERM for a zombie: killed while parked; EPERM also when its
		 * pid is another traced process's. Anything else: left parked, it would
		 * wait forever, so it is killed (through its pidfd: never another). */
		if (errno != ESRCH)
			pidfd_send_signal(m->pidfd, SIGKILL, NULL, 0);
		return HANDOFF_GONE;
	}
	if (!still_parked_one(m)) {
		release_stranger(m->tid);
		return HANDOFF_GONE;
	}
	if (ptrace(PTRACE_INTERRUPT, m->tid, 0, 0) < 0 || !tracee_wait(m->tid, &status))
		abort(); /* seized and alive or a zombie to report: it cannot fail */
	if (!interrupt_trap(status))
		return put_back(m, status);
	regs.orig_rax = (uint64_t)-1; /* the ppoll is not made again */
	if (ptrace(PTRACE_SETREGS, m->tid, 0, &regs) < 0
	    || ptrace(PTRACE_SETSIGMASK, m->tid, sizeof(m->mask), &m->mask) < 0)
		return HANDOFF_HELD; /* killed in the trap: its exit event comes */
	stats.count++;
	stats.ns += monotonic_ns() - m->began_ns;
	return HANDOFF_TAKEN;
}

enum handoff_result handoff_take(const struct handoff *m)
{
	enum handoff_result r;

	if (test_mode == TEST_AFTER_REUSE)
		wait_reused(m);
	/* (through the ticks' interruptions) */
	for (struct timespec left = { 0, SLOW_TAKE_MS * 1000 * 1000 };
	     test_mode == TEST_SLOW && nanosleep(&left, &left) < 0 && errno == EINTR;)
		;
	r = take(m);
	tid_mark_clear(m->tid, TID_PARKED);
	if (r == HANDOFF_HELD && test_mode == TEST_STOPPED)
		pidfd_send_signal(m->pidfd, SIGCONT, NULL, 0);
	/* the test mode tells the process now at the pid that the take was tried
	 * (tests/programs/handoff_reuse.c) */
	if (r == HANDOFF_GONE && test_mode == TEST_AFTER_REUSE)
		kill(m->tid, SIGCONT);
	close(m->pidfd);
	return r;
}

void handoff_get_stats(struct handoff_stats *s)
{
	*s = stats;
}
