/* Ignores SIGINT, SIGTERM and SIGHUP and makes a getppid call every millisecond,
 * forever: only SIGKILL ends it. */
#include <signal.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int main(void)
{
	struct timespec ms = { 0, 1000 * 1000 };

	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	for (;;) {
		syscall(SYS_getppid);
		nanosleep(&ms, NULL);
	}
}
