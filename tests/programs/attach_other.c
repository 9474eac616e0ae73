/* attach_other: a process ptrace-attaches one it did not create, its sibling, as a
 * debugger's `attach PID` does, reads its registers and lets it go, ROUNDS times;
 * the sibling then ends as it would have. Both are programs of their own (each
 * execs), the attacher after one exec more, so that under systrace with several
 * serving threads and every exec handed to the next (SYSTRACE_TEST_HANDOFF) the
 * two are served by two threads (tracer/nested_ptrace.h).
 *
 *   attach_other ROUNDS [END]                 the parent: starts both, waits
 *   attach_other target READY DONE            blocks in a read of DONE, its %rbx
 *                                             marked, once it said so on READY
 *   attach_other hop [hop] attacher PID READY DONE ROUNDS END   execs the next line
 *   attach_other attacher PID READY DONE ROUNDS END
 *   attach_other released PID DONE            (END exec, below)
 *
 * Each round of the attacher: PTRACE_ATTACH, waitpid for the SIGSTOP stop (every
 * other round with WNOHANG, again until it comes),
 * PTRACE_GETREGS, PTRACE_GETFPREGS, PTRACE_GETREGSET (NT_PRSTATUS), each showing the
 * target's marked %rbx, PTRACE_DETACH; then a request on a process it no longer
 * has (ESRCH). By construction: 6 ptrace calls and at least 1 wait4 a round in
 * the attacher. Then, by END:
 *   detach   (the default) nothing more;
 *   exec     it attaches once more from a second thread, which takes the stop and
 *            execs (`released`): the new image detaches (the attachment may have
 *            ended with the exec: its error is not checked), continues the target
 *            and lets it end.
 *   parked   it has the target exec itself again (a new target, the same pid),
 *            watches its TracerPid and attaches as soon as it reads 0: under
 *            systrace with several serving threads, the moment the target is
 *            between two (SYSTRACE_TEST_HANDOFF=every-exec-slow makes it last);
 *            natively at once. The attach, the stop and the detach must work
 *            ("attached untraced" on stdout), then one round more on the new
 *            image. The attacher hops twice: a thread apart from the target's.
 * Exit 0 when every step did what it does natively; else the first step that did
 * not, on stderr, and status 1. */
#include <elf.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MARK 0x5a17a5a17a5a17a5ull
/* /proc/PID/syscall looked at this many times, 1 ms apart, for the target's read */
#define BLOCKED_LOOKS 20000

static const char *self;

static int fail(const char *what)
{
	fprintf(stderr, "attach_other: %s: %s\n", what, strerror(errno));
	return 1;
}

/* read(fd, buf, 1) with %rbx marked, at a syscall of its own */
static long marked_read(int fd, char *buf)
{
	register uint64_t rbx __asm__("rbx") = MARK;
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "0"((long)SYS_read), "D"((long)fd), "S"(buf), "d"(1L), "r"(rbx)
			 : "rcx", "r11", "memory");
	return ret;
}

/* Told 'e': the target again, in a new image. */
static int target(int ready, int done)
{
	char c, r[16], d[16];

	if (write(ready, "r", 1) != 1)
		return fail("target: write");
	if (marked_read(done, &c) != 1)
		return fail("target: read");
	if (c == 'e') {
		snprintf(r, sizeof(r), "%d", ready);
		snprintf(d, sizeof(d), "%d", done);
		execv(self, (char *[]){ (char *)self, "target", r, d, NULL });
		return fail("target: execv");
	}
	return 0;
}

/* pid's TracerPid, or -1 */
static long tracer_of(pid_t pid)
{
	char path[64], line[128];
	long tracer = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	if (!(f = fopen(path, "r")))
		return -1;
	while (tracer < 0 && fgets(line, sizeof(line), f))
		if (sscanf(line, "TracerPid: %ld", &tracer) != 1)
			tracer = -1;
	fclose(f);
	return tracer;
}

/* Whether pid is blocked in read (its /proc/PID/syscall begins "0 "). */
static int in_read(pid_t pid)
{
	char path[64], text[32] = "";
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/syscall", pid);
	if (!(f = fopen(path, "r")))
		return 0;
	if (!fgets(text, sizeof(text), f))
		text[0] = '\0';
	fclose(f);
	return strncmp(text, "0 ", 2) == 0;
}

