/* The CPUs of another process, as a program sees and sets them: a parent asks
 * sched_getaffinity about its child, then sets the child's affinity with
 * sched_setaffinity, as `taskset -p` does. Under systrace with several serving
 * threads the child, handed to another serving thread at its exec, may be kept on
 * that thread's CPU (tracer/placement.c); the parent must not see that, and the
 * CPU it gives the child must hold.
 *
 *   affinity_other          the parent: prints the CPU count it sees for the child
 *                           before and after setting it to one CPU, then the
 *                           child's lines
 *   affinity_other child    (run by the parent through exec) makes getppid calls
 *                           until its kernel mask (/proc/self/status, which
 *                           systrace does not hide) is one CPU or it made LIMIT,
 *                           says which on fd 3, waits for a byte on fd 4, makes
 *                           more calls, then prints the CPU count it sees for
 *                           itself and whether its kernel mask is the CPU it
 *                           was given.
 *
 * Natively the child is never kept on one CPU: the parent prints "unpinned" and the
 * counts. Exits 0 unless a call fails. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define LIMIT 200000 /* calls: a stop each under --patch=off */
#define AFTER 20000

/* The kernel's mask of the calling process, from /proc/self/status: the CPU if it is
 * one, -1 if several, -2 if unread. */
static int kernel_cpu(const char *status)
{
	char line[256];
	FILE *f = fopen(status, "re");
	int cpu = -2;

	if (!f)
		return -2;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, "Cpus_allowed_list:", 18) == 0)
			cpu = strpbrk(line + 18, ",-") ? -1 : atoi(line + 18);
	fclose(f);
	return cpu;
}

static void calls(int n)
{
	for (int i = 0; i < n; i++)
		syscall(SYS_getppid);
}

static int child(void)
{
	char verdict = 'u', go;
	cpu_set_t set;
	int given;

	for (int i = 0; i < LIMIT / 500 && verdict == 'u'; i++) {
		calls(500);
		if (kernel_cpu("/proc/self/status") >= 0)
			verdict = 'p';
	}
	if (write(3, &verdict, 1) != 1 || read(4, &go, 1) != 1)
		return 1;
	given = go;
	calls(AFTER);
	if (sched_getaffinity(0, sizeof(set), &set) < 0)
		return 1;
	printf("child sees %d\n", CPU_COUNT(&set));
	printf("child kernel mask is the CPU given: %s\n", kernel_cpu("/proc/self/status") == given ? "yes" : "no");
	return 0;
}

int main(int argc, char **argv)
{
	int ready[2], go[2], status, first = -1;
	char verdict, path[64];
	cpu_set_t set;
	pid_t pid;

	if (argc > 1 && strcmp(argv[1], "child") == 0)
		return child();
	if (pipe(ready) < 0 || pipe(go) < 0 || (pid = fork()) < 0)
		return 1;
	if (pid == 0) {
		if (dup2(ready[1], 3) < 0 || dup2(go[0], 4) < 0)
			_exit(1);
		execl("/proc/self/exe", argv[0], "child", (char *)NULL);
		_exit(1);
	}
	if (read(ready[0], &verdict, 1) != 1)
		return 1;
	printf("%s\n", verdict == 'p' ? "pinned" : "unpinned");
	if (sched_getaffinity(pid, sizeof(set), &set) < 0)
		return 1;
	printf("parent sees %d for the child\n", CPU_COUNT(&set));
	/* the child's one CPU: one it is not kept on, if it is kept on one */
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	for (int cpu = 0; cpu < CPU_SETSIZE && first < 0; cpu++)
		if (CPU_ISSET(cpu, &set) && (cpu != kernel_cpu(path) || CPU_COUNT(&set) == 1))
			first = cpu;
	CPU_ZERO(&set);
	CPU_SET(first, &set);
	if (sched_setaffinity(pid, sizeof(set), &set) < 0 || sched_getaffinity(pid, sizeof(set), &set) < 0)
		return 1;
	printf("parent sees %d for the child after setting it\n", CPU_COUNT(&set));
	fflush(stdout);
	verdict = (char)first;
	if (write(go[1], &verdict, 1) != 1 || waitpid(pid, &status, 0) != pid)
		return 1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
