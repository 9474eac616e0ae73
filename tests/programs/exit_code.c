/* Ends in a chosen way, for exit-status tests:
 *   exit_code exit N     exit(N)
 *   exit_code kill N     kill(getpid(), N) (and exits 99 if it survives)
 *   exit_code segv       a NULL store (SIGSEGV; core dumps disabled first)
 * Before that it makes 7 getppid calls. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	for (int i = 0; i < 7; i++)
		syscall(SYS_getppid);
	if (argc > 2 && strcmp(argv[1], "exit") == 0)
		exit(atoi(argv[2]));
	if (argc > 2 && strcmp(argv[1], "kill") == 0) {
		syscall(SYS_kill, getpid(), atoi(argv[2]));
		_exit(99);
	}
	if (argc > 1 && strcmp(argv[1], "segv") == 0) {
		struct rlimit rl = { 0, 0 };
		setrlimit(RLIMIT_CORE, &rl);
		__asm__ volatile("movl $1, 0" ::: "memory"); /* a store to address 0 */
		_exit(98);
	}
	fprintf(stderr, "usage: exit_code exit N | kill SIG | segv\n");
	return 2;
}
