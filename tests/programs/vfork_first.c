/* A vfork child is the first to run a site, the parent runs it after: the child's
 * trap patches the memory both share, so the parent's calls there run in-process
 * without a trap, though no batch wrote the site (the hazard of a check that takes
 * every patched site run without a trap for one written at the image's start).
 * With N (argv[1], default 0) above 0: a vfork child calls site_getppid once and
 * _exits 0; the parent, after it, N times. With 0, no vfork: run first, it teaches
 * the tracer this executable's other sites, so that a later image gets them in a
 * batch at its start and runs them without a trap too.
 * Counts (N > 0): getppid 1 in the child and N in the parent; vfork 1. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <unistd.h>

#include "child.h"
#include "site_getppid.h"

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 0;

	if (n <= 0)
		return 0;
	pid_t pid = vfork();
	if (pid == 0) {
		site_getppid();
		_exit(0);
	}
	if (wait_exit("vfork_first", "the vfork child", pid, 0, 0))
		return 1;
	for (long i = 0; i < n; i++)
		site_getppid();
	return 0;
}
