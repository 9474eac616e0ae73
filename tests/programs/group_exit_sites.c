/* A process that ends as a whole while another of its threads is in a stop the
 * tracer is handling: the kernel kills that thread (SIGKILL, from the group exit),
 * and it may die without an exit event (seen on Linux 6.18: 1 child in 2 here), so
 * that the first thread's exit event is the last stop at which the process's memory
 * and CPU times can be read. 20 children, in turn; in each, a second thread makes
 * sched_getaffinity calls in a loop (a call that always stops in the tracer), and
 * the main thread, once it has seen 3 of them, calls getppid at a site of its own
 * (site_getppid: its first call in the first child stops in the tracer) and sends
 * itself SIGTERM, of which the process dies. Every child's sites must be named and
 * its CPU times known. Counts by construction: getppid 20 (at site_getppid), tgkill
 * 20, exit_group 1 (the parent's); sched_getaffinity and sched_yield are timing.
 * Exits 0 when every child died of SIGTERM. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "children_in_turn.h"

#define CHILDREN 20

static unsigned long calls;

/* Not static: the e2e test finds the site by this name. */
__attribute__((noinline)) long site_getppid(void)
{
	long ret;

	__asm__ volatile("syscall" : "=a"(ret) : "a"((long)SYS_getppid) : "rcx", "r11", "memory");
	return ret;
}

static void *stop_and_stop(void *arg)
{
	cpu_set_t set;

	(void)arg;
	for (;;) {
		sched_getaffinity(0, sizeof(set), &set);
		__atomic_add_fetch(&calls, 1, __ATOMIC_SEQ_CST);
	}
	return NULL;
}

static void child(void)
{
	pthread_t t;

	if (pthread_create(&t, NULL, stop_and_stop, NULL) != 0)
		_exit(2);
	while (__atomic_load_n(&calls, __ATOMIC_SEQ_CST) < 3)
		sched_yield();
	site_getppid();
	syscall(SYS_tgkill, getpid(), gettid(), SIGTERM);
}

int main(void)
{
	return children_in_turn(CHILDREN, child, SIGTERM) ? 0 : 1;
}
