/* site_getppid(): getppid through an inline `mov $110,%eax; syscall`, a site with a
 * fixed number in the program itself. Not static: the e2e tests look for the site
 * by this symbol's name, so it stays a global function as in a single-file program. */
#ifndef SITE_GETPPID_H
#define SITE_GETPPID_H

__attribute__((noinline)) long site_getppid(void)
{
	long ret;

	__asm__ volatile("mov $110,%%eax\n\tsyscall" : "=a"(ret) : : "rcx", "r11", "memory");
	return ret;
}

#endif
