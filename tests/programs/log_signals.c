/* Signals landing in the log routine (test_log): two threads make in-process calls
 * at one inline site as fast as they can while a timer sends SIGALRM every 20 us to
 * the process, whose handler makes calls at the same site (and another). A handler
 * that lands between an entry's reservation and its mark, or between a result's check
 * and its store, would break the log without the tracer's rewind (gate_code.S): an
 * entry lost, doubled or holding another call's result. Prints the calls made: main
 * and worker loop calls, handler calls; exits 0 when every getppid returned the
 * parent's pid. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include "site_getppid.h"

#define LOOPS 200000

static volatile long handler_calls, bad;
static long parent;

static __attribute__((noinline)) long handler_site(void)
{
	long r;

	__asm__ volatile("mov $110,%%eax\n\tsyscall" : "=a"(r) : : "rcx", "r11", "memory");
	return r;
}

static void on_alarm(int sig)
{
	(void)sig;
	if (site_getppid() != parent || handler_site() != parent)
		bad = 1;
	handler_calls += 2;
}

static void *loop(void *arg)
{
	(void)arg;
	for (int i = 0; i < LOOPS; i++)
		if (site_getppid() != parent)
			bad = 1;
	return NULL;
}

int main(void)
{
	struct sigaction sa;
	struct itimerval every = { { 0, 20 }, { 0, 20 } }, off = { { 0, 0 }, { 0, 0 } };
	pthread_t worker;

	parent = getppid();
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &every, NULL);
	pthread_create(&worker, NULL, loop, NULL);
	loop(NULL);
	pthread_join(worker, NULL);
	setitimer(ITIMER_REAL, &off, NULL);
	printf("loop %d handler %ld\n", 2 * LOOPS, handler_calls);
	return bad;
}
