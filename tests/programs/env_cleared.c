/* A program that removes everything an in-process path could be reached through
 * (a preloaded library, a descriptor): it clears its environment, closes every file
 * descriptor (close_range), then calls syscall(SYS_getppid) N times (argv[1], default
 * 2000), so that site is patched and used after all that; then it execs getppid_loop
 * M (argv[2], default 3000; the getppid_loop beside this program) with an empty
 * environment and no descriptors. With no descriptor left nothing can be reported:
 * it exits 1 if a getppid result is wrong, 2 if the execve fails.
 * Counts: getppid N + 1 + M (the +1: the expected value), close_range 1, execve 2,
 * exit_group 1; per image: this program's N + 1, getppid_loop's M. */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	static char path[PATH_MAX];
	long n = argc > 1 ? atol(argv[1]) : 2000;
	const char *m = argc > 2 ? argv[2] : "3000";
	ssize_t len = readlink("/proc/self/exe", path, sizeof path - 32);

	if (len < 0)
		return 2;
	path[len] = 0;
	strcpy(strrchr(path, '/') + 1, "getppid_loop");

	long ppid = getppid();
	clearenv();
	syscall(SYS_close_range, 0U, ~0U, 0U);
	for (long i = 0; i < n; i++)
		if (syscall(SYS_getppid) != ppid)
			return 1;

	char *args[] = { path, (char *)m, NULL };
	char *envp[] = { NULL };
	execve(path, args, envp);
	return 2;
}
