/* Calls restarted by the kernel while they run in-process, through the gate, where
 * no stop sees the second entry: each must still be counted in `restarted`, once, as
 * on the ptrace path. Each readv site is warmed up first (its first call stops and
 * gets it patched), then:
 *  A. twice: the main thread blocks in readv on a pipe, a child sends it SIGWINCH
 *     (no handler: natively discarded, under ptrace delivered and the call
 *     restarted) and exits, and a second child writes once the parent took the
 *     signal and is blocked again: one restart each. (Not the child's SIGCHLD: a
 *     traced child's exit reaches its real parent only when the tracer has reaped
 *     it, so the second child could see the first a zombie, the parent with nothing
 *     pending, and write before the signal came: no restart, 1 run in 20 on a busy
 *     machine.)
 *  B. the main thread and a second thread block in readv on a pipe each, a child
 *     stops the process (SIGSTOP: one thread has the delivery stop, the other only
 *     a group-stop) and continues it, then writes both bytes once both are blocked
 *     again: one restart each.
 * SIGCHLD is blocked through A and B (their children's exits come while the
 * threads wait or join), so no other call is interrupted; SIGCONT, delivered under
 * ptrace, is taken by a thread still in the stop, before its restart.
 * Restarts: exactly 4. Calls: readv 6 (4 in the main thread, 2 in the second);
 * exits 0 when every readv returned its byte. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "blocked_in.h"

static int pipe_a[2], pipe_b[2];
static pid_t parent, second_tid;

static int readv_byte(int fd)
{
	char c;
	struct iovec iov = { &c, 1 };

	return readv(fd, &iov, 1) == 1;
}

static void reap(pid_t pid)
{
	sigset_t chld, old;

	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, &old);
	waitpid(pid, NULL, 0);
	sigprocmask(SIG_SETMASK, &old, NULL);
}

static int stat_of(pid_t tid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)parent, (int)tid);
	return open(path, O_RDONLY | O_CLOEXEC);
}

static void *second(void *arg)
{
	(void)arg;
	__atomic_store_n(&second_tid, gettid(), __ATOMIC_SEQ_CST);
	return (void *)(long)(readv_byte(pipe_b[0]) && readv_byte(pipe_b[0]));
}

/* A: a child that signals the parent once it blocks, and one that writes after */
static int case_sigchld(void)
{
	sigset_t chld, old;
	pid_t a, b;

	/* the children's own SIGCHLDs wait until both are reaped */
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, &old);
	a = fork();

	if (a == 0) {
		wait_state(stat_of(parent), "S");
		kill(parent, SIGWINCH);
		_exit(0);
	}
	if ((b = fork()) == 0) {
		int stat = stat_of(parent), stat_a = proc_stat_open(a, 0);

		wait_state(stat_a, "Z"); /* its signal sent, before it exited */
		wait_not_pending(proc_file_open(parent, 0, "status"), signal_bit(SIGWINCH));
		wait_state(stat, "S");
		_exit(write(pipe_a[1], "x", 1) == 1 ? 0 : 1);
	}
	int ok = readv_byte(pipe_a[0]);

	reap(a);
	reap(b);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return ok;
}

int main(void)
{
	pthread_t t;
	sigset_t chld;
	void *second_ok;
	pid_t c;
	int ok = 1;

	parent = getpid();
	if (pipe(pipe_a) < 0 || pipe(pipe_b) < 0)
		return 2;
	/* warm-up: each readv site's first call (the second thread's is the same) */
	if (write(pipe_a[1], "w", 1) != 1 || !readv_byte(pipe_a[0]))
		return 2;
	ok &= case_sigchld();
	ok &= case_sigchld();

	/* B: both threads blocked, the process stopped and continued */
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, NULL); /* the second thread's too */
	if (write(pipe_b[1], "w", 1) != 1 || pthread_create(&t, NULL, second, NULL) != 0)
		return 2;
	while (!__atomic_load_n(&second_tid, __ATOMIC_SEQ_CST))
		sched_yield();
	if ((c = fork()) == 0) {
		int main_stat = stat_of(parent), second_stat = stat_of(second_tid);

		wait_state(main_stat, "S");
		wait_state(second_stat, "S");
		kill(parent, SIGSTOP);
		wait_state(main_stat, "Tt"); /* stopped (t: under a tracer) */
		wait_state(second_stat, "Tt");
		kill(parent, SIGCONT);
		wait_not_pending(proc_file_open(parent, 0, "status"), ~0ull);
		wait_state(main_stat, "S");
		wait_state(second_stat, "S");
		_exit(write(pipe_a[1], "x", 1) == 1 && write(pipe_b[1], "x", 1) == 1 ? 0 : 1);
	}
	ok &= readv_byte(pipe_a[0]);
	ok &= pthread_join(t, &second_ok) == 0 && second_ok;
	reap(c);
	return ok ? 0 : 1;
}
