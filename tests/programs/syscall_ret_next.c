/* `syscall; ret` at the very end of a function, the next function right after it with
 * no padding. A patch of the AFTER shape would cover `syscall; ret` and the first
 * bytes of the next function, which is reached only through a function pointer (no
 * direct call the patcher could see). Two pairs in assembly:
 *  - srn_getpid:  `mov $39,%eax; syscall; ret` (the BEFORE shape fits: the mov),
 *    followed by srn_getppid_a (`mov $110,%eax; syscall; ret`), a symbol;
 *  - srn_runtime: `mov %edi,%eax; syscall; ret`, the function's first instruction
 *    (the BEFORE shape would need bytes from before the function start), followed by
 *    a function with no symbol at all (a local label): `mov $110,%eax; syscall; ret`,
 *    whose address only a data word holds;
 * each called N times (argv[1], default 2000) through volatile function pointers,
 * every result checked.
 * Counts: getpid 2N + 1, getppid 2N + 1 (the next functions N each, srn_runtime
 * with getpid; +1 each: glibc calls for the expected values). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

long srn_getpid(void);
long srn_getppid_a(void);
long srn_runtime(long nr);
extern long (*const srn_hidden_ptr)(void);

__asm__(".text\n"
	".p2align 4\n"
	".globl srn_getpid\n"
	".type srn_getpid,@function\n"
	"srn_getpid:\n"
	"mov $39,%eax\n"
	"syscall\n"
	"ret\n"
	".size srn_getpid,.-srn_getpid\n"
	".globl srn_getppid_a\n"
	".type srn_getppid_a,@function\n"
	"srn_getppid_a:\n"
	"mov $110,%eax\n"
	"syscall\n"
	"ret\n"
	".size srn_getppid_a,.-srn_getppid_a\n"

	".p2align 4\n"
	".globl srn_runtime\n"
	".type srn_runtime,@function\n"
	"srn_runtime:\n"
	"mov %edi,%eax\n"
	"syscall\n"
	"ret\n"
	".Lsrn_hidden:\n"           /* no symbol: a function known only by its address */
	"mov $110,%eax\n"
	"syscall\n"
	"ret\n"
	".size srn_runtime,.-srn_runtime\n"

	".section .data.rel.ro,\"aw\"\n"
	".p2align 3\n"
	".globl srn_hidden_ptr\n"
	"srn_hidden_ptr: .quad .Lsrn_hidden\n"
	".text\n");

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 2000;
	long pid = getpid(), ppid = getppid();
	long (*volatile a)(void) = srn_getpid;
	long (*volatile b)(void) = srn_getppid_a;
	long (*volatile c)(long) = srn_runtime;
	long (*volatile d)(void) = srn_hidden_ptr;

	for (long i = 0; i < n; i++) {
		long ra = a(), rb = b(), rc = c(39), rd = d();

		if (ra != pid || rb != ppid || rc != pid || rd != ppid) {
			fprintf(stderr, "syscall_ret_next: call %ld: srn_getpid %ld (expected %ld), srn_getppid_a %ld (%ld), "
				"srn_runtime(39) %ld (%ld), the unnamed one %ld (%ld)\n",
				i, ra, pid, rb, ppid, rc, pid, rd, ppid);
			return 1;
		}
	}
	return 0;
}
