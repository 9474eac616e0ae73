#include "summary.h"

#include <inttypes.h>
#include <string.h>

#include "amortization.h"
#include "csv.h"

#define TOTALS_FIELDS(X) \
	X(syscalls) X(syscalls_early) X(syscalls_ptraced) X(syscalls_inprocess) \
	X(instrument_syscalls) X(processes) X(forks) X(vforks) X(threads) X(execs) \
	X(exits) X(sites) X(sites_patched) X(sites_unpatchable) X(ptrace_stops) \
	X(ptrace_stops_lifecycle) X(ptrace_stops_early) X(ptrace_stops_late) X(syscalls_restarted) X(errors) \
	X(patches_written) X(patches_known) X(patch_ns) X(known_unused) X(known_missed) \
	X(batch_patch_ns) X(miss_ns) X(known_threshold_permille) X(tracer_cpu_per_image_ns) \
	X(processes_library_ready) X(processes_without_library) \
	X(wall_ns) X(tracer_cpu_ns) X(tracer_maxrss_kb) X(tracer_writer_cpu_ns) \
	X(tracer_serving_cpu_ns) X(tracer_busy_permille)
/* after tracer_run_delay_ns and tracer_nice */
#define HANDOFF_FIELDS(X) X(tracer_threads) X(tracer_handoffs) X(tracer_handoff_ns)
/* the measured costs: empty when not measured */
#define COST_FIELDS(X) X(stop_cost_ns) X(inprocess_cost_ns) X(saving_per_call_ns) X(calibration_ns) \
	X(patch_cost_ns) X(break_even_calls) X(patches_not_amortized)

const char *const serve_kind_names[SERVE_KINDS] = { "syscall", "exec", "create", "exit", "signal", "other",
									      "reap" };

uint64_t image_sites_in_state(const struct image_record *r, enum site_state state)
{
	uint64_t n = 0;

	for (size_t i = 0; i < r->nsites; i++)
		n += r->sites[i].state == state;
	return n;
}

void totals_add_image(struct totals *t, const struct image_record *r)
{
	t->syscalls += image_syscalls(r);
	t->errors += image_errors(r);
	t->syscalls_early += r->early;
	t->syscalls_ptraced += r->ptraced;
	t->syscalls_inprocess += r->inprocess;
	t->instrument_syscalls += r->instrument;
	t->processes++;
	t->forks += r->forks;
	t->vforks += r->vforks;
	t->threads += r->threads;
	t->execs += r->started_by_exec;
	t->exits += r->end == IMAGE_EXITED || r->end == IMAGE_SIGNALED;
	t->sites += r->nsites;
	t->sites_patched += image_sites_in_state(r, SITE_PATCHED);
	t->sites_unpatchable += image_sites_in_state(r, SITE_UNPATCHABLE);
	t->ptrace_stops += r->ptrace_stops;
	t->ptrace_stops_lifecycle += r->stops_lifecycle;
	t->patches_written += r->patches_written;
	t->patches_known += r->patches_known;
	t->patches_not_amortized += r->patches_not_amortized;
	t->known_unused += r->known_unused;
	t->known_missed += r->known_missed;
	t->patch_ns += r->patch_ns;
	t->ptrace_stops_early += r->stops_early;
	t->ptrace_stops_late += r->stops_late;
	t->syscalls_restarted += r->restarted;
	if (r->library == LIBRARY_IS_READY)
		t->processes_library_ready++;
	else if (r->library != LIBRARY_IS_OFF)
		t->processes_without_library++;
}

void totals_add_syscall(struct syscall_count *by_index, const struct image_record *r, int i)
{
	struct syscall_count *c = &by_index[i];

	c->index = i;
	c->calls += r->calls[i];
	c->ptraced += r->ptraced_calls[i];
	c->errors_known += r->calls[i];
	c->errors += r->errors[i];
	if (r->time_ns)
		c->time_ns += r->time_ns[i];
}

void totals_set_costs(struct totals *t, uint64_t stop_ns, uint64_t inprocess_ns, uint64_t took_ns)
{
	t->costs_known = true;
	t->stop_cost_ns = stop_ns;
	t->inprocess_cost_ns = inprocess_ns;
	/* at least 1, so that a cost over the saving (calls to break even) is defined
	 * even where noise made the two look alike */
	t->saving_per_call_ns = stop_ns > inprocess_ns ? stop_ns - inprocess_ns : 0;
	if (!t->saving_per_call_ns)
		t->saving_per_call_ns = 1;
	t->calibration_ns = took_ns;
}

