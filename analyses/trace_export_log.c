/* The temporal log's syscalls as trace events, each on its thread's track within
 * the track of the process image it was made in. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "json_write.h"
#include "log_file.h"
#include "syscall_names.h"
#include "trace_export.h"

/* The process rows ordered by pid, then start: the image of a call is the last row
 * of its pid that started at or before it. */
struct image_finder {
	const struct process_table *table;
	size_t *order;
};

static int by_pid_start(const void *pa, const void *pb, void *ctx)
{
	const struct process_table *t = ctx;
	const struct process_row *a = &t->rows[*(const size_t *)pa], *b = &t->rows[*(const size_t *)pb];

	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	return a->start_ns < b->start_ns ? -1 : a->start_ns > b->start_ns;
}

static void finder_init(struct image_finder *f, const struct process_table *t)
{
	f->table = t;
	f->order = malloc((t->n + 1) * sizeof(*f->order));
	if (!f->order)
		abort();
	for (size_t i = 0; i < t->n; i++)
		f->order[i] = i;
	if (t->n)
		qsort_r(f->order, t->n, sizeof(*f->order), by_pid_start, (void *)t);
}

/* The row of the call of pid at t_ns, or -1 when pid has no row. */
static size_t finder_row(const struct image_finder *f, int64_t pid, uint64_t t_ns)
{
	const struct process_row *rows = f->table->rows;
	size_t lo = 0, hi = f->table->n, found = (size_t)-1;

	/* the first row of pid */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (rows[f->order[mid]].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* then the last of its rows that started at or before t_ns (else its first) */
	for (size_t k = lo; k < f->table->n && rows[f->order[k]].pid == pid; k++)
		if (found == (size_t)-1 || rows[f->order[k]].start_ns <= t_ns)
			found = f->order[k];
	return found;
}

static void write_syscall_event(struct trace_writer *w, const struct log_entry *e, size_t row,
				const struct log_sites *sites)
{
	const struct log_site *site = e->site ? &sites->site[e->site] : NULL;
	char name_buf[32], offset[32];
	FILE *o = w->out;

	trace_event_begin(w);
	fprintf(o, "\"ph\":\"i\",\"s\":\"t\",\"cat\":\"%s\",\"name\":", e->flags & LOG_INPROCESS ? "inprocess" : "ptraced");
	json_string(o, syscall_index_name(e->syscall, name_buf, sizeof(name_buf)));
	fprintf(o, ",\"pid\":%zu,\"tid\":%" PRId32 ",\"ts\":", row + 1, e->tid);
	trace_ts(w, e->t_ns);
	fprintf(o, ",\"args\":{\"early\":%d,\"ret\":", e->flags & LOG_EARLY ? 1 : 0);
	if (e->flags & LOG_HAS_RET)
		fprintf(o, "%" PRId64, e->ret);
	else
		fputs("null", o);
	if (site) {
		fputs(",\"object\":", o);
		json_string(o, site->object);
		if (site->has_offset) {
			snprintf(offset, sizeof(offset), "0x%" PRIx64, site->offset);
			fputs(",\"offset\":", o);
			json_string(o, offset);
		}
		fputs(",\"symbol\":", o);
		json_string(o, site->symbol);
	}
	fputs("}}", o);
}

int export_log_events(struct trace_writer *w, const char *dir, const struct process_table *t,
		      uint64_t max_syscalls, struct log_export_result *result, char *err, size_t errlen)
{
	char *log_path = run_file_path(dir, LOG_FILE_NAME), *sites_path = run_file_path(dir, LOG_SITES_FILE_NAME);
	struct log_file log;
	struct log_sites sites;
	struct image_finder finder;
	int ret = -1;

	memset(result, 0, sizeof(*result));
	if (access(log_path, F_OK) != 0) {
		ret = 0; /* no --log: the export has no syscall events, and says so */
		goto out_paths;
	}
	result->present = true;
	switch (log_file_map(&log, log_path, err, errlen)) {
	case -1:
		goto out_paths;
	case LOG_FILE_TRUNCATED:
		/* a tracer killed while writing: its whole entries are still worth seeing */
		fprintf(stderr, "systrace-stats export: %s; the entries before it are exported\n", err);
		result->truncated = true;
		break;
	}
	if (log_sites_load(&sites, sites_path, err, errlen) < 0)
		goto out_log;
	finder_init(&finder, t);
	result->in_log = log.count;
	for (uint64_t i = 0; i < log.count && result->written < max_syscalls; i++) {
		const struct log_entry *e = &log.entries[i];
		size_t row;

		if (!log_entry_check(&log, i, sites.count, err, errlen)) {
			char what[1024];

			/* the check names the byte offset; the file is ours to name */
			snprintf(what, sizeof(what), "%s", err);
			snprintf(err, errlen, "%s: %s", log_path, what);
			goto out_all;
		}
		row = finder_row(&finder, e->pid, e->t_ns);
		if (row == (size_t)-1) {
			result->unmatched++;
			continue;
		}
		write_syscall_event(w, e, row, &sites);
		result->written++;
	}
	result->capped = result->written + result->unmatched < result->in_log;
	ret = 0;
out_all:
	free(finder.order);
	log_sites_free(&sites);
out_log:
	log_file_close(&log);
out_paths:
	free(log_path);
	free(sites_path);
	return ret;
}
