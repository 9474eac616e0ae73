/* Makes exactly N getppid syscalls (argv[1], default 1000) and exits 0, like
 * getppid_loop, but its executable has a page at systrace's gate address (the
 * section .at_gate, which the Makefile places there for every *_at_gate program):
 * at its exec the gate cannot be mapped, and the image must stay on the slow path,
 * exactly counted, with library=gate-address-taken. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

/* nothing refers to it: the kernel maps it with the executable's other segments */
__attribute__((section(".at_gate"), used, aligned(4096))) static const char squat[4096] = { 1 };

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000;

	for (long i = 0; i < n; i++)
		syscall(SYS_getppid);
	return 0;
}
