#include "calibrate.h"

#include <asm/prctl.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "filter.h"
#include "gate.h"
#include "procfs.h"
#include "region.h"
#include "signals.h"
#include "tracee_wait.h"

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

/* 5 batches of 200 stops (4-6 us each, pinned) and of 1000 in-process calls: ~5 ms. */
#define BATCHES 5
#define STOP_CALLS 200
#define INPROCESS_CALLS 1000
/* first calls warm caches and the branch predictors; not timed */
#define WARMUP_CALLS 20
/* the child gives up (SIGALRM's default action) if something keeps it this long */
#define CHILD_LIMIT_S 10

/* Why the child could not measure: its exit status. */
enum { CHILD_OK, CHILD_NOT_SEIZED = 2, CHILD_NO_GATE, CHILD_NO_GS, CHILD_NO_FILTER, CHILD_NO_WRITE };

struct batches {
	uint64_t stop_ns[BATCHES], inprocess_ns[BATCHES]; /* per batch, all its calls */
};

uint64_t calibrate_median(uint64_t *v, size_t n)
{
	/* insertion sort: a handful of values */
	for (size_t i = 1; i < n; i++) {
		uint64_t x = v[i];
		size_t j = i;

		for (; j > 0 && v[j - 1] > x; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
	if (!n)
		return 0;
	return n % 2 ? v[n / 2] : v[n / 2 - 1] / 2 + v[n / 2] / 2 + (v[n / 2 - 1] % 2 + v[n / 2] % 2) / 2;
}

/* A getppid at an ordinary syscall instruction: under the filter, a stop. */
static inline void stopping_getppid(void)
{
	long rax = SYS_getppid;

	__asm__ volatile("syscall" : "+a"(rax) : : "rcx", "r11", "memory");
}

/* A getppid as a fixed-number stub makes it (patcher/stub.h): its counter through
 * %gs (load, lea, store), the red zone stepped over, then the gate's `syscall; ret`. */
static inline void inprocess_getppid(void)
{
	long rax = SYS_getppid;

	__asm__ volatile("movq %%gs:0, %%r11\n\t"
			 "leaq 1(%%r11), %%r11\n\t"
			 "movq %%r11, %%gs:0\n\t"
			 "leaq -128(%%rsp), %%rsp\n\t"
			 "movabsq %[gate], %%r11\n\t"
			 "call *%%r11\n\t"
			 "leaq 128(%%rsp), %%rsp"
			 : "+a"(rax)
			 : [gate] "i"(SYSTRACE_GATE_ADDR)
			 : "rcx", "r11", "memory", "cc");
}

static void measure(struct batches *b)
{
	for (int i = 0; i < WARMUP_CALLS; i++) {
		stopping_getppid();
		inprocess_getppid();
	}
	/* interleaved, so that a slow moment of the machine falls on both alike; the
	 * clock is the vDSO's: no syscall, so no stop (the tracer checks) */
	for (int i = 0; i < BATCHES; i++) {
		uint64_t t0 = monotonic_ns(), t1, t2;

		for (int k = 0; k < STOP_CALLS; k++)
			stopping_getppid();
		t1 = monotonic_ns();
		for (int k = 0; k < INPROCESS_CALLS; k++)
			inprocess_getppid();
		t2 = monotonic_ns();
		b->stop_ns[i] = t1 - t0;
		b->inprocess_ns[i] = t2 - t1;
	}
}

static _Noreturn void child(int sync_fd, int out_fd, int gate_fd)
{
	static uint64_t counters[8]; /* the stub's counter block, at %gs:0 */
	struct batches b = { 0 };
	sigset_t alarm_only;
	char go;

	signals_restore_inherited();
	signal(SIGALRM, SIG_DFL);
	sigemptyset(&alarm_only);
	sigaddset(&alarm_only, SIGALRM);
	sigprocmask(SIG_UNBLOCK, &alarm_only, NULL);
	alarm(CHILD_LIMIT_S);
	/* the filter's first TRACE must find the tracer */
	if (read(sync_fd, &go, 1) != 1)
		_exit(CHILD_NOT_SEIZED);
	if (mmap((void *)SYSTRACE_GATE_ADDR, REGION_GATE_SIZE, PROT_READ | PROT_EXEC,
		 MAP_SHARED | MAP_FIXED_NOREPLACE, gate_fd, 0) != (void *)SYSTRACE_GATE_ADDR)
		_exit(CHILD_NO_GATE);
	if (syscall(SYS_arch_prctl, ARCH_SET_GS, counters) != 0)
		_exit(CHILD_NO_GS);
	if (filter_install(SYSTRACE_GATE_SYSCALL_IP, SYSTRACE_INSTRUMENT_SYSCALL_IP, SYSTRACE_STACKLESS_SYSCALL_IP) < 0)
		_exit(CHILD_NO_FILTER);
	measure(&b);
	_exit(write(out_fd, &b, sizeof(b)) == sizeof(b) ? CHILD_OK : CHILD_NO_WRITE);
}

/* What the tracer saw of the child. */
struct seen {
	unsigned getppid_stops, clock_stops;
	int status;
};

/* Resumes every stop of the child until it is gone, reading each seccomp stop's
 * call as the event loop does. False with errno when waiting fails. */
static bool trace_child(pid_t pid, struct seen *seen)
{
	for (;;) {
		int status, event;

		if (!tracee_wait(pid, &status))
			return false;
		if (WIFEXITED(status) || WIFSIGNALED(status)) {
			seen->status = status;
			return true;
		}
		if (!WIFSTOPPED(status))
			continue;
		event = status >> 16;
		if (event == PTRACE_EVENT_SECCOMP) {
			struct __ptrace_syscall_info info = { 0 };

			if (ptrace(PTRACE_GET_SYSCALL_INFO, pid, sizeof(info), &info) > 0
			    && info.op == PTRACE_SYSCALL_INFO_SECCOMP) {
				seen->getppid_stops += info.seccomp.nr == SYS_getppid;
				seen->clock_stops += info.seccomp.nr == SYS_clock_gettime
						     || info.seccomp.nr == SYS_gettimeofday;
			}
			ptrace(PTRACE_CONT, pid, 0, 0);
		} else {
			/* a signal goes through (SIGALRM ends a stuck child); an event stop does not */
			ptrace(PTRACE_CONT, pid, 0, event ? 0 : WSTOPSIG(status));
		}
	}
}

static const char *child_failure(int code)
{
	switch (code) {
	case CHILD_NOT_SEIZED: return "it was not traced";
	case CHILD_NO_GATE: return "it could not map the gate";
	case CHILD_NO_GS: return "it could not set its %gs base";
	case CHILD_NO_FILTER: return "it could not install the seccomp filter";
	case CHILD_NO_WRITE: return "it could not report its figures";
	default: return "it failed";
	}
}

/* Whether the child measured what it should have, from its stops and its end. */
static bool check_child(const struct seen *seen, char *err, size_t errlen)
{
	if (WIFSIGNALED(seen->status)) {
		snprintf(err, errlen, "the measuring child was killed by signal %d", WTERMSIG(seen->status));
		return false;
	}
	if (WEXITSTATUS(seen->status) != CHILD_OK) {
		snprintf(err, errlen, "the measuring child stopped early: %s", child_failure(WEXITSTATUS(seen->status)));
		return false;
	}
	if (seen->clock_stops) {
		snprintf(err, errlen, "clock_gettime is a syscall here (no vDSO clock), which would be timed as stops");
		return false;
	}
	if (seen->getppid_stops != WARMUP_CALLS + BATCHES * STOP_CALLS) {
		snprintf(err, errlen, "the tracer saw %u getppid stops, not the %u made at a syscall instruction "
			 "(the gate's calls stopped too?)", seen->getppid_stops, WARMUP_CALLS + BATCHES * STOP_CALLS);
		return false;
	}
	return true;
}

/* Traces the forked child to its end (seizing it as launch.c seizes the command,
 * then letting it go on) and takes its figures. */
static bool follow_child(pid_t pid, int sync_fd, int out_fd, struct batches *b, char *err, size_t errlen)
{
	struct seen seen = { 0 };

	if (ptrace(PTRACE_SEIZE, pid, 0, PTRACE_O_TRACESECCOMP | PTRACE_O_EXITKILL) < 0
	    || write(sync_fd, "g", 1) != 1) {
		snprintf(err, errlen, "cannot trace the measuring child: %s", strerror(errno));
		kill(pid, SIGKILL);
		tracee_wait(pid, &(int){ 0 });
		return false;
	}
	if (!trace_child(pid, &seen)) {
		snprintf(err, errlen, "waiting for the measuring child: %s", strerror(errno));
		return false;
	}
	if (!check_child(&seen, err, errlen))
		return false;
	if (read(out_fd, b, sizeof(*b)) != sizeof(*b)) {
		snprintf(err, errlen, "the measuring child's figures did not arrive");
		return false;
	}
	return true;
}

bool calibrate(struct calibration *c, int gate_fd, char *err, size_t errlen)
{
	uint64_t start = monotonic_ns();
	struct batches b;
	int sync[2], out[2];
	bool ok = false;
	pid_t pid;

	if (pipe2(sync, O_CLOEXEC) < 0) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		return false;
	}
	if (pipe2(out, O_CLOEXEC) < 0) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		close(sync[0]);
		close(sync[1]);
		return false;
	}
	pid = fork();
	if (pid == 0) {
		close(sync[1]);
		close(out[0]);
		child(sync[0], out[1], gate_fd);
	}
	close(sync[0]);
	close(out[1]);
	if (pid < 0)
		snprintf(err, errlen, "fork: %s", strerror(errno));
	else
		ok = follow_child(pid, sync[1], out[0], &b, err, errlen);
	close(sync[1]);
	close(out[0]);
	if (!ok)
		return false;
	c->stop_ns = (calibrate_median(b.stop_ns, BATCHES) + STOP_CALLS / 2) / STOP_CALLS;
	c->inprocess_ns = (calibrate_median(b.inprocess_ns, BATCHES) + INPROCESS_CALLS / 2) / INPROCESS_CALLS;
	c->took_ns = monotonic_ns() - start;
	return true;
}
