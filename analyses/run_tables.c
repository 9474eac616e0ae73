#include "run_tables.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "command_args.h"
#include "csv_read.h"
#include "string_map.h"

const struct process_count_column process_count_columns[PC_COUNTS] = {
	[PC_SYSCALLS] = { "syscalls", "syscalls" },
	[PC_EARLY] = { "early", "syscalls_early" },
	[PC_PTRACED] = { "ptraced", "syscalls_ptraced" },
	[PC_INPROCESS] = { "inprocess", "syscalls_inprocess" },
	[PC_STOPS] = { "ptrace_stops", "ptrace_stops" },
	[PC_STOPS_LIFECYCLE] = { "stops_lifecycle", "ptrace_stops_lifecycle" },
	[PC_STOPS_EARLY] = { "stops_early", "ptrace_stops_early" },
	[PC_STOPS_LATE] = { "stops_late", "ptrace_stops_late" },
	[PC_PATCHES_WRITTEN] = { "patches_written", "patches_written" },
	[PC_PATCHES_NOT_AMORTIZED] = { "patches_not_amortized", "patches_not_amortized" },
	[PC_PATCH_NS] = { "patch_ns", "patch_ns" },
};

const struct process_count_column process_optional_columns[PO_COUNTS] = {
	[PO_PATCHES_KNOWN] = { "patches_known", "patches_known" },
	[PO_KNOWN_UNUSED] = { "known_unused", "known_unused" },
	[PO_KNOWN_MISSED] = { "known_missed", "known_missed" },
};

const char *run_base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash && slash[1] ? slash + 1 : path;
}

char *run_file_path(const char *dir, const char *name)
{
	char *path;

	if (asprintf(&path, "%s/%s", dir, name) < 0)
		abort();
	return path;
}

int parse_count(const char *s, uint64_t *v)
{
	char *end;

	*v = 0;
	if (!*s)
		return 0;
	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return (*end || errno) ? -1 : 0;
}

/* An open CSV file of the folder, its header read. */
struct table_file {
	char *path;
	FILE *file;
	struct csv_reader reader;
	size_t header_fields;
};

static int table_open(struct table_file *tf, const char *dir, const char *name, char *err, size_t errlen)
{
	int got;

	tf->path = run_file_path(dir, name);
	tf->file = fopen(tf->path, "r");
	if (!tf->file) {
		snprintf(err, errlen, "cannot open %s: %s", tf->path, strerror(errno));
		free(tf->path);
		return -1;
	}
	csv_reader_init(&tf->reader, tf->file, tf->path);
	got = csv_read_row(&tf->reader, err, errlen);
	if (got == 0)
		snprintf(err, errlen, "%s: empty file (no header row)", tf->path);
	if (got <= 0) {
		fclose(tf->file);
		csv_reader_free(&tf->reader);
		free(tf->path);
		return -1;
	}
	tf->header_fields = tf->reader.nfields;
	return 0;
}

static void table_close(struct table_file *tf)
{
	fclose(tf->file);
	csv_reader_free(&tf->reader);
	free(tf->path);
}

/* The columns of names (NULL-terminated) in the header; -1 for those missing when
 * optional, else an error naming the first missing one. */
static int find_columns(struct table_file *tf, const char *const *names, int *cols, bool optional,
			char *err, size_t errlen)
{
	for (size_t i = 0; names[i]; i++) {
		cols[i] = csv_column(&tf->reader, names[i]);
		if (cols[i] < 0 && !optional) {
			snprintf(err, errlen, "%s: no column '%s' in the header (a file from another version of systrace?)",
				 tf->path, names[i]);
			return -1;
		}
	}
	return 0;
}

/* DIR/name opened with its required columns (an error names the first missing) and
 * its optional ones (-1 where missing) found. */
static int table_open_columns(struct table_file *tf, const char *dir, const char *name, const char *const *required,
			      int *req, const char *const *optional, int *opt, char *err, size_t errlen)
{
	if (table_open(tf, dir, name, err, errlen) < 0)
		return -1;
	if (find_columns(tf, required, req, false, err, errlen) < 0) {
		table_close(tf);
		return -1;
	}
	find_columns(tf, optional, opt, true, err, errlen);
	return 0;
}

/* The next data row, checked to have as many fields as the header: 1, 0 at the end. */
static int table_next(struct table_file *tf, char *err, size_t errlen)
{
	int got = csv_read_row(&tf->reader, err, errlen);

	if (got == 1 && tf->reader.nfields != tf->header_fields) {
		snprintf(err, errlen, "%s:%lu: %zu fields, the header has %zu", tf->path, tf->reader.line,
			 tf->reader.nfields, tf->header_fields);
		return -1;
	}
	return got;
}

