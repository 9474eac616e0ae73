/* A process that ends by exit_group while another of its threads waits: the kernel
 * kills that thread with SIGKILL, and a thread with SIGKILL pending may die without
 * an exit event (Linux 5.17 on). The exit_group thread's exit event is then the
 * last stop at which the process's memory and CPU times can be read. 20 children;
 * in each, a second thread blocks in pause(), and the main thread, once it is
 * blocked there, calls getppid at a site of its own (site_getppid: its first call
 * there stops in the tracer) and then exit_group. Every child's site must be named
 * (object and symbol) and its CPU times known. Counts by construction: getppid 20
 * at site_getppid, exit_group 21, fork 20 (clone: glibc's fork), pause 20; the
 * wait's openat, pread64 and clock_nanosleep are timing. Exits 0 when every child
 * exited 0. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sched.h>
#include <signal.h>

#define CHILDREN 20

static unsigned long calls;

/* Not static: the e2e test finds the site by this name. */
__attribute__((noinline)) long site_getppid(void)
{
	long ret;

	__asm__ volatile("syscall" : "=a"(ret) : "a"((long)SYS_getppid) : "rcx", "r11", "memory");
	return ret;
}

static void *stop_and_stop(void *arg)
{
	cpu_set_t set;

	(void)arg;
	for (;;) {
		sched_getaffinity(0, sizeof(set), &set);
		__atomic_add_fetch(&calls, 1, __ATOMIC_SEQ_CST);
	}
	return NULL;
}

static void child(void)
{
	pthread_t t;

	if (pthread_create(&t, NULL, stop_and_stop, NULL) != 0)
		_exit(2);
	while (__atomic_load_n(&calls, __ATOMIC_SEQ_CST) < 3)
		sched_yield();
	site_getppid();
	syscall(SYS_tgkill, getpid(), gettid(), SIGTERM);
}

int main(void)
{
	int ok = 1, status;

	for (int i = 0; i < CHILDREN; i++) {
		pid_t pid = fork();

		if (pid == 0)
			child();
		if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFSIGNALED(status) || WTERMSIG(status) != SIGTERM)
			ok = 0;
	}
	return ok ? 0 : 1;
}
