/* ignore_termination [MARKER]: ignores SIGINT, SIGTERM and SIGHUP and makes a
 * getppid call every millisecond, forever: only SIGKILL ends it. With MARKER, it
 * creates that file once the signals are ignored and it has made 200 calls, so that
 * a test can wait for that instead of guessing how long it takes. */
#include <fcntl.h>
#include <signal.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct timespec ms = { 0, 1000 * 1000 };

	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	for (long i = 0;; i++) {
		if (i == 200 && argc > 1) {
			int fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);

			if (fd < 0)
				return 2;
			close(fd);
		}
		syscall(SYS_getppid);
		nanosleep(&ms, NULL);
	}
}
