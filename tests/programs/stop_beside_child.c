/* A process that stops itself while its child runs on, as a shell's job does when
 * one of its processes takes SIGSTOP: natively the child is not held by it. Under
 * systrace the command's own stop stops systrace too only while the command is the
 * only process traced (tracer/events.c, stops_itself); here it is not, and the child
 * may be served by another tracer thread (handed on at its exec).
 *
 *   stop_beside_child          forks, waits until the child has exec'ed, stops
 *                              itself (raise(SIGSTOP)); once continued, waits for
 *                              the child and exits with its status
 *   stop_beside_child child    (through exec) waits until its parent is stopped
 *                              (/proc/PPID/stat), makes CALLS getppid calls (a
 *                              stop each under --patch=off), then continues the
 *                              parent with SIGCONT
 *
 * If the child is held while its parent is stopped, nobody continues the parent:
 * the run never ends. Exits 0, or 1 if a call fails, 2 if the parent was not seen
 * stopped within POLLS looks. */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define CALLS 200
#define POLLS 1000000

/* The state letter of pid in /proc, '?' if unread. */
static char state_of(pid_t pid)
{
	char path[64], buf[512], *close_paren;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (!(f = fopen(path, "re")))
		return '?';
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	close_paren = strrchr(buf, ')');
	return close_paren && close_paren[1] == ' ' ? close_paren[2] : '?';
}

static int child(void)
{
	pid_t parent = getppid();
	char s = '?';

	if (write(3, "r", 1) != 1)
		return 1;
	for (long i = 0; i < POLLS && s != 'T' && s != 't'; i++) {
		s = state_of(parent);
		if (s != 'T' && s != 't')
			sched_yield();
	}
	if (s != 'T' && s != 't')
		return 2;
	for (int i = 0; i < CALLS; i++)
		syscall(SYS_getppid);
	return kill(parent, SIGCONT) == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
	int ready[2], status;
	char byte;
	pid_t pid;

	if (argc > 1 && strcmp(argv[1], "child") == 0)
		return child();
	if (pipe(ready) < 0 || (pid = fork()) < 0)
		return 1;
	if (pid == 0) {
		if (dup2(ready[1], 3) < 0)
			_exit(1);
		execl("/proc/self/exe", argv[0], "child", (char *)NULL);
		_exit(1);
	}
	if (read(ready[0], &byte, 1) != 1 || raise(SIGSTOP) != 0 || waitpid(pid, &status, 0) != pid)
		return 1;
	printf("continued by the child: exit %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
