/* A thread killed while it enters a call that stops in the tracer, before the
 * tracer has read that stop: the kernel drops the stop, and the call is counted at
 * the thread's exit event (events.c, count_unseen_entry), once, whatever the
 * thread's last stop before it was: here the creation event of a thread it made
 * (its entry_seen must not say the new call was seen).
 *
 * By construction, not by timing: the tracer is stopped (SIGSTOP to the TracerPid
 * of /proc/self/status) for the moment, so no stop is read in between. Every call
 * made while it is stopped goes in-process, at sites warmed up (patched) before:
 *  1. main warms its sites, and forks W, which warms its own, says so in shared
 *     memory and waits on a pipe (read): main waits for the word, then for W
 *     asleep (a sleep in W's warm-up is not the read);
 *  2. thread T makes thread T2 (clone: its last stop, the creation event), then
 *     spins without a call until main lets it go; main joins T2 and warms its
 *     own sites with threads (glibc's cancellable ones);
 *  3. once T runs (no stop of the tracer's holds it), main stops the tracer, waits
 *     until it is stopped, lets T go: T enters
 *     raw_getppid's syscall (a site not called before: it stops), and main
 *     waits until T is in that stop (its /proc stat says t);
 *  4. main tells W (write), and calls exit_group in-process (syscall(), warmed):
 *     T is killed in its unread stop. W waits until main is in its exit stop (t),
 *     then continues the tracer (SIGCONT) and exits.
 * Calls at raw_getppid's site: exactly 1 (T's, killed inside); exits with status 0
 * through exit_group; 2 when the construction does not hold. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "blocked_in.h"

/* getppid at +9: a site of its own (glibc's is patched by the warm-up), whose one
 * call is T's: a site's first call stops */
long raw_getppid(int);
__asm__(".text\n"
	".balign 16\n"
	".globl raw_getppid\n"
	".type raw_getppid,@function\n"
	"raw_getppid:\n"
	"	mov $110,%eax\n"
	"	test %edi,%edi\n"
	"	jz 1f\n"
	"1:	syscall\n"
	"	ret\n"
	".size raw_getppid,.-raw_getppid\n"
	".balign 16\n"
	"raw_getppid_next:\n"
	"	ret\n");

static int go, t_tid, t2_tid;
static pthread_t t2;

static void *second_child(void *arg)
{
	(void)arg;
	__atomic_store_n(&t2_tid, (int)syscall(SYS_gettid), __ATOMIC_SEQ_CST);
	return NULL;
}

static void *entering(void *arg)
{
	(void)arg;
	__atomic_store_n(&t_tid, (int)syscall(SYS_gettid), __ATOMIC_SEQ_CST);
	if (pthread_create(&t2, NULL, second_child, NULL) != 0)
		_exit(2);
	/* no call from here to raw_getppid's: the clone's event stays its last stop */
	while (!__atomic_load_n(&go, __ATOMIC_SEQ_CST))
		;
	raw_getppid(0);
	_exit(2); /* not reached: killed inside */
}

static int tracer_of_self(void)
{
	int fd = proc_file_open(0, 0, "status"), tracer = fd >= 0 ? tracer_pid(fd) : -1;

	if (fd >= 0)
		close(fd);
	return tracer;
}

/* Calls each of the sites that wait_state, kill and write reach once, so that the
 * trap there patches it; in the thread state they are used in (glibc takes other
 * sites, cancellable ones, once a process has threads). */
static int warm_up(int self_stat, int dummy_fd)
{
	struct timespec ms = { 0, 1000 * 1000 };
	char c = 0;

	clock_nanosleep(CLOCK_MONOTONIC, 0, &ms, NULL);
	kill(getpid(), 0);
	return proc_state(self_stat) != '?' && write(dummy_fd, &c, 1) == 1;
}

int main(void)
{
	int to_w[2], dummy[2], tracer = tracer_of_self(), self_stat, t_stat, tracer_stat, w_stat;
	pid_t parent = getpid(), w;
	pthread_t t;
	char c = 0;
	int *w_warm;

	if (tracer <= 0 || pipe(to_w) < 0 || pipe(dummy) < 0 || (self_stat = proc_stat_open(parent, 0)) < 0)
		return 2; /* (natively: not traced, nothing to test) */
	w_warm = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (w_warm == MAP_FAILED)
		return 2;
	/* 1. W, single-threaded: its sites warmed, then blocked in read until told */
	if ((w = fork()) == 0) {
		int main_stat = proc_stat_open(parent, 0);

		if (main_stat < 0 || !warm_up(main_stat, dummy[1]))
			_exit(2);
		__atomic_store_n(w_warm, 1, __ATOMIC_SEQ_CST);
		if (read(to_w[0], &c, 1) != 1)
			_exit(2);
		wait_state(main_stat, "t"); /* main in its exit stop: T killed before it */
		kill(tracer, SIGCONT);
		_exit(0);
	}
	if (w < 0 || (w_stat = proc_stat_open(w, 0)) < 0)
		return 2;
	/* 2. T, and T2, gone before the tracer stops */
	if (pthread_create(&t, NULL, entering, NULL) != 0)
		return 2;
	while (!__atomic_load_n(&t2_tid, __ATOMIC_SEQ_CST))
		;
	if (pthread_join(t2, NULL) != 0) /* (its tid cleared once past its exit event) */
		return 2;
	if (!warm_up(self_stat, dummy[1]) || syscall(SYS_getppid) != getppid())
		return 2;
	t_stat = proc_stat_open(0, __atomic_load_n(&t_tid, __ATOMIC_SEQ_CST));
	tracer_stat = proc_stat_open(tracer, 0);
	if (t_stat < 0 || tracer_stat < 0)
		return 2;
	while (!__atomic_load_n(w_warm, __ATOMIC_SEQ_CST))
		;
	wait_state(w_stat, "S");
	/* 3. T running (not held in a stop of the tracer's making: a patch's interrupt
	 * of it for main's warm-up, say), and no call of anyone's stops from here */
	wait_state(t_stat, "R");
	kill(tracer, SIGSTOP);
	wait_state(tracer_stat, "T");
	__atomic_store_n(&go, 1, __ATOMIC_SEQ_CST);
	wait_state(t_stat, "t");
	/* 4. */
	if (write(to_w[1], &c, 1) != 1)
		return 2;
	syscall(SYS_exit_group, 0);
	return 2;
}
