/* Calls that do not restart after a ptrace stop (signal(7): epoll_wait,
 * sigtimedwait, ...) return EINTR when their thread is stopped, even with no signal.
 * Two threads wait in epoll_wait (on an eventfd) and sigtimedwait (for SIGUSR2,
 * blocked); once both are blocked in them (their /proc stat says S: blocked_in.h),
 * the main thread calls six new sites, each of which --patch=safe patches with every
 * other thread stopped, and only then ends the waits: a write to the eventfd, a
 * SIGUSR2 to the waiting thread. Natively epoll_wait returns 1 (the eventfd) and
 * sigtimedwait SIGUSR2; anything else (EINTR, or the 60 s timeout that only bounds a
 * wait that never ends) is a failure: exit 1. Counts: epoll_wait 1,
 * rt_sigtimedwait 1, getppid 6, gettid 2, eventfd2 1, epoll_ctl 1, write 1,
 * tgkill 1; pread64 and clock_nanosleep as the waits take (timing). */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "blocked_in.h"
#include "spin.h"

#define SITE(n)                                                                                \
	static long site##n(void)                                                              \
	{                                                                                      \
		long r;                                                                        \
		__asm__ volatile("mov $110,%%eax\n\tsyscall" : "=a"(r) : : "rcx", "r11", "memory"); \
		return r;                                                                      \
	}
SITE(1) SITE(2) SITE(3) SITE(4) SITE(5) SITE(6)

static int ep, ev_fd;
static int epoll_result, epoll_errno, wait_result, wait_errno;
static pid_t tids[2];

static void *epoll_thread(void *arg)
{
	struct epoll_event ev;

	(void)arg;
	__atomic_store_n(&tids[0], gettid(), __ATOMIC_SEQ_CST);
	epoll_result = epoll_wait(ep, &ev, 1, 60 * 1000);
	epoll_errno = errno;
	return NULL;
}

static void *sigwait_thread(void *arg)
{
	sigset_t set;
	struct timespec timeout = { 60, 0 };

	(void)arg;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	__atomic_store_n(&tids[1], gettid(), __ATOMIC_SEQ_CST);
	wait_result = sigtimedwait(&set, NULL, &timeout);
	wait_errno = errno;
	return NULL;
}

int main(void)
{
	pthread_t a, b;
	sigset_t set;
	struct epoll_event ev = { .events = EPOLLIN };
	uint64_t one = 1;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	if ((ep = epoll_create1(0)) < 0 || (ev_fd = eventfd(0, 0)) < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, ev_fd, &ev) != 0)
		return 2;
	pthread_create(&a, NULL, epoll_thread, NULL);
	pthread_create(&b, NULL, sigwait_thread, NULL);
	for (int i = 0; i < 2; i++) {
		int stat;

		SPIN_UNTIL(__atomic_load_n(&tids[i], __ATOMIC_SEQ_CST), "interrupted_waits: thread %d never started\n", i);
		if ((stat = proc_stat_open(0, tids[i])) < 0)
			return 2;
		wait_state(stat, "S"); /* blocked in its wait */
		close(stat);
	}
	site1(), site2(), site3(), site4(), site5(), site6();
	if (write(ev_fd, &one, sizeof(one)) != sizeof(one) || pthread_kill(b, SIGUSR2) != 0)
		return 2;
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	if (epoll_result != 1 || wait_result != SIGUSR2) {
		fprintf(stderr, "interrupted_waits: epoll_wait %d (%s), sigtimedwait %d (%s); expected 1 and SIGUSR2 (%d)\n",
			epoll_result, epoll_result < 0 ? strerror(epoll_errno) : "ok", wait_result,
			wait_result < 0 ? strerror(wait_errno) : "ok", SIGUSR2);
		return 1;
	}
	return 0;
}
