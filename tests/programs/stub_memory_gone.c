/* A batch of patches whose stubs cannot be written: the program unmaps the stub
 * memory the tracer mapped near its executable (a mapping it did not make) before
 * the tracer writes there again.
 *   1. near() makes getppid at a site of the executable: patched at its trap, its
 *      stub in memory the tracer maps near the executable (the only anonymous r-x
 *      mapping within 2 GiB of its code).
 *   2. A fork child calls child_only(), a site its parent never ran: the child
 *      patches it, and teaches it to the parent, which writes it at its next fork
 *      (tracer/patching.c).
 *   3. The parent unmaps that stub memory (none found: exit 2), and does not call
 *      near() again.
 *   4. It forks again: the tracer writes child_only's patch in a batch, and its stub
 *      cannot go into memory that is gone; its jump must not go either.
 *   5. The parent calls child_only(): natively getppid; through a jump to a stub
 *      that is not there, SIGSEGV.
 * Exit 0 when child_only() returned what getppid() does. Calls: getppid 4 (near,
 * child_only twice, libc's), fork 2 (clone), the rest libc's. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

__attribute__((noinline)) static long near(void)
{
	long r;

	__asm__ volatile("mov $110,%%eax\n\tsyscall" : "=a"(r) : : "rcx", "r11", "memory");
	return r;
}

__attribute__((noinline)) static long child_only(void)
{
	long r;

	__asm__ volatile("mov $110,%%eax\n\tsyscall" : "=a"(r) : : "rcx", "r11", "memory");
	return r;
}

/* Unmaps the anonymous r-x mappings within 2 GiB of the executable's code: how many. */
static int unmap_stub_memory(void)
{
	uintptr_t here = (uintptr_t)&near, lo, hi;
	unsigned long ino;
	char perms[8], line[512];
	FILE *f = fopen("/proc/self/maps", "r");
	struct { uintptr_t lo, hi; } found[8];
	int n = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f) && n < 8) {
		int path_at = 0; /* the path, after the inode and spaces (the newline too) */

		if (sscanf(line, "%lx-%lx %7s %*s %*s %lu %n", &lo, &hi, perms, &ino, &path_at) == 4
		    && ino == 0 && (line[path_at] == '\n' || !line[path_at]) && perms[0] == 'r' && perms[2] == 'x'
		    && (lo > here ? lo - here : here - lo) < (1UL << 31))
			found[n].lo = lo, found[n++].hi = hi;
	}
	fclose(f);
	for (int i = 0; i < n; i++)
		munmap((void *)found[i].lo, found[i].hi - found[i].lo);
	return n;
}

static void fork_and_wait(int call_child_only)
{
	pid_t pid = fork();

	if (pid == 0)
		_exit(call_child_only ? child_only() != getppid() : 0);
	if (pid < 0 || waitpid(pid, NULL, 0) != pid)
		exit(1);
}

int main(void)
{
	long want = getppid(), got;

	near();
	fork_and_wait(1);
	if (unmap_stub_memory() != 1) {
		fprintf(stderr, "stub_memory_gone: not one stub area near the executable\n");
		return 2;
	}
	fork_and_wait(0);
	got = child_only();
	printf("child_only() = %ld, getppid() = %ld\n", got, want);
	return got != want;
}
