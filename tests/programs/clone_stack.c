/* Children that start on a new stack (syscall_intercept #115: a clone3 child that
 * returned into a stub, on a stack that has none of the stub's state). The parent
 * first calls site_getppid() (an inline `mov $110,%eax; syscall`) and
 * syscall(SYS_getppid) (glibc's run-time-number site) P times each (argv[1], default
 * 2000), so both sites are patched; then it creates seven children, one at a
 * time, each on its own mmap'ed stack, each calling site_getppid() a distinct number
 * of times (checking every result) and exiting:
 *  1. glibc clone(), thread flags (CLONE_VM|FS|FILES|SIGHAND|THREAD|SYSVSEM), 1001;
 *  2. glibc clone(), CLONE_VM | SIGCHLD (a process sharing the memory), 1002;
 *  3. raw_clone (`mov $56,%eax; syscall` here: a clone site with a fixed number),
 *     thread flags, 1003;
 *  4. raw_clone, CLONE_VM | SIGCHLD, 1004;
 *  5. raw_clone3 (`mov $435,%eax; syscall`), thread flags, 1005;
 *  6. syscall(SYS_clone3) through glibc's syscall(), the patched run-time-number
 *     site, fork-like (no stack, SIGCHLD): the child returns from syscall() on its
 *     copy of the stack, 1006, then _exit;
 *  7. raw_clone3, CLONE_VM with exit signal SIGCHLD, 1007.
 * A thread child is waited for by spinning on its CLONE_CHILD_CLEARTID word, a
 * process child with waitpid (SIGCHLD blocked, so no wait is restarted).
 * Counts: getppid 2P + 7028 + 1 (glibc, the expected value); per image: the
 * parent's row 2P + 1001 + 1003 + 1005 + 1, the children's 1002, 1004, 1006, 1007;
 * clone 4, clone3 3, exit 6 (every child but 6), exit_group 2, wait4 4. */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/sched.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "child.h"
#include "site_getppid.h"
#include "spin.h"

#define STACK_SIZE (256 * 1024)
#define THREAD_FLAGS (CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | CLONE_SYSVSEM | \
		      CLONE_PARENT_SETTID | CLONE_CHILD_CLEARTID)

long raw_clone(unsigned long flags, void *stack_top, int *ptid, int *ctid, long (*fn)(void *), void *arg);
long raw_clone3(struct clone_args *args, size_t size, long (*fn)(void *), void *arg);

__asm__(".text\n"
	".globl raw_clone\n"
	".type raw_clone,@function\n"
	"raw_clone:\n"              /* flags, stack, ptid, ctid, fn (r8), arg (r9) */
	"mov %rcx,%r10\n"
	"mov $56,%eax\n"
	"syscall\n"
	"test %rax,%rax\n"
	"jnz 1f\n"
	"xor %ebp,%ebp\n"           /* the child, on the new stack: fn(arg), then exit */
	"mov %r9,%rdi\n"
	"call *%r8\n"
	"mov %rax,%rdi\n"
	"mov $60,%eax\n"
	"syscall\n"
	"ud2\n"
	"1: ret\n"
	".size raw_clone,.-raw_clone\n"

	".globl raw_clone3\n"
	".type raw_clone3,@function\n"
	"raw_clone3:\n"             /* args, size, fn, arg */
	"mov %rdx,%r8\n"
	"mov %rcx,%r9\n"
	"mov $435,%eax\n"
	"syscall\n"
	"test %rax,%rax\n"
	"jnz 1f\n"
	"xor %ebp,%ebp\n"
	"mov %r9,%rdi\n"
	"call *%r8\n"
	"mov %rax,%rdi\n"
	"mov $60,%eax\n"
	"syscall\n"
	"ud2\n"
	"1: ret\n"
	".size raw_clone3,.-raw_clone3\n");

struct job {
	long calls;
	long expect;
	volatile long errors;
	volatile long done;
};

/* Runs in the child; no libc (a raw thread shares the parent's TLS). */
static long child_fn(void *arg)
{
	struct job *j = arg;
	long errors = 0;

	for (long i = 0; i < j->calls; i++)
		if (site_getppid() != j->expect)
			errors++;
	j->errors = errors;
	j->done = 1;
	return errors ? 1 : 0;
}

static int glibc_child_fn(void *arg)
{
	return (int)child_fn(arg);
}

static void *new_stack(void)
{
	void *p = mmap(NULL, STACK_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);

	if (p == MAP_FAILED) {
		perror("clone_stack: mmap");
		exit(2);
	}
	return p;
}

static int tid_word;

static int check(const char *what, struct job *j)
{
	if (j->done && j->errors == 0)
		return 0;
	fprintf(stderr, "clone_stack: %s: %s, %ld of %ld getppid results wrong\n", what,
		j->done ? "finished" : "never finished", j->errors, j->calls);
	return 1;
}

