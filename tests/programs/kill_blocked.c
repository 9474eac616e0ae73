/* A child blocks in read() on a pipe nobody writes; the parent waits until the child
 * is asleep in that read (/proc/PID/stat state S), kills it with SIGKILL and reaps
 * it. Exits 0 when the child died of SIGKILL. The wait has no time limit (the test's
 * timeout bounds it), so that a loaded machine cannot make it kill the child before
 * its read. (Counts of the polling are timing-dependent; this is for exit-column
 * tests, not exact counts.) */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char child_state(pid_t pid)
{
	char path[64], buf[512];
	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return '?';
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = 0;
	char *p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : '?';
}

int main(void)
{
	int fds[2];
	if (pipe(fds) != 0)
		return 2;
	pid_t pid = fork();
	if (pid == 0) {
		char c;
		close(fds[1]);
		ssize_t r = read(fds[0], &c, 1);
		_exit(r == 0 ? 4 : 5);
	}
	while (child_state(pid) != 'S') {
		struct timespec ts = { 0, 5000000 };
		nanosleep(&ts, NULL);
	}
	kill(pid, SIGKILL);
	int st;
	if (waitpid(pid, &st, 0) != pid || !WIFSIGNALED(st) || WTERMSIG(st) != SIGKILL) {
		fprintf(stderr, "kill_blocked: child status %#x, expected SIGKILL\n", st);
		return 1;
	}
	close(fds[0]);
	close(fds[1]);
	return 0;
}
