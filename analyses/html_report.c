/* systrace-stats html: one self-contained HTML file (html_page.h) with the run's
 * processes, summary and syscalls embedded as JSON. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyses.h"
#include "command_args.h"
#include "commands.h"
#include "html_page.h"
#include "json_write.h"
#include "run_tables.h"
#include "string_map.h"
#include "syscall_report.h"

/* Short-lived, as the report's default (--short-ms 100), and the functions shown. */
#define HTML_SHORT_NS 100000000ULL
#define HTML_HOOKS 10

/* What the page shows, loaded from the folder. */
struct html_run {
	struct process_table processes;
	struct summary_table summary;
	struct amortization_analysis amortization;
	struct site_columns_present site_columns;
	struct syscall_totals syscalls;
};

static void html_usage(FILE *out)
{
	fprintf(out, "usage: systrace-stats html [-o FILE] DIR\n"
		     "  a self-contained HTML page (no network): summary figures, a timeline of the process\n"
		     "  images that zooms, a table of the syscalls that sorts, and the syscalls of the\n"
		     "  busiest processes by path.\n"
		     "  -o, --output FILE  where the page goes (default: stdout)\n"
		     "  -h, --help         show this help\n");
}

/* The executables, each once, in the order met; processes refer to them by index. */
static void write_exes(FILE *o, const struct process_table *t, size_t *exe_of)
{
	struct string_map index = { 0 };
	size_t n = 0;

	fputs("\"exes\":[", o);
	for (size_t i = 0; i < t->n; i++) {
		size_t e = string_map_find(&index, t->rows[i].exe);

		if (e == (size_t)-1) {
			e = n++;
			string_map_put(&index, t->rows[i].exe, e);
			if (e)
				putc(',', o);
			json_string(o, t->rows[i].exe);
		}
		exe_of[i] = e;
	}
	fputs("]", o);
	string_map_free(&index);
}

/* The functions whose hooking would remove the most non-amortized patches in the
 * short-lived processes (analyses.h), the first HTML_HOOKS of them. */
static void write_hooks(FILE *o, const struct amortization_analysis *a)
{
	const struct candidate_table *c = amortization_ranking(a);

	fprintf(o, ",\n\"hooks\":{\"named_by\":\"%s\",\"short_ms\":%" PRIu64 ",\"short_processes\":%zu,"
		   "\"unpaid_sites\":%" PRIu64 ",\"rows\":[",
		a->libc_function_named ? "libc_function" : "symbol", a->short_ns / 1000000, a->short_processes,
		a->short_unpaid_rows);
	for (size_t i = 0; i < c->n && i < HTML_HOOKS; i++) {
		fputs(i ? ",[" : "[", o);
		json_string(o, c->rows[i].function);
		fprintf(o, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 "]", c->rows[i].sites, c->rows[i].images, c->rows[i].patch_ns);
	}
	fputs("]}", o);
}

/* The run's syscalls, a row per name and ABI that occurred, in counter index order
 * (the page's ties): [name, abi, calls, ptraced, errors, errors_known, time_ns],
 * null where the file has no such column. */
static void write_syscalls(FILE *o, const struct syscall_totals *t)
{
	bool first = true;

	fprintf(o, ",\n\"syscalls\":{\"paths\":%s,\"timed\":%s,\"rows\":[", t->present.paths ? "true" : "false",
		t->present.time ? "true" : "false");
	for (int i = 0; i < SYSCALL_INDEX_COUNT; i++) {
		const struct syscall_count *c = &t->all[i];
		char buf[32];

		if (!c->calls)
			continue;
		fputs(first ? "\n[" : ",\n[", o);
		first = false;
		json_string(o, syscall_index_name(i, buf, sizeof(buf)));
		putc(',', o);
		json_string(o, syscall_abi_names[i / SYSCALL_NR_SPAN]);
		fprintf(o, ",%" PRIu64 ",", c->calls);
		if (t->present.paths)
			fprintf(o, "%" PRIu64, c->ptraced);
		else
			fputs("null", o);
		fprintf(o, ",%" PRIu64 ",%" PRIu64 ",", c->errors, c->errors_known);
		if (t->present.time)
			fprintf(o, "%" PRIu64 "]", c->time_ns);
		else
			fputs("null]", o);
	}
	fputs("]}", o);
}

