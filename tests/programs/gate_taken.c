/* getppid_loop with a page of its own at systrace's gate address: linked (-no-pie,
 * Makefile) with the section .gate_squat there, so that the kernel maps it at exec,
 * before systrace can map its gate. The image must stay on the slow path, exactly
 * counted, with library=gate-address-taken. Makes exactly N getppid syscalls
 * (argv[1], default 1000). */
#define _GNU_SOURCE
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "gate.h"

__attribute__((section(".gate_squat"), used, aligned(4096))) static char squat[4096] = { 1 };

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000;

	/* its own page is there (a jump to it would not reach: read it by address) */
	if (*(volatile const char *)SYSTRACE_GATE_ADDR != 1)
		return 3;
	for (long i = 0; i < n; i++)
		syscall(SYS_getppid);
	return 0;
}
