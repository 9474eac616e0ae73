/* Waiting, in a test program, until another thread or process is blocked in a
 * syscall: its /proc stat says S (asleep); or until it has taken its signals (none
 * pending in its /proc status). A thread stopped by the tracer says t, one
 * running R: S is only ever a call that waits. The polls are pread64 and
 * clock_nanosleep calls whose number is timing (the tests leave those two names out
 * of their exact counts); there is no time limit: the test's own timeout is the
 * bound, so that a loaded machine only makes the wait longer. */
#ifndef BLOCKED_IN_H
#define BLOCKED_IN_H

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
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

/* opens /proc/self/task/TID/FILE (a thread of this process; pid 0: the process's
 * own, its leader's), or /proc/PID/FILE of another process */
static inline int proc_file_open(int pid, int tid, const char *file)
{
	char path[64];

	if (tid)
		snprintf(path, sizeof(path), "/proc/self/task/%d/%s", tid, file);
	else if (pid)
		snprintf(path, sizeof(path), "/proc/%d/%s", pid, file);
	else
		snprintf(path, sizeof(path), "/proc/self/%s", file);
	return open(path, O_RDONLY | O_CLOEXEC);
}

static inline int proc_stat_open(int pid, int tid)
{
	return proc_file_open(pid, tid, "stat");
}

/* the signals pending in a /proc status file opened as fd (SigPnd | ShdPnd: hex
 * masks, bit sig - 1), all of them when it cannot be read; read whole, as a long
 * Groups: line (400 supplementary groups: test_many_groups) pushes them past 4 KiB */
static inline unsigned long long pending_signals(int fd)
{
	static char buf[64 * 1024];
	unsigned long long mask = 0;
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	if (n <= 0)
		return ~0ull;
	buf[n] = 0;
	for (char *p = buf; (p = strstr(p, "Pnd:")); p += 4)
		mask |= strtoull(p + 4, NULL, 16);
	return mask;
}

/* the TracerPid in a /proc status file opened as fd (0: not traced), -1 if it
 * cannot be read (the line comes before Groups:, within the first 4 KiB) */
static inline int tracer_pid(int fd)
{
	char buf[4096], *p;
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	if (n <= 0)
		return -1;
	buf[n] = 0;
	p = strstr(buf, "TracerPid:");
	return p ? atoi(p + 10) : -1;
}

/* the bit of sig in those masks (0 for no signal) */
static inline unsigned long long signal_bit(int sig)
{
	return sig ? 1ull << (sig - 1) : 0;
}

/* polls the status file fd every millisecond until none of mask is pending */
static inline void wait_not_pending(int fd, unsigned long long mask)
{
	struct timespec ms = { 0, 1000 * 1000 };

	while (pending_signals(fd) & mask)
		clock_nanosleep(CLOCK_MONOTONIC, 0, &ms, NULL);
}

/* polls the stat file fd every millisecond until its state is one of states */
static inline void wait_state(int fd, const char *states)
{
	struct timespec ms = { 0, 1000 * 1000 };

	while (!strchr(states, proc_state(fd)))
		clock_nanosleep(CLOCK_MONOTONIC, 0, &ms, NULL);
}

#endif