static void write_data(FILE *o, const char *dir, const struct html_run *r)
{
	const struct process_table *t = &r->processes;
	const struct summary_table *s = &r->summary;
	size_t *exe_of = malloc((t->n + 1) * sizeof(*exe_of));
	static const enum process_count shown[] = { PC_SYSCALLS, PC_EARLY, PC_PTRACED, PC_INPROCESS, PC_STOPS,
						    PC_PATCHES_WRITTEN, PC_PATCHES_NOT_AMORTIZED };

	if (!exe_of)
		abort();
	fputs("{\"dir\":", o);
	json_string(o, dir);
	fputs(",\"summary\":{", o);
	for (size_t i = 0; i < s->n; i++) {
		if (i)
			putc(',', o);
		json_string(o, s->entries[i].key);
		putc(':', o);
		json_string(o, s->entries[i].value);
	}
	fputs("},\n", o);
	write_exes(o, t, exe_of);
	/* a row per process: pid, image, ppid, exe, start and duration (us), exit, then
	 * the counts in the order of shown[] (html_page.c reads them by position) */
	fputs(",\n\"processes\":[", o);
	for (size_t i = 0; i < t->n; i++) {
		const struct process_row *p = &t->rows[i];

		fprintf(o, "%s[%" PRId64 ",%" PRIu64 ",%" PRId64 ",%zu,", i ? ",\n" : "\n", p->pid, p->image, p->ppid,
			exe_of[i]);
		json_us(o, p->start_ns - t->earliest_start_ns);
		putc(',', o);
		json_us(o, p->end_ns - p->start_ns);
		putc(',', o);
		json_string(o, p->exit);
		for (size_t c = 0; c < sizeof(shown) / sizeof(shown[0]); c++)
			fprintf(o, ",%" PRIu64, p->count[shown[c]]);
		putc(']', o);
	}
	fputs("]", o);
	write_hooks(o, &r->amortization);
	write_syscalls(o, &r->syscalls);
	fputs("}", o);
	free(exe_of);
}

static int load_html_run(struct html_run *r, const char *dir, char *err, size_t errlen)
{
	memset(r, 0, sizeof(*r));
	if (process_table_load(&r->processes, dir, err, errlen) < 0 ||
	    summary_table_load(&r->summary, dir, err, errlen) < 0)
		return -1;
	amortization_init(&r->amortization, &r->processes, HTML_SHORT_NS);
	if (sites_scan(dir, &r->processes, "libc_function", &r->site_columns, amortization_add_site, &r->amortization,
		       err, errlen) < 0)
		return -1;
	amortization_finish(&r->amortization);
	return syscall_totals_load(&r->syscalls, dir, err, errlen);
}

static void free_html_run(struct html_run *r)
{
	syscall_totals_free(&r->syscalls);
	amortization_free(&r->amortization);
	summary_table_free(&r->summary);
	process_table_free(&r->processes);
}

static int write_page(const char *output, const char *dir, const struct html_run *r)
{
	FILE *out = stdout;
	int failed;

	if (output && !(out = fopen(output, "w"))) {
		fprintf(stderr, "systrace-stats html: cannot write %s: %s\n", output, strerror(errno));
		return 1;
	}
	fputs(html_page_head, out);
	write_data(out, dir, r);
	fputs(html_page_script, out);
	fputs(html_timeline_script, out);
	fputs(html_syscall_table_script, out);
	fputs(html_page_end, out);
	failed = fflush(out) != 0 || ferror(out);
	if (failed)
		fprintf(stderr, "systrace-stats html: cannot write %s: %s\n", output ? output : "stdout", strerror(errno));
	if (out != stdout)
		fclose(out);
	if (failed && output)
		unlink(output);
	return failed;
}

int html_main(int argc, char **argv)
{
	static const struct option longs[] = {
		{ "output", required_argument, NULL, 'o' }, { "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
	};
	const char *output = NULL, *dir;
	struct html_run r;
	char err[4096];
	int c, status;

	optind = 1;
	while ((c = getopt_long(argc, argv, "o:h", longs, NULL)) != -1) {
		if (c == 'o') {
			output = optarg;
		} else if (c == 'h') {
			html_usage(stdout);
			return 0;
		} else {
			html_usage(stderr);
			return 2;
		}
	}
	if (command_dir_operand("html", argc, argv, html_usage, &dir) >= 0)
		return 2;
	if (load_html_run(&r, dir, err, sizeof(err)) < 0) {
		fprintf(stderr, "systrace-stats html: %s\n", err);
		status = 1;
	} else {
		status = write_page(output, dir, &r);
	}
	free_html_run(&r);
	return status;
}
