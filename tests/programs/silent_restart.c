/* A ptraced call that the kernel makes again with no stop between: the path by which
 * a call sent back through the return pad (tracer/results.c) was once counted twice.
 * The kernel rewinds a call that gave up with -ERESTARTSYS and finds no signal to
 * deliver: for a call on its way back through the pad, the rewind lands on the pad's
 * own syscall (gate_pad_syscall), and the next stop is a seccomp stop there. What
 * makes a blocked call give up with no signal: a TIF_SIGPENDING no stop answered
 * (the write protocol's PTRACE_INTERRUPT that a thread's own seccomp stop took as it
 * entered the call: a race, rare) or task work, here by construction: an io_uring
 * timeout of 100 ms (no COOP_TASKRUN: its completion is TWA_SIGNAL task work) while
 * the thread is blocked in a pipe read at a site of its own; a child writes the byte
 * after 600 ms.
 *
 * By construction read_site makes 1 call, its first (ptraced, through the pad), and
 * nothing restarts it that the program asked for: `restarted` stays 0. strace -f -c
 * sees the read entered twice. Exit 2 when io_uring is not available (nothing to
 * test), 1 when the read did not return the byte. */
#define _GNU_SOURCE
#include <linux/io_uring.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

long read_site(long fd, void *buf, long n);
__asm__(".text\n"
	".globl read_site\n"
	".type read_site,@function\n"
	"read_site:\n"
	"	xor %eax,%eax\n"
	"	syscall\n"
	"	cmp $-4096,%rax\n"
	"	ret\n"
	".size read_site,.-read_site\n");

int main(void)
{
	struct io_uring_params par;
	struct io_uring_sqe *sqes;
	struct __kernel_timespec ts = { 0, 100 * 1000 * 1000 };
	unsigned *tail, *array, mask;
	uint8_t *sq;
	int ring, p[2], status;
	char c = 0;
	long got;
	pid_t w;

	memset(&par, 0, sizeof(par));
	if ((ring = (int)syscall(__NR_io_uring_setup, 4, &par)) < 0 || pipe(p) != 0)
		return 2;
	sq = mmap(NULL, par.sq_off.array + par.sq_entries * sizeof(unsigned), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_POPULATE, ring, IORING_OFF_SQ_RING);
	sqes = mmap(NULL, par.sq_entries * sizeof(*sqes), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, ring,
		    IORING_OFF_SQES);
	if (sq == MAP_FAILED || sqes == MAP_FAILED)
		return 2;
	if ((w = fork()) == 0) {
		struct timespec later = { 0, 600 * 1000 * 1000 };

		nanosleep(&later, NULL);
		_exit(write(p[1], "x", 1) == 1 ? 0 : 1);
	}
	if (w < 0)
		return 2;
	tail = (unsigned *)(sq + par.sq_off.tail);
	array = (unsigned *)(sq + par.sq_off.array);
	mask = *(unsigned *)(sq + par.sq_off.ring_mask);
	memset(&sqes[0], 0, sizeof(sqes[0]));
	sqes[0].opcode = IORING_OP_TIMEOUT;
	sqes[0].fd = -1;
	sqes[0].addr = (uint64_t)(uintptr_t)&ts;
	sqes[0].len = 1;
	array[*tail & mask] = 0;
	__atomic_store_n(tail, *tail + 1, __ATOMIC_RELEASE);
	if (syscall(__NR_io_uring_enter, ring, 1, 0, 0, NULL, 0) != 1)
		return 2;
	/* blocked here when the timeout completes */
	got = read_site(p[0], &c, 1);
	if (waitpid(w, &status, 0) != w || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return 1;
	return got == 1 && c == 'x' ? 0 : 1;
}
