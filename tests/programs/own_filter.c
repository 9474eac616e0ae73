/* A program with seccomp filters of its own (issue 13), each mode checking itself
 * (exit 0 when every call was decided as its filter says, 1 with a message if not):
 *   errno N         seccomp(2) filter: getpriority refused (EPERM); N calls
 *   errno-prctl N   the same filter through prctl(PR_SET_SECCOMP)
 *   trap N          getppid trapped (data 0x42): the SIGSYS handler checks its
 *                   siginfo and emulates the call (rax = 4242); N calls
 *   kill-process    getpid kills the process (from a thread): dies of SIGSYS
 *   kill-thread     getpid kills the thread that calls it; the process goes on
 *   launcher PROG…  numbers the kernel does not have (from 463), i386 and x32
 *                   calls kill the process; then execs PROG
 *   launcher-errno PROG…  the same numbers refused (ENOSYS) instead
 *   trace N         getpriority traced (SECCOMP_RET_TRACE): with no tracer of the
 *                   program's own, ENOSYS; N calls
 *   tsync N         a thread installs the errno filter for every thread (TSYNC);
 *                   N calls in each thread
 *   stacked N       two filters: getpriority EPERM then EACCES (the newer's
 *                   wins), getppid EPERM then allowed (the older's error wins),
 *                   getuid EPERM then trapped (the trap wins); N calls of each
 *   fork N          the errno filter, then fork: N calls in the parent, N in the
 *                   child, which then execs `own_filter refused N`
 *   refused N       N getpriority calls, refused by a filter inherited (EPERM)
 *   big N           installs a filter of N instructions (jumps to a return of
 *                   the accumulator, which holds ALLOW); prints
 *                   "installed" or the error, and exits 0 either way
 *   notify N        getpriority goes to a supervisor thread (USER_NOTIF, its
 *                   listener from NEW_LISTENER), which answers 77; N calls
 * A core dump is turned off (RLIMIT_CORE 0): a death by SIGSYS leaves no file. */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

#include "blocked_in.h"

#ifndef SYS_SECCOMP
#define SYS_SECCOMP 1 /* si_code of a seccomp TRAP */
#endif
#define LOAD_NR BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr))
#define ON(nr, action) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 1), BPF_STMT(BPF_RET | BPF_K, (action))
#define ALLOW BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)

static int failures;

static void check(int ok, const char *what, long got)
{
	if (!ok && failures++ < 5)
		fprintf(stderr, "own_filter: %s (got %ld, errno %d)\n", what, got, errno);
}

static void install(struct sock_filter *code, unsigned short len, unsigned flags, int by_prctl)
{
	struct sock_fprog prog = { .len = len, .filter = code };
	long r = by_prctl ? prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog)
			  : syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, &prog);

	if (r != 0) {
		fprintf(stderr, "own_filter: cannot install the filter: %s\n", strerror(errno));
		exit(2);
	}
}

static void errno_filter(unsigned flags, int by_prctl)
{
	struct sock_filter code[] = { LOAD_NR, ON(SYS_getpriority, SECCOMP_RET_ERRNO | EPERM), ALLOW };

	install(code, sizeof(code) / sizeof(code[0]), flags, by_prctl);
}

static void refused(long n, int err)
{
	for (long i = 0; i < n; i++) {
		errno = 0;
		long r = getpriority(PRIO_PROCESS, 0);

		check(r == -1 && errno == err, "getpriority not refused as the filter says", r);
	}
}

static volatile long traps, trapped_nr = SYS_getppid;

static void on_sigsys(int sig, siginfo_t *si, void *uc_)
{
	ucontext_t *uc = uc_;
	const unsigned char *at = si->si_call_addr;

	(void)sig;
	traps++;
	if (si->si_code != SYS_SECCOMP || si->si_syscall != trapped_nr || si->si_errno != 0x42
	    || si->si_arch != AUDIT_ARCH_X86_64 || (greg_t)(uintptr_t)at != uc->uc_mcontext.gregs[REG_RIP]
	    || at[-2] != 0x0f || at[-1] != 0x05 || uc->uc_mcontext.gregs[REG_RAX] != trapped_nr)
		failures++;
	uc->uc_mcontext.gregs[REG_RAX] = 4242;
}

static void trap_handler(void)
{
	struct sigaction sa = { .sa_sigaction = on_sigsys, .sa_flags = SA_SIGINFO };

	sigaction(SIGSYS, &sa, NULL);
}

static void trapped(long n)
{
	for (long i = 0; i < n; i++) {
		long r = getppid();

		check(r == 4242, "getppid not emulated by the SIGSYS handler", r);
	}
}

static int leader_stat;
static volatile int own_stat = -2; /* the thread's own stat file, once open */

/* KILL_PROCESS: once the main thread is blocked (in its read), the call kills the
 * process; KILL_THREAD: only this thread. */
static void *call_getpid(void *arg)
{
	if (arg)
		wait_state(leader_stat, "S");
	own_stat = proc_stat_open(0, (int)syscall(SYS_gettid));
	getpid();
	return NULL;
}

