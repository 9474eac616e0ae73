/* Calls that do not restart after a ptrace stop (signal(7): epoll_wait,
 * sigtimedwait, ...) return EINTR when their thread is stopped, even with no signal.
 * Two threads wait 1.5 s in epoll_wait (nothing to wait for) and sigtimedwait
 * (a blocked signal that never comes) while the main thread calls six new sites,
 * each of which --patch=safe patches with every other thread stopped. Natively
 * epoll_wait returns 0 and sigtimedwait fails with EAGAIN; anything else (EINTR) is
 * a failure: exit 1. Counts: epoll_wait 1, rt_sigtimedwait 1, getppid 6. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#define SITE(n)                                                                                \
	static long site##n(void)                                                              \
	{                                                                                      \
		long r;                                                                        \
		__asm__ volatile("mov $110,%%eax\n\tsyscall" : "=a"(r) : : "rcx", "r11", "memory"); \
		return r;                                                                      \
	}
SITE(1) SITE(2) SITE(3) SITE(4) SITE(5) SITE(6)

static int epoll_result, epoll_errno, wait_result, wait_errno;

static void *epoll_thread(void *arg)
{
	struct epoll_event ev;
	int ep = epoll_create1(0);

	(void)arg;
	epoll_result = epoll_wait(ep, &ev, 1, 1500);
	epoll_errno = errno;
	return NULL;
}

static void *sigwait_thread(void *arg)
{
	sigset_t set;
	struct timespec timeout = { 1, 500000000 };

	(void)arg;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	wait_result = sigtimedwait(&set, NULL, &timeout);
	wait_errno = errno;
	return NULL;
}

int main(void)
{
	pthread_t a, b;
	sigset_t set;
	struct timespec settle = { 0, 300 * 1000 * 1000 };

	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	pthread_create(&a, NULL, epoll_thread, NULL);
	pthread_create(&b, NULL, sigwait_thread, NULL);
	nanosleep(&settle, NULL);
	site1(), site2(), site3(), site4(), site5(), site6();
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	if (epoll_result != 0 || wait_result != -1 || wait_errno != EAGAIN) {
		fprintf(stderr, "interrupted_waits: epoll_wait %d (%s), sigtimedwait %d (%s); expected 0 and EAGAIN\n",
			epoll_result, epoll_result < 0 ? strerror(epoll_errno) : "ok", wait_result,
			wait_result < 0 ? strerror(wait_errno) : "ok");
		return 1;
	}
	return 0;
}
