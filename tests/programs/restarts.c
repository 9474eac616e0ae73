/* Syscalls interrupted by signals and restarted by the kernel. Each is one call of
 * the program; under ptrace the kernel enters it twice (even an ignored SIGCHLD is
 * delivered to a traced process), and systrace must count it once.
 *  A. readv blocked on a pipe, interrupted by SIGCHLD (default, no handler):
 *     restarted, then satisfied by a child's write;
 *  B. readv interrupted by SIGALRM with an SA_RESTART handler (one getppid):
 *     restarted after the handler;
 *  C. readv interrupted by SIGALRM with a handler without SA_RESTART: returns EINTR,
 *     not restarted;
 *  D. nanosleep stopped by SIGSTOP and continued by SIGCONT: resumed through
 *     restart_syscall;
 *  E. readv interrupted by SIGUSR1 and SIGUSR2 sent back to back, both with
 *     SA_RESTART handlers (one getppid each): one handler may run inside the other,
 *     and the call is still entered again only as a restart.
 * SIGCHLD is not blocked: every wait4 may be interrupted too, and must still count
 * once. The parent makes exactly: readv 4, nanosleep 1, getppid 4 (handlers),
 * rt_sigreturn 4, wait4 6 (one per child), restart_syscall 0; the children use clock_nanosleep,
 * kill and write, never these. Exits 0 when every call returned as expected. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

static int pipe_fds[2];
static pid_t parent;

static void on_alarm(int sig)
{
	(void)sig;
	syscall(SYS_getppid);
}

static void pause_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	nanosleep(&ts, NULL); /* clock_nanosleep in glibc */
}

/* A child that waits, sends sig (and sig2) to the parent (0: none), waits again,
 * then writes a byte into the pipe if asked, and exits. */
static pid_t child2(long before_ms, int sig, int sig2, long after_ms, int write_byte)
{
	pid_t pid = fork();

	if (pid != 0)
		return pid;
	pause_ms(before_ms);
	if (sig)
		kill(parent, sig);
	if (sig2)
		kill(parent, sig2);
	pause_ms(after_ms);
	if (write_byte && write(pipe_fds[1], "x", 1) != 1)
		_exit(1);
	_exit(0);
}

static pid_t child(long before_ms, int sig, long after_ms, int write_byte)
{
	return child2(before_ms, sig, 0, after_ms, write_byte);
}

static long readv_one(void)
{
	char c;
	struct iovec iov = { &c, 1 };

	return syscall(SYS_readv, pipe_fds[0], &iov, 1);
}

static void reap(pid_t pid)
{
	syscall(SYS_wait4, pid, NULL, 0, NULL);
}

static void set_handler(int sig, int flags)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sa.sa_flags = flags;
	sigaction(sig, &sa, NULL);
}

int main(void)
{
	struct timespec long_sleep = { 0, 600 * 1000 * 1000 };
	pid_t a, b, c, d, e, f;
	int ok = 1;

	parent = getpid();
	if (pipe(pipe_fds) < 0)
		return 2;

	/* A: the first child exits (SIGCHLD) while the parent blocks; the second writes */
	a = child(100, 0, 0, 0);
	b = child(300, 0, 0, 1);
	ok &= readv_one() == 1;
	reap(a);
	reap(b);

	/* B: SA_RESTART handler */
	set_handler(SIGALRM, SA_RESTART);
	c = child(100, SIGALRM, 200, 1);
	ok &= readv_one() == 1;
	reap(c);

	/* C: handler without SA_RESTART: EINTR */
	set_handler(SIGALRM, 0);
	d = child(100, SIGALRM, 0, 0);
	ok &= readv_one() == -1 && errno == EINTR;
	reap(d);

	/* D: a child stops and continues the parent in the middle of its sleep */
	e = fork();
	if (e == 0) {
		pause_ms(100);
		kill(parent, SIGSTOP);
		pause_ms(100);
		kill(parent, SIGCONT);
		_exit(0);
	}
	ok &= syscall(SYS_nanosleep, &long_sleep, NULL) == 0;
	reap(e);

	/* E: two signals with SA_RESTART handlers during one call */
	set_handler(SIGUSR1, SA_RESTART);
	set_handler(SIGUSR2, SA_RESTART);
	f = child2(100, SIGUSR1, SIGUSR2, 200, 1);
	ok &= readv_one() == 1;
	reap(f);
	return ok ? 0 : 1;
}
