#include "trace_export.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "command_args.h"
#include "commands.h"
#include "json_write.h"

void trace_event_begin(struct trace_writer *w)
{
	fputs(w->events++ ? ",\n{" : "\n{", w->out);
}

void trace_ts(struct trace_writer *w, uint64_t ns)
{
	json_us(w->out, ns > w->base_ns ? ns - w->base_ns : 0);
}

/* A track per row of processes.csv (pids are reused within a run): its id is the
 * row's index + 1, its name says the real pid. */
static void write_process_track(struct trace_writer *w, const struct process_table *t, size_t i, size_t sort_index)
{
	const struct process_row *p = &t->rows[i];
	char name[4200];
	FILE *o = w->out;

	snprintf(name, sizeof(name), "%s [pid %" PRId64 " image %" PRIu64 "]", p->exe, p->pid, p->image);
	trace_event_begin(w);
	fprintf(o, "\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%zu,\"tid\":%" PRId64 ",\"args\":{\"name\":", i + 1,
		p->pid);
	json_string(o, name);
	fputs("}}", o);
	trace_event_begin(w);
	fprintf(o, "\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":%zu,\"tid\":%" PRId64
		   ",\"args\":{\"sort_index\":%zu}}", i + 1, p->pid, sort_index);
	trace_event_begin(w);
	fputs("\"ph\":\"X\",\"cat\":\"process\",\"name\":", o);
	json_string(o, run_base_name(p->exe));
	fprintf(o, ",\"pid\":%zu,\"tid\":%" PRId64 ",\"ts\":", i + 1, p->pid);
	trace_ts(w, p->start_ns);
	fputs(",\"dur\":", o);
	json_us(o, p->end_ns - p->start_ns);
	fprintf(o, ",\"args\":{\"pid\":%" PRId64 ",\"image\":%" PRIu64 ",\"ppid\":%" PRId64 ",\"exe\":", p->pid, p->image,
		p->ppid);
	json_string(o, p->exe);
	fputs(",\"exit\":", o);
	json_string(o, p->exit);
	for (int c = 0; c < PC_COUNTS; c++)
		fprintf(o, ",\"%s\":%" PRIu64, process_count_columns[c].csv_name, p->count[c]);
	fputs("}}", o);
}

static int by_start(const void *pa, const void *pb, void *ctx)
{
	const struct process_table *t = ctx;
	size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
	uint64_t sa = t->rows[a].start_ns, sb = t->rows[b].start_ns;

	return sa != sb ? (sa < sb ? -1 : 1) : (a < b ? -1 : a > b);
}

/* The tracks in the order the processes started. */
static void write_process_tracks(struct trace_writer *w, const struct process_table *t)
{
	size_t *order = malloc((t->n + 1) * sizeof(*order));

	if (!order)
		abort();
	for (size_t i = 0; i < t->n; i++)
		order[i] = i;
	if (t->n)
		qsort_r(order, t->n, sizeof(*order), by_start, (void *)t);
	for (size_t k = 0; k < t->n; k++)
		write_process_track(w, t, order[k], k);
	free(order);
}

struct patch_events {
	struct trace_writer *writer;
	const struct process_table *table;
	uint64_t written;
};

/* An instant event when the site's patch was written (sites.csv patched_ns). */
static void write_patch_event(const struct site_row *s, void *ctx)
{
	struct patch_events *pe = ctx;
	FILE *o = pe->writer->out;

	if (!s->has_patched_ns)
		return;
	trace_event_begin(pe->writer);
	fputs("\"ph\":\"i\",\"s\":\"t\",\"cat\":\"patch\",\"name\":", o);
	json_string(o, s->syscall);
	fprintf(o, ",\"pid\":%zu,\"tid\":%" PRId64 ",\"ts\":", s->process + 1, pe->table->rows[s->process].pid);
	trace_ts(pe->writer, s->patched_ns);
	fputs(",\"args\":{\"object\":", o);
	json_string(o, s->object);
	fputs(",\"offset\":", o);
	json_string(o, s->offset);
	fputs(",\"symbol\":", o);
	json_string(o, s->symbol);
	fprintf(o, ",\"patch_ns\":%" PRIu64 ",\"inprocess\":%" PRIu64 ",\"ptraced\":%" PRIu64 ",\"amortized\":%s}}",
		s->patch_ns, s->inprocess, s->ptraced, s->not_amortized ? "false" : "true");
	pe->written++;
}

struct export_options {
	const char *dir, *output;
	uint64_t max_syscalls;
};

static void export_usage(FILE *out)
{
	fprintf(out, "usage: systrace-stats export [-o FILE] [--max-syscalls N] DIR\n"
		     "  the run as Chrome/Perfetto trace-event JSON (open it in ui.perfetto.dev or\n"
		     "  chrome://tracing): a track per process image with its lifetime, its patches (when\n"
		     "  sites.csv has patched_ns) and, with the temporal log (--log), every syscall on its\n"
		     "  thread.\n"
		     "  -o, --output FILE   where the JSON goes (default: stdout)\n"
		     "  --max-syscalls N    at most N syscall events (the cap is said in the metadata)\n"
		     "  -h, --help          show this help\n");
}

