/* A thread that is not the leader calls execve of getppid_loop 33 (argv[1], default:
 * the getppid_loop beside this program). Before that it makes 3 gettid calls, once
 * pthread_create has returned in the main thread (whose last rt_sigprocmask a quick
 * exec would otherwise kill it inside: counted at its entry by systrace, not at all
 * by strace -c). The main thread then spins without syscalls until the exec replaces
 * it (bounded by the TSC: after about 10^11 cycles it gives up and exits 3), so the
 * counts do not depend on timing.
 *
 * exec_from_thread PATH leader-exits: the main thread ends first (pthread_exit), and
 * the thread execs once the kernel has cleared the leader's tid (after its exit
 * stop: the tracer has seen it end), which pthread_tryjoin_np reads without a
 * syscall; the exec then comes from the only live thread, not the leader. */
#define _GNU_SOURCE
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <x86intrin.h>

static char path[PATH_MAX];
static int created;
static pthread_t leader;
static int leader_exits;

static void *worker(void *arg)
{
	(void)arg;
	while (!__atomic_load_n(&created, __ATOMIC_ACQUIRE))
		_mm_pause();
	if (leader_exits) {
		unsigned long long start = __rdtsc();

		while (pthread_tryjoin_np(leader, NULL) != 0)
			if (__rdtsc() - start > 100000000000ULL)
				_exit(3);
	}
	for (int i = 0; i < 3; i++)
		syscall(SYS_gettid);
	char *args[] = { path, "33", NULL };
	char *envp[] = { NULL };
	execve(path, args, envp);
	perror("exec_from_thread: execve");
	_exit(127);
}

int main(int argc, char **argv)
{
	if (argc > 1) {
		snprintf(path, sizeof path, "%s", argv[1]);
	} else {
		ssize_t n = readlink("/proc/self/exe", path, sizeof path - 32);
		if (n < 0)
			return 2;
		path[n] = 0;
		strcpy(strrchr(path, '/') + 1, "getppid_loop");
	}
	leader = pthread_self();
	leader_exits = argc > 2 && strcmp(argv[2], "leader-exits") == 0;
	pthread_t t;
	if (pthread_create(&t, NULL, worker, NULL) != 0)
		return 2;
	__atomic_store_n(&created, 1, __ATOMIC_RELEASE);
	if (leader_exits)
		pthread_exit(NULL);
	unsigned long long start = __rdtsc();
	while (__rdtsc() - start < 100000000000ULL)
		_mm_pause();
	return 3;
}
