/* Signals landing in the log routine (test_log): two threads make in-process calls
 * at one inline site as fast as they can while a timer sends SIGALRM every 20 us to
 * the process, whose handler makes calls at the same site (and another). A handler
 * that lands between an entry's reservation and its mark, or between a result's check
 * and its store, would break the log without the tracer's rewind (gate_code.S): an
 * entry lost, doubled or holding another call's result. Prints the calls made: main
 * and worker loop calls, handler calls; exits 0 when every getppid returned the
 * parent's pid. Each loop stops after 5 s if it has not made its calls by then. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
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

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts); /* the vDSO: no syscall */
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* LOOPS calls, or fewer when 5 s have gone by (a timer faster than the tracer can
 * hold a thread in handler after handler); returns the calls made */
static void *loop(void *arg)
{
	double until = now_s() + 5;
	long i;

	for (i = 0; i < LOOPS && ((i & 1023) || now_s() < until); i++)
		if (site_getppid() != parent)
			bad = 1;
	*(long *)arg = i;
	return NULL;
}

int main(void)
{
	struct sigaction sa;
	struct itimerval every = { { 0, 20 }, { 0, 20 } }, off = { { 0, 0 }, { 0, 0 } };
	pthread_t worker;
	long main_calls, worker_calls;

	parent = getppid();
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &every, NULL);
	pthread_create(&worker, NULL, loop, &worker_calls);
	loop(&main_calls);
	pthread_join(worker, NULL);
	setitimer(ITIMER_REAL, &off, NULL);
	printf("loop %ld handler %ld\n", main_calls + worker_calls, handler_calls);
	return bad;
}
