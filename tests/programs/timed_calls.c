/* Calls whose times under --time are known by construction (tests/e2e/test_time.sh):
 *  A. N nanosleep(1 ms) through glibc's syscall() (a run-time-number site): each
 *     takes 1 ms or more;
 *  B. 1000 getppid (glibc's own site): some of them take far less than 1 ms;
 *  C. a readv blocked on a pipe for 30 ms or more before a SIGUSR1 whose handler has
 *     SA_RESTART interrupts it; restarted, it returns once a child writes: its
 *     time spans the restart, 30 ms or more (the restarted part alone is short);
 *  D. a read blocked for 30 ms or more before a SIGUSR2 whose handler has no
 *     SA_RESTART: it returns EINTR, its time to the signal, 30 ms or more.
 * C and D each make one call first that returns at once (a byte is waiting), so
 * that where systrace patches, the blocking call is made in-process. The children
 * wait until the parent is blocked (its /proc stat says S), sleep 30 ms, signal,
 * and C's waits until the parent took the signal and is blocked again before it
 * writes. The parent makes exactly: nanosleep N, getppid 1000, readv 2, read 2
 * (one EINTR), rt_sigreturn 2, wait4 2. Exits 0 when every call returned as it
 * must. */
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

static void on_signal(int sig)
{
	(void)sig;
}

/* Waits until the parent is blocked, 30 ms more, signals it; if write_byte, waits
 * until it took the signal and is blocked again, and writes a byte to the pipe. */
static pid_t child(int sig, int write_byte)
{
	struct timespec ms30 = { 0, 30 * 1000 * 1000 }, ms1 = { 0, 1000 * 1000 };
	pid_t pid = fork();
	int stat;

	if (pid != 0)
		return pid;
	if ((stat = proc_stat_open(parent, 0)) < 0)
		_exit(1);
	wait_state(stat, "S");
	clock_nanosleep(CLOCK_MONOTONIC, 0, &ms30, NULL);
	kill(parent, sig);
	if (write_byte) {
		int status = proc_file_open(parent, 0, "status");

		while ((pending_signals(status) & signal_bit(sig)) || proc_state(stat) != 'S')
			clock_nanosleep(CLOCK_MONOTONIC, 0, &ms1, NULL);
		if (write(pipe_fds[1], "x", 1) != 1)
			_exit(1);
	}
	_exit(0);
}

static void set_handler(int sig, int flags)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sa.sa_flags = flags;
	sigaction(sig, &sa, NULL);
}

static long readv_one(void)
{
	char c;
	struct iovec iov = { &c, 1 };

	return readv(pipe_fds[0], &iov, 1);
}

static long read_one(void)
{
	char c;

	return read(pipe_fds[0], &c, 1);
}

int main(int argc, char **argv)
{
	struct timespec ms = { 0, 1000 * 1000 };
	long n = argc > 1 ? atol(argv[1]) : 20;
	pid_t c;
	int ok = 1;

	parent = getpid();
	if (pipe(pipe_fds) < 0)
		return 2;
	for (long i = 0; i < n; i++)
		ok &= syscall(SYS_nanosleep, &ms, NULL) == 0;
	for (int i = 0; i < 1000; i++)
		ok &= getppid() > 0;

	/* C: restarted after an SA_RESTART handler */
	set_handler(SIGUSR1, SA_RESTART);
	ok &= write(pipe_fds[1], "x", 1) == 1 && readv_one() == 1;
	c = child(SIGUSR1, 1);
	ok &= readv_one() == 1;
	ok &= syscall(SYS_wait4, c, NULL, 0, NULL) == c;

	/* D: EINTR after a handler without SA_RESTART */
	set_handler(SIGUSR2, 0);
	ok &= write(pipe_fds[1], "x", 1) == 1 && read_one() == 1;
	c = child(SIGUSR2, 0);
	ok &= read_one() == -1 && errno == EINTR;
	ok &= syscall(SYS_wait4, c, NULL, 0, NULL) == c;
	if (!ok)
		fprintf(stderr, "timed_calls: a call did not return as it must\n");
	return ok ? 0 : 1;
}
