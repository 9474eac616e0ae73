#include "csv.h"

#include <inttypes.h>
#include <string.h>

static void separate(struct csv_writer *w)
{
	if (w->column++ > 0)
		putc(',', w->file);
}

void csv_str(struct csv_writer *w, const char *s)
{
	separate(w);
	if (!s)
		return;
	if (s[strcspn(s, ",\"\r\n")] == '\0') {
		fputs(s, w->file);
		return;
	}
	putc('"', w->file);
	for (; *s; s++) {
		if (*s == '"')
			putc('"', w->file);
		putc(*s, w->file);
	}
	putc('"', w->file);
}

void csv_u64(struct csv_writer *w, uint64_t v)
{
	separate(w);
	fprintf(w->file, "%" PRIu64, v);
}

void csv_hex(struct csv_writer *w, uint64_t v)
{
	separate(w);
	fprintf(w->file, "0x%" PRIx64, v);
}

void csv_empty(struct csv_writer *w)
{
	separate(w);
}

void csv_end_row(struct csv_writer *w)
{
	putc('\n', w->file);
	w->column = 0;
}

void csv_header(struct csv_writer *w, const char *const *names)
{
	for (; *names; names++)
		csv_str(w, *names);
	csv_end_row(w);
}