/* The thread that calls getpid is made after the filter (it inherits it); the main
 * thread then waits in a read that never returns (KILL_PROCESS kills it there), or
 * polls until the killed thread is gone (KILL_THREAD), so that which calls are in
 * flight is known: the test leaves the polls (pread64, clock_nanosleep) out. */
static void kill_on_getpid(unsigned action)
{
	struct sock_filter code[] = { LOAD_NR, ON(SYS_getpid, action), ALLOW };
	int kills_all = action == SECCOMP_RET_KILL_PROCESS, p[2], fd;
	pthread_t th;
	char c;

	leader_stat = proc_stat_open(0, (int)syscall(SYS_gettid));
	if (leader_stat < 0 || pipe(p) != 0)
		exit(2);
	install(code, sizeof(code) / sizeof(code[0]), 0, 0);
	for (int i = 0; i < 10; i++)
		getppid();
	if (pthread_create(&th, NULL, call_getpid, kills_all ? &th : NULL) != 0)
		exit(2);
	if (kills_all) {
		if (read(p[0], &c, 1) >= 0)
			exit(3);
		exit(4);
	}
	while (own_stat == -2)
		; /* no call: spins until the thread has opened it */
	fd = own_stat;
	while (fd >= 0 && proc_state(fd) != '?')
		clock_nanosleep(CLOCK_MONOTONIC, 0, &(struct timespec){ 0, 1000 * 1000 }, NULL);
	if (pthread_join(th, NULL) != 0)
		exit(2);
	printf("after the thread\n");
	exit(0);
}

static void launcher(char **argv, unsigned action)
{
	struct sock_filter code[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		LOAD_NR,
		BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 463, 0, 1), /* x32 numbers are above too */
		BPF_STMT(BPF_RET | BPF_K, action),
		ALLOW,
	};

	install(code, sizeof(code) / sizeof(code[0]), 0, 0);
	execv(argv[0], argv);
	perror("own_filter: execv");
	exit(2);
}

static long n_calls;

static void *tsync_thread(void *arg)
{
	(void)arg;
	errno_filter(SECCOMP_FILTER_FLAG_TSYNC, 0);
	refused(n_calls, EPERM);
	return NULL;
}

static void stacked(long n)
{
	struct sock_filter older[] = {
		LOAD_NR,
		ON(SYS_getpriority, SECCOMP_RET_ERRNO | EPERM),
		ON(SYS_getppid, SECCOMP_RET_ERRNO | EPERM),
		ON(SYS_getuid, SECCOMP_RET_ERRNO | EPERM),
		ALLOW,
	};
	struct sock_filter newer[] = {
		LOAD_NR,
		ON(SYS_getpriority, SECCOMP_RET_ERRNO | EACCES),
		ON(SYS_getuid, SECCOMP_RET_TRAP | 0x42),
		ALLOW,
	};

	install(older, sizeof(older) / sizeof(older[0]), 0, 0);
	install(newer, sizeof(newer) / sizeof(newer[0]), 0, 1);
	trap_handler();
	trapped_nr = SYS_getuid;
	refused(n, EACCES);
	for (long i = 0; i < n; i++) {
		errno = 0;
		long r = syscall(SYS_getppid); /* (glibc's getppid sets no errno) */

		check(r == -1 && errno == EPERM, "getppid: the older filter's error lost", r);
	}
	for (long i = 0; i < n; i++) {
		long before = traps, r = syscall(SYS_getuid);

		check(traps == before + 1 && r == 4242, "getuid not trapped", r);
	}
}

static void forked(long n, const char *self)
{
	pid_t pid;
	int status;
	char arg[32];

	errno_filter(0, 0);
	pid = fork();
	if (pid == 0) {
		refused(n, EPERM);
		snprintf(arg, sizeof(arg), "%ld", n);
		execl(self, self, "refused", arg, (char *)NULL);
		_exit(2);
	}
	refused(n, EPERM);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		check(0, "the child failed", status);
}

static int listener_pipe[2];

/* Answers each getpriority with 77. A notification whose call was interrupted
 * (a signal, or a tracer's stop) is gone when received or answered (ENOENT): its
 * call is made again, and notified again, so only answered ones are counted. */
static void *supervisor(void *arg)
{
	long answered = 0;
	int fd;

	(void)arg;
	if (read(listener_pipe[0], &fd, sizeof(fd)) != sizeof(fd))
		exit(2);
	while (answered < n_calls) {
		struct seccomp_notif req;
		struct seccomp_notif_resp resp;

		memset(&req, 0, sizeof(req));
		if (ioctl(fd, SECCOMP_IOCTL_NOTIF_RECV, &req) != 0) {
			check(errno == EINTR || errno == ENOENT, "SECCOMP_IOCTL_NOTIF_RECV failed", -1);
			continue;
		}
		check(req.data.nr == SYS_getpriority && req.data.arch == AUDIT_ARCH_X86_64,
		      "notified of another call", req.data.nr);
		resp = (struct seccomp_notif_resp){ .id = req.id, .val = 77 };
		if (ioctl(fd, SECCOMP_IOCTL_NOTIF_SEND, &resp) == 0)
			answered++;
		else
			check(errno == ENOENT, "SECCOMP_IOCTL_NOTIF_SEND failed", -1);
	}
	return NULL;
}

