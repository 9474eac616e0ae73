/* Calls that fail, N times each (argv[1], default 100): open of a path that does not
 * exist (ENOENT), close(-1) (EBADF), a read of an empty non-blocking pipe (EAGAIN),
 * and close(-1) through glibc's syscall(), whose number is known only at run time.
 * With argv[2] = "eintr", also N reads of an empty pipe, each interrupted by a
 * SIGUSR1 (a handler without SA_RESTART) that a second thread sends once the main
 * thread is blocked in it: N read errors more (EINTR), N tgkill, N rt_sigreturn.
 * The first call at each site stops in the tracer, the others go in-process (in the
 * eintr part, through the gate, where the signal finds the thread). Exit 1 if a
 * call does not fail as it must. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "blocked_in.h"

static int n = 100;
static int blocking[2];
static pid_t main_tid;
static int reads_done; /* by the main thread, once each read returned */

static void on_usr1(int sig)
{
	(void)sig;
}

/* Sends SIGUSR1 to the main thread each time it is blocked in its read. */
static void *interrupter(void *arg)
{
	int stat = proc_stat_open(0, main_tid);

	(void)arg;
	struct timespec ms = { 0, 1000 * 1000 };

	for (int i = 0; i < n; i++) {
		/* its read i is the one it is blocked in (the one before returned) */
		while (__atomic_load_n(&reads_done, __ATOMIC_ACQUIRE) < i)
			clock_nanosleep(CLOCK_MONOTONIC, 0, &ms, NULL);
		wait_state(stat, "S");
		syscall(SYS_tgkill, getpid(), main_tid, SIGUSR1);
	}
	return NULL;
}

static int interrupted_reads(void)
{
	struct sigaction sa;
	pthread_t t;
	char c;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1; /* no SA_RESTART: the read returns EINTR */
	if (sigaction(SIGUSR1, &sa, NULL) < 0 || pipe(blocking) < 0)
		return 1;
	main_tid = gettid();
	if (pthread_create(&t, NULL, interrupter, NULL) != 0)
		return 1;
	for (int i = 0; i < n; i++) {
		if (read(blocking[0], &c, 1) >= 0 || errno != EINTR)
			return 1;
		__atomic_store_n(&reads_done, i + 1, __ATOMIC_RELEASE);
	}
	return pthread_join(t, NULL) != 0;
}

int main(int argc, char **argv)
{
	int empty[2];
	char c;

	if (argc > 1)
		n = atoi(argv[1]);
	if (pipe2(empty, O_NONBLOCK) < 0)
		return 1;
	for (int i = 0; i < n; i++) {
		if (open("/nonexistent/systrace-test", O_RDONLY) >= 0 || errno != ENOENT)
			return 1;
		if (close(-1) == 0 || errno != EBADF)
			return 1;
		if (read(empty[0], &c, 1) >= 0 || errno != EAGAIN)
			return 1;
		if (syscall(SYS_close, -1) == 0 || errno != EBADF)
			return 1;
	}
	if (argc > 2 && strcmp(argv[2], "eintr") == 0)
		return interrupted_reads();
	return 0;
}
