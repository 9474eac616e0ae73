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
 * hold (D not at C's pid, C not parked).
 *
 * The same with a stranger at the pid, a process systrace does not trace (the
 * receiver's seize then succeeds, and it must let the process go untouched):
 *   handoff_reuse forker REQUESTS ANSWERS   started in the namespace before
 *       systrace, untraced: reads a pid from the fifo REQUESTS, forks D at it as
 *       above, and writes D's end to the fifo ANSWERS (0, 1 or 2 as above; 3 if
 *       D, given SIGCONT, is still traced)
 *   handoff_reuse stranger REQUESTS ANSWERS   the command: steps 1 and 2, then
 *       asks the forker for D at C's pid, and exits with its answer. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
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

/* Forks D at pid (its SIGCONT blocked by the caller), waits for it: 0 when it
 * exited 0, 1 when it was killed, 2 when it is not at pid or failed, 3 when it
 * should be untraced and is traced once it had SIGCONT (the receiver let it go
 * still seized). */
static int reuse_pid(pid_t pid, const sigset_t *cont, bool untraced)
{
	int status;
	pid_t d;

	write_last_pid(pid - 1);
	if ((d = fork()) == 0) {
		siginfo_t info;
		int sig, fd;

		/* (a stranger seized, interrupted and let go by the receiver wakes from
		 * its wait with EINTR, as under any ptrace attach and detach: a call
		 * the kernel does not restart) */
		while ((sig = sigwaitinfo(cont, &info)) < 0 && errno == EINTR)
			;
		if (sig != SIGCONT || (fd = proc_file_open(getpid(), 0, "status")) < 0)
			_exit(2);
		_exit(untraced && tracer_pid(fd) != 0 ? 3 : 0);
	}
	if (d != pid) {
		fprintf(stderr, "handoff_reuse: the second child is pid %d, not %d\n", (int)d, (int)pid);
		return 2;
	}
	if (waitpid(d, &status, 0) != d)
		return 2;
	if (WIFSIGNALED(status)) {
		fprintf(stderr, "handoff_reuse: the process at the parked one's pid was killed (signal %d)\n",
			WTERMSIG(status));
		return 1;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 3)
		fprintf(stderr, "handoff_reuse: the process at the parked one's pid is still traced\n");
	return WIFEXITED(status) ? WEXITSTATUS(status) : 2;
}

/* The untraced forker: one request, one answer. */
static int forker(const char *requests, const char *answers, const sigset_t *cont)
{
	FILE *in = fopen(requests, "re"), *out;
	int pid, ret;

	if (!in || fscanf(in, "%d", &pid) != 1)
		return 2;
	fclose(in);
	ret = reuse_pid(pid, cont, true);
	if (!(out = fopen(answers, "we")))
		return 2;
	fprintf(out, "%d\n", ret);
	return fclose(out) == 0 ? ret : 2;
}

/* Asks the forker for D at pid: its answer. */
static int ask_forker(pid_t pid, const char *requests, const char *answers)
{
	FILE *out = fopen(requests, "we"), *in;
	int ret;

	if (!out || fprintf(out, "%d\n", (int)pid) < 0 || fclose(out) != 0 || !(in = fopen(answers, "re")))
		return 2;
	if (fscanf(in, "%d", &ret) != 1)
		ret = 2;
	fclose(in);
	return ret;
}

int main(int argc, char **argv)
{
	struct timespec ms = { 0, 1000 * 1000 };
	sigset_t cont;
	pid_t c;
	int status, fd;

	sigemptyset(&cont);
	sigaddset(&cont, SIGCONT);
	if (sigprocmask(SIG_BLOCK, &cont, NULL) != 0)
		return 2;
	if (argc == 4 && !strcmp(argv[1], "forker"))
		return forker(argv[2], argv[3], &cont);
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
	if (argc == 4 && !strcmp(argv[1], "stranger"))
		return ask_forker(c, argv[2], argv[3]);
	return reuse_pid(c, &cont, false);
}
