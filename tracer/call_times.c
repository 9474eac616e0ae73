#include "call_times.h"

#include <stdlib.h>

#include "counting.h"
#include "gate.h"
#include "procfs.h"
#include "restarts.h"
#include "region.h"
#include "shared_region.h"
#include "time_fixups.h"
#include "time_sums.h"
#include "tsc_clock.h"

static bool on;
static _Thread_local struct call_times_stats stats;

/* An image's sums while it lives, in ticks; in ns once it is complete, when its
 * record points at them (call_times_complete). */
struct image_times {
	struct time_sums sums;
};

void call_times_setup(bool enable)
{
	on = enable;
}

bool call_times_on(void)
{
	return on;
}

static struct image_times *times_of(struct image *img)
{
	if (!img->times && !(img->times = calloc(1, sizeof(*img->times))))
		abort();
	return img->times;
}

static void add(struct image *img, int idx, uint64_t ticks)
{
	time_sums_add(&times_of(img)->sums, idx, ticks);
}

/* The ticks of a call from start to end, into t's image and its site's record. */
static void add_call(struct thread *t, int idx, struct site_record *s, uint64_t start, uint64_t end)
{
	/* TSCs of different CPUs: never less than nothing */
	uint64_t ticks = end > start ? end - start : 0;

	add(t->img, idx, ticks);
	if (s)
		s->time_ticks += ticks;
}

uint64_t call_times_now(void)
{
	return on ? tsc_now() : 0;
}

void call_times_resumed(struct thread *t)
{
	if (on && !t->call_start)
		t->call_start = tsc_now();
}

void call_times_start(struct thread *t)
{
	if (on)
		t->call_start = tsc_now();
}

void call_times_forget(struct thread *t)
{
	t->call_start = 0;
}

void call_times_returned(struct thread *t, int idx, uint64_t site, uint64_t end)
{
	uint64_t start = t->call_start;

	if (!on || !start || idx < 0)
		return;
	t->call_start = 0;
	if (!end)
		return;
	/* a call the kernel made again at a stub's traced syscall after a handler
	 * took it out of the gate: its site may have had in-process calls only,
	 * and no record yet (as in call_times_interrupted) */
	add_call(t, idx, image_site(t->img, site, true), start, end);
	stats.ptraced_timed++;
}

void call_times_on_signal(struct thread *t, const struct user_regs_struct *regs)
{
	if (!on || (long)regs->orig_rax < 0 || !restart_is_code((long)regs->rax))
		return;
	/* in the gate: the routine's frame has the start (leave_gate); a second
	 * delivery (SIGSTOP, then SIGCONT) keeps the start the first one took */
	if (regs->rip == SYSTRACE_GATE_SYSCALL_IP)
		t->intr_start = 0;
	else if (t->call_start)
		t->intr_start = t->call_start;
	t->intr_end = tsc_now();
}

void call_times_interrupted_start(struct thread *t, uint64_t start)
{
	if (on)
		t->intr_start = start;
}

void call_times_interrupted(struct thread *t, int idx, uint64_t site)
{
	if (on && t->intr_start && t->intr_end && idx >= 0) {
		/* an in-process call's site may have no record yet (results_interrupted) */
		add_call(t, idx, image_site(t->img, site, true), t->intr_start, t->intr_end);
		stats.interrupted++;
	}
	t->intr_start = t->intr_end = 0;
}

void call_times_repeat(struct thread *t)
{
	if (on && t->intr_start) {
		t->call_start = t->intr_start;
		stats.restarted++;
	}
	t->intr_start = t->intr_end = 0;
}

void call_times_take_slot(struct thread *t)
{
	struct image *img = t->img;
	struct addr_space *as = img->as;
	const struct region_time *rt;
	uint64_t began;

	if (!on || t->slot < 0 || !as)
		return;
	began = monotonic_ns();
	rt = region_time(t->slot);
	for (size_t i = 0; i < as->sites.n; i++) {
		const struct patch *p = &as->patches[i];
		struct site_record *s;

		if (!patch_has_counter(p) || !rt->site_ticks[p->counter])
			continue;
		/* its calls were counted first (library.c), so it has a record */
		if ((s = image_site_of(img, &as->sites.sites[i], true)))
			s->time_ticks += rt->site_ticks[p->counter];
	}
	for (int nr = 0; nr < REGION_NRS; nr++) {
		if (rt->nr_min_not[nr]) /* a call of this number returned */
			time_sums_merge(&times_of(img)->sums, syscall_index(ABI_X86_64, nr), rt->nr_ticks[nr],
					rt->nr_max[nr], rt->nr_min_not[nr]);
	}
	stats.tracer_ns += monotonic_ns() - began;
}

void call_times_left_gate(struct thread *t, unsigned counter, uint64_t nr, uint64_t start)
{
	uint64_t now = tsc_now();

	if (on && t->slot >= 0)
		time_counters_add(region_time(t->slot), counter, nr, now > start ? now - start : 0);
}

void call_times_complete(struct image *img)
{
	struct time_sums *sums;
	uint64_t sum = 0, began;

	if (!on)
		return;
	began = monotonic_ns();
	sums = &times_of(img)->sums;
	time_sums_to_ns(sums, tsc_ticks_ns, tsc_ticks_ns_up);
	img->rec.time_ns = sums->ticks; /* freed with the image: tasks.c */
	img->rec.time_max_ns = sums->max;
	img->rec.time_min_ns = sums->min_not;
	for (size_t i = 0; i < img->sites.n; i++)
		img->sites.sites[i].time_ns = time_share_ns(&sum, img->sites.sites[i].time_ticks, tsc_ticks_ns);
	img->times = NULL;
	stats.tracer_ns += monotonic_ns() - began;
}

void call_times_get_stats(struct call_times_stats *st)
{
	*st = stats;
}

void call_times_stats_add(struct call_times_stats *sum, const struct call_times_stats *st)
{
	sum->ptraced_timed += st->ptraced_timed;
	sum->interrupted += st->interrupted;
	sum->restarted += st->restarted;
	sum->tracer_ns += st->tracer_ns;
}

void call_times_print(FILE *f, const struct call_times_stats *st)
{
	if (!on)
		return;
	/* like the log's line: what --time did and what it cost the tracer; what it
	 * costs each in-process call is measured by bench/ (docs/benchmarks.md) */
	fprintf(f, "systrace: time: %llu ptraced calls timed (%llu to a handler's signal, %llu across a restart), "
		   "%zu bytes of counters per thread; its cost: %.1f ms of the tracer's time\n",
		(unsigned long long)st->ptraced_timed, (unsigned long long)st->interrupted,
		(unsigned long long)st->restarted, sizeof(struct region_time), (double)st->tracer_ns / 1e6);
}
