/* The first call at a site is the one that traps and gets the site patched; whatever
 * the tracer does at that stop (map stub memory by making the thread call mmap,
 * stop other threads, write the patch), the call itself must then be made and return
 * its own result. Three sites, each new at its first call and each in want of stub
 * memory the first time in its object: first_site (an inline
 * `mov $110,%eax; syscall` here), glibc getppid() and glibc syscall(SYS_getppid);
 * each called twice in a row, then all six results compared, then the same with
 * getpid through first_site_pid and syscall(). Fast: run it many times.
 * Exits 1 with the six values when they differ.
 * Counts: getppid 6, getpid 4. */
#define _GNU_SOURCE
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

__attribute__((noinline)) long first_site(void)
{
	long ret;

	__asm__ volatile("mov $110,%%eax\n\tsyscall" : "=a"(ret) : : "rcx", "r11", "memory");
	return ret;
}

__attribute__((noinline)) long first_site_pid(void)
{
	long ret;

	__asm__ volatile("mov $39,%%eax\n\tsyscall" : "=a"(ret) : : "rcx", "r11", "memory");
	return ret;
}

int main(void)
{
	long a = first_site(), b = first_site();
	long c = getppid(), d = getppid();
	long e = syscall(SYS_getppid), f = syscall(SYS_getppid);

	if (a != b || b != c || c != d || d != e || e != f) {
		fprintf(stderr, "first_call: getppid: first_site %ld then %ld, glibc getppid() %ld then %ld, "
			"syscall() %ld then %ld: a first call returned something else\n", a, b, c, d, e, f);
		return 1;
	}
	long g = first_site_pid(), h = first_site_pid();
	long i = syscall(SYS_getpid), j = syscall(SYS_getpid);

	if (g != h || h != i || i != j) {
		fprintf(stderr, "first_call: getpid: first_site_pid %ld then %ld, syscall() %ld then %ld\n", g, h, i, j);
		return 1;
	}
	return 0;
}
