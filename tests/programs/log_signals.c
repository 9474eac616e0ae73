/* Signals landing in the log routine (test_log), by count. Two threads (the main
 * thread and a worker) each make N in-process calls (argv[1], default 100000) at one
 * inline site, seek_site, and get K signals each (argv[2], default 1000), whose
 * handler calls seek_site too and gettid at another site (handler_site); every
 * tenth handler makes 2100 more calls at seek_site, more than a thread's log buffer
 * (2048 entries) holds, so that the buffer is emptied and reused under a routine the
 * signal interrupted.
 * seek_site is lseek(fd, 1, SEEK_CUR) on a memfd of the thread's own: each call
 * returns the one before's plus one, so a thread's calls, its handlers' included,
 * return 1, 2, ..., M (M = N + K + K / 10 * 2100) in the order they were made, and
 * its entries in the log must hold exactly that sequence.
 * Signal i comes from a one-shot timer of the thread's own (SIGEV_THREAD_ID, 20 us:
 * its interrupt lands wherever the thread is running, the log routine included),
 * armed once the thread has made i * N / (K + 1) calls and its handler has run for
 * signal i - 1: one signal at a time, never faster than the thread goes. A thread
 * never runs more than two such intervals ahead of its handled signals (it waits
 * there, a futex wait, for the next one), so that the signals land while it makes
 * its calls whatever the machine's load: N calls and K signals per thread, however
 * slow the machine.
 * Without the tracer's rewind (gate_code.S, patching.c log_routine_rewind), a handler
 * landing between an entry's time and its reservation places that entry after the
 * handler's with a time from before them; between the reservation and the mark, it
 * loses the entry (the handler's rt_sigreturn, a ptraced call, drains the buffer
 * past it); at the call not yet made, it leaves the entry before the handler's for a
 * call made after them; between the result's check and its store, once a handler
 * refilled the buffer, it stores the result into a handler's entry. Each breaks the
 * sequence (or the time order logtool.py checks).
 * Counts by construction: lseek 2M, all at seek_site; gettid 2K at handler_site,
 * each returning its thread, and 2 more (glibc's gettid(), for the timers);
 * timer_settime 2K, timer_create 2, timer_delete 2, memfd_create 2, rt_sigreturn 2K
 * (futex: the waits, as the timing goes). Prints "loop 2N handler H", the calls it
 * made as it counted them (H = 2M - 2N + 2K); exits 0 when every result came once
 * and the counts are as constructed, 1 otherwise. */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define DELAY_NS 20000 /* from arming a timer to its signal: some dozens of calls */
#define WRAP_EVERY 10    /* every tenth handler makes WRAP_CALLS more calls: */
#define WRAP_CALLS 2100  /* more than a thread's log buffer holds (2048) */

static long loops, signals, interval, results;
/* per loop thread: the signals its handler finished (a futex word: the thread waits
 * on it when ahead), the calls it counted, its memfd, which results it saw */
static int handled[2];
static long handler_calls[2], loop_calls[2];
static int fds[2];
static char *seen[2];
static volatile int bad;
static __thread int me = -1;
static __thread pid_t my_tid;

/* lseek(fd, 1, SEEK_CUR): the new offset */
static __attribute__((noinline)) long seek_site(long fd)
{
	long r;

	__asm__ volatile("mov $8,%%eax\n\tsyscall" : "=a"(r) : "D"(fd), "S"(1L), "d"(1L) : "rcx", "r11", "memory");
	return r;
}

static __attribute__((noinline)) long handler_site(void)
{
	long r;

	__asm__ volatile("mov $186,%%eax\n\tsyscall" : "=a"(r) : : "rcx", "r11", "memory");
	return r;
}

/* a result of thread t's seek_site: each of 1..N+K comes once */
static void saw(int t, long r)
{
	if (r < 1 || r > results || seen[t][r - 1]++)
		bad = 1;
}

static int load(int *word)
{
	return __atomic_load_n(word, __ATOMIC_SEQ_CST);
}

/* sleeps until *word >= want (futex calls: how many is timing, which the test leaves
 * out; every other call is counted by construction) */
