/* A call blocked in-process (through the gate) that the kernel restarts after a
 * signal, and whose result is then an error: the error belongs to the call's site
 * in sites.csv as it does to its name in syscalls.csv. Under systrace the second
 * entry stops (the thread was taken out of the gate to its stub's traced syscall),
 * and its result comes back through the return pad while the site's in-process
 * call is still in the thread's slot: the site may have no record yet.
 * The writev site is warmed up first (its first call stops and gets the site
 * patched); then a child, a process image with no record of the site, fills a
 * pipe through it and blocks in a second writev on the full pipe; a grandchild
 * sends it SIGWINCH once it is blocked (no handler: natively discarded, under
 * ptrace delivered and the call restarted), waits until it is blocked again and
 * exits, closing the pipe's only read end: the writev fails with EPIPE (SIGPIPE
 * ignored). SIGCHLD is blocked, so nothing else interrupts it.
 * Restarts: exactly 1. Calls: writev 3 (1 in the parent, 2 in the child), 1 of them
 * an error; exits 0 when the writes filled the pipes and the last failed with
 * EPIPE. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "blocked_in.h"

#define PIPE_BYTES 65536 /* a pipe's default capacity */

static char fill[PIPE_BYTES];

static ssize_t writev_all(int fd, size_t n)
{
	struct iovec iov = { fill, n };

	return writev(fd, &iov, 1);
}

static int exited_0(pid_t pid)
{
	int status;

	return waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* fills a pipe, and fails to write it once more when its reader is gone */
static int fails_restarted(void)
{
	int fds[2];
	pid_t parent = getpid(), c;
	ssize_t got;

	if (pipe(fds) < 0 || fcntl(fds[1], F_GETPIPE_SZ) != PIPE_BYTES)
		return 2;
	if (writev_all(fds[1], PIPE_BYTES) != PIPE_BYTES)
		return 2;
	if ((c = fork()) == 0) {
		int stat = proc_stat_open(parent, 0), st = proc_file_open(parent, 0, "status");

		close(fds[1]);
		wait_state(stat, "S");
		kill(parent, SIGWINCH);
		wait_not_pending(st, signal_bit(SIGWINCH));
		wait_state(stat, "S");
		_exit(0); /* the read end goes with it */
	}
	close(fds[0]);
	got = writev_all(fds[1], 1);
	if (got != -1 || errno != EPIPE)
		return 1;
	return exited_0(c) ? 0 : 1;
}

int main(void)
{
	int warm[2];
	sigset_t chld;
	pid_t c;

	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (pipe(warm) < 0 || writev_all(warm[1], 1) != 1)
		return 2;
	if ((c = fork()) == 0)
		_exit(fails_restarted());
	return exited_0(c) ? 0 : 1;
}
