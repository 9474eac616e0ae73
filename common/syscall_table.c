#include "syscall_table.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static const char *const sort_names[SYSCALL_SORT_COUNT] = {
	[SYSCALL_SORT_TIME] = "time", [SYSCALL_SORT_CALLS] = "calls", [SYSCALL_SORT_NAME] = "name",
	[SYSCALL_SORT_ERRORS] = "errors", [SYSCALL_SORT_INPROCESS] = "inprocess", [SYSCALL_SORT_PTRACED] = "ptraced",
};
const char syscall_sort_keys[] = "time, calls, name, errors, inprocess or ptraced";

/* strace -c's personalities, as it heads their tables */
static const char *const abi_modes[ABI_COUNT] = { "64 bit", "32 bit", "x32" };

int syscall_sort_parse(const char *key, enum syscall_sort *sort)
{
	for (int s = 0; s < SYSCALL_SORT_COUNT; s++)
		if (sort_names[s] && !strcmp(key, sort_names[s])) {
			*sort = (enum syscall_sort)s;
			return 0;
		}
	return -1;
}

void syscall_count_add(struct syscall_count *a, const struct syscall_count *b)
{
	a->index = b->index;
	a->calls += b->calls;
	a->ptraced += b->ptraced;
	a->errors += b->errors;
	a->errors_known += b->errors_known;
	a->time_ns += b->time_ns;
}

static const char *count_name(const struct syscall_count *c, char *buf, size_t len)
{
	return syscall_index_name(c->index, buf, len);
}

static uint64_t sort_value(const struct syscall_count *c, enum syscall_sort s)
{
	switch (s) {
	case SYSCALL_SORT_TIME: return c->time_ns;
	case SYSCALL_SORT_ERRORS: return c->errors;
	case SYSCALL_SORT_INPROCESS: return c->calls - c->ptraced;
	case SYSCALL_SORT_PTRACED: return c->ptraced;
	default: return c->calls;
	}
}

/* The key's order (numbers largest first, names in strcmp order, as strace sorts),
 * then the syscall number's: strace's stable sort of its table in number order. */
static int compare_counts(const void *pa, const void *pb, void *arg)
{
	const struct syscall_count *a = *(const struct syscall_count *const *)pa;
	const struct syscall_count *b = *(const struct syscall_count *const *)pb;
	enum syscall_sort s = *(const enum syscall_sort *)arg;

	if (s == SYSCALL_SORT_NAME) {
		char ba[32], bb[32];
		int c = strcmp(count_name(a, ba, sizeof(ba)), count_name(b, bb, sizeof(bb)));

		if (c)
			return c;
	} else if (sort_value(a, s) != sort_value(b, s)) {
		return sort_value(a, s) < sort_value(b, s) ? 1 : -1;
	}
	return (a->index > b->index) - (a->index < b->index);
}

static int digits(uint64_t v)
{
	return snprintf(NULL, 0, "%" PRIu64, v);
}

static int at_least(int width, int v)
{
	return v > width ? v : width;
}

static uint64_t usecs_per_call(uint64_t ns, uint64_t calls)
{
	return calls ? ns / calls / 1000 : 0;
}

/* strace's widths: its historical ones, or wider for what the totals need */
struct widths {
	int seconds, usecs, calls, errors, name, inprocess, ptraced;
};

static void dashes(FILE *f, const struct widths *w)
{
	const int cols[] = { 6, w->seconds, w->usecs, w->calls, w->errors, w->name, w->inprocess, w->ptraced };

	for (size_t i = 0; i < sizeof(cols) / sizeof(cols[0]); i++) {
		if (i)
			putc(' ', f);
		for (int j = 0; j < cols[i]; j++)
			putc('-', f);
	}
	putc('\n', f);
}

/* A line of the table: its % time, seconds, usecs/call, calls, errors (blank when 0,
 * as strace prints them), name, and the paths. */
static void table_line(FILE *f, const struct widths *w, const struct syscall_table_options *o, double percent,
		       const struct syscall_count *c, const char *name)
{
	uint64_t inprocess = c->calls - c->ptraced;

	fprintf(f, "%6.2f %*.6f %*" PRIu64 " %*" PRIu64 " %*.0" PRIu64 " %-*s", percent, w->seconds,
		(double)c->time_ns / 1e9, w->usecs, usecs_per_call(c->time_ns, c->calls), w->calls, c->calls,
		w->errors, c->errors, w->name, name);
	if (o->paths_known)
		fprintf(f, " %*" PRIu64 " %*" PRIu64 "\n", w->inprocess, inprocess, w->ptraced, c->ptraced);
	else
		fprintf(f, " %*s %*s\n", w->inprocess, "", w->ptraced, "");
}

