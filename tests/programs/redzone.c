/* The x86-64 red zone (zpoline #1, lazypoline): a leaf function may keep live data
 * in the 128 bytes below %rsp without moving %rsp, so a patched site must not push,
 * call or spill anything there. Two leaf functions in assembly, no calls:
 *  - redzone_before: fills the 16 quadwords below %rsp with values derived from its
 *    argument, then `mov $110,%eax; syscall` (getppid: a fixed number, the BEFORE
 *    shape, the 5-byte mov is the covered instruction), then checks all 16 values and
 *    the registers it filled them from;
 *  - redzone_after: the same around `xor %eax,%eax; syscall; cmp $-4096,%rax; ja`
 *    after a branch (glibc's read(): only the AFTER shape fits), a read on fd -1 that
 *    returns -EBADF.
 * Each returns the syscall's result, or REDZONE_BAD when a value was changed.
 * N calls of each (argv[1], default 3000); every result is checked.
 * Counts: getppid N + 1 (one glibc getppid() for the expected value), read N. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define REDZONE_BAD 0x7eadbeef00L

long redzone_before(long seed);
long redzone_after(long seed);

/* FILL(base): -8*i(%rsp) = base + i for i = 1..16, through %r9 (kept: r9 = base + 16).
 * CHECK(base): every value still there, else jump to 9f. */
#define FILL(base)                                                                 \
	".irp i,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16\n"                          \
	"lea \\i(" base "),%r9\n"                                                  \
	"mov %r9,-8*\\i(%rsp)\n"                                                   \
	".endr\n"
#define CHECK(base)                                                                \
	".irp i,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16\n"                          \
	"lea \\i(" base "),%rdx\n"                                                 \
	"cmp %rdx,-8*\\i(%rsp)\n"                                                  \
	"jne 9f\n"                                                                 \
	".endr\n"                                                                  \
	"lea 16(" base "),%rdx\n"                                                  \
	"cmp %rdx,%r9\n"                                                           \
	"jne 9f\n"

__asm__(".text\n"
	".globl redzone_before\n"
	".type redzone_before,@function\n"
	"redzone_before:\n"
	FILL("%rdi")
	"mov $110,%eax\n"
	"syscall\n"
	CHECK("%rdi")
	"ret\n"
	"9: movabs $0x7eadbeef00,%rax\n"
	"ret\n"
	".size redzone_before,.-redzone_before\n"

	".globl redzone_after\n"
	".type redzone_after,@function\n"
	"redzone_after:\n"
	"mov %rdi,%r8\n"
	FILL("%r8")
	"mov $-1,%rdi\n"            /* read(-1, the red zone, 8): -EBADF, nothing written */
	"lea -64(%rsp),%rsi\n"
	"mov $8,%edx\n"
	"xor %r10d,%r10d\n"
	"test %r10,%r10\n"
	"jne 9f\n"                  /* never taken: only keeps the BEFORE shape out */
	"xor %eax,%eax\n"
	"syscall\n"
	"cmp $-4096,%rax\n"
	"ja 1f\n"
	"movabs $0x7eadbeef01,%rax\n" /* success is impossible on fd -1 */
	"ret\n"
	"1:\n"
	CHECK("%r8")
	"cmp $-1,%rdi\n"
	"jne 9f\n"
	"ret\n"
	"9: movabs $0x7eadbeef00,%rax\n"
	"ret\n"
	".size redzone_after,.-redzone_after\n");

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 3000;
	long ppid = getppid();

	for (long i = 0; i < n; i++) {
		long seed = (i * 0x9e3779b97f4a7c15L) ^ 0x5a5a5a5a5a5a5a5aL;
		long r = redzone_before(seed);

		if (r != ppid) {
			fprintf(stderr, "redzone: call %ld of redzone_before returned %#lx, expected getppid %ld%s\n",
				i, r, ppid, r == REDZONE_BAD ? " (the red zone or %r9 was overwritten)" : "");
			return 1;
		}
		r = redzone_after(seed);
		if (r != -EBADF) {
			fprintf(stderr, "redzone: call %ld of redzone_after returned %#lx, expected -EBADF%s\n",
				i, r, r == REDZONE_BAD ? " (the red zone, %r9 or %rdi was overwritten)" : "");
			return 1;
		}
	}
	return 0;
}
