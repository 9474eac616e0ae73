/* Makes exactly N getppid syscalls (argv[1], default 1000) and exits 0.
 * Optional argv[2]: exit status to use instead of 0.
 * Optional argv[3], READY (a FIFO, for a test to wait on): after the N calls, writes
 * a line into READY and goes on calling getppid until it is killed; so that a test
 * kills it in the middle of its calls however fast or slow the machine is. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000;
	for (long i = 0; i < n; i++)
		syscall(SYS_getppid);
	if (argc > 3) {
		int fd = open(argv[3], O_WRONLY);

		if (fd < 0 || write(fd, "ready\n", 6) != 6)
			return 2;
		close(fd);
		for (;;)
			syscall(SYS_getppid);
	}
	return argc > 2 ? atoi(argv[2]) : 0;
}