static void wait_for(int *word, long want)
{
	int now;

	while ((now = load(word)) < want)
		syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, now, NULL, NULL, 0);
}

static void on_signal(int sig)
{
	int saved = errno;

	(void)sig;
	if (me < 0) { /* not a loop thread: the signal went astray */
		bad = 1;
		return;
	}
	saw(me, seek_site(fds[me]));
	if (handler_site() != my_tid)
		bad = 1;
	handler_calls[me] += 2;
	/* every WRAP_EVERY-th handler: more calls than a log buffer holds */
	if (handled[me] % WRAP_EVERY == WRAP_EVERY - 1)
		for (int i = 0; i < WRAP_CALLS; i++, handler_calls[me]++)
			saw(me, seek_site(fds[me]));
	__atomic_add_fetch(&handled[me], 1, __ATOMIC_SEQ_CST);
	syscall(SYS_futex, &handled[me], FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
	errno = saved;
}

static void arm(timer_t timer)
{
	struct itimerspec soon = { .it_value = { 0, DELAY_NS } };

	if (timer_settime(timer, 0, &soon, NULL) != 0)
		bad = 1;
}

/* thread t's N calls and K signals */
static void loop(int t)
{
	struct sigevent ev = { .sigev_notify = SIGEV_THREAD_ID, .sigev_signo = SIGRTMIN };
	timer_t timer;
	long armed = 0;

	me = t;
	my_tid = gettid();
	ev._sigev_un._tid = my_tid;
	if (timer_create(CLOCK_MONOTONIC, &ev, &timer) != 0) {
		bad = 1;
		return;
	}
	for (long j = 0; j < loops; j++) {
		long h = load(&handled[t]);

		if (h < signals && j >= (h + 2) * interval)
			wait_for(&handled[t], h + 1);
		saw(t, seek_site(fds[t]));
		loop_calls[t]++;
		if (armed < signals && armed == load(&handled[t]) && j + 1 >= (armed + 1) * interval) {
			arm(timer);
			armed++;
		}
	}
	while (armed < signals) { /* the last ones, if the calls went faster than them */
		wait_for(&handled[t], armed);
		arm(timer);
		armed++;
	}
	wait_for(&handled[t], signals);
	timer_delete(timer);
}

static void *worker(void *arg)
{
	(void)arg;
	loop(1);
	return NULL;
}

int main(int argc, char **argv)
{
	struct sigaction sa;
	pthread_t w;
	int e;

	loops = argc > 1 ? atol(argv[1]) : 100000;
	signals = argc > 2 ? atol(argv[2]) : 1000;
	interval = loops / (signals + 1);
	results = loops + signals + signals / WRAP_EVERY * WRAP_CALLS;
	if (signals < 1 || interval < 1) {
		fprintf(stderr, "usage: log_signals [CALLS [SIGNALS]] (CALLS > SIGNALS >= 1)\n");
		return 2;
	}
	for (int t = 0; t < 2; t++)
		if ((fds[t] = memfd_create("log_signals", 0)) < 0 || !(seen[t] = calloc(results, 1)))
			return 2;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGRTMIN, &sa, NULL) != 0 || pthread_create(&w, NULL, worker, NULL) != 0)
		return 2;
	loop(0);
	e = pthread_join(w, NULL);
	printf("loop %ld handler %ld\n", loop_calls[0] + loop_calls[1], handler_calls[0] + handler_calls[1]);
	if (e || loop_calls[0] != loops || loop_calls[1] != loops || handled[0] != signals ||
	    handled[1] != signals) {
		fprintf(stderr, "log_signals: loops %ld and %ld of %ld, signals handled %d and %d of %ld (join %d)\n",
			loop_calls[0], loop_calls[1], loops, handled[0], handled[1], signals, e);
		return 1;
	}
	for (int t = 0; t < 2; t++)
		if (memchr(seen[t], 0, results)) {
			fprintf(stderr, "log_signals: thread %d: a result of lseek never came\n", t);
			return 1;
		}
	return bad;
}