static void notified(long n)
{
	struct sock_filter code[] = { LOAD_NR, ON(SYS_getpriority, SECCOMP_RET_USER_NOTIF), ALLOW };
	struct sock_fprog prog = { .len = sizeof(code) / sizeof(code[0]), .filter = code };
	pthread_t th;
	int fd;

	n_calls = n;
	/* the supervisor is made first: the filter is on the installing thread only */
	if (pipe(listener_pipe) != 0 || pthread_create(&th, NULL, supervisor, NULL) != 0)
		exit(2);
	fd = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
	if (fd < 0 || write(listener_pipe[1], &fd, sizeof(fd)) != sizeof(fd))
		exit(2);
	for (long i = 0; i < n; i++) {
		long r = syscall(SYS_getpriority, PRIO_PROCESS, 0);

		check(r == 77, "getpriority not answered by the supervisor", r);
	}
	if (pthread_join(th, NULL) != 0)
		exit(2);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	long n = argc > 2 ? atol(argv[2]) : 0;
	struct rlimit no_core = { 0, 0 };
	pthread_t th;

	setrlimit(RLIMIT_CORE, &no_core);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		return 2;
	if (!strcmp(mode, "errno") || !strcmp(mode, "errno-prctl")) {
		errno_filter(0, !strcmp(mode, "errno-prctl"));
		refused(n, EPERM);
	} else if (!strcmp(mode, "trap")) {
		struct sock_filter code[] = { LOAD_NR, ON(SYS_getppid, SECCOMP_RET_TRAP | 0x42), ALLOW };

		trap_handler();
		install(code, sizeof(code) / sizeof(code[0]), 0, 0);
		trapped(n);
		check(traps == n, "not every getppid trapped", traps);
	} else if (!strcmp(mode, "kill-process")) {
		kill_on_getpid(SECCOMP_RET_KILL_PROCESS);
	} else if (!strcmp(mode, "kill-thread")) {
		kill_on_getpid(SECCOMP_RET_KILL_THREAD);
	} else if (!strcmp(mode, "launcher") && argc > 2) {
		launcher(argv + 2, SECCOMP_RET_KILL_PROCESS);
	} else if (!strcmp(mode, "launcher-errno") && argc > 2) {
		launcher(argv + 2, SECCOMP_RET_ERRNO | ENOSYS);
	} else if (!strcmp(mode, "log")) {
		/* SECCOMP_RET_LOG: allowed (and logged by the kernel's audit) */
		struct sock_filter code[] = { LOAD_NR, ON(SYS_getpriority, SECCOMP_RET_LOG), ALLOW };

		install(code, sizeof(code) / sizeof(code[0]), 0, 0);
		for (long i = 0; i < n; i++) {
			errno = 0;
			long r = getpriority(PRIO_PROCESS, 0);

			check(r != -1 && errno == 0, "getpriority not allowed under LOG", r);
		}
	} else if (!strcmp(mode, "trace")) {
		struct sock_filter code[] = { LOAD_NR, ON(SYS_getpriority, SECCOMP_RET_TRACE), ALLOW };

		install(code, sizeof(code) / sizeof(code[0]), 0, 0);
		refused(n, ENOSYS);
	} else if (!strcmp(mode, "tsync")) {
		n_calls = n;
		if (pthread_create(&th, NULL, tsync_thread, NULL) != 0 || pthread_join(th, NULL) != 0)
			return 2;
		refused(n, EPERM);
	} else if (!strcmp(mode, "stacked")) {
		stacked(n);
	} else if (!strcmp(mode, "fork")) {
		forked(n, argv[0]);
	} else if (!strcmp(mode, "refused")) {
		refused(n, EPERM);
	} else if (!strcmp(mode, "big") && n > 1 && n <= BPF_MAXINSNS) {
		static struct sock_filter code[BPF_MAXINSNS];
		struct sock_fprog prog = { .len = (unsigned short)n, .filter = code };

		for (long i = 0; i < n - 2; i++)
			code[i] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JA, 0, 0, 0);
		code[n - 2] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_IMM, SECCOMP_RET_ALLOW);
		code[n - 1] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_A, 0);
		if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) == 0)
			printf("installed\n");
		else
			printf("%s\n", strerror(errno));
	} else if (!strcmp(mode, "notify")) {
		notified(n);
	} else {
		fprintf(stderr, "usage: own_filter errno|errno-prctl|trap|log|trace|kill-process|kill-thread|tsync|stacked|fork|refused|notify|big N | launcher|launcher-errno PROG [ARG...]\n");
		return 2;
	}
	return failures ? 1 : 0;
}