static int number_field(struct table_file *tf, int col, const char *name, uint64_t *v, char *err, size_t errlen)
{
	const char *s = tf->reader.fields[col];

	if (parse_count(s, v) < 0) {
		snprintf(err, errlen, "%s:%lu: column %s: '%s' is not a count", tf->path, tf->reader.line, name, s);
		return -1;
	}
	return 0;
}

static int signed_field(struct table_file *tf, int col, const char *name, int64_t *v, char *err, size_t errlen)
{
	uint64_t u;

	if (number_field(tf, col, name, &u, err, errlen) < 0)
		return -1;
	*v = (int64_t)u;
	return 0;
}

enum { P_PID, P_IMAGE, P_PPID, P_EXE, P_START, P_END, P_EXIT, P_FIXED };
static const char *const process_fixed_names[] = { "pid", "image", "ppid", "exe", "start_ns", "end_ns", "exit", NULL };

static int read_process_row(struct table_file *tf, const int *fixed, const int *counted, const int *optional,
			    struct process_row *p, char *err, size_t errlen)
{
	char **f = tf->reader.fields;

	if (signed_field(tf, fixed[P_PID], "pid", &p->pid, err, errlen) < 0 ||
	    signed_field(tf, fixed[P_PPID], "ppid", &p->ppid, err, errlen) < 0 ||
	    number_field(tf, fixed[P_IMAGE], "image", &p->image, err, errlen) < 0 ||
	    number_field(tf, fixed[P_START], "start_ns", &p->start_ns, err, errlen) < 0 ||
	    number_field(tf, fixed[P_END], "end_ns", &p->end_ns, err, errlen) < 0)
		return -1;
	for (int c = 0; c < PC_COUNTS; c++)
		if (number_field(tf, counted[c], process_count_columns[c].csv_name, &p->count[c], err, errlen) < 0)
			return -1;
	for (int c = 0; c < PO_COUNTS; c++)
		if (optional[c] >= 0 &&
		    number_field(tf, optional[c], process_optional_columns[c].csv_name, &p->optional[c], err, errlen) < 0)
			return -1;
	if (p->end_ns < p->start_ns) {
		snprintf(err, errlen, "%s:%lu: end_ns %" PRIu64 " is before start_ns %" PRIu64, tf->path,
			 tf->reader.line, p->end_ns, p->start_ns);
		return -1;
	}
	p->exe = copy_string(f[fixed[P_EXE]]);
	p->exit = copy_string(f[fixed[P_EXIT]]);
	p->line = tf->reader.line;
	return 0;
}

int process_table_load(struct process_table *t, const char *dir, char *err, size_t errlen)
{
	struct table_file tf;
	int fixed[P_FIXED], counted[PC_COUNTS], optional[PO_COUNTS];
	const char *counted_names[PC_COUNTS + 1] = { NULL }, *optional_names[PO_COUNTS + 1] = { NULL };
	size_t cap = 0;
	struct stat st;
	int got;

	memset(t, 0, sizeof(*t));
	/* the folder first: "no such folder" says more than a missing file in it */
	errno = 0;
	if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "%s: %s", dir, errno ? strerror(errno) : "not a folder");
		return -1;
	}
	for (int c = 0; c < PC_COUNTS; c++)
		counted_names[c] = process_count_columns[c].csv_name;
	for (int c = 0; c < PO_COUNTS; c++)
		optional_names[c] = process_optional_columns[c].csv_name;
	if (table_open(&tf, dir, "processes.csv", err, errlen) < 0)
		return -1;
	if (find_columns(&tf, process_fixed_names, fixed, false, err, errlen) < 0 ||
	    find_columns(&tf, counted_names, counted, false, err, errlen) < 0) {
		table_close(&tf);
		return -1;
	}
	find_columns(&tf, optional_names, optional, true, err, errlen);
	for (int c = 0; c < PO_COUNTS; c++)
		t->has_optional[c] = optional[c] >= 0;
	while ((got = table_next(&tf, err, errlen)) == 1) {
		struct process_row p = { 0 };

		if (read_process_row(&tf, fixed, counted, optional, &p, err, errlen) < 0) {
			got = -1;
			break;
		}
		t->rows = grow_array(t->rows, &cap, t->n, sizeof(*t->rows));
		if (!t->n || p.start_ns < t->earliest_start_ns)
			t->earliest_start_ns = p.start_ns;
		if (p.end_ns > t->latest_end_ns)
			t->latest_end_ns = p.end_ns;
		t->rows[t->n++] = p;
	}
	table_close(&tf);
	if (got < 0) {
		process_table_free(t);
		return -1;
	}
	return 0;
}

