/* log_sites_load and log_sites_load_partial: the sites file of the temporal log
 * (log_file.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csv_read.h"
#include "grow_array.h"
#include "log_file.h"

/* A row as read, its strings as offsets into the growing storage. */
struct site_row {
	uint32_t id;
	size_t object, symbol;
	uint64_t offset;
	bool has_offset;
	unsigned long line;
};

struct loading {
	struct csv_reader reader;
	int site, object, offset, symbol; /* columns; symbol may be -1 */
	struct site_row *rows;
	size_t nrows, rows_cap;
	char *strings;
	size_t strings_len, strings_cap;
	uint32_t max_id;
};

static int fail(struct loading *l, char *err, size_t errlen, const char *what, const char *value)
{
	snprintf(err, errlen, "%s: line %lu: %s: '%s'", l->reader.name, l->reader.line, what, value);
	return -1;
}

/* Keeps s in the storage; its offset there. */
static size_t keep(struct loading *l, const char *s)
{
	size_t len = strlen(s) + 1, at = l->strings_len;

	l->strings = grow_array_to(l->strings, &l->strings_cap, at + len, 1);
	memcpy(l->strings + at, s, len);
	l->strings_len += len;
	return at;
}

static int parse_id(const char *s, uint32_t *id)
{
	char *end;
	unsigned long long v;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	/* the table has max id + 1 rows, which must fit its uint32_t count */
	if (errno || *end || v >= UINT32_MAX)
		return -1;
	*id = (uint32_t)v;
	return 0;
}

static int parse_offset(const char *s, struct site_row *row)
{
	char *end;

	row->has_offset = *s != '\0';
	if (!row->has_offset)
		return 0;
	if (s[0] != '0' || (s[1] != 'x' && s[1] != 'X') || !s[2] || s[2] == '-' || s[2] == '+')
		return -1;
	errno = 0;
	row->offset = strtoull(s + 2, &end, 16);
	return errno || *end ? -1 : 0;
}

static int find_columns(struct loading *l, char *err, size_t errlen)
{
	static const char *const required[] = { "site", "object", "offset" };
	int *columns[] = { &l->site, &l->object, &l->offset };

	for (size_t i = 0; i < sizeof(required) / sizeof(required[0]); i++) {
		*columns[i] = csv_column(&l->reader, required[i]);
		if (*columns[i] < 0)
			return fail(l, err, errlen, "the header has no column", required[i]);
	}
	l->symbol = csv_column(&l->reader, "symbol");
	return 0;
}

static int read_row(struct loading *l, char *err, size_t errlen)
{
	char **field = l->reader.fields;
	struct site_row row = { .line = l->reader.line };
	int need = l->site > l->object ? l->site : l->object;

	if (l->offset > need)
		need = l->offset;
	if (l->symbol > need)
		need = l->symbol;
	if ((int)l->reader.nfields <= need)
		return fail(l, err, errlen, "too few fields in the row starting", field[0]);
	if (parse_id(field[l->site], &row.id) < 0)
		return fail(l, err, errlen, "site id is not a number below 4294967295", field[l->site]);
	if (parse_offset(field[l->offset], &row) < 0)
		return fail(l, err, errlen, "offset is not hexadecimal (0x...)", field[l->offset]);
	row.object = keep(l, field[l->object]);
	row.symbol = keep(l, l->symbol >= 0 ? field[l->symbol] : "");
	l->rows = grow_array(l->rows, &l->rows_cap, l->nrows, sizeof(row));
	l->rows[l->nrows++] = row;
	if (row.id > l->max_id)
		l->max_id = row.id;
	return 0;
}

/* The table indexed by id from the rows read; ids not named stay empty. */
static int index_rows(struct loading *l, struct log_sites *s, const char *path, char *err, size_t errlen)
{
	static const char none[] = "";

	s->count = l->max_id + 1;
	s->site = calloc(s->count, sizeof(*s->site));
	if (!s->site) {
		snprintf(err, errlen, "%s: no memory for site ids up to %" PRIu32, path, l->max_id);
		return -1;
	}
	for (uint32_t id = 0; id < s->count; id++)
		s->site[id] = (struct log_site){ .object = none, .symbol = none };
	for (size_t i = 0; i < l->nrows; i++) {
		const struct site_row *row = &l->rows[i];
		struct log_site *site = &s->site[row->id];

		if (site->object != none || row->id == 0) {
			snprintf(err, errlen, "%s: line %lu: site id %" PRIu32 " %s", path, row->line, row->id,
				 row->id ? "listed twice" : "is reserved for no site");
			return -1;
		}
		*site = (struct log_site){ l->strings + row->object, row->offset, row->has_offset,
					   l->strings + row->symbol };
	}
	s->strings = l->strings;
	l->strings = NULL;
	return 0;
}

/* 0; -1 on a bad header; 1 at a bad row, with the rows before it read. */
static int load(struct loading *l, char *err, size_t errlen)
{
	int status = csv_read_row(&l->reader, err, errlen);

	if (status <= 0)
		return status; /* an empty file names no site */
	if (find_columns(l, err, errlen) < 0)
		return -1;
	while ((status = csv_read_row(&l->reader, err, errlen)) > 0)
		if (read_row(l, err, errlen) < 0)
			return 1;
	return status < 0 ? 1 : 0;
}

int log_sites_load_partial(struct log_sites *s, const char *path, char *err, size_t errlen)
{
	struct loading l = { 0 };
	FILE *file = fopen(path, "r");
	int status = 0;

	memset(s, 0, sizeof(*s));
	if (!file && errno != ENOENT) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (file) {
		csv_reader_init(&l.reader, file, path);
		status = load(&l, err, errlen);
	}
	if (status >= 0 && index_rows(&l, s, path, err, errlen) < 0)
		status = -1;
	if (file) {
		csv_reader_free(&l.reader);
		fclose(file);
	}
	free(l.rows);
	free(l.strings);
	if (status < 0)
		log_sites_free(s);
	return status;
}

void log_sites_free(struct log_sites *s)
{
	free(s->site);
	free(s->strings);
	memset(s, 0, sizeof(*s));
}

int log_sites_load(struct log_sites *s, const char *path, char *err, size_t errlen)
{
	int status = log_sites_load_partial(s, path, err, errlen);

	if (status > 0) {
		log_sites_free(s);
		return -1;
	}
	return status;
}
