/* 8 pthreads; thread i makes GETPPID_PER_THREAD getppid and GETTID_PER_THREAD
 * gettid calls (so 8*125 = 1000 getppid and 8*25 = 200 gettid in all).
 * The main thread joins them with pthread_tryjoin_np in a spin loop rather than
 * pthread_join, so that no futex call depends on timing: the syscall counts of
 * this program are the same in every run. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#define NTHREADS 8
#define GETPPID_PER_THREAD 125
#define GETTID_PER_THREAD 25

static void *worker(void *arg)
{
	(void)arg;
	for (int i = 0; i < GETPPID_PER_THREAD; i++)
		syscall(SYS_getppid);
	for (int i = 0; i < GETTID_PER_THREAD; i++)
		syscall(SYS_gettid);
	return NULL;
}

int main(void)
{
	pthread_t t[NTHREADS];
	for (int i = 0; i < NTHREADS; i++)
		if (pthread_create(&t[i], NULL, worker, NULL) != 0) {
			fprintf(stderr, "threads: pthread_create failed\n");
			return 1;
		}
	for (int i = 0; i < NTHREADS; i++) {
		int r;
		while ((r = pthread_tryjoin_np(t[i], NULL)) == EBUSY)
			__builtin_ia32_pause();
		if (r != 0) {
			fprintf(stderr, "threads: join failed: %d\n", r);
			return 1;
		}
	}
	return 0;
}