void process_table_free(struct process_table *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free(t->rows[i].exe);
		free(t->rows[i].exit);
	}
	free(t->rows);
	memset(t, 0, sizeof(*t));
}

int summary_table_load(struct summary_table *s, const char *dir, char *err, size_t errlen)
{
	static const char *const names[] = { "metric", "value", NULL };
	struct table_file tf;
	int cols[2], got;
	size_t cap = 0;

	memset(s, 0, sizeof(*s));
	if (table_open(&tf, dir, "summary.csv", err, errlen) < 0)
		return -1;
	if (find_columns(&tf, names, cols, false, err, errlen) < 0) {
		table_close(&tf);
		return -1;
	}
	while ((got = table_next(&tf, err, errlen)) == 1) {
		s->entries = grow_array(s->entries, &cap, s->n, sizeof(*s->entries));
		s->entries[s->n].key = copy_string(tf.reader.fields[cols[0]]);
		s->entries[s->n++].value = copy_string(tf.reader.fields[cols[1]]);
	}
	table_close(&tf);
	if (got < 0) {
		summary_table_free(s);
		return -1;
	}
	return 0;
}

const char *summary_value(const struct summary_table *s, const char *key)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->entries[i].key, key))
			return s->entries[i].value;
	return NULL;
}

void summary_table_free(struct summary_table *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->entries[i].key);
		free(s->entries[i].value);
	}
	free(s->entries);
	memset(s, 0, sizeof(*s));
}

enum {
	S_PID, S_IMAGE, S_OBJECT, S_OFFSET, S_SYMBOL, S_SYSCALL, S_STATE, S_PTRACED, S_INPROCESS,
	S_PATCH_NS, S_BREAK_EVEN, S_AMORTIZED, S_REQUIRED
};
static const char *const site_required_names[] = {
	"pid", "image", "object", "offset", "symbol", "syscall", "state", "ptraced", "inprocess",
	"patch_ns", "break_even", "amortized", NULL
};
enum { S_LIBC_FUNCTION, S_PATCHED_NS, S_OPTIONAL };

/* Which process row the site (or syscall) rows of pid/image belong to, block by block. */
struct block_matcher {
	struct string_map first_row;   /* "pid/image" -> index of its first process row */
	size_t *next_same;             /* per process row: the next row of its pid/image, or -1 */
	char block_key[48];            /* the pid/image of the current block of site rows */
	size_t block_process;
};

/* with_syscalls: only the process rows with syscalls have a block (syscalls.csv:
 * an image that made none has no row there to take the next one's) */
static void matcher_init(struct block_matcher *m, const struct process_table *t, bool with_syscalls)
{
	memset(m, 0, sizeof(*m));
	m->next_same = malloc((t->n + 1) * sizeof(*m->next_same));
	if (!m->next_same)
		abort();
	/* from the end, so that each key maps to its first row and each row to the next */
	for (size_t i = t->n; i-- > 0;) {
		char key[48];

		if (with_syscalls && !t->rows[i].count[PC_SYSCALLS])
			continue;
		snprintf(key, sizeof(key), "%" PRId64 "/%" PRIu64, t->rows[i].pid, t->rows[i].image);
		m->next_same[i] = string_map_find(&m->first_row, key);
		string_map_put(&m->first_row, key, i);
	}
}

/* The process row of a site row of pid/image: the same as the row before it when it
 * continues its block, else the next unused row of that pid/image; -1 if none. */
static size_t matcher_process(struct block_matcher *m, const char *pid, const char *image)
{
	char key[48];
	size_t i;

	snprintf(key, sizeof(key), "%s/%s", pid, image);
	if (m->block_key[0] && !strcmp(key, m->block_key))
		return m->block_process;
	i = string_map_find(&m->first_row, key);
	if (i == (size_t)-1)
		return i;
	/* the block uses this row; a later block of the same key takes the next one */
	string_map_put(&m->first_row, key, m->next_same[i]);
	snprintf(m->block_key, sizeof(m->block_key), "%s", key);
	m->block_process = i;
	return i;
}

