/* Built with -fsanitize=address by gcc and by clang (the Makefile's leaks_gcc and
 * leaks_clang), for LeakSanitizer's check at exit, which stops the process's threads
 * by ptrace-attaching them from a helper task and reads their registers and stacks.
 *
 * argv[1]: "leak" or "clean". Two threads stay blocked in read() on a pipe that never
 * gets data while main returns, each holding the only pointer to a 64-byte block on
 * its stack: LeakSanitizer finds those reachable only if it stopped both threads and
 * got their real stack pointers. "leak" also drops the last pointer to a 77-byte
 * block: exactly one direct leak of 77 bytes. Prints "ran" before returning. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int never[2], ready[2];
static void *volatile sink;

static void *hold(void *arg)
{
	void *volatile mine = malloc(64);
	char c;

	memset(mine, 1, 64);
	if (write(ready[1], "r", 1) != 1)
		abort();
	while (read(never[0], &c, 1) != 0)
		; /* blocks for ever: nothing writes there */
	return arg;
}

int main(int argc, char **argv)
{
	pthread_t t[2];
	char c;

	if (argc != 2 || (strcmp(argv[1], "leak") != 0 && strcmp(argv[1], "clean") != 0)) {
		fprintf(stderr, "usage: %s leak|clean\n", argv[0]);
		return 2;
	}
	if (pipe(never) < 0 || pipe(ready) < 0)
		return 3;
	for (int i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, hold, NULL) != 0 || read(ready[0], &c, 1) != 1)
			return 4;
	if (strcmp(argv[1], "leak") == 0) {
		sink = malloc(77);
		memset(sink, 2, 77);
		sink = NULL;
	}
	puts("ran");
	fflush(stdout);
	return 0;
}
