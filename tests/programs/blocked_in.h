/* Waiting, in a test program, until another thread or process is blocked in a
 * syscall: its /proc stat says S (asleep). A thread stopped by the tracer says t, one
 * running R: S is only ever a call that waits. The polls are pread64 and
 * clock_nanosleep calls whose number is timing (the tests leave those two names out
 * of their exact counts); there is no time limit: the test's own timeout is the
 * bound, so that a loaded machine only makes the wait longer. */
#ifndef BLOCKED_IN_H
#define BLOCKED_IN_H

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* the state letter in a /proc stat file opened as fd, '?' if unreadable */
static inline char proc_state(int fd)
{
	char buf[512], *p;
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	if (n <= 0)
		return '?';
	buf[n] = 0;
	p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : '?';
}

/* opens /proc/self/task/TID/stat (a thread of this process; pid 0: the stat of the
 * process, its leader's state), or /proc/PID/stat of another process */
static inline int proc_stat_open(int pid, int tid)
{
	char path[64];

	if (tid)
		snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
	else if (pid)
		snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	else
		snprintf(path, sizeof(path), "/proc/self/stat");
	return open(path, O_RDONLY | O_CLOEXEC);
}

/* polls the stat file fd every millisecond until its state is one of states */
static inline void wait_state(int fd, const char *states)
{
	struct timespec ms = { 0, 1000 * 1000 };

	while (!strchr(states, proc_state(fd)))
		clock_nanosleep(CLOCK_MONOTONIC, 0, &ms, NULL);
}

#endif
