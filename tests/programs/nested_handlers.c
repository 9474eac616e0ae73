/* Handlers that return in-process, nest, and leave by siglongjmp: an rt_sigreturn
 * may go in-process only for the frame the tracer armed it for (tracer/
 * sigreturn_arm.h). One thread, no timing:
 *  1. N raise(SIGUSR1); its handler makes a getppid, and every third one raises
 *     SIGUSR2 from inside (nested: the inner handler makes a getppid too);
 *  2. N times, sigsetjmp then raise(SIGHUP), whose handler leaves by siglongjmp
 *     (no rt_sigreturn: an armed word left behind must not serve a later frame);
 *  3. N raise(SIGUSR1) again.
 * Each handler checks that it runs on the frame it expects (the nesting depth) and
 * the interrupted code checks its own registers' values survive (a local kept live
 * across each raise). Counts: rt_sigreturn and the handlers' getppid 2N + 2 * ceil(N
 * / 3) each; the rest (tgkill, rt_sigprocmask) as glibc's raise and siglongjmp make
 * them, for strace to tell. Exits 0 when every handler ran as expected. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

static volatile int depth, inner_runs, outer_runs, jumps, bad;
static volatile long outer_index;
static sigjmp_buf env;

static void on_usr2(int sig)
{
	(void)sig;
	bad |= depth != 1;
	inner_runs++;
	syscall(SYS_getppid);
}

static void on_usr1(int sig)
{
	(void)sig;
	bad |= depth != 0;
	depth++;
	outer_runs++;
	syscall(SYS_getppid);
	if (outer_index % 3 == 0)
		raise(SIGUSR2);
	depth--;
}

static void on_hup(int sig)
{
	(void)sig;
	jumps++;
	siglongjmp(env, 1);
}

static void handle(int sig, void (*fn)(int))
{
	struct sigaction sa = { .sa_handler = fn };

	sigemptyset(&sa.sa_mask);
	if (sigaction(sig, &sa, NULL) != 0)
		exit(2);
}

static void raise_usr1(long n)
{
	for (long i = 0; i < n; i++) {
		long kept = i * 7 + 3;

		outer_index = i;
		raise(SIGUSR1);
		bad |= kept != i * 7 + 3;
	}
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 30;

	handle(SIGUSR1, on_usr1);
	handle(SIGUSR2, on_usr2);
	handle(SIGHUP, on_hup);
	raise_usr1(n);
	for (long i = 0; i < n; i++)
		if (sigsetjmp(env, 1) == 0)
			raise(SIGHUP);
	raise_usr1(n);
	if (bad || outer_runs != 2 * n || inner_runs != 2 * ((n + 2) / 3) || jumps != n) {
		fprintf(stderr, "nested_handlers: bad %d, outer %d, inner %d, jumps %d (n %ld)\n", bad, outer_runs,
			inner_runs, jumps, n);
		return 1;
	}
	return 0;
}