void percent_pair(uint64_t part, uint64_t total, unsigned *hundredths, unsigned *rest)
{
	/* 128-bit so that part * 10000 cannot overflow */
	*hundredths = total ? (unsigned)(((unsigned __int128)part * 10000 + total / 2) / total) : 0;
	*rest = total ? 10000 - *hundredths : 0;
}

/* part in thousandths of whole, rounded, at most 1000 (a CPU time read a moment
 * after the wall clock's start and before its end is within it, but for rounding) */
static uint64_t permille_of(uint64_t part, uint64_t whole)
{
	uint64_t p = whole ? (uint64_t)(((unsigned __int128)part * 1000 + whole / 2) / whole) : 0;

	return p > 1000 ? 1000 : p;
}

/* The threads that served the stops (0 in totals made before they were counted) */
static uint64_t serving_threads(const struct totals *t)
{
	return t->tracer_threads ? t->tracer_threads : 1;
}

/* The mean cost of a patch written, and the calls it takes to save as much. */
static struct totals with_means(const struct totals *t)
{
	struct totals m = *t;

	m.patch_cost_ns = t->patches_written ? t->patch_ns / t->patches_written : 0;
	m.break_even_calls = amortization_break_even(m.patch_cost_ns, t->saving_per_call_ns);
	m.tracer_cpu_per_image_ns = t->processes ? t->tracer_cpu_ns / t->processes : 0;
	/* (several serving threads: their mean share, at most 1000 as for one) */
	m.tracer_busy_permille = permille_of(t->tracer_serving_cpu_ns, t->wall_ns * serving_threads(t));
	return m;
}

/* A row of summary.csv, and its line on stderr: the value empty when not known. */
static void metric_row(struct csv_writer *w, const char *name, uint64_t value, bool known)
{
	csv_str(w, name);
	if (known)
		csv_u64(w, value);
	else
		csv_empty(w);
	csv_end_row(w);
}

static void metric_line(FILE *f, const char *name, uint64_t value, bool known)
{
	if (known)
		fprintf(f, "%s: %" PRIu64 "\n", name, value);
	else
		fprintf(f, "%s:\n", name);
}

/* A row of summary.csv that may be empty. */
struct metric {
	char name[64];
	uint64_t value;
	bool known;
};

#define SERVE_METRICS (4 * SERVE_KINDS)

/* The serving thread's rows by kind: each kind's count and time, then each kind's
 * sampled serves and estimated CPU (unknown for a kind served but never sampled). */
static size_t serve_metrics(const struct totals *t, struct metric *m)
{
	size_t n = 0;

	for (int k = 0; k < SERVE_KINDS; k++) {
		m[n] = (struct metric){ .value = t->serve_count[k], .known = true };
		snprintf(m[n++].name, sizeof(m->name), "tracer_serve_%s_count", serve_kind_names[k]);
		m[n] = (struct metric){ .value = t->serve_ns[k], .known = true };
		snprintf(m[n++].name, sizeof(m->name), "tracer_serve_%s_ns", serve_kind_names[k]);
	}
	for (int k = 0; k < SERVE_KINDS; k++) {
		m[n] = (struct metric){ .value = t->serve_sampled[k], .known = true };
		snprintf(m[n++].name, sizeof(m->name), "tracer_serve_%s_sampled", serve_kind_names[k]);
		m[n] = (struct metric){ .value = t->serve_cpu_ns[k], .known = t->serve_sampled[k] || !t->serve_count[k] };
		snprintf(m[n++].name, sizeof(m->name), "tracer_serve_%s_cpu_ns", serve_kind_names[k]);
	}
	return n;
}

void summary_write_csv(FILE *f, const struct totals *totals)
{
	const struct totals means = with_means(totals), *t = &means;
	struct csv_writer w = { f, 0 };
	struct metric serve[SERVE_METRICS];
	char nice[16];
	size_t n;

	csv_header(&w, (const char *const[]){ "metric", "value", NULL });
#define ROW(name) metric_row(&w, #name, t->name, true);
	TOTALS_FIELDS(ROW)
	metric_row(&w, "tracer_run_delay_ns", t->tracer_run_delay_ns, t->run_delay_known);
	snprintf(nice, sizeof(nice), "%d", t->tracer_nice);
	csv_str(&w, "tracer_nice");
	csv_str(&w, nice);
	csv_end_row(&w);
	HANDOFF_FIELDS(ROW)
#undef ROW
	n = serve_metrics(t, serve);
	for (size_t i = 0; i < n; i++)
		metric_row(&w, serve[i].name, serve[i].value, serve[i].known);
#define COST_ROW(name) metric_row(&w, #name, t->name, t->costs_known);
	COST_FIELDS(COST_ROW)
#undef COST_ROW
}

