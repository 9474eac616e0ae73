#include "syscall_report.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "grow_array.h"
#include "run_tables.h"

/* A process image's rows of syscalls.csv. */
struct process_calls {
	struct syscall_count *rows;
	size_t n, cap;
	uint64_t calls;
};

struct scan {
	struct syscall_count *all;        /* per counter index, over the run */
	struct process_calls *processes;  /* per process row; NULL without --per-process */
};

static void add_row(const struct syscall_file_row *row, void *ctx)
{
	struct scan *s = ctx;

	syscall_count_add(&s->all[row->count.index], &row->count);
	if (s->processes) {
		struct process_calls *p = &s->processes[row->process];

		p->rows = grow_array(p->rows, &p->cap, p->n, sizeof(*p->rows));
		p->rows[p->n++] = row->count;
		p->calls += row->count.calls;
	}
}

/* Sums the rows of DIR/syscalls.csv into s->all, and per row of t into s->processes
 * when t is not NULL; the caller frees both. */
static int scan_calls(struct scan *s, const char *dir, const struct process_table *t,
		      struct syscall_columns_present *present, char *err, size_t errlen)
{
	if (!(s->all = calloc(SYSCALL_INDEX_COUNT, sizeof(*s->all))))
		abort();
	if (t && !(s->processes = calloc(t->n + 1, sizeof(*s->processes))))
		abort();
	return syscalls_scan(dir, t, present, add_row, s, err, errlen);
}

int syscall_totals_load(struct syscall_totals *t, const char *dir, char *err, size_t errlen)
{
	struct scan s = { 0 };
	int ret = scan_calls(&s, dir, NULL, &t->present, err, errlen);

	t->all = s.all;
	return ret;
}

void syscall_totals_free(struct syscall_totals *t)
{
	free(t->all);
	t->all = NULL;
}

/* The run's totals against summary.csv's: a difference is said on warn. */
static void check_summary(FILE *warn, const struct summary_table *summary, const struct syscall_count *all,
			  bool paths)
{
	static const char *const keys[] = { "syscalls", "syscalls_ptraced", "syscalls_inprocess" };
	uint64_t calls = 0, ptraced = 0;

	for (int i = 0; i < SYSCALL_INDEX_COUNT; i++) {
		calls += all[i].calls;
		ptraced += all[i].ptraced;
	}
	/* the split only where the file has it */
	for (size_t k = 0; k < (paths ? 3 : 1); k++) {
		const char *v = summary_value(summary, keys[k]);
		uint64_t want, got = k == 0 ? calls : k == 1 ? ptraced : calls - ptraced;

		if (!v || !*v || parse_count(v, &want) < 0)
			fprintf(warn, "systrace-stats report: warning: %s: %s in summary.csv\n", keys[k],
				v ? "not a count" : "missing");
		else if (want != got)
			fprintf(warn, "systrace-stats report: warning: %s: the rows of syscalls.csv sum to %" PRIu64
				      ", summary.csv says %" PRIu64 "\n", keys[k], got, want);
	}
}

static const struct process_calls *sort_calls;

/* most calls first; ties in the file's order */
static int by_calls(const void *a, const void *b)
{
	size_t i = *(const size_t *)a, j = *(const size_t *)b;

	if (sort_calls[i].calls != sort_calls[j].calls)
		return sort_calls[i].calls < sort_calls[j].calls ? 1 : -1;
	return (i > j) - (i < j);
}

/* A table per process, most syscalls first, each headed as perf trace -s heads a
 * thread's: "NAME (pid P, image I), N syscalls, X%". */
static void print_per_process(FILE *out, const struct syscall_report_options *o, const struct process_table *t,
			      const struct process_calls *calls, const struct syscall_table_options *table,
			      uint64_t total)
{
	size_t *order = malloc((t->n + 1) * sizeof(*order)), n = 0, shown;
	struct syscall_table_options quiet = *table;

	if (!order)
		abort();
	quiet.notes = false;
	for (size_t i = 0; i < t->n; i++)
		if (calls[i].calls)
			order[n++] = i;
	sort_calls = calls;
	qsort(order, n, sizeof(*order), by_calls);
	shown = n < o->limit ? n : o->limit;
	for (size_t k = 0; k < shown; k++) {
		const struct process_row *p = &t->rows[order[k]];
		const struct process_calls *c = &calls[order[k]];

		fprintf(out, " %s (pid %" PRId64 ", image %" PRIu64 "), %" PRIu64 " syscalls, %.1f%%\n\n",
			run_base_name(p->exe), p->pid, p->image, c->calls, total ? 100.0 * (double)c->calls / (double)total : 0.0);
		syscall_table_print(out, c->rows, c->n, &quiet);
		fputc('\n', out);
	}
	fprintf(out, " all processes (%zu with syscalls%s), %" PRIu64 " syscalls\n\n", n,
		shown < n ? ", the first shown: --limit" : "", total);
	free(order);
}

int syscall_report(FILE *out, FILE *warn, const struct syscall_report_options *o, char *err, size_t errlen)
{
	struct process_table processes = { 0 };
	struct summary_table summary = { 0 };
	struct syscall_columns_present present;
	struct scan s = { 0 };
	struct syscall_table_options table;
	uint64_t total = 0;
	int ret = -1;

	if (process_table_load(&processes, o->dir, err, errlen) < 0 ||
	    summary_table_load(&summary, o->dir, err, errlen) < 0)
		goto out;
	if (scan_calls(&s, o->dir, o->per_process ? &processes : NULL, &present, err, errlen) < 0)
		goto out;
	check_summary(warn, &summary, s.all, present.paths);
	table = (struct syscall_table_options){ o->sort, present.time, present.paths, true };
	for (int i = 0; i < SYSCALL_INDEX_COUNT; i++)
		total += s.all[i].calls;
	if (o->per_process)
		print_per_process(out, o, &processes, s.processes, &table, total);
	syscall_table_print(out, s.all, SYSCALL_INDEX_COUNT, &table);
	ret = 0;
out:
	for (size_t i = 0; s.processes && i < processes.n; i++)
		free(s.processes[i].rows);
	free(s.processes);
	free(s.all);
	summary_table_free(&summary);
	process_table_free(&processes);
	return ret;
}