/* waitpid(WNOHANG) until pid's stop is there */
static int polled_stop(pid_t pid, int *status)
{
	struct timespec ms = { 0, 1000 * 1000 };
	pid_t w;

	for (int looks = 0; looks < BLOCKED_LOOKS; looks++) {
		if ((w = waitpid(pid, status, __WALL | WNOHANG)) != 0)
			return w == pid;
		nanosleep(&ms, NULL);
	}
	return 0;
}

/* PTRACE_ATTACH of pid and its SIGSTOP stop taken (polled: by waitpid with
 * WNOHANG, again until it comes) */
static int attach_stopped(pid_t pid, int polled)
{
	int status;

	if (ptrace(PTRACE_ATTACH, pid, 0, 0) < 0)
		return fail("PTRACE_ATTACH");
	if (polled ? !polled_stop(pid, &status) : waitpid(pid, &status, __WALL) != pid)
		return fail("waitpid");
	if (!WIFSTOPPED(status) || WSTOPSIG(status) != SIGSTOP) {
		fprintf(stderr, "attach_other: the attach stop's status is %#x, not SIGSTOP's\n", status);
		return 1;
	}
	return 0;
}

/* The target told to exec, attached the moment it is traced by no one. */
static int attach_parked(pid_t pid, int done)
{
	struct timespec tenth_ms = { 0, 100 * 1000 };
	int looks = 0;

	if (write(done, "e", 1) != 1)
		return fail("attacher: write");
	while (tracer_of(pid) != 0)
		if (++looks > 10 * BLOCKED_LOOKS || nanosleep(&tenth_ms, NULL) < 0) {
			fprintf(stderr, "attach_other: the target was never traced by no one\n");
			return 1;
		}
	if (attach_stopped(pid, 0) != 0)
		return 1;
	if (ptrace(PTRACE_DETACH, pid, 0, 0) < 0)
		return fail("PTRACE_DETACH of the target untraced");
	printf("attached untraced\n");
	fflush(stdout);
	return 0;
}

static int attach_rounds(pid_t pid, int ready, int rounds)
{
	struct timespec ms = { 0, 1000 * 1000 };
	struct user_regs_struct regs;
	struct user_fpregs_struct fpregs;
	struct iovec iov = { &regs, sizeof(regs) };
	int looks = 0;
	char c;

	if (read(ready, &c, 1) != 1)
		return fail("attacher: read");
	while (!in_read(pid))
		if (++looks > BLOCKED_LOOKS || nanosleep(&ms, NULL) < 0)
			return fail("attacher: the target never blocked in read");
	for (int i = 0; i < rounds; i++) {
		if (attach_stopped(pid, i % 2) != 0)
			return 1;
		memset(&regs, 0, sizeof(regs));
		if (ptrace(PTRACE_GETREGS, pid, 0, &regs) < 0)
			return fail("PTRACE_GETREGS");
		if (regs.rbx != MARK) {
			fprintf(stderr, "attach_other: PTRACE_GETREGS: %%rbx %#llx, not the target's mark\n", regs.rbx);
			return 1;
		}
		if (ptrace(PTRACE_GETFPREGS, pid, 0, &fpregs) < 0)
			return fail("PTRACE_GETFPREGS");
		memset(&regs, 0, sizeof(regs));
		iov.iov_len = sizeof(regs);
		if (ptrace(PTRACE_GETREGSET, pid, (void *)NT_PRSTATUS, &iov) < 0)
			return fail("PTRACE_GETREGSET");
		if (iov.iov_len != sizeof(regs) || regs.rbx != MARK) {
			fprintf(stderr, "attach_other: PTRACE_GETREGSET: %zu bytes, %%rbx %#llx\n", iov.iov_len, regs.rbx);
			return 1;
		}
		if (ptrace(PTRACE_DETACH, pid, 0, 0) < 0)
			return fail("PTRACE_DETACH");
		errno = 0;
		if (ptrace(PTRACE_GETREGS, pid, 0, &regs) != -1 || errno != ESRCH) {
			fprintf(stderr, "attach_other: PTRACE_GETREGS after the detach: %s, not ESRCH\n", strerror(errno));
			return 1;
		}
	}
	return 0;
}

