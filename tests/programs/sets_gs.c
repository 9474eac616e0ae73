/* A program that takes %gs for itself (arch_prctl ARCH_SET_GS) after 1000 getppid
 * calls, then makes 1000 more and reads its own gs block: the tracer must withdraw its
 * patches (whose counters live behind gs) before the call, or the stubs would write
 * into the program's block. Prints "block intact: yes" and exits 0 when it is. */
#define _GNU_SOURCE
#include <asm/prctl.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>
static unsigned long block[16];
int main(void)
{
	for (int i = 0; i < 1000; i++) getppid();
	syscall(SYS_arch_prctl, ARCH_SET_GS, (unsigned long)block);
	for (int i = 0; i < 1000; i++) getppid();
	unsigned long v; __asm__ volatile("mov %%gs:8,%0" : "=r"(v));
	printf("block intact: %s\n", v == 0 && block[1] == 0 ? "yes" : "no");
	return v == 0 && block[1] == 0 ? 0 : 1;
}
