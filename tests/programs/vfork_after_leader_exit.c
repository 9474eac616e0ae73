/* A thread vforks after its process's main thread has exited (pthread_exit: the
 * leader is a zombie whose memory the kernel no longer reports). The child runs a
 * site first (site_x: getppid), so it gets patched from the child, in memory it
 * shares with its parent; then the parent's thread runs site_x 100 times and site_y
 * (getpid) 50 times. The tracer must know the child shares the memory, or the
 * parent's table misses the patch and its counts land on other counters.
 * The thread waits until the leader is gone (the process's /proc stat says Z:
 * blocked_in.h) before it vforks.
 * Counts: child image getppid 1; parent image getppid 100, getpid 50 (the wait's
 * openat, pread64, clock_nanosleep and close as the timing goes). */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "blocked_in.h"

__attribute__((noinline)) static long site_x(void)
{
	long r;

	__asm__ volatile("mov $110,%%eax\n\tsyscall" : "=a"(r) : : "rcx", "r11", "memory");
	return r;
}

__attribute__((noinline)) static long site_y(void)
{
	long r;

	__asm__ volatile("mov $39,%%eax\n\tsyscall" : "=a"(r) : : "rcx", "r11", "memory");
	return r;
}

static void *spawner(void *arg)
{
	pid_t child;
	int status, stat = proc_stat_open(0, 0);

	(void)arg;
	if (stat < 0)
		exit(2);
	wait_state(stat, "Z"); /* the leader exited */
	close(stat);
	child = vfork();
	if (child == 0) {
		site_x();
		_exit(0);
	}
	if (child < 0 || waitpid(child, &status, 0) != child || status != 0)
		exit(1);
	for (int i = 0; i < 100; i++)
		site_x();
	for (int i = 0; i < 50; i++)
		site_y();
	return NULL;
}

int main(void)
{
	pthread_t t;

	pthread_create(&t, NULL, spawner, NULL);
	pthread_exit(NULL);
}
