/* A program whose log is known entry by entry (test_log): 5000 getppid at one inline
 * site (in-process once patched; more than a thread's log buffer holds, so it fills
 * and is emptied several times), an open of a file that is not there (-ENOENT), a
 * write of 6 bytes to stdout, getpid, and exit_group(3), which never returns. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <unistd.h>
#include <sys/syscall.h>

#include "site_getppid.h"

int main(void)
{
	long ppid = getppid();

	for (int i = 0; i < 5000; i++)
		if (site_getppid() != ppid)
			return 1;
	if (open("/nonexistent/systrace-log-test", O_RDONLY) != -1)
		return 1;
	if (write(1, "hello\n", 6) != 6)
		return 1;
	syscall(SYS_getpid);
	syscall(SYS_exit_group, 3);
	return 1;
}
