/* Syscalls reached through known libc entry points, for --libc-calls:
 *  - fopen("/dev/null") 3 times: its openat site in libc is attributed to fopen
 *    (glibc's fopen tail-calls an internal function: only the caller's call names it);
 *  - getpid() 5 times: the getpid site, attributed to getpid;
 *  - syscall(SYS_getppid) 7 times: libc's syscall() site, attributed to syscall;
 *  - site_getppid() 4 times: an inline `syscall` in this program, attributed to none;
 *  - exit(0): the exit_group site, attributed to exit.
 * With the argument `again`, it then runs itself once more (fork, execve without the
 * argument) after its own calls, so that the second process's sites are known from
 * the first. Exits 0 when the calls returned what they should. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "site_getppid.h"

static int run_again(const char *self)
{
	int status;
	pid_t child = fork();

	if (child == 0) {
		execl(self, self, (char *)NULL);
		_exit(127);
	}
	return child > 0 && waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

int main(int argc, char **argv)
{
	int ok = 1;

	for (int i = 0; i < 3; i++) {
		FILE *f = fopen("/dev/null", "r");

		ok &= f != NULL;
		if (f)
			fclose(f);
	}
	for (int i = 0; i < 5; i++)
		ok &= getpid() > 0;
	for (int i = 0; i < 7; i++)
		ok &= syscall(SYS_getppid) == getppid();
	for (int i = 0; i < 4; i++)
		ok &= site_getppid() > 0;
	if (argc > 1 && strcmp(argv[1], "again") == 0)
		ok &= run_again("/proc/self/exe");
	exit(ok ? 0 : 1);
}
