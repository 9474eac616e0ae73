/* A preloaded library whose constructor, before main, starts a thread that loads a
 * library, then joins it: the loader's sites run in a second thread at the image's
 * start, counting in a slot of its own. Built as a shared object (name ends in
 * _preload). */
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>

static void *load(void *arg)
{
	(void)arg;
	return dlopen("libm.so.6", RTLD_NOW);
}

__attribute__((constructor)) static void thread_early(void)
{
	pthread_t t;
	void *handle;

	if (pthread_create(&t, NULL, load, NULL) != 0 || pthread_join(t, &handle) != 0 || !handle)
		exit(4);
}
