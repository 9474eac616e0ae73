/* RFC 4180 CSV input (the files csv.h writes): a row at a time, quoted fields with
 * doubled quotes, commas and newlines inside quotes; LF or CRLF row ends. */
#ifndef SYSTRACE_CSV_READ_H
#define SYSTRACE_CSV_READ_H

#include <stddef.h>
#include <stdio.h>

struct csv_reader {
	FILE *file;
	const char *name;       /* for messages */
	unsigned long line;     /* of the row last read, from 1 */
	unsigned long lines_read; /* physical lines consumed (quoted newlines included) */
	char *buf;              /* the fields of the row, each NUL-terminated */
	size_t cap;
	char **fields;
	size_t nfields, fields_cap;
};

void csv_reader_init(struct csv_reader *r, FILE *file, const char *name);
/* Reads the next row: 1, 0 at the end of the file, -1 on a malformed row (an
 * unterminated quote, a quote inside an unquoted field) with a message naming the
 * file and line in err. */
int csv_read_row(struct csv_reader *r, char *err, size_t errlen);
/* The column of a header row named name, or -1. */
int csv_column(const struct csv_reader *r, const char *name);
void csv_reader_free(struct csv_reader *r);

#endif
