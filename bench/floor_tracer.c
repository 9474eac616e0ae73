/* floor_tracer -o FILE COMMAND [ARG...]: the least a ptrace tracer that follows every
 * process can do. It runs COMMAND, is told of each fork, vfork, clone, exec and exit
 * (the lifecycle events systrace cannot do without: docs/benchmarks.md, "what each
 * remaining stop is for") and of each signal, and only resumes: no seccomp filter,
 * no register read, no memory touched. What it costs a workload, against running
 * natively, is the floor of any tracer built on ptrace on this machine; its CPU per
 * process image is the floor of systrace's `tracer_cpu_per_image_ns`. It serves at
 * the nice systrace's default does (20 below its own, where allowed).
 *
 * FILE gets three lines: `images N` (each fork or vfork child and each exec, the
 * command's own included: as systrace counts process images), `stops N` and
 * `tracer_cpu_ns N` (its own user and system time). Exits with the command's status, 128+N if a signal
 * killed it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#define OPTIONS                                                                                              \
	(PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK | PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC                   \
	 | PTRACE_O_TRACEEXIT | PTRACE_O_EXITKILL)

static void usage(void)
{
	fprintf(stderr, "usage: floor_tracer -o FILE COMMAND [ARG...]\n");
	exit(2);
}

/* Serves one stop: a signal's delivery stop resumes with its signal, a group stop
 * listens, any other stop resumes. Returns 1 when the stop starts a process image. */
static int serve(pid_t tid, int status)
{
	int sig = WSTOPSIG(status), event = status >> 16;

	if (!event) {
		ptrace(PTRACE_CONT, tid, 0, sig);
		return 0;
	}
	if (event == PTRACE_EVENT_STOP && sig != SIGTRAP)
		ptrace(PTRACE_LISTEN, tid, 0, 0);
	else
		ptrace(PTRACE_CONT, tid, 0, 0);
	return event == PTRACE_EVENT_FORK || event == PTRACE_EVENT_VFORK || event == PTRACE_EVENT_EXEC;
}

int main(int argc, char **argv)
{
	unsigned long images = 0, stops = 0; /* the command's image is its exec's */
	int status, root_status = 0, own_nice;
	struct rusage ru;
	const char *out;
	pid_t root, tid;
	FILE *f;

	if (argc < 4 || strcmp(argv[1], "-o") != 0)
		usage();
	out = argv[2];
	if ((root = fork()) < 0) {
		perror("floor_tracer: fork");
		return 1;
	}
	if (root == 0) {
		raise(SIGSTOP); /* until seized */
		execvp(argv[3], argv + 3);
		fprintf(stderr, "floor_tracer: %s: %s\n", argv[3], strerror(errno));
		_exit(127);
	}
	if (waitpid(root, &status, WUNTRACED) != root || !WIFSTOPPED(status)
	    || ptrace(PTRACE_SEIZE, root, 0, OPTIONS) < 0 || kill(root, SIGCONT) < 0) {
		perror("floor_tracer: seize");
		kill(root, SIGKILL);
		return 1;
	}
	/* as systrace's serving thread by default (--tracer-nice, tracer/tracer_nice.h):
	 * 20 below its own nice where allowed, after the fork */
	errno = 0;
	own_nice = getpriority(PRIO_PROCESS, 0);
	if (!errno)
		setpriority(PRIO_PROCESS, 0, own_nice - 20 < -20 ? -20 : own_nice - 20);
	while ((tid = waitpid(-1, &status, __WALL)) > 0 || errno == EINTR) {
		if (tid <= 0)
			continue;
		if (WIFSTOPPED(status)) {
			stops++;
			images += serve(tid, status);
		} else if (tid == root) {
			root_status = status;
		}
	}
	getrusage(RUSAGE_SELF, &ru);
	if (!(f = fopen(out, "w"))) {
		perror(out);
		return 1;
	}
	fprintf(f, "images %lu\nstops %lu\ntracer_cpu_ns %llu\n", images, stops,
		(unsigned long long)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000ull
			+ (unsigned long long)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000ull);
	if (fclose(f) != 0) {
		perror(out);
		return 1;
	}
	return WIFSIGNALED(root_status) ? 128 + WTERMSIG(root_status) : WEXITSTATUS(root_status);
}