static void print_abi_table(FILE *f, const struct syscall_count **rows, size_t n, const struct syscall_table_options *o,
			    struct syscall_count *sum)
{
	struct widths w;
	uint64_t max_usecs = 0;
	size_t name_max = 0;
	char buf[32];

	memset(sum, 0, sizeof(*sum));
	for (size_t i = 0; i < n; i++) {
		uint64_t usecs = usecs_per_call(rows[i]->time_ns, rows[i]->calls);
		size_t len = strlen(count_name(rows[i], buf, sizeof(buf)));

		syscall_count_add(sum, rows[i]);
		max_usecs = usecs > max_usecs ? usecs : max_usecs;
		name_max = len > name_max ? len : name_max;
	}
	w.seconds = at_least(11, snprintf(NULL, 0, "%.6f", (double)sum->time_ns / 1e9));
	w.usecs = at_least(11, digits(max_usecs));
	w.calls = at_least(9, digits(sum->calls));
	w.errors = at_least(9, digits(sum->errors));
	w.name = at_least(16, (int)name_max + 1);
	w.inprocess = at_least(9, digits(sum->calls - sum->ptraced));
	w.ptraced = at_least(9, digits(sum->ptraced));
	fprintf(f, "%6s %*s %*s %*s %*s %-*s %*s %*s\n", "% time", w.seconds, "seconds", w.usecs, "usecs/call",
		w.calls, "calls", w.errors, "errors", w.name, "syscall", w.inprocess, "inprocess", w.ptraced, "ptraced");
	dashes(f, &w);
	for (size_t i = 0; i < n; i++) {
		/* 0 when the total is (no time measured): never 0 / 0 */
		double percent = rows[i]->time_ns ? 100.0 * (double)rows[i]->time_ns / (double)sum->time_ns : 0.0;

		table_line(f, &w, o, percent, rows[i], count_name(rows[i], buf, sizeof(buf)));
	}
	dashes(f, &w);
	table_line(f, &w, o, 100.0, sum, "total");
}

/* What the table cannot tell, said under it. */
static void print_notes(FILE *f, const struct syscall_table_options *o, const struct syscall_count *all)
{
	if (!o->timed)
		fprintf(f, "note: the times of the calls were not measured: %% time, seconds and usecs/call are 0%s\n",
			o->sort == SYSCALL_SORT_TIME ? " (sorted by calls, not by time)" : "");
	if (all->errors_known < all->calls)
		fprintf(f, "note: errors are known for %" PRIu64 " of the %" PRIu64 " calls (those whose result "
			   "systrace saw); blank: 0 or not known\n", all->errors_known, all->calls);
	if (!o->paths_known)
		fprintf(f, "note: the files do not split each syscall's calls into in-process and ptraced "
			   "(a run of an older systrace): left blank\n");
}

uint64_t syscall_table_print(FILE *f, const struct syscall_count *counts, size_t n,
			     const struct syscall_table_options *o)
{
	enum syscall_sort sort = o->sort;
	const struct syscall_count **rows = malloc((n + 1) * sizeof(*rows));
	struct syscall_count all = { 0 }, sum;

	if (!rows)
		abort();
	if (sort == SYSCALL_SORT_DEFAULT || (sort == SYSCALL_SORT_TIME && !o->timed))
		sort = o->timed ? SYSCALL_SORT_TIME : SYSCALL_SORT_CALLS;
	for (int abi = 0; abi < ABI_COUNT; abi++) {
		size_t k = 0;

		for (size_t i = 0; i < n; i++)
			if (counts[i].calls && counts[i].index / SYSCALL_NR_SPAN == abi)
				rows[k++] = &counts[i];
		/* the first table always, even empty; the others when there are calls */
		if (abi && !k)
			continue;
		if (abi)
			fprintf(f, "System call usage summary for %s mode:\n", abi_modes[abi]);
		qsort_r(rows, k, sizeof(*rows), compare_counts, &sort);
		print_abi_table(f, rows, k, o, &sum);
		syscall_count_add(&all, &sum);
	}
	free(rows);
	if (o->notes)
		print_notes(f, o, &all);
	return all.calls;
}
