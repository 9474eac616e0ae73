/* wait_signal MARKER: handles SIGINT, SIGTERM and SIGHUP, creates MARKER.ready, then
 * waits. On the first of those signals it writes the signal's name to MARKER and exits
 * 0. Gives up after 30 s (alarm: killed by SIGALRM) so that a test cannot hang. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t got;

static void on_signal(int sig)
{
	got = sig;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: wait_signal MARKER\n");
		return 2;
	}
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);

	sigset_t set, old;
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigprocmask(SIG_BLOCK, &set, &old);

	char ready[4096];
	snprintf(ready, sizeof ready, "%s.ready", argv[1]);
	int fd = open(ready, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return 2;
	close(fd);

	alarm(30);
	while (!got)
		sigsuspend(&old);

	const char *name = got == SIGINT ? "SIGINT" : got == SIGTERM ? "SIGTERM" : "SIGHUP";
	fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return 2;
	if (write(fd, name, strlen(name)) != (ssize_t)strlen(name))
		return 2;
	close(fd);
	return 0;
}
