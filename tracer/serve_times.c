#include "serve_times.h"

#include <signal.h>
#include <sys/ptrace.h>
#include <sys/wait.h>

#include "tsc_clock.h"

static uint64_t count[SERVE_KINDS], ticks[SERVE_KINDS];

enum serve_kind serve_kind_of(int status)
{
	if (!WIFSTOPPED(status))
		return SERVE_REAP;
	switch ((unsigned)status >> 16) {
	case PTRACE_EVENT_SECCOMP: return SERVE_SYSCALL;
	case PTRACE_EVENT_FORK:
	case PTRACE_EVENT_VFORK:
	case PTRACE_EVENT_CLONE: return SERVE_CREATE;
	case PTRACE_EVENT_EXEC: return SERVE_EXEC;
	case PTRACE_EVENT_EXIT: return SERVE_EXIT;
	case 0: return WSTOPSIG(status) == (SIGTRAP | 0x80) ? SERVE_SYSCALL : SERVE_SIGNAL;
	default: return SERVE_OTHER; /* group and interrupt stops */
	}
}

void serve_times_add(enum serve_kind kind, uint64_t tsc_ticks)
{
	count[kind]++;
	ticks[kind] += tsc_ticks;
}

void serve_times_totals(struct totals *t)
{
	tsc_clock_init();
	for (int k = 0; k < SERVE_KINDS; k++) {
		t->serve_count[k] = count[k];
		t->serve_ns[k] = tsc_ticks_ns(ticks[k]);
	}
}