static void matcher_free(struct block_matcher *m)
{
	string_map_free(&m->first_row);
	free(m->next_same);
}

static int read_site_row(struct table_file *tf, const int *req, const int *opt, struct site_row *s,
			 char *err, size_t errlen)
{
	char **f = tf->reader.fields;
	const char *amortized = f[req[S_AMORTIZED]];

	if (number_field(tf, req[S_PTRACED], "ptraced", &s->ptraced, err, errlen) < 0 ||
	    number_field(tf, req[S_INPROCESS], "inprocess", &s->inprocess, err, errlen) < 0 ||
	    number_field(tf, req[S_PATCH_NS], "patch_ns", &s->patch_ns, err, errlen) < 0 ||
	    number_field(tf, req[S_BREAK_EVEN], "break_even", &s->break_even, err, errlen) < 0)
		return -1;
	if (strcmp(amortized, "yes") && strcmp(amortized, "no") && *amortized) {
		snprintf(err, errlen, "%s:%lu: column amortized: '%s' is not yes, no or empty", tf->path,
			 tf->reader.line, amortized);
		return -1;
	}
	s->line = tf->reader.line;
	s->object = f[req[S_OBJECT]];
	s->offset = f[req[S_OFFSET]];
	s->symbol = f[req[S_SYMBOL]];
	s->syscall = f[req[S_SYSCALL]];
	s->state = f[req[S_STATE]];
	s->patched_by_image = f[req[S_PATCH_NS]][0] != '\0';
	s->not_amortized = !strcmp(amortized, "no");
	s->libc_function = opt[S_LIBC_FUNCTION] >= 0 ? f[opt[S_LIBC_FUNCTION]] : "";
	s->has_patched_ns = opt[S_PATCHED_NS] >= 0 && f[opt[S_PATCHED_NS]][0];
	s->patched_ns = 0;
	if (s->has_patched_ns)
		return number_field(tf, opt[S_PATCHED_NS], "patched_ns", &s->patched_ns, err, errlen);
	return 0;
}

int sites_scan(const char *dir, const struct process_table *t, const char *libc_function_column,
	       struct site_columns_present *present, site_row_fn *fn, void *ctx, char *err, size_t errlen)
{
	const char *const optional_names[] = { libc_function_column, "patched_ns", NULL };
	struct table_file tf;
	struct block_matcher m;
	int req[S_REQUIRED], opt[S_OPTIONAL], got;

	if (table_open_columns(&tf, dir, "sites.csv", site_required_names, req, optional_names, opt, err, errlen) < 0)
		return -1;
	present->libc_function = opt[S_LIBC_FUNCTION] >= 0;
	present->patched_ns = opt[S_PATCHED_NS] >= 0;
	matcher_init(&m, t, false);
	while ((got = table_next(&tf, err, errlen)) == 1) {
		struct site_row s;
		char **f = tf.reader.fields;

		s.process = matcher_process(&m, f[req[S_PID]], f[req[S_IMAGE]]);
		if (s.process == (size_t)-1) {
			snprintf(err, errlen, "%s:%lu: pid %s image %s has no row (left) in processes.csv", tf.path,
				 tf.reader.line, f[req[S_PID]], f[req[S_IMAGE]]);
			got = -1;
			break;
		}
		if (read_site_row(&tf, req, opt, &s, err, errlen) < 0) {
			got = -1;
			break;
		}
		fn(&s, ctx);
	}
	matcher_free(&m);
	table_close(&tf);
	return got;
}

enum { Y_PID, Y_IMAGE, Y_SYSCALL, Y_CALLS, Y_ERRORS, Y_REQUIRED };
static const char *const syscall_required_names[] = { "pid", "image", "syscall", "calls", "errors", NULL };
enum { Y_ABI, Y_PTRACED, Y_INPROCESS, Y_TIME, Y_OPTIONAL };
static const char *const syscall_optional_names[] = { "abi", "ptraced", "inprocess", "time_ns", NULL };

