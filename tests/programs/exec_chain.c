/* exec_chain IMAGES [stopped]: a child that execs itself IMAGES - 1 times in a
 * chain (IMAGES images; a child, as systrace never hands off the command itself), each image making 10 getppid calls and checking what it was given across the
 * exec: its signal mask exactly {SIGUSR1, SIGUSR2, SIGWINCH} (blocked by the first
 * image) and SIGUSR1 pending (raised by the first image while blocked). The last
 * image catches SIGUSR1 by unblocking it and exits 0 if the handler ran once.
 * A hand-off between tracer threads parks every new image with all signals blocked
 * and puts its mask back (tracer/handoff.h): a mask not put back, or a pending
 * signal lost or delivered early, makes the chain exit 1 (or die of SIGUSR1).
 *
 * The parent waits for it and exits with its status; with `stopped`, it also stops
 * and continues it (SIGSTOP, then SIGCONT once it is seen stopped) until it exits,
 * so that stops land between the execs, some inside a hand-off. By construction:
 * 11 x IMAGES getppid (one of them to learn the parent), IMAGES execve (the
 * command's own and the chain's), 1 fork. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t caught;

static void on_usr1(int sig)
{
	(void)sig;
	caught++;
}

static int fail(const char *what, long left)
{
	fprintf(stderr, "exec_chain: %s (%ld images left)\n", what, left);
	return 1;
}

/* One image: the checks, the calls, then the next image or the end. */
static int image(long left)
{
	sigset_t mask, expected, pending;
	char next[32];
	pid_t parent = getppid();

	sigemptyset(&expected);
	sigaddset(&expected, SIGUSR1);
	sigaddset(&expected, SIGUSR2);
	sigaddset(&expected, SIGWINCH);
	if (sigprocmask(SIG_BLOCK, NULL, &mask) < 0)
		return fail("sigprocmask", left);
	for (int sig = 1; sig < SIGRTMIN; sig++)
		if (sig != SIGKILL && sig != SIGSTOP && sigismember(&mask, sig) != sigismember(&expected, sig))
			return fail(sigismember(&mask, sig) ? "a signal blocked that was not" : "a signal not blocked that was",
				    left);
	if (sigpending(&pending) < 0 || !sigismember(&pending, SIGUSR1))
		return fail("SIGUSR1 no longer pending", left);
	for (int i = 0; i < 10; i++)
		if (syscall(SYS_getppid) != parent)
			return fail("getppid", left);
	if (left > 1) {
		snprintf(next, sizeof(next), "%ld", left - 1);
		execl("/proc/self/exe", "exec_chain", next, "--image", (char *)NULL);
		return fail("execl", left);
	}
	signal(SIGUSR1, on_usr1);
	sigprocmask(SIG_UNBLOCK, &expected, NULL);
	return caught == 1 ? 0 : fail("SIGUSR1 not caught once", left);
}

static int first(long images)
{
	sigset_t block;

	sigemptyset(&block);
	sigaddset(&block, SIGUSR1);
	sigaddset(&block, SIGUSR2);
	sigaddset(&block, SIGWINCH);
	sigprocmask(SIG_BLOCK, &block, NULL);
	raise(SIGUSR1);
	return image(images);
}

/* Waits for the chain in child, stopping and continuing it if stopping; its exit
 * status. */
static int wait_for(pid_t child, int stopping)
{
	struct timespec pause = { 0, 200 * 1000 };
	int status;

	for (;;) {
		if (stopping) {
			nanosleep(&pause, NULL);
			kill(child, SIGSTOP);
		}
		if (waitpid(child, &status, stopping ? WUNTRACED : 0) != child)
			return fail("waitpid", 0);
		if (WIFEXITED(status))
			return WEXITSTATUS(status);
		if (WIFSIGNALED(status))
			return fail(strsignal(WTERMSIG(status)), 0);
		kill(child, SIGCONT);
	}
}

int main(int argc, char **argv)
{
	long images = argc > 1 ? atol(argv[1]) : 0;
	pid_t child;

	if (images < 1)
		return fail("usage: exec_chain IMAGES [stopped]", 0);
	if (argc > 2 && !strcmp(argv[2], "--image"))
		return image(images);
	if ((child = fork()) < 0)
		return fail("fork", images);
	if (child == 0)
		_exit(first(images));
	return wait_for(child, argc > 2 && !strcmp(argv[2], "stopped"));
}
