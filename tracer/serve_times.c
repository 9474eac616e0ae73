#include "serve_times.h"

#include <signal.h>
#include <sys/ptrace.h>
#include <sys/wait.h>

#include "cpu_times.h"
#include "tsc_clock.h"

/* each serving thread's */
static _Thread_local struct serve_sums sums;
static _Thread_local uint32_t countdown, rng = 0x2545f491;
/* what a pair of clock reads adds to a sample: the least of a few pairs */
static uint64_t read_cost_ns = UINT64_MAX;

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

uint32_t serve_sample_stride(uint32_t *state)
{
	uint32_t x = *state;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	*state = x;
	return 1 + x % (2 * SERVE_SAMPLE_MEAN - 1);
}

uint64_t serve_cpu_estimate(uint64_t count, uint64_t sampled, uint64_t sampled_ns)
{
	return sampled ? (uint64_t)((unsigned __int128)count * sampled_ns / sampled) : 0;
}

static void measure_read_cost(void)
{
	for (int i = 0; i < 4; i++) {
		uint64_t a = cpu_times_thread_ns(), b = cpu_times_thread_ns();

		if (b - a < read_cost_ns)
			read_cost_ns = b - a;
	}
}

void serve_times_setup(void)
{
	measure_read_cost();
}

void serve_times_begin(struct serve_sample *s)
{
	/* (the first stride drawn too: a thread's first serve no likelier than any) */
	if (!countdown)
		countdown = serve_sample_stride(&rng);
	s->on = !--countdown;
	if (!s->on)
		return;
	countdown = serve_sample_stride(&rng);
	s->cpu_ns = cpu_times_thread_ns();
}

void serve_times_add(enum serve_kind kind, uint64_t tsc_ticks, const struct serve_sample *s)
{
	sums.count[kind]++;
	sums.ticks[kind] += tsc_ticks;
	if (s->on) {
		uint64_t end = cpu_times_thread_ns(), cpu = end - s->cpu_ns;

		if (!s->cpu_ns || !end) /* a clock not read: no sample */
			return;
		sums.sampled[kind]++;
		sums.sampled_ns[kind] += cpu > read_cost_ns ? cpu - read_cost_ns : 0;
	}
}

void serve_times_get(struct serve_sums *s)
{
	*s = sums;
}

void serve_sums_add(struct serve_sums *sum, const struct serve_sums *s)
{
	for (int k = 0; k < SERVE_KINDS; k++) {
		sum->count[k] += s->count[k];
		sum->ticks[k] += s->ticks[k];
		sum->sampled[k] += s->sampled[k];
		sum->sampled_ns[k] += s->sampled_ns[k];
	}
}

void serve_sums_totals(const struct serve_sums *s, struct totals *t)
{
	for (int k = 0; k < SERVE_KINDS; k++) {
		t->serve_count[k] = s->count[k];
		t->serve_ns[k] = tsc_ticks_ns(s->ticks[k]);
		t->serve_sampled[k] = s->sampled[k];
		t->serve_cpu_ns[k] = serve_cpu_estimate(s->count[k], s->sampled[k], s->sampled_ns[k]);
	}
}
