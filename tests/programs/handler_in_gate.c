/* A signal handler that runs while its thread is blocked in an in-process call must
 * see the thread where it would be natively: in the program's own code, right after
 * its syscall instruction, not in systrace's gate or stub (which have no unwind
 * information: pthread_cancel and C++ exceptions would not unwind through them).
 * blocking_read (`mov $0,%eax; syscall; ret`) is patched by 1000 reads of
 * /dev/zero; then a thread blocks in it on a pipe (the main thread waits until its
 * /proc stat says S: blocked_in.h), gets SIGWINCH (no handler: under ptrace the read
 * is entered again, which systrace makes through the stub's own syscall), blocks
 * again, then gets SIGUSR1 (SA_RESTART), whose handler records
 * the interrupted rip; once the handler ran, the pipe gets 8 bytes, which the
 * restarted read must return. With SA_RESTART the kernel has already moved rip back
 * onto the syscall instruction when the handler runs: exits 1 unless the handler saw
 * rip == blocking_read + 5 and the read returned 8. Counts: read at blocking_read
 * 1001, gettid 1, openat and close of the stat and status files 1 each; pread64 and
 * clock_nanosleep as the waits take (timing). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "blocked_in.h"
#include "spin.h"

long blocking_read(long fd, void *buf, long n);
__asm__(".text\n"
	".globl blocking_read\n"
	".type blocking_read,@function\n"
	"blocking_read:\n"
	"mov $0,%eax\n"
	"syscall\n"
	"ret\n"
	".size blocking_read,.-blocking_read\n");

static volatile uint64_t interrupted_rip;
static int pipe_fds[2];
static long thread_result;
static pid_t reader_tid;

static void on_usr1(int sig, siginfo_t *info, void *context)
{
	(void)sig;
	(void)info;
	interrupted_rip = (uint64_t)((ucontext_t *)context)->uc_mcontext.gregs[REG_RIP];
}

static void *reader(void *arg)
{
	char buf[8];

	(void)arg;
	__atomic_store_n(&reader_tid, gettid(), __ATOMIC_SEQ_CST);
	thread_result = blocking_read(pipe_fds[0], buf, sizeof(buf));
	return NULL;
}

int main(void)
{
	struct sigaction sa = { .sa_sigaction = on_usr1, .sa_flags = SA_SIGINFO | SA_RESTART };
	struct timespec ms = { 0, 1000 * 1000 };
	char byte;
	int stat, status;
	int zero = open("/dev/zero", O_RDONLY);
	pthread_t t;

	if (zero < 0 || pipe(pipe_fds) < 0 || sigaction(SIGUSR1, &sa, NULL) < 0)
		return 2;
	for (int i = 0; i < 1000; i++)
		blocking_read(zero, &byte, 1);
	pthread_create(&t, NULL, reader, NULL);
	SPIN_UNTIL(__atomic_load_n(&reader_tid, __ATOMIC_SEQ_CST), "handler_in_gate: the reader never started\n");
	if ((stat = proc_stat_open(0, reader_tid)) < 0)
		return 2;
	wait_state(stat, "S"); /* blocked in its read */
	/* first a signal with no handler (discarded natively, delivered under ptrace):
	 * the read is entered again, and the handler below must still see the site */
	pthread_kill(t, SIGWINCH);
	if ((status = proc_file_open(0, reader_tid, "status")) < 0)
		return 2;
	wait_not_pending(status, ~0ull);
	close(status);
	wait_state(stat, "S");
	close(stat);
	pthread_kill(t, SIGUSR1);
	while (!interrupted_rip)
		clock_nanosleep(CLOCK_MONOTONIC, 0, &ms, NULL);
	if (write(pipe_fds[1], "12345678", 8) != 8)
		return 2;
	pthread_join(t, NULL);
	if (interrupted_rip != (uint64_t)blocking_read + 5 || thread_result != 8) {
		fprintf(stderr, "handler_in_gate: handler saw rip %#lx (blocking_read's syscall is at %#lx), "
			"read returned %ld\n", (unsigned long)interrupted_rip, (unsigned long)blocking_read + 5,
			thread_result);
		return 1;
	}
	return 0;
}
