/* RFC 4180 CSV output: fields separated by commas, a field holding a comma, quote,
 * CR or LF is quoted with its quotes doubled; rows end with LF. */
#ifndef SYSTRACE_CSV_H
#define SYSTRACE_CSV_H

#include <stdint.h>
#include <stdio.h>

struct csv_writer {
	FILE *file;
	int column; /* fields written on the current row */
};

void csv_str(struct csv_writer *w, const char *s);
void csv_u64(struct csv_writer *w, uint64_t v);
void csv_hex(struct csv_writer *w, uint64_t v);
/* One field, s+0xV (a symbol and an offset), without snprintf's cost at each site
 * of each image. */
void csv_str_plus_hex(struct csv_writer *w, const char *s, uint64_t v);
void csv_empty(struct csv_writer *w);
void csv_end_row(struct csv_writer *w);
/* A whole header row from a NULL-terminated list. */
void csv_header(struct csv_writer *w, const char *const *names);

#endif
