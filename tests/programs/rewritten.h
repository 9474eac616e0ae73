/* The two versions of a program that test_rewritten.sh copies, one after the other,
 * over the same file (cp keeps its inode): rewritten_v1.c and rewritten_v2.c, the
 * same layout but for g. f makes getppid with 5 bytes of instructions before its
 * syscall (xor, push, pop), which v1 runs: patched there (PATCH_BEFORE over them) and
 * known for the file from then on. In v2, g jumps to f's `pop %rax`, a branch target
 * inside those bytes: f's site cannot be patched in v2, and a patch planned from v1
 * would send g into the middle of a jump. Each prints what its calls returned and
 * exits 0 (natively; a crash otherwise). Calls: v1 getppid 4, v2 getppid 2. */
#include <stdio.h>
#include <unistd.h>

long f(void);
long g(void);
__asm__(".text\n"
	".balign 64\n"
	".globl f\n"
	".type f,@function\n"
	"f:\n"
	"	nop\n	nop\n	nop\n	nop\n	nop\n	nop\n	nop\n	nop\n"
	"	xor %edx,%edx\n"
	"	push $110\n" /* getppid */
	".Lpop:\n"
	"	pop %rax\n"
	"	syscall\n"
	"	ret\n"
	".size f,.-f\n"
	".balign 64\n"
	".globl g\n"
	".type g,@function\n"
	"g:\n"
#ifdef REWRITTEN_V2
	"	mov $110,%eax\n"
	"	push %rax\n"
	"	jmp .Lpop\n" /* into f's covered bytes */
#else
	"	mov $110,%eax\n"
	"	ret\n"
#endif
	".size g,.-g\n");

int main(void)
{
	long ppid = getppid();
#ifdef REWRITTEN_V2
	long r = g();

	printf("v2: g() = %ld\n", r);
#else
	long r = 0;

	for (int i = 0; i < 3; i++)
		r = f();
	printf("v1: f() = %ld\n", r);
#endif
	return r != ppid;
}