static int parse_export_options(int argc, char **argv, struct export_options *o)
{
	static const struct option longs[] = {
		{ "output", required_argument, NULL, 'o' }, { "max-syscalls", required_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
	};
	char *end;
	int c;

	*o = (struct export_options){ .max_syscalls = UINT64_MAX };
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:h", longs, NULL)) != -1) {
		switch (c) {
		case 'o':
			o->output = optarg;
			break;
		case 'm':
			o->max_syscalls = strtoull(optarg, &end, 10);
			if (*optarg < '0' || *optarg > '9' || *end) {
				fprintf(stderr, "systrace-stats export: --max-syscalls '%s' is not a count\n", optarg);
				return 2;
			}
			break;
		case 'h':
			export_usage(stdout);
			return 0;
		default:
			export_usage(stderr);
			return 2;
		}
	}
	return command_dir_operand("export", argc, argv, export_usage, &o->dir);
}

static void write_metadata(FILE *o, const struct export_options *opt, const struct process_table *t,
			   const struct site_columns_present *sites, uint64_t patches, const struct log_export_result *log)
{
	fputs("\n],\n\"displayTimeUnit\":\"ms\",\n\"otherData\":{\"source\":\"systrace-stats export\",\"dir\":", o);
	json_string(o, opt->dir);
	fprintf(o, ",\"processes\":%zu,\"time_zero_ns\":%" PRIu64 ",\"patch_events\":", t->n, t->earliest_start_ns);
	if (sites->patched_ns)
		fprintf(o, "%" PRIu64, patches);
	else
		fputs("\"none: sites.csv has no patched_ns column\"", o);
	fputs(",\"syscall_events\":", o);
	if (!log->present) {
		fputs("\"none: no temporal log (systrace --log)\"", o);
	} else {
		fprintf(o, "%" PRIu64 ",\"syscalls_in_log\":%" PRIu64 ",\"syscalls_without_process\":%" PRIu64
			   ",\"capped\":%s", log->written, log->in_log, log->unmatched,
			log->capped ? "true" : "false");
		if (log->truncated)
			fputs(",\"log_truncated\":true", o);
		if (log->capped)
			fprintf(o, ",\"note\":\"capped by --max-syscalls: only the first %" PRIu64 " of %" PRIu64
				   " syscalls of the log are events\"", log->written, log->in_log);
	}
	fputs("}}\n", o);
}

/* Streams the whole trace into out. */
static int write_trace(FILE *out, const struct export_options *opt, char *err, size_t errlen)
{
	struct process_table t;
	struct site_columns_present sites = { 0 };
	struct trace_writer w = { out, 0, 0 };
	struct patch_events patches = { &w, &t, 0 };
	struct log_export_result log = { 0 };
	int ret = -1;

	if (process_table_load(&t, opt->dir, err, errlen) < 0)
		return -1;
	w.base_ns = t.earliest_start_ns;
	fputs("{\"traceEvents\":[", out);
	write_process_tracks(&w, &t);
	if (sites_scan(opt->dir, &t, "libc_function", &sites, write_patch_event, &patches, err, errlen) < 0 ||
	    export_log_events(&w, opt->dir, &t, opt->max_syscalls, &log, err, errlen) < 0)
		goto out;
	write_metadata(out, opt, &t, &sites, patches.written, &log);
	if (log.capped)
		fprintf(stderr, "systrace-stats export: capped: %" PRIu64 " of the log's %" PRIu64
				" syscalls written (--max-syscalls)\n", log.written, log.in_log);
	ret = 0;
out:
	process_table_free(&t);
	return ret;
}

int export_main(int argc, char **argv)
{
	struct export_options o;
	char err[4096];
	int status = parse_export_options(argc, argv, &o);
	FILE *out = stdout;

	if (status >= 0)
		return status;
	if (o.output && !(out = fopen(o.output, "w"))) {
		fprintf(stderr, "systrace-stats export: cannot write %s: %s\n", o.output, strerror(errno));
		return 1;
	}
	status = write_trace(out, &o, err, sizeof(err));
	if (fflush(out) != 0 || ferror(out)) {
		if (status == 0)
			snprintf(err, sizeof(err), "cannot write %s: %s", o.output ? o.output : "stdout", strerror(errno));
		status = -1;
	}
	if (out != stdout)
		fclose(out);
	if (status < 0) {
		fprintf(stderr, "systrace-stats export: %s\n", err);
		/* a half-written trace is not a trace */
		if (o.output)
			unlink(o.output);
		return 1;
	}
	return 0;
}
