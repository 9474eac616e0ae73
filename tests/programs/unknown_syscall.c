#define _GNU_SOURCE
/* Syscall numbers the kernel does not know: 3 x syscall(500) and 1 x syscall(1000),
 * each must fail with ENOSYS (exits 1 otherwise). strace prints them as syscall_0x1f4
 * and syscall_0x3e8, and its -c table leaves them out. */
#include <errno.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(void)
{
	int bad = 0;
	for (int i = 0; i < 3; i++)
		if (syscall(500) != -1 || errno != ENOSYS)
			bad = 1;
	if (syscall(1000) != -1 || errno != ENOSYS)
		bad = 1;
	if (bad)
		fprintf(stderr, "unknown_syscall: a call did not fail with ENOSYS\n");
	return bad;
}
