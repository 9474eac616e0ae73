/* vfork through the gate's stackless entry, with a handler that makes its own vfork
 * at another site each time the first returns (patcher/stub.h, the stackless stub):
 * the way out of the gate is a word in the thread's slot, which the handler's vfork
 * overwrites with its own stub's landing. Each of N rounds (argv[1], default 500):
 *   glibc vfork(); the child: kill(getppid(), SIGUSR1), then _exit(3). The signal
 *   waits while the parent sleeps in the vfork and is delivered as it comes back,
 *   at the gate's stackless entry, every round;
 *   the handler: pop_vfork() (a vfork site of its own, `pop %rsi` around the
 *   syscall: a return through the other site's landing would jump through the
 *   wrong register), its child _exit(4), waited for in the handler.
 * Left in the gate, the parent would come back through the handler's landing.
 * Counts: vfork 2N, kill N, getppid N, wait4 2N, exit_group 2N + 1,
 * rt_sigreturn N, rt_sigaction 1. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "child.h"

__attribute__((returns_twice)) long pop_vfork(void);

__asm__(".text\n"
	".globl pop_vfork\n"
	".type pop_vfork,@function\n"
	"pop_vfork:\n"
	"pop %rsi\n"                /* the return address, off the (shared) stack */
	"mov $58,%eax\n"            /* vfork */
	"syscall\n"
	"push %rsi\n"
	"ret\n"
	".size pop_vfork,.-pop_vfork\n");

static volatile sig_atomic_t handled, bad;

static void on_usr1(int sig)
{
	long c;

	(void)sig;
	c = pop_vfork();
	if (c == 0)
		_exit(4);
	bad |= wait_exit("vfork_signals", "the handler's vfork", c, 0, 4);
	handled++;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 500;
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGUSR1, &sa, NULL);
	for (long i = 0; i < n; i++) {
		pid_t c = vfork();

		if (c == 0) {
			kill(getppid(), SIGUSR1);
			_exit(3);
		}
		if (wait_exit("vfork_signals", "round", c, 0, 3))
			return 1;
		if (handled != i + 1) {
			fprintf(stderr, "vfork_signals: round %ld: %d handlers ran, expected %ld\n", i, (int)handled,
				i + 1);
			return 1;
		}
	}
	return bad;
}
