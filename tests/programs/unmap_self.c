/* A thread that unmaps its own stack and then exits, with no stack in between (as
 * musl's pthread_exit does for a detached thread, __unmapself): after the munmap
 * syscall returns, nothing may read or write the stack, and the exit syscall after it
 * must be made without one. A stub that calls into a gate (a return address on the
 * stack) or saves the flags on the stack around the call breaks it.
 * T threads (argv[1], default 200), one at a time, each a raw clone (thread flags,
 * CLONE_CHILD_CLEARTID) on its own mmap'ed stack, each calling site_getppid (inline
 * `mov $110,%eax; syscall`) 10 times (checked), then unmap_self_exit: `mov $11,%eax;
 * syscall` (munmap of its stack) and `mov $60,%eax; syscall` (exit), two
 * fixed-number sites that the first thread's calls leave patchable for the next.
 * The main thread waits on each thread's CLONE_CHILD_CLEARTID word (spinning, no
 * futex). Exits 0 when every thread ran and no result was wrong.
 * Counts: getppid 10T + 1, clone T, munmap T + the loader's, exit T. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "site_getppid.h"
#include "spin.h"

#define STACK_SIZE (64 * 1024)
#define THREAD_FLAGS (CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | CLONE_SYSVSEM | \
		      CLONE_PARENT_SETTID | CLONE_CHILD_CLEARTID)

/* raw_thread(flags, stack_top, ptid, ctid, fn, arg): the child calls fn(arg), which
 * must not return. */
long raw_thread(unsigned long flags, void *stack_top, int *ptid, int *ctid, void (*fn)(void *), void *arg);
/* munmap(addr, len) of the stack it runs on, then exit(0): no stack use after. */
void unmap_self_exit(void *addr, unsigned long len);

__asm__(".text\n"
	".globl raw_thread\n"
	".type raw_thread,@function\n"
	"raw_thread:\n"
	"mov %rcx,%r10\n"
	"mov $56,%eax\n"
	"syscall\n"
	"test %rax,%rax\n"
	"jnz 1f\n"
	"xor %ebp,%ebp\n"
	"mov %r9,%rdi\n"
	"call *%r8\n"
	"ud2\n"
	"1: ret\n"
	".size raw_thread,.-raw_thread\n"

	".globl unmap_self_exit\n"
	".type unmap_self_exit,@function\n"
	"unmap_self_exit:\n"
	"mov $11,%eax\n"
	"syscall\n"                 /* munmap: from here on there is no stack */
	"xor %edi,%edi\n"
	"mov $60,%eax\n"
	"syscall\n"                 /* exit(0) */
	"ud2\n"
	".size unmap_self_exit,.-unmap_self_exit\n");

struct job {
	char *stack;
	long expect;
	volatile long errors;
	volatile int ran;
};

static void thread_fn(void *arg)
{
	struct job *j = arg;
	long errors = 0;

	for (int i = 0; i < 10; i++)
		if (site_getppid() != j->expect)
			errors++;
	j->errors = errors;
	j->ran = 1;
	unmap_self_exit(j->stack, STACK_SIZE);
}

static int tid_word;

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 200;
	long ppid = getppid();

	for (long i = 0; i < n; i++) {
		struct job j = { 0, ppid, 0, 0 };

		j.stack = mmap(NULL, STACK_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
		if (j.stack == MAP_FAILED) {
			perror("unmap_self: mmap");
			return 2;
		}
		long r = raw_thread(THREAD_FLAGS, j.stack + STACK_SIZE, &tid_word, &tid_word, thread_fn, &j);
		if (r <= 0) {
			fprintf(stderr, "unmap_self: clone %ld failed: %ld\n", i, r);
			return 1;
		}
		SPIN_UNTIL(__atomic_load_n(&tid_word, __ATOMIC_ACQUIRE) == 0, "unmap_self: thread %ld never exited\n", i);
		if (!j.ran || j.errors) {
			fprintf(stderr, "unmap_self: thread %ld: %s, %ld wrong getppid results\n", i,
				j.ran ? "ran" : "never ran", j.errors);
			return 1;
		}
	}
	return 0;
}
