/* A thread's exit whose stop the tracer has not read yet when another thread's
 * exit_group kills it: the kernel drops that stop, and the call must still be
 * counted (at its entry, as any call a process is killed inside). 20 children; in
 * each, a second thread calls exit through syscall() (its number varies there, so it
 * stops in the tracer), and the main thread, once that thread is stopped (its stat
 * says t) or gone, calls exit_group. Natively the thread is gone first. Counts by
 * construction: exit 20, exit_group 21 (the children's and the parent's), clone3 20
 * (or clone), fork 20 (clone: glibc's fork); the waits' openat, pread64 and
 * clock_nanosleep are timing. Exits 0 when every child exited 0. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "blocked_in.h"
#include "children_in_turn.h"

#define CHILDREN 20

static pid_t exiting;

static void *exit_now(void *arg)
{
	(void)arg;
	__atomic_store_n(&exiting, gettid(), __ATOMIC_SEQ_CST);
	syscall(SYS_exit, 0);
	return NULL;
}

static void child(void)
{
	pthread_t t;
	pid_t tid;
	int stat;

	if (pthread_create(&t, NULL, exit_now, NULL) != 0)
		_exit(2);
	while (!(tid = __atomic_load_n(&exiting, __ATOMIC_SEQ_CST)))
		sched_yield();
	/* stopped in the tracer (t), gone (Z, or no stat any more) */
	if ((stat = proc_stat_open(0, tid)) >= 0)
		wait_state(stat, "tZX?");
	syscall(SYS_exit_group, 0);
}

int main(void)
{
	return children_in_turn(CHILDREN, child, 0) ? 0 : 1;
}
