#include "csv_read.h"

#include "grow_array.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void csv_reader_init(struct csv_reader *r, FILE *file, const char *name)
{
	memset(r, 0, sizeof(*r));
	r->file = file;
	r->name = name;
}

void csv_reader_free(struct csv_reader *r)
{
	free(r->buf);
	free(r->fields);
	r->buf = NULL;
	r->fields = NULL;
	r->cap = r->fields_cap = r->nfields = 0;
}

static void put_char(struct csv_reader *r, size_t *len, char c)
{
	r->buf = grow_array(r->buf, &r->cap, *len, 1);
	r->buf[(*len)++] = c;
}

/* Ends the current field. fields hold offsets into buf until the row is complete,
 * since buf may move as it grows. */
static void end_field(struct csv_reader *r, size_t *len, size_t start)
{
	put_char(r, len, '\0');
	r->fields = grow_array(r->fields, &r->fields_cap, r->nfields, sizeof(*r->fields));
	r->fields[r->nfields++] = (char *)(uintptr_t)start;
}

/* The next character outside quotes, CRLF read as one '\n' (a lone CR is data). */
static int next_unquoted(struct csv_reader *r)
{
	int c = getc(r->file);

	if (c == '\r') {
		int next = getc(r->file);

		if (next == '\n')
			c = '\n';
		else if (next != EOF)
			ungetc(next, r->file);
	}
	if (c == '\n')
		r->lines_read++;
	return c;
}

/* The next character inside quotes, kept as it is (CRLF in a field is data). */
static int next_quoted(struct csv_reader *r)
{
	int c = getc(r->file);

	if (c == '\n')
		r->lines_read++;
	return c;
}

static int malformed(struct csv_reader *r, const char *what, char *err, size_t errlen)
{
	snprintf(err, errlen, "%s:%lu: malformed CSV: %s", r->name, r->line, what);
	r->nfields = 0;
	return -1;
}

int csv_read_row(struct csv_reader *r, char *err, size_t errlen)
{
	size_t len = 0, start = 0;
	int c;

	r->nfields = 0;
	/* blank lines are skipped: no file of ours has a one-column row */
	do
		c = next_unquoted(r);
	while (c == '\n');
	if (c == EOF)
		return 0;
	r->line = r->lines_read + 1;
	for (;;) {
		if (c == '"') {
			/* a quoted field: up to the lone quote that closes it */
			for (;;) {
				c = next_quoted(r);
				if (c == EOF)
					return malformed(r, "a quoted field is not closed before the end of the file", err, errlen);
				if (c == '"') {
					c = next_unquoted(r);
					if (c != '"')
						break;
				}
				put_char(r, &len, (char)c);
			}
			if (c != ',' && c != '\n' && c != EOF)
				return malformed(r, "a character after the closing quote of a field", err, errlen);
		}
		while (c != ',' && c != '\n' && c != EOF) {
			if (c == '"')
				return malformed(r, "a quote inside an unquoted field", err, errlen);
			put_char(r, &len, (char)c);
			c = next_unquoted(r);
		}
		end_field(r, &len, start);
		start = len;
		if (c != ',')
			break;
		c = next_unquoted(r);
	}
	for (size_t i = 0; i < r->nfields; i++)
		r->fields[i] = r->buf + (uintptr_t)r->fields[i];
	return 1;
}

int csv_column(const struct csv_reader *r, const char *name)
{
	for (size_t i = 0; i < r->nfields; i++)
		if (!strcmp(r->fields[i], name))
			return (int)i;
	return -1;
}
