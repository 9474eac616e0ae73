/* A sleep the kernel resumes with restart_syscall, then a handler makes return EINTR:
 * the error is the sleep's (clock_nanosleep), as its call is. N rounds (argv[1],
 * default 2), each a child that sleeps 60 s (a handler for SIGUSR1 without
 * SA_RESTART) while this process, its parent, waits for it to be blocked in
 * clock_nanosleep, stops it (SIGSTOP: the sleep is left with
 * -ERESTART_RESTARTBLOCK; waitpid WUNTRACED), continues it (SIGCONT: the kernel enters
 * restart_syscall in its place, at the same address), waits for it to be blocked
 * in restart_syscall (/proc/PID/syscall) and sends SIGUSR1: the sleep returns
 * EINTR. The parent's polls sleep at the same libc site, so that under systrace the
 * child's sleep is an in-process call at a patched site. Exit 0 when every child's
 * sleep failed with EINTR and it exited 0; 1 otherwise. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "blocked_in.h"
#include "child.h"

static void on_usr1(int sig)
{
	(void)sig;
}

/* Polls /proc/PID/syscall every millisecond until the call pid is blocked in is
 * nr (its first field; "running" when in none), and its state S. */
static void wait_blocked_in(pid_t pid, int stat, long nr)
{
	struct timespec ms = { 0, 1000 * 1000 };
	char path[64], buf[256];

	snprintf(path, sizeof(path), "/proc/%d/syscall", (int)pid);
	for (;;) {
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);

		if (fd >= 0)
			close(fd);
		buf[n > 0 ? n : 0] = 0;
		if (n > 0 && strtol(buf, NULL, 10) == nr && strncmp(buf, "running", 7) != 0 && proc_state(stat) == 'S')
			return;
		clock_nanosleep(CLOCK_MONOTONIC, 0, &ms, NULL);
	}
}

static int sleeper(int ready)
{
	struct sigaction sa;
	struct timespec long_sleep = { 60, 0 };

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1; /* no SA_RESTART: the sleep returns EINTR */
	if (sigaction(SIGUSR1, &sa, NULL) < 0 || write(ready, "r", 1) != 1)
		return 2;
	if (nanosleep(&long_sleep, NULL) == 0 || errno != EINTR)
		return 3;
	return 0;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 2;

	for (int i = 0; i < rounds; i++) {
		int ready[2], stat, st;
		pid_t pid;
		char c;

		if (pipe(ready) < 0)
			return 1;
		if ((pid = fork()) == 0)
			_exit(sleeper(ready[1]));
		if (pid < 0 || read(ready[0], &c, 1) != 1 || (stat = proc_stat_open(pid, 0)) < 0)
			return 1;
		close(ready[0]);
		close(ready[1]);
		wait_blocked_in(pid, stat, SYS_clock_nanosleep);
		/* stopped: as its parent sees it (under a tracer, its state says t at
		 * the tracer's stops too, before it has stopped) */
		kill(pid, SIGSTOP);
		if (waitpid(pid, &st, WUNTRACED) != pid || !WIFSTOPPED(st))
			return 1;
		kill(pid, SIGCONT);
		wait_blocked_in(pid, stat, SYS_restart_syscall);
		kill(pid, SIGUSR1);
		if (wait_exit("eintr_after_stop", "sleeper", pid, 0, 0))
			return 1;
		close(stat);
	}
	return 0;
}
