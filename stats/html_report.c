/* systrace-stats html: one self-contained HTML file (html_page.c) with the run's
 * processes and summary embedded as JSON. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "command_args.h"
#include "commands.h"
#include "html_page.h"
#include "json_write.h"
#include "run_tables.h"
#include "string_map.h"

static void html_usage(FILE *out)
{
	fprintf(out, "usage: systrace-stats html [-o FILE] DIR\n"
		     "  a self-contained HTML page (no network): summary figures, a timeline of the process\n"
		     "  images, and the syscalls of the busiest processes by path. -o FILE (default: stdout)\n");
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

static void write_data(FILE *o, const char *dir, const struct process_table *t, const struct summary_table *s)
{
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
	fputs("]}", o);
	free(exe_of);
}

int html_main(int argc, char **argv)
{
	static const struct option longs[] = {
		{ "output", required_argument, NULL, 'o' }, { "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
	};
	const char *output = NULL, *dir;
	struct process_table t;
	struct summary_table s;
	char err[4096];
	FILE *out = stdout;
	int c, failed;

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
	if (process_table_load(&t, dir, err, sizeof(err)) < 0) {
		fprintf(stderr, "systrace-stats html: %s\n", err);
		return 1;
	}
	if (summary_table_load(&s, dir, err, sizeof(err)) < 0) {
		fprintf(stderr, "systrace-stats html: %s\n", err);
		process_table_free(&t);
		return 1;
	}
	if (output && !(out = fopen(output, "w"))) {
		fprintf(stderr, "systrace-stats html: cannot write %s: %s\n", output, strerror(errno));
		failed = 1;
	} else {
		fputs(html_page_head, out);
		write_data(out, dir, &t, &s);
		fputs(html_page_tail, out);
		failed = fflush(out) != 0 || ferror(out);
		if (failed)
			fprintf(stderr, "systrace-stats html: cannot write %s: %s\n", output ? output : "stdout",
				strerror(errno));
		if (out != stdout)
			fclose(out);
		if (failed && output)
			unlink(output);
	}
	summary_table_free(&s);
	process_table_free(&t);
	return failed ? 1 : 0;
}