static pid_t target_pid;

static char *released_argv[5];

static void *attach_and_exec(void *arg)
{
	(void)arg;
	if (attach_stopped(target_pid, 0) == 0)
		execv(self, released_argv);
	_exit(fail("exec: attach or execv"));
}

/* (the target let go whatever happened: its read ends, it exits) */
static int attacher(pid_t pid, int ready, char *done, int rounds, const char *end)
{
	char p[16];
	pthread_t x;
	int st = attach_rounds(pid, ready, rounds);

	if (st == 0 && strcmp(end, "parked") == 0 && (st = attach_parked(pid, atoi(done))) == 0)
		st = attach_rounds(pid, ready, 1);
	if (st == 0 && strcmp(end, "exec") == 0) {
		snprintf(p, sizeof(p), "%d", pid);
		released_argv[0] = (char *)self;
		released_argv[1] = "released";
		released_argv[2] = p;
		released_argv[3] = done;
		target_pid = pid;
		if (pthread_create(&x, NULL, attach_and_exec, NULL) != 0)
			return fail("pthread_create");
		pause(); /* the exec ends this thread */
	}
	if (write(atoi(done), "d", 1) != 1)
		return fail("attacher: write");
	return st;
}

static int released(pid_t pid, int done)
{
	ptrace(PTRACE_DETACH, pid, 0, 0);
	kill(pid, SIGCONT);
	if (write(done, "d", 1) != 1)
		return fail("released: write");
	return 0;
}

static pid_t start(char *const argv[])
{
	pid_t pid = fork();

	if (pid == 0) {
		execv(self, argv);
		_exit(fail("execv"));
	}
	return pid;
}

int main(int argc, char **argv)
{
	char r[16], d[16], p[16], n[16], *end = argc > 2 ? argv[2] : "detach";
	int ready[2], done[2], status, ok = 1;
	pid_t a, b;

	self = argv[0];
	if (argc == 4 && strcmp(argv[1], "target") == 0)
		return target(atoi(argv[2]), atoi(argv[3]));
	if (argc >= 8 && strcmp(argv[1], "hop") == 0) {
		argv[1] = argv[0];
		execv(self, argv + 1);
		return fail("execv");
	}
	if (argc == 7 && strcmp(argv[1], "attacher") == 0)
		return attacher(atoi(argv[2]), atoi(argv[3]), argv[4], atoi(argv[5]), argv[6]);
	if (argc == 4 && strcmp(argv[1], "released") == 0)
		return released(atoi(argv[2]), atoi(argv[3]));
	if (argc < 2 || argc > 3 || atoi(argv[1]) < 1
	    || (strcmp(end, "detach") != 0 && strcmp(end, "exec") != 0 && strcmp(end, "parked") != 0)) {
		fprintf(stderr, "usage: attach_other ROUNDS [detach|exec|parked]\n");
		return 2;
	}
	if (pipe(ready) < 0 || pipe(done) < 0)
		return fail("pipe");
	snprintf(r, sizeof(r), "%d", ready[1]);
	snprintf(d, sizeof(d), "%d", done[0]);
	a = start((char *[]){ argv[0], "target", r, d, NULL });
	snprintf(p, sizeof(p), "%d", a);
	snprintf(r, sizeof(r), "%d", ready[0]);
	snprintf(d, sizeof(d), "%d", done[1]);
	snprintf(n, sizeof(n), "%d", atoi(argv[1]));
	b = strcmp(end, "parked") == 0 ? start((char *[]){ argv[0], "hop", "hop", "attacher", p, r, d, n, end, NULL })
				       : start((char *[]){ argv[0], "hop", "attacher", p, r, d, n, end, NULL });
	if (a < 0 || b < 0)
		return fail("fork");
	for (int i = 0; i < 2; i++) {
		pid_t w = wait(&status);

		if (w < 0)
			return fail("wait");
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
			fprintf(stderr, "attach_other: the %s ended with status %#x\n", w == a ? "target" : "attacher",
				status);
			ok = 0;
		}
	}
	return ok ? 0 : 1;
}
