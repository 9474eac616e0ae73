/* vfork after the sites are patched (syscall_intercept #3, lazypoline's vfork fix):
 * the child runs on the parent's stack and in its memory until it execs or exits, so
 * nothing on the way out of the vfork may leave state on that stack, and the child's
 * in-process calls are the child's, not the parent's (the memory, and with it any
 * counter the library keeps there, is shared).
 * The parent first calls four getppid sites P times each (argv[1], default 2000):
 * site_getppid (inline `mov $110,%eax; syscall`), glibc getppid(), glibc
 * syscall(SYS_getppid), and rt_pop_syscall(110) (a run-time-number site that, like
 * glibc's vfork(), keeps its return address in a register across the syscall). Then
 * four rounds, each a vfork whose child calls one site a distinct number of times,
 * checking each result, and the parent calling site_getppid 1000 more times after:
 *  1. glibc vfork(); the child: site_getppid 1500 times, then execve /bin/true;
 *  2. glibc vfork(); the child: glibc getppid() 1600 times, then _exit(3);
 *  3. glibc vfork(); the child: syscall(SYS_getppid) 1700 times, then _exit(4);
 *  4. rt_pop_syscall(SYS_vfork), through the patched run-time-number site; the
 *     child: rt_pop_syscall(110) 1800 times, then _exit(5).
 * SIGCHLD is blocked, so no wait4 is restarted.
 * Counts: getppid 4P + 4000 + 6600 + 1; per image: the parent 4P + 4000 + 1, the
 * children 1500, 1600, 1700, 1800 (and /bin/true none); vfork 4, wait4 4,
 * execve 2, exit_group 5 (the parent, /bin/true, three children). */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "child.h"
#include "site_getppid.h"

extern char **environ;

long rt_pop_syscall(long nr);
/* the same code, declared returns_twice for the call that is a vfork */
__attribute__((returns_twice)) long rt_pop_vfork(long nr);

__asm__(".text\n"
	".globl rt_pop_syscall\n"
	".type rt_pop_syscall,@function\n"
	"rt_pop_syscall:\n"
	"pop %rsi\n"                /* the return address, off the (shared) stack */
	"mov %rdi,%rdx\n"
	"mov %rdi,%rax\n"
	"syscall\n"
	"push %rsi\n"
	"ret\n"
	".size rt_pop_syscall,.-rt_pop_syscall\n"
	".globl rt_pop_vfork\n"
	".set rt_pop_vfork,rt_pop_syscall\n"
	".type rt_pop_vfork,@notype\n");

static long ppid, pid;

static int parent_more(int round)
{
	for (int i = 0; i < 1000; i++)
		if (site_getppid() != ppid) {
			fprintf(stderr, "vfork_patched: after round %d: the parent's site_getppid returned a wrong value\n",
				round);
			return 1;
		}
	return 0;
}

static int wrong(const char *site, long i, long got)
{
	fprintf(stderr, "vfork_patched: the parent's call %ld of %s returned %ld, expected %ld\n", i, site, got, ppid);
	return 1;
}

__attribute__((noinline)) static int warm_up(long p)
{
	long r;

	for (long i = 0; i < p; i++) {
		if ((r = site_getppid()) != ppid)
			return wrong("site_getppid", i, r);
		if ((r = getppid()) != ppid)
			return wrong("getppid()", i, r);
		if ((r = syscall(SYS_getppid)) != ppid)
			return wrong("syscall(SYS_getppid)", i, r);
		if ((r = rt_pop_syscall(SYS_getppid)) != ppid)
			return wrong("rt_pop_syscall", i, r);
	}
	return 0;
}

int main(int argc, char **argv)
{
	long p = argc > 1 ? atol(argv[1]) : 2000;
	sigset_t set;
	int bad = 0;

	ppid = getppid();
	pid = getpid();
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigprocmask(SIG_BLOCK, &set, NULL);
	if (warm_up(p))
		return 1;

	pid_t c = vfork();
	if (c == 0) {
		int errors = 0;

		for (int i = 0; i < 1500; i++)
			errors += site_getppid() != pid;
		if (errors)
			_exit(1);
		char *args[] = { "true", NULL };
		execve("/bin/true", args, environ);
		_exit(127);
	}
	bad |= wait_exit("vfork_patched", "round 1", c, 0, 0) | parent_more(1);

	c = vfork();
	if (c == 0) {
		int errors = 0;

		for (int i = 0; i < 1600; i++)
			errors += getppid() != pid;
		_exit(errors ? 1 : 3);
	}
	bad |= wait_exit("vfork_patched", "round 2", c, 0, 3) | parent_more(2);

	c = vfork();
	if (c == 0) {
		int errors = 0;

		for (int i = 0; i < 1700; i++)
			errors += syscall(SYS_getppid) != pid;
		_exit(errors ? 1 : 4);
	}
	bad |= wait_exit("vfork_patched", "round 3", c, 0, 4) | parent_more(3);

	c = (pid_t)rt_pop_vfork(SYS_vfork);
	if (c == 0) {
		int errors = 0;

		for (int i = 0; i < 1800; i++)
			errors += rt_pop_syscall(SYS_getppid) != pid;
		_exit(errors ? 1 : 5);
	}
	bad |= wait_exit("vfork_patched", "round 4", c, 0, 5) | parent_more(4);
	return bad;
}
