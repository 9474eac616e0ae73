/* A preloaded library whose constructor, before main, forks a child that loads a
 * library: the loader's sites, which an image can have patched from its first
 * instruction (tracer/early.c), run in two processes at their start, each counting
 * in its own slot. Built as a shared object (name ends in _preload). */
#include <dlfcn.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

__attribute__((constructor)) static void fork_early(void)
{
	pid_t child = fork();
	int status;

	if (child == 0) {
		if (!dlopen("libm.so.6", RTLD_NOW))
			_exit(3);
		_exit(0);
	}
	if (child < 0 || waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		exit(4);
}
