/* Many threads reach one unpatched site at the same moment: T threads (argv[1],
 * default 8) are released together by a spin barrier (no futex, so the counts do not
 * depend on timing) and each calls
 *  - race_site(), one inline `mov $110,%eax; syscall` (getppid) in this program, and
 *  - glibc's getppid()
 * M times each (argv[2], default 2000), checking every result. The first calls at
 * race_site trap together: whoever patches it does so while the other threads are
 * in it, about to enter it, or blocked at the barrier's exit. The main thread calls
 * neither site (it reads the expected value through syscall()), so in --patch=single
 * race_site is only ever run by several threads.
 * Joins spin with pthread_tryjoin_np (no futex).
 * Counts: getppid 2*T*M + 1, clone3 T, exit T (one per thread), exit_group 1. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "spin.h"

#define MAX_THREADS 256

static long nthreads, iterations, expect_ppid;
static int arrived, go;
static long bad_results[MAX_THREADS];

__attribute__((noinline)) long race_site(void)
{
	long ret;

	__asm__ volatile("mov $110,%%eax\n\tsyscall" : "=a"(ret) : : "rcx", "r11", "memory");
	return ret;
}

static void *worker(void *arg)
{
	long id = (long)arg, bad = 0;

	__atomic_add_fetch(&arrived, 1, __ATOMIC_SEQ_CST);
	SPIN_UNTIL(__atomic_load_n(&go, __ATOMIC_ACQUIRE), "race_threads: thread %ld: never released\n", id);
	for (long i = 0; i < iterations; i++) {
		if (race_site() != expect_ppid)
			bad++;
		if (getppid() != expect_ppid)
			bad++;
	}
	bad_results[id] = bad;
	return NULL;
}

int main(int argc, char **argv)
{
	nthreads = argc > 1 ? atol(argv[1]) : 8;
	iterations = argc > 2 ? atol(argv[2]) : 2000;
	if (nthreads < 1 || nthreads > MAX_THREADS || iterations < 0) {
		fprintf(stderr, "race_threads: usage: race_threads [THREADS 1..%d] [ITERATIONS]\n", MAX_THREADS);
		return 2;
	}
	expect_ppid = syscall(SYS_getppid);

	pthread_t t[MAX_THREADS];
	for (long i = 0; i < nthreads; i++)
		if (pthread_create(&t[i], NULL, worker, (void *)i) != 0) {
			fprintf(stderr, "race_threads: pthread_create failed\n");
			return 1;
		}
	SPIN_UNTIL(__atomic_load_n(&arrived, __ATOMIC_SEQ_CST) == nthreads,
		   "race_threads: only %d of %ld threads started\n", __atomic_load_n(&arrived, __ATOMIC_SEQ_CST), nthreads);
	__atomic_store_n(&go, 1, __ATOMIC_RELEASE);

	int failed = 0;
	for (long i = 0; i < nthreads; i++) {
		int r;

		SPIN_UNTIL((r = pthread_tryjoin_np(t[i], NULL)) != EBUSY, "race_threads: thread %ld never finished\n", i);
		if (r != 0) {
			fprintf(stderr, "race_threads: join failed: %d\n", r);
			return 1;
		}
		if (bad_results[i]) {
			fprintf(stderr, "race_threads: thread %ld: %ld of %ld getppid results were wrong\n", i,
				bad_results[i], 2 * iterations);
			failed = 1;
		}
	}
	return failed;
}
