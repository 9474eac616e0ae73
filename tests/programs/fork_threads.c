/* fork in a multi-threaded process whose threads are busy at the sites being patched:
 * the child gets a copy of the memory as it is at that moment (patched, half-way
 * through a patch, or not), with one thread, and its in-process calls must be counted
 * as its own, not in the parent's row (a counter slot in memory that is shared across
 * fork would put them there).
 * T worker threads (argv[1], default 4), released together, each call site_getppid
 * (inline `mov $110,%eax; syscall`) and glibc syscall(SYS_getppid) M times each
 * (argv[2], default 3000), checking every result. While they run:
 *  - the main thread, once every worker has made 200 calls, fork()s (glibc): the
 *    child calls site_getppid 1111 times and _exits;
 *  - then syscall(SYS_fork) through glibc's (patched) run-time-number site: the
 *    child calls syscall(SYS_getppid) 1222 times and _exits;
 *  - worker 0, half-way through its loop and once those two are done, fork()s: the
 *    child calls site_getppid 1333 times and _exits; the worker waits for it and
 *    goes on.
 * SIGCHLD is blocked (before the threads exist, so in all of them): no restarts.
 * Joins spin with pthread_tryjoin_np (no futex).
 * Counts: getppid 2TM + 1 + 3666; per image: the parent 2TM + 1, the children 1111,
 * 1222, 1333; clone 2 (glibc's fork), fork 1, clone3 T, exit T, exit_group 4,
 * wait4 3. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "child.h"
#include "site_getppid.h"
#include "spin.h"

#define MAX_THREADS 64

static long nthreads, iterations, ppid, pid;
static int arrived, go;
static long progress[MAX_THREADS], wrong[MAX_THREADS];
static int worker_child_status = -1, main_forks_done;

static void *worker(void *arg)
{
	long id = (long)arg;

	__atomic_add_fetch(&arrived, 1, __ATOMIC_SEQ_CST);
	SPIN_UNTIL(__atomic_load_n(&go, __ATOMIC_ACQUIRE), "fork_threads: worker %ld: never released\n", id);
	for (long i = 0; i < iterations; i++) {
		if (site_getppid() != ppid)
			wrong[id]++;
		if (syscall(SYS_getppid) != ppid)
			wrong[id]++;
		__atomic_store_n(&progress[id], i + 1, __ATOMIC_RELEASE);
		if (id == 0 && i == iterations / 2) {
			/* never two glibc forks at once: they would meet at glibc's fork
			 * locks and make futex calls that depend on timing */
			SPIN_UNTIL(__atomic_load_n(&main_forks_done, __ATOMIC_ACQUIRE),
				   "fork_threads: the main thread's forks never finished\n");
			pid_t c = fork();

			if (c == 0) {
				int errors = 0;

				for (int k = 0; k < 1333; k++)
					errors += site_getppid() != pid;
				_exit(errors ? 1 : 13);
			}
			worker_child_status = wait_exit("fork_threads", "the worker's fork", c, 0, 13);
		}
	}
	return NULL;
}

int main(int argc, char **argv)
{
	nthreads = argc > 1 ? atol(argv[1]) : 4;
	iterations = argc > 2 ? atol(argv[2]) : 3000;
	if (nthreads < 1 || nthreads > MAX_THREADS || iterations < 400) {
		fprintf(stderr, "fork_threads: usage: fork_threads [THREADS 1..%d] [ITERATIONS >= 400]\n", MAX_THREADS);
		return 2;
	}
	ppid = getppid();
	pid = getpid();
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigprocmask(SIG_BLOCK, &set, NULL);

	pthread_t t[MAX_THREADS];
	for (long i = 0; i < nthreads; i++)
		if (pthread_create(&t[i], NULL, worker, (void *)i) != 0) {
			fprintf(stderr, "fork_threads: pthread_create failed\n");
			return 2;
		}
	SPIN_UNTIL(__atomic_load_n(&arrived, __ATOMIC_SEQ_CST) == nthreads, "fork_threads: not every worker started\n");
	__atomic_store_n(&go, 1, __ATOMIC_RELEASE);
	for (long i = 0; i < nthreads; i++)
		SPIN_UNTIL(__atomic_load_n(&progress[i], __ATOMIC_ACQUIRE) >= 200,
			   "fork_threads: worker %ld stuck after %ld iterations\n", i, progress[i]);

	int bad = 0;
	pid_t c = fork();
	if (c == 0) {
		int errors = 0;

		for (int k = 0; k < 1111; k++)
			errors += site_getppid() != pid;
		_exit(errors ? 1 : 11);
	}
	bad |= wait_exit("fork_threads", "the main thread's fork()", c, 0, 11);

	c = (pid_t)syscall(SYS_fork);
	if (c == 0) {
		int errors = 0;

		for (int k = 0; k < 1222; k++)
			errors += syscall(SYS_getppid) != pid;
		_exit(errors ? 1 : 12);
	}
	bad |= wait_exit("fork_threads", "syscall(SYS_fork)", c, 0, 12);
	__atomic_store_n(&main_forks_done, 1, __ATOMIC_RELEASE);

	for (long i = 0; i < nthreads; i++) {
		int r;

		SPIN_UNTIL((r = pthread_tryjoin_np(t[i], NULL)) != EBUSY,
			   "fork_threads: worker %ld never finished (%ld iterations)\n", i, progress[i]);
		if (r != 0) {
			fprintf(stderr, "fork_threads: join failed: %d\n", r);
			return 1;
		}
		if (wrong[i]) {
			fprintf(stderr, "fork_threads: worker %ld: %ld of %ld getppid results were wrong\n", i, wrong[i],
				2 * iterations);
			bad = 1;
		}
	}
	return bad | (worker_child_status != 0);
}
