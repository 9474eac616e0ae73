/* Prints "tick I" every INTERVAL milliseconds, COUNT times (defaults 40 and 50), then
 * "ticks done", and exits 0. For job-control tests: it must survive being stopped
 * and continued (interrupted sleeps are resumed for the remaining time). A third
 * argument sets SIGTSTP's disposition: "ignore", or "handle" (the handler prints
 * "caught SIGTSTP"), so that Ctrl-Z stops nothing. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void on_tstp(int sig)
{
	static const char msg[] = "caught SIGTSTP\n";

	(void)sig;
	if (write(1, msg, sizeof(msg) - 1) < 0)
		_exit(1);
}

int main(int argc, char **argv)
{
	int count = argc > 1 ? atoi(argv[1]) : 40;
	long ms = argc > 2 ? atol(argv[2]) : 50;
	const char *tstp = argc > 3 ? argv[3] : "";
	char buf[64];

	if (strcmp(tstp, "ignore") == 0)
		signal(SIGTSTP, SIG_IGN);
	else if (strcmp(tstp, "handle") == 0)
		signal(SIGTSTP, on_tstp);
	for (int i = 1; i <= count; i++) {
		int n = snprintf(buf, sizeof buf, "tick %d\n", i);
		if (write(1, buf, n) != n)
			return 1;
		struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
		while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
			;
	}
	const char done[] = "ticks done\n";
	return write(1, done, strlen(done)) == (ssize_t)strlen(done) ? 0 : 1;
}
