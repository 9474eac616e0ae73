/* Calls at a site of an object mapped where another was (a dlclose, then a dlopen
 * that the loader places at the same address) belong to the object mapped when they
 * were made: each object's row of sites.csv counts its own calls.
 *
 *   same_address_counts OLD.so NEXT.so
 *
 * OLD's swap_old() (swap_old_dso.c, getppid at +9) is called 5 times by main (its
 * site patched at the first) and 3 times by a second thread, whose in-process
 * counts stay in its slot until it ends, after the swap. OLD is closed and NEXT
 * opened; NEXT's swap_next() (swap_next_dso.c, getpid at +9) must be where swap_old
 * was, else exit 2 (the construction does not hold); it is called 7 times. Then the
 * thread ends. Calls by construction: swap_old_dso.so's site getppid 8,
 * swap_next_dso.so's getpid 7. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

#define OLD_CALLS_MAIN 5
#define OLD_CALLS_THREAD 3
#define NEXT_CALLS 7

static long (*swap_old)(int);
static int done_old[2], swapped[2];

static void *old_caller(void *arg)
{
	char c = 0;

	(void)arg;
	for (int i = 0; i < OLD_CALLS_THREAD; i++)
		swap_old(0);
	if (write(done_old[1], &c, 1) != 1 || read(swapped[0], &c, 1) != 1)
		return (void *)1;
	return NULL;
}

int main(int argc, char **argv)
{
	void *old, *next, *thread_ret;
	long (*swap_next)(int);
	pthread_t th;
	char c = 0;

	if (argc != 3) {
		fprintf(stderr, "usage: same_address_counts OLD.so NEXT.so\n");
		return 2;
	}
	if (!(old = dlopen(argv[1], RTLD_NOW)) || !(swap_old = (long (*)(int))dlsym(old, "swap_old"))) {
		fprintf(stderr, "same_address_counts: %s\n", dlerror());
		return 2;
	}
	if (pipe(done_old) || pipe(swapped))
		return 2;
	for (int i = 0; i < OLD_CALLS_MAIN; i++)
		swap_old(0);
	if (pthread_create(&th, NULL, old_caller, NULL) || read(done_old[0], &c, 1) != 1)
		return 2;
	dlclose(old);
	if (!(next = dlopen(argv[2], RTLD_NOW)) || !(swap_next = (long (*)(int))dlsym(next, "swap_next"))) {
		fprintf(stderr, "same_address_counts: %s\n", dlerror());
		return 2;
	}
	if ((void *)swap_next != (void *)swap_old) {
		fprintf(stderr, "same_address_counts: swap_next at %p, not where swap_old was (%p)\n",
			(void *)swap_next, (void *)swap_old);
		return 2;
	}
	for (int i = 0; i < NEXT_CALLS; i++)
		if (swap_next(0) != getpid())
			return 1;
	if (write(swapped[1], &c, 1) != 1 || pthread_join(th, &thread_ret) || thread_ret)
		return 1;
	printf("swap_old and swap_next at %p\n", (void *)swap_next);
	return 0;
}
