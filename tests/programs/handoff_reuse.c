/* A process killed and reaped while it waits, untraced, between two tracer threads
 * (tracer/handoff.h), and its pid taken by another process before the receiving
 * thread seizes it: that process must not be touched (before: the seize refused,
 * as it is traced, the receiver killed it by its pid).
 *
 * By construction, not by timing: systrace runs with two serving threads and
 * SYSTRACE_TEST_HANDOFF=every-exec-after-reuse, under which the receiver takes an
 * image only once its pid is another process's, and then sends that process
 * SIGCONT. In a pid namespace of its own (ns_last_pid needs one), the command:
 *  1. forks C, which executes /bin/true: handed off at its exec event, it waits
 *     parked, untraced (TracerPid 0 in its status);
 *  2. kills C with SIGKILL and reaps it;
 *  3. forks D at C's pid (ns_last_pid), with SIGCONT blocked: D waits for it
 *     (sigwaitinfo), which comes once the receiver has tried, and exits 0.
 * Exits 0 when D exited 0, 1 when D was killed, 2 when the construction does not
 * hold (D not at C's pid, C not parked). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "blocked_in.h"

static void write_last_pid(pid_t pid)
{
	char text[16];
	int fd = open("/proc/sys/kernel/ns_last_pid", O_WRONLY | O_CLOEXEC);
	int n = snprintf(text, sizeof(text), "%d", (int)pid);

	if (fd < 0 || write(fd, text, (size_t)n) != n)
		_exit(2);
	close(fd);
}

int main(void)
{
	struct timespec ms = { 0, 1000 * 1000 };
	sigset_t cont;
	pid_t c, d;
	int status, fd;

	sigemptyset(&cont);
	sigaddset(&cont, SIGCONT);
	if (sigprocmask(SIG_BLOCK, &cont, NULL) != 0)
		return 2;
	if ((c = fork()) == 0) {
		execl("/bin/true", "true", (char *)NULL);
		_exit(2);
	}
	if (c < 0 || (fd = proc_file_open(c, 0, "status")) < 0)
		return 2;
	while (tracer_pid(fd) != 0)
		clock_nanosleep(CLOCK_MONOTONIC, 0, &ms, NULL);
	close(fd);
	if (kill(c, SIGKILL) != 0 || waitpid(c, &status, 0) != c || !WIFSIGNALED(status))
		return 2;
	write_last_pid(c - 1);
	if ((d = fork()) == 0) {
		siginfo_t info;

		_exit(sigwaitinfo(&cont, &info) == SIGCONT ? 0 : 2);
	}
	if (d != c) {
		fprintf(stderr, "handoff_reuse: the second child is pid %d, not %d\n", (int)d, (int)c);
		return 2;
	}
	if (waitpid(d, &status, 0) != d)
		return 2;
	if (WIFSIGNALED(status)) {
		fprintf(stderr, "handoff_reuse: the process at the parked one's pid was killed (signal %d)\n",
			WTERMSIG(status));
		return 1;
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 2;
}
