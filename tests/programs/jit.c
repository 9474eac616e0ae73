/* Code written at run time, then rewritten in place: a patch (or a stub that copied
 * the covered instructions) made for the old code must never run the new code's
 * syscall with the old number, and a patch must never be corrupted by the program's
 * own writes. Three pages of anonymous memory, one after the other (each unmapped
 * at its end, so the next mmap likely gets the same address):
 *  1. RWX: `mov $39,%eax; syscall; ret` (getpid) called N times, the 8 bytes
 *     rewritten to `mov $110,%eax; syscall; ret` (getppid), N calls, rewritten back
 *     to getpid, N calls;
 *  2. W^X: the same, the page mapped RW, then mprotect RX to run, RW to rewrite;
 *  3. RWX, but each rewrite changes only the immediate byte (as a JIT that patches a
 *     constant in place does): a patch over those bytes would be corrupted by it.
 * N is argv[1] (default 2000); every result is checked against glibc's getpid() and
 * getppid(). Counts: getpid 6N + 1, getppid 3N + 1, mmap 3 + the loader's,
 * munmap 3, mprotect 5 + the loader's. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static long n, pid, ppid;

static void write_code(unsigned char *p, unsigned char nr, int imm_only)
{
	const unsigned char code[] = { 0xb8, nr, 0, 0, 0, 0x0f, 0x05, 0xc3 };

	if (imm_only)
		((volatile unsigned char *)p)[1] = nr;
	else
		memcpy(p, code, sizeof code);
	__asm__ volatile("" ::: "memory");
}

static int run(const char *what, unsigned char *p, unsigned char nr)
{
	long (*volatile fn)(void) = (long (*)(void))p;
	long expect = nr == 39 ? pid : ppid;

	for (long i = 0; i < n; i++) {
		long r = fn();

		if (r != expect) {
			fprintf(stderr, "jit: %s, code for syscall %u at %p, call %ld: returned %ld, expected %ld\n", what,
				nr, (void *)p, i, r, expect);
			return 1;
		}
	}
	return 0;
}

static unsigned char *map(int prot)
{
	unsigned char *p = mmap(NULL, 4096, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		perror("jit: mmap");
		exit(2);
	}
	return p;
}

static void protect(unsigned char *p, int prot)
{
	if (mprotect(p, 4096, prot) != 0) {
		perror("jit: mprotect");
		exit(2);
	}
}

int main(int argc, char **argv)
{
	n = argc > 1 ? atol(argv[1]) : 2000;
	pid = getpid();
	ppid = getppid();
	const unsigned char seq[3] = { 39, 110, 39 };

	unsigned char *p = map(PROT_READ | PROT_WRITE | PROT_EXEC);
	for (int s = 0; s < 3; s++) {
		write_code(p, seq[s], 0);
		if (run("RWX page rewritten whole", p, seq[s]))
			return 1;
	}
	munmap(p, 4096);

	p = map(PROT_READ | PROT_WRITE);
	for (int s = 0; s < 3; s++) {
		if (s > 0)
			protect(p, PROT_READ | PROT_WRITE);
		write_code(p, seq[s], 0);
		protect(p, PROT_READ | PROT_EXEC);
		if (run("W^X page rewritten whole", p, seq[s]))
			return 1;
	}
	munmap(p, 4096);

	p = map(PROT_READ | PROT_WRITE | PROT_EXEC);
	write_code(p, seq[0], 0);
	for (int s = 0; s < 3; s++) {
		write_code(p, seq[s], 1);
		if (run("RWX page, immediate byte rewritten", p, seq[s]))
			return 1;
	}
	munmap(p, 4096);
	return 0;
}
