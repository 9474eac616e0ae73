/* Syscalls interrupted by signals and restarted by the kernel. Each is one call of
 * the program; under ptrace the kernel enters it twice (even an ignored SIGCHLD is
 * delivered to a traced process), and systrace must count it once.
 *  A. readv blocked on a pipe, interrupted by SIGCHLD (default, no handler):
 *     restarted, then satisfied by a child's write;
 *  B. readv interrupted by SIGALRM with an SA_RESTART handler (one getppid):
 *     restarted after the handler;
 *  C. readv interrupted by SIGALRM with a handler without SA_RESTART: returns EINTR,
 *     not restarted;
 *  D. nanosleep stopped by SIGSTOP and continued by SIGCONT: resumed through
 *     restart_syscall;
 *  E. readv interrupted by SIGUSR1 and SIGUSR2 sent back to back, both with
 *     SA_RESTART handlers (one getppid each): one handler may run inside the other,
 *     and the call is still entered again only as a restart.
 * The children go by the parent's state, not by time: each waits until the parent
 * is blocked in its call (its /proc stat says S: blocked_in.h) before it signals, and
 * a child that then writes waits until the parent took its signals (none pending
 * in /proc/PID/status) and is blocked again (the call restarted); D's waits until
 * the parent is stopped before it continues it.
 * SIGCHLD is not blocked: every wait4 may be interrupted too, and must still count
 * once. The parent makes exactly: readv 4, nanosleep 1, getppid 4 (handlers),
 * rt_sigreturn 4, wait4 6 (one per child), restart_syscall 0; the children use
 * clock_nanosleep, openat, pread64, read, close, kill and write, never these. Exits 0
 * when every call returned as expected. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "blocked_in.h"

static int pipe_fds[2];
static pid_t parent;

static void on_alarm(int sig)
{
	(void)sig;
	syscall(SYS_getppid);
}

static void pause_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	nanosleep(&ts, NULL); /* clock_nanosleep in glibc */
}

/* polls (every millisecond) until the parent has none of sig, sig2 pending and is
 * blocked (S) */
static void until_taken_and_blocked(int stat, int sig, int sig2)
{
	int status = proc_file_open(parent, 0, "status");

	while ((pending_signals(status) & (signal_bit(sig) | signal_bit(sig2))) || proc_state(stat) != 'S')
		pause_ms(1);
	close(status);
}

/* polls until pid is no tracee: natively at once; under a tracer, once the tracer
 * has reaped its zombie, which is when the kernel sends the parent its SIGCHLD
 * (wait_task_zombie: ptrace_unlink, then do_notify_parent), not at the exit */
static void until_untraced(int status)
{
	while (tracer_pid(status) > 0)
		pause_ms(1);
}

/* A child that waits until the parent is blocked in its call, sends sig (and sig2)
 * to it (0: none), then, if asked to write a byte into the pipe, waits until the
 * parent took them and is blocked again before it writes; then exits. */
static pid_t child2(int sig, int sig2, int write_byte)
{
	pid_t pid = fork();
	int stat;

	if (pid != 0)
		return pid;
	if ((stat = proc_stat_open(parent, 0)) < 0)
		_exit(1);
	wait_state(stat, "S");
	if (sig)
		kill(parent, sig);
	if (sig2)
		kill(parent, sig2);
	if (write_byte) {
		until_taken_and_blocked(stat, sig, sig2);
		if (write(pipe_fds[1], "x", 1) != 1)
			_exit(1);
	}
	_exit(0);
}

static pid_t child(int sig, int write_byte)
{
	return child2(sig, 0, write_byte);
}

static long readv_one(void)
{
	char c;
	struct iovec iov = { &c, 1 };

	return syscall(SYS_readv, pipe_fds[0], &iov, 1);
}

static void reap(pid_t pid)
{
	syscall(SYS_wait4, pid, NULL, 0, NULL);
}

static void set_handler(int sig, int flags)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sa.sa_flags = flags;
	sigaction(sig, &sa, NULL);
}

int main(void)
{
	struct timespec long_sleep = { 0, 600 * 1000 * 1000 };
	pid_t a, b, c, d, e, f;
	int ok = 1;

	parent = getpid();
	if (pipe(pipe_fds) < 0)
		return 2;

	/* A: the first child exits (SIGCHLD) once the parent blocks; the second writes
	 * once the first is gone and the parent took its SIGCHLD and blocks again */
	a = child(0, 0);
	b = fork();
	if (b == 0) {
		int stat_a = proc_stat_open(a, 0), status_a = proc_file_open(a, 0, "status");
		int stat = proc_stat_open(parent, 0);

		if (stat_a < 0 || status_a < 0 || stat < 0)
			_exit(1);
		wait_state(stat_a, "Z");
		until_untraced(status_a); /* its SIGCHLD sent */
		until_taken_and_blocked(stat, SIGCHLD, 0);
		_exit(write(pipe_fds[1], "x", 1) == 1 ? 0 : 1);
	}
	ok &= readv_one() == 1;
	reap(a);
	reap(b);

	/* B: SA_RESTART handler */
	set_handler(SIGALRM, SA_RESTART);
	c = child(SIGALRM, 1);
	ok &= readv_one() == 1;
	reap(c);

	/* C: handler without SA_RESTART: EINTR */
	set_handler(SIGALRM, 0);
	d = child(SIGALRM, 0);
	ok &= readv_one() == -1 && errno == EINTR;
	reap(d);

	/* D: a child stops and continues the parent in the middle of its sleep */
	e = fork();
	if (e == 0) {
		int stat = proc_stat_open(parent, 0);

		if (stat < 0)
			_exit(1);
		wait_state(stat, "S");
		kill(parent, SIGSTOP);
		wait_state(stat, "Tt"); /* stopped (t: under a tracer) */
		kill(parent, SIGCONT);
		_exit(0);
	}
	ok &= syscall(SYS_nanosleep, &long_sleep, NULL) == 0;
	reap(e);

	/* E: two signals with SA_RESTART handlers during one call */
	set_handler(SIGUSR1, SA_RESTART);
	set_handler(SIGUSR2, SA_RESTART);
	f = child2(SIGUSR1, SIGUSR2, 1);
	ok &= readv_one() == 1;
	reap(f);
	return ok ? 0 : 1;
}
