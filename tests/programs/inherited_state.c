/* inherited_state ignore|block: what a program inherits across execve must reach the
 * new program as it was, whatever the tracer does at the exec (tracer/early.c makes
 * the new image call for it before its first instruction). Sets up every signal
 * blocked (and, with "ignore", SIGTRAP ignored), then execs itself to check: the
 * mask and SIGTRAP's disposition. Both before and after the exec, no descriptor of
 * systrace's may be open (its output files, its region: a path or memfd name with
 * "systrace" in it). Exits 0 when all is as set up, 1 (saying what) otherwise. */
#define _GNU_SOURCE
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Descriptors of systrace's that the program can see: 1 if any (said). */
static int systrace_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int bad = 0;

	while (d && (e = readdir(d))) {
		char path[300], target[256] = "";

		/* 0, 1, 2 are whoever started systrace's (a test's files) */
		if (e->d_name[0] == '.' || atoi(e->d_name) <= 2)
			continue;
		snprintf(path, sizeof(path), "/proc/self/fd/%s", e->d_name);
		if (readlink(path, target, sizeof(target) - 1) > 0 && strstr(target, "systrace")) {
			printf("descriptor %s is open: %s\n", e->d_name, target);
			bad = 1;
		}
	}
	if (d)
		closedir(d);
	return bad;
}

static int check(int ignored)
{
	struct sigaction sa;
	sigset_t mask;
	int bad = systrace_fds();

	sigaction(SIGTRAP, NULL, &sa);
	sigprocmask(SIG_BLOCK, NULL, &mask);
	if ((sa.sa_handler == SIG_IGN) != ignored) {
		printf("SIGTRAP is %s, set up %s\n", sa.sa_handler == SIG_IGN ? "ignored" : "not ignored",
		       ignored ? "ignored" : "default");
		bad = 1;
	}
	for (int sig = 1; sig < 32; sig++) {
		if (sig != SIGKILL && sig != SIGSTOP && !sigismember(&mask, sig)) {
			printf("signal %d is not blocked any more\n", sig);
			bad = 1;
		}
	}
	return bad;
}

int main(int argc, char **argv)
{
	sigset_t all;

	if (argc == 3 && strcmp(argv[1], "check") == 0)
		return check(strcmp(argv[2], "ignore") == 0);
	if (argc != 2 || (strcmp(argv[1], "ignore") != 0 && strcmp(argv[1], "block") != 0)) {
		fprintf(stderr, "usage: inherited_state ignore|block\n");
		return 2;
	}
	if (systrace_fds())
		return 1;
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, NULL);
	if (strcmp(argv[1], "ignore") == 0)
		signal(SIGTRAP, SIG_IGN);
	execl("/proc/self/exe", argv[0], "check", argv[1], (char *)NULL);
	return 2;
}