static void print_pair(FILE *f, const char *a, const char *b, uint64_t part, uint64_t total)
{
	unsigned p, rest;

	percent_pair(part, total, &p, &rest);
	fprintf(f, "%s: %u.%02u%%\n%s: %u.%02u%%\n", a, p / 100, p % 100, b, rest / 100, rest % 100);
}

/* Per process (row of processes.csv): where the stops go, on average. */
static void print_stops_per_process(FILE *f, const struct totals *t)
{
	double n = t->processes ? (double)t->processes : 1;

	fprintf(f, "stops per process: %.1f (lifecycle %.1f, early %.1f, late %.1f)\n",
		(double)t->ptrace_stops / n, (double)t->ptrace_stops_lifecycle / n,
		(double)t->ptrace_stops_early / n, (double)t->ptrace_stops_late / n);
}

/* The serving threads' load: at 100% busy, one thread sets the run's pace
 * (docs/scaling.md). */
static void print_serving_load(FILE *f, const struct totals *t)
{
	uint64_t n = serving_threads(t), cpu = 0;
	uint64_t busy = t->tracer_busy_permille, waiting = permille_of(t->tracer_run_delay_ns, t->wall_ns * n);

	if (n == 1)
		fprintf(f, "tracer serving thread: busy %" PRIu64 ".%" PRIu64 "%% of the run", busy / 10, busy % 10);
	else
		fprintf(f, "tracer serving threads (%" PRIu64 "): each busy %" PRIu64 ".%" PRIu64 "%% of the run on average",
			n, busy / 10, busy % 10);
	if (t->run_delay_known)
		fprintf(f, ", waiting for a CPU %" PRIu64 ".%" PRIu64 "%%", waiting / 10, waiting % 10);
	fputc('\n', f);
	for (int k = 0; k < SERVE_KINDS; k++) {
		if (!t->serve_count[k])
			continue;
		fprintf(f, "  serving %s: %" PRIu64 " in %.1f ms, %.1f us each", serve_kind_names[k], t->serve_count[k],
			(double)t->serve_ns[k] / 1e6, (double)t->serve_ns[k] / 1e3 / (double)t->serve_count[k]);
		if (t->serve_sampled[k])
			fprintf(f, "; CPU %.1f us each (%" PRIu64 " sampled)", (double)t->serve_cpu_ns[k] / 1e3 / (double)t->serve_count[k],
				t->serve_sampled[k]);
		fputc('\n', f);
		cpu += t->serve_cpu_ns[k];
	}
	/* (the kinds' CPU is estimated: it can come out above the thread's own) */
	fprintf(f, "  outside the serves (waitpid, placement, start and end): CPU %.1f ms\n",
		(double)(t->tracer_serving_cpu_ns > cpu ? t->tracer_serving_cpu_ns - cpu : 0) / 1e6);
}

void summary_print(FILE *f, const struct totals *totals)
{
	const struct totals means = with_means(totals), *t = &means;
	struct metric serve[SERVE_METRICS];
	size_t n;
#define LINE(name) metric_line(f, #name, t->name, true);
	TOTALS_FIELDS(LINE)
	metric_line(f, "tracer_run_delay_ns", t->tracer_run_delay_ns, t->run_delay_known);
	fprintf(f, "tracer_nice: %d\n", t->tracer_nice);
	HANDOFF_FIELDS(LINE)
#undef LINE
	n = serve_metrics(t, serve);
	for (size_t i = 0; i < n; i++)
		metric_line(f, serve[i].name, serve[i].value, serve[i].known);
#define COST_LINE(name) metric_line(f, #name, t->name, t->costs_known);
	COST_FIELDS(COST_LINE)
#undef COST_LINE
	print_pair(f, "syscalls ptraced (slow)", "syscalls in-process (fast)",
		   t->syscalls_ptraced, t->syscalls);
	print_pair(f, "syscalls early (before the in-process path was up)", "syscalls late",
		   t->syscalls_early, t->syscalls);
	print_stops_per_process(f, t);
	print_serving_load(f, t);
}
