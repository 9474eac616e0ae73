/* 256 syscall sites of this program's own (inline getppid), each called twice, after
 * one libc getppid() that gives the value each must return: 513 getppid calls. Run a
 * second time, its sites are all known at its start, more than an image's set-up can
 * hold (tracer/early.c: 96 writes, a 16 KB stage), so the set-up is built without
 * them (test_setup_overflow.sh). Exits 0 when every call returned the parent's pid. */
#include <unistd.h>

#define SITE                                                                                                   \
	do {                                                                                                   \
		long r;                                                                                        \
		__asm__ volatile("syscall" : "=a"(r) : "a"(110L) : "rcx", "r11", "memory");                    \
		bad |= r != ppid;                                                                              \
	} while (0);
#define SITES_8 SITE SITE SITE SITE SITE SITE SITE SITE
#define SITES_64 SITES_8 SITES_8 SITES_8 SITES_8 SITES_8 SITES_8 SITES_8 SITES_8
#define SITES_256 SITES_64 SITES_64 SITES_64 SITES_64

__attribute__((noinline)) static int all_sites(long ppid)
{
	int bad = 0;

	SITES_256
	return bad;
}

int main(void)
{
	long ppid = getppid();

	return all_sites(ppid) | all_sites(ppid);
}