/* After the clone of a thread child (r, what it returned): waits for the thread to
 * clear tid_word, then checks its job. */
static int thread_done(const char *what, long r, struct job *j)
{
	if (r <= 0)
		return 1;
	SPIN_UNTIL(__atomic_load_n(&tid_word, __ATOMIC_ACQUIRE) == 0, "clone_stack: %s: the thread never exited\n", what);
	return check(what, j);
}

/* After the clone of a process child: waits for it (__WALL: whatever its exit
 * signal), then checks its job. */
static int process_done(const char *what, long r, struct job *j)
{
	return wait_exit("clone_stack", what, r, __WALL, 0) || check(what, j);
}

int main(int argc, char **argv)
{
	long p = argc > 1 ? atol(argv[1]) : 2000;
	long ppid = getppid(), pid = getpid();
	int bad = 0;
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigprocmask(SIG_BLOCK, &set, NULL);
	for (long i = 0; i < p; i++) {
		long r1 = site_getppid(), r2 = syscall(SYS_getppid);

		if (r1 != ppid || r2 != ppid) {
			fprintf(stderr, "clone_stack: the parent's call %ld: site_getppid %ld, syscall(SYS_getppid) %ld, expected %ld\n",
				i, r1, r2, ppid);
			return 1;
		}
	}

	/* 1. glibc clone, a thread */
	struct job j1 = { 1001, ppid, 0, 0 };
	char *s = new_stack();
	long r = clone(glibc_child_fn, s + STACK_SIZE, THREAD_FLAGS, &j1, &tid_word, NULL, &tid_word);
	bad |= thread_done("1 (glibc clone, thread)", r, &j1);
	munmap(s, STACK_SIZE);

	/* 2. glibc clone, a process sharing the memory */
	struct job j2 = { 1002, pid, 0, 0 };
	s = new_stack();
	r = clone(glibc_child_fn, s + STACK_SIZE, CLONE_VM | SIGCHLD, &j2);
	bad |= process_done("2 (glibc clone, CLONE_VM)", r, &j2);
	munmap(s, STACK_SIZE);

	/* 3. raw clone, a thread */
	struct job j3 = { 1003, ppid, 0, 0 };
	s = new_stack();
	r = raw_clone(THREAD_FLAGS, s + STACK_SIZE, &tid_word, &tid_word, child_fn, &j3);
	bad |= thread_done("3 (raw clone, thread)", r, &j3);
	munmap(s, STACK_SIZE);

	/* 4. raw clone, a process sharing the memory */
	struct job j4 = { 1004, pid, 0, 0 };
	s = new_stack();
	r = raw_clone(CLONE_VM | SIGCHLD, s + STACK_SIZE, NULL, NULL, child_fn, &j4);
	bad |= process_done("4 (raw clone, CLONE_VM)", r, &j4);
	munmap(s, STACK_SIZE);

	/* 5. raw clone3, a thread */
	struct job j5 = { 1005, ppid, 0, 0 };
	s = new_stack();
	struct clone_args ca;
	memset(&ca, 0, sizeof ca);
	ca.flags = THREAD_FLAGS;
	ca.parent_tid = (uintptr_t)&tid_word;
	ca.child_tid = (uintptr_t)&tid_word;
	ca.stack = (uintptr_t)s;
	ca.stack_size = STACK_SIZE;
	r = raw_clone3(&ca, sizeof ca, child_fn, &j5);
	bad |= thread_done("5 (raw clone3, thread)", r, &j5);
	munmap(s, STACK_SIZE);

	/* 6. clone3 through glibc's syscall(), fork-like */
	memset(&ca, 0, sizeof ca);
	ca.exit_signal = SIGCHLD;
	r = syscall(SYS_clone3, &ca, sizeof ca);
	if (r == 0) {
		long errors = 0;

		for (long i = 0; i < 1006; i++)
			if (site_getppid() != pid)
				errors++;
		_exit(errors ? 1 : 0);
	}
	bad |= wait_exit("clone_stack", "6 (clone3 through syscall(), fork-like)", r, __WALL, 0);

	/* 7. raw clone3, a process sharing the memory */
	struct job j7 = { 1007, pid, 0, 0 };
	s = new_stack();
	memset(&ca, 0, sizeof ca);
	ca.flags = CLONE_VM;
	ca.exit_signal = SIGCHLD;
	ca.stack = (uintptr_t)s;
	ca.stack_size = STACK_SIZE;
	r = raw_clone3(&ca, sizeof ca, child_fn, &j7);
	bad |= process_done("7 (raw clone3, CLONE_VM)", r, &j7);
	munmap(s, STACK_SIZE);
	return bad;
}
