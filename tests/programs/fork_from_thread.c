#define _GNU_SOURCE
/* A thread (not the leader) forks a child that makes 17 getppid calls and exits 4;
 * the thread waits for it (SIGCHLD blocked, so the wait is never restarted) and
 * returns; meanwhile the main thread makes 100 gettid calls, then joins the thread
 * with pthread_tryjoin_np in a spin loop (no futex, counts fixed). Exits 0 when the
 * child exited 4. Totals: getppid 17, gettid 100, clone 1, clone3 1, wait4 1. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static int child_status = -1;

static void *worker(void *arg)
{
	(void)arg;
	pid_t pid = fork();
	if (pid == 0) {
		for (int i = 0; i < 17; i++)
			syscall(SYS_getppid);
		_exit(4);
	}
	int st;
	if (pid > 0 && waitpid(pid, &st, 0) == pid)
		child_status = st;
	return NULL;
}

int main(void)
{
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigprocmask(SIG_BLOCK, &set, NULL);

	pthread_t t;
	if (pthread_create(&t, NULL, worker, NULL) != 0)
		return 2;
	for (int i = 0; i < 100; i++)
		syscall(SYS_gettid);
	int r;
	while ((r = pthread_tryjoin_np(t, NULL)) == EBUSY)
		__builtin_ia32_pause();
	if (r != 0 || !WIFEXITED(child_status) || WEXITSTATUS(child_status) != 4) {
		fprintf(stderr, "fork_from_thread: child status %#x\n", child_status);
		return 1;
	}
	return 0;
}
