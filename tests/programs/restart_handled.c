/* A call blocked in-process (through the gate; under --log, through its log
 * routine) that a signal with an SA_RESTART handler interrupts: the kernel enters it
 * again after the handler. One call of the program, and one restart, counted in
 * `restarted` as on the ptrace path. The readv site is warmed up first (its first
 * call stops and gets it patched); then, twice, the parent blocks in readv on a
 * pipe, a child sends SIGUSR1 once it is blocked (its /proc stat says S), and writes
 * a byte once the parent took the signal and is blocked again (the call restarted).
 * SIGCHLD is blocked from the start, so no other call is interrupted.
 * Restarts: exactly 2. Calls: readv 3, rt_sigreturn 2 (the handler makes none);
 * exits 0 when every readv returned its byte and the handler ran twice. */
#define _GNU_SOURCE
#include <signal.h>
#include <string.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "blocked_in.h"

static int pipe_fds[2];
static volatile sig_atomic_t handled;

static void on_usr1(int sig)
{
	(void)sig;
	handled++;
}

static int readv_byte(void)
{
	char c;
	struct iovec iov = { &c, 1 };

	return readv(pipe_fds[0], &iov, 1) == 1;
}

static int interrupted_once(pid_t parent)
{
	pid_t c = fork();
	int ok;

	if (c == 0) {
		int stat = proc_stat_open(parent, 0);

		wait_state(stat, "S");
		kill(parent, SIGUSR1);
		wait_not_pending(proc_file_open(parent, 0, "status"), signal_bit(SIGUSR1));
		wait_state(stat, "S");
		_exit(write(pipe_fds[1], "x", 1) == 1 ? 0 : 1);
	}
	ok = readv_byte();
	return waitpid(c, NULL, 0) == c && ok;
}

int main(void)
{
	struct sigaction sa;
	sigset_t chld;
	pid_t parent = getpid();
	int ok = 1;

	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, NULL);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sa.sa_flags = SA_RESTART;
	if (pipe(pipe_fds) < 0 || sigaction(SIGUSR1, &sa, NULL) < 0)
		return 2;
	/* warm-up: the site's first call */
	if (write(pipe_fds[1], "w", 1) != 1 || !readv_byte())
		return 2;
	ok &= interrupted_once(parent);
	ok &= interrupted_once(parent);
	return ok && handled == 2 ? 0 : 1;
}
