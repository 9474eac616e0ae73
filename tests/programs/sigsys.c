/* Signal handlers that make syscalls at the site the interrupted code is using (a
 * patched site must be reentrant: no per-call state outside the stack), and
 * rt_sigreturn after them (it changes the stack and every register: its restorer's
 * stub must neither move the stack nor call, and goes in-process only for a frame
 * the tracer armed it for). One SA_SIGINFO | SA_RESTART handler for
 * SIGUSR1 and SIGALRM checks its siginfo and makes, through glibc's syscall() (the
 * run-time-number site the main loop uses), getpid (checked) and write of one byte
 * to /dev/null (checked). The signals come from:
 *  - a second thread that sends K (argv[2], default 300) SIGUSR1 to the main thread
 *    with tgkill, one at a time (it waits until the handler ran before the next);
 *  - a one-shot ITIMER_REAL of 100 us that the handler re-arms until SIGALRM has
 *    been handled K times (one timer at a time: never two pending, so exactly K).
 * Meanwhile the main thread calls syscall(SYS_getppid) N times (argv[1], default
 * 20000), checking each, then spins (no syscall) until all 2K signals were handled.
 * SIGALRM is blocked in the sender thread; nothing blocks, so nothing is restarted.
 * Counts: getppid N + 1, getpid 2K + 1, write 2K, rt_sigreturn 2K, tgkill K,
 * setitimer K, gettid 1, clone3 1, exit 1. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <unistd.h>

#include "spin.h"

static long n, k, pid, ppid;
static pid_t main_tid;
static int devnull;
static int usr1_handled, alrm_handled, handler_errors;
static volatile long last_error_line;

#define HANDLER_CHECK(cond)                                                        \
	do {                                                                       \
		if (!(cond)) {                                                     \
			__atomic_add_fetch(&handler_errors, 1, __ATOMIC_SEQ_CST);  \
			last_error_line = __LINE__;                                \
		}                                                                  \
	} while (0)

static void arm(void)
{
	struct itimerval it = { { 0, 0 }, { 0, 100 } };

	setitimer(ITIMER_REAL, &it, NULL);
}

static void handler(int sig, siginfo_t *info, void *uc)
{
	int saved = errno;

	(void)uc;
	HANDLER_CHECK(info->si_signo == sig);
	HANDLER_CHECK(syscall(SYS_getpid) == pid);
	HANDLER_CHECK(syscall(SYS_write, devnull, "x", 1) == 1);
	if (sig == SIGUSR1) {
		HANDLER_CHECK(info->si_code == SI_TKILL && info->si_pid == pid);
		__atomic_add_fetch(&usr1_handled, 1, __ATOMIC_SEQ_CST);
	} else {
		HANDLER_CHECK(sig == SIGALRM);
		if (__atomic_add_fetch(&alrm_handled, 1, __ATOMIC_SEQ_CST) < k)
			arm();
	}
	errno = saved;
}

static void *sender(void *arg)
{
	sigset_t set;

	(void)arg;
	sigemptyset(&set);
	sigaddset(&set, SIGALRM);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	for (long i = 0; i < k; i++) {
		syscall(SYS_tgkill, pid, main_tid, SIGUSR1);
		SPIN_UNTIL(__atomic_load_n(&usr1_handled, __ATOMIC_SEQ_CST) > i,
			   "sigsys: SIGUSR1 %ld of %ld was sent but never handled\n", i + 1, k);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	n = argc > 1 ? atol(argv[1]) : 20000;
	k = argc > 2 ? atol(argv[2]) : 300;
	pid = getpid();
	ppid = getppid();
	main_tid = gettid();
	devnull = open("/dev/null", O_WRONLY);
	if (devnull < 0 || k < 1)
		return 2;

	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = handler;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGUSR1, &sa, NULL) != 0 || sigaction(SIGALRM, &sa, NULL) != 0)
		return 2;

	pthread_t t;
	if (pthread_create(&t, NULL, sender, NULL) != 0)
		return 2;
	arm();
	long wrong = 0;
	for (long i = 0; i < n; i++)
		if (syscall(SYS_getppid) != ppid)
			wrong++;
	SPIN_UNTIL(__atomic_load_n(&usr1_handled, __ATOMIC_SEQ_CST) >= k &&
			   __atomic_load_n(&alrm_handled, __ATOMIC_SEQ_CST) >= k,
		   "sigsys: only %d SIGUSR1 and %d SIGALRM of %ld each were handled\n", usr1_handled, alrm_handled, k);
	int r;
	SPIN_UNTIL((r = pthread_tryjoin_np(t, NULL)) != EBUSY, "sigsys: the sender thread never finished\n");

	int bad = 0;
	if (wrong) {
		fprintf(stderr, "sigsys: %ld of %ld getppid results in the main loop were wrong\n", wrong, n);
		bad = 1;
	}
	if (handler_errors) {
		fprintf(stderr, "sigsys: %d checks in the handler failed (the last at line %ld)\n", handler_errors,
			last_error_line);
		bad = 1;
	}
	if (usr1_handled != k || alrm_handled != k || r != 0) {
		fprintf(stderr, "sigsys: handled %d SIGUSR1 and %d SIGALRM, expected %ld each (join %d)\n",
			usr1_handled, alrm_handled, k, r);
		bad = 1;
	}
	return bad;
}