/* The counter index of a row's ABI and name, looked up once per distinct pair. */
static int syscall_row_index(struct table_file *tf, struct string_map *known, const char *abi_name,
			     const char *name, char *err, size_t errlen)
{
	char key[128];
	size_t idx;
	int abi = *abi_name ? syscall_abi_parse(abi_name) : ABI_X86_64, i;

	if (abi < 0) {
		snprintf(err, errlen, "%s:%lu: column abi: '%s' is not x86_64, i386 or x32", tf->path, tf->reader.line,
			 abi_name);
		return -1;
	}
	snprintf(key, sizeof(key), "%d/%s", abi, name);
	if ((idx = string_map_find(known, key)) != (size_t)-1)
		return (int)idx;
	if ((i = syscall_index_parse(abi, name)) < 0) {
		snprintf(err, errlen, "%s:%lu: syscall '%s' (%s) is not a name this systrace-stats knows (a run of a "
			 "systrace built with other kernel headers?)", tf->path, tf->reader.line, name,
			 syscall_abi_names[abi]);
		return -1;
	}
	string_map_put(known, key, (size_t)i);
	return i;
}

static int read_syscall_row(struct table_file *tf, const int *req, const int *opt, struct string_map *known,
			    struct syscall_file_row *y, char *err, size_t errlen)
{
	char **f = tf->reader.fields;
	struct syscall_count *c = &y->count;
	uint64_t inprocess = 0;
	int idx;

	memset(c, 0, sizeof(*c));
	y->line = tf->reader.line;
	if (number_field(tf, req[Y_CALLS], "calls", &c->calls, err, errlen) < 0 ||
	    number_field(tf, req[Y_ERRORS], "errors", &c->errors, err, errlen) < 0 ||
	    (opt[Y_PTRACED] >= 0 && number_field(tf, opt[Y_PTRACED], "ptraced", &c->ptraced, err, errlen) < 0) ||
	    (opt[Y_INPROCESS] >= 0 && number_field(tf, opt[Y_INPROCESS], "inprocess", &inprocess, err, errlen) < 0) ||
	    /* empty: a run without --time */
	    (opt[Y_TIME] >= 0 && f[opt[Y_TIME]][0] && number_field(tf, opt[Y_TIME], "time_ns", &c->time_ns, err, errlen) < 0))
		return -1;
	if (opt[Y_PTRACED] >= 0 && opt[Y_INPROCESS] >= 0 && c->ptraced + inprocess != c->calls) {
		snprintf(err, errlen, "%s:%lu: ptraced %" PRIu64 " + inprocess %" PRIu64 " is not calls %" PRIu64,
			 tf->path, tf->reader.line, c->ptraced, inprocess, c->calls);
		return -1;
	}
	if (c->errors > c->calls) {
		snprintf(err, errlen, "%s:%lu: errors %" PRIu64 " is more than calls %" PRIu64, tf->path,
			 tf->reader.line, c->errors, c->calls);
		return -1;
	}
	/* an empty errors field: no result was seen, so the errors are not known */
	c->errors_known = f[req[Y_ERRORS]][0] ? c->calls : 0;
	idx = syscall_row_index(tf, known, opt[Y_ABI] >= 0 ? f[opt[Y_ABI]] : "", f[req[Y_SYSCALL]], err, errlen);
	if (idx < 0)
		return -1;
	c->index = idx;
	return 0;
}

int syscalls_scan(const char *dir, const struct process_table *t, struct syscall_columns_present *present,
		  syscall_row_fn *fn, void *ctx, char *err, size_t errlen)
{
	struct table_file tf;
	struct block_matcher m;
	struct string_map known = { 0 };
	int req[Y_REQUIRED], opt[Y_OPTIONAL], got;

	if (table_open_columns(&tf, dir, "syscalls.csv", syscall_required_names, req, syscall_optional_names, opt, err,
			       errlen) < 0)
		return -1;
	present->paths = opt[Y_PTRACED] >= 0;
	present->time = false; /* a time_ns column with a value: systrace --time */
	if (t)
		matcher_init(&m, t, true);
	while ((got = table_next(&tf, err, errlen)) == 1) {
		struct syscall_file_row y;
		char **f = tf.reader.fields;

		y.process = t ? matcher_process(&m, f[req[Y_PID]], f[req[Y_IMAGE]]) : (size_t)-1;
		if (t && y.process == (size_t)-1) {
			snprintf(err, errlen, "%s:%lu: pid %s image %s has no row (left) in processes.csv", tf.path,
				 tf.reader.line, f[req[Y_PID]], f[req[Y_IMAGE]]);
			got = -1;
			break;
		}
		if (read_syscall_row(&tf, req, opt, &known, &y, err, errlen) < 0) {
			got = -1;
			break;
		}
		present->time |= opt[Y_TIME] >= 0 && f[opt[Y_TIME]][0];
		fn(&y, ctx);
	}
	if (t)
		matcher_free(&m);
	string_map_free(&known);
	table_close(&tf);
	return got;
}
