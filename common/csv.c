#include "csv.h"

#include <string.h>

/* A row is written a field at a time for every image of a run: stdio's unlocked
 * calls and a hand-made number, not fprintf (a FILE is only ever written by one
 * thread at a time here). */
static void separate(struct csv_writer *w)
{
	if (w->column++ > 0)
		putc_unlocked(',', w->file);
}

void csv_str(struct csv_writer *w, const char *s)
{
	separate(w);
	if (!s)
		return;
	if (s[strcspn(s, ",\"\r\n")] == '\0') {
		fputs_unlocked(s, w->file);
		return;
	}
	putc_unlocked('"', w->file);
	for (; *s; s++) {
		if (*s == '"')
			putc_unlocked('"', w->file);
		putc_unlocked(*s, w->file);
	}
	putc_unlocked('"', w->file);
}

/* v in base (10 or 16, lower case), after prefix. */
static void put_number(struct csv_writer *w, const char *prefix, uint64_t v, unsigned base)
{
	char digits[24];
	size_t n = sizeof(digits);

	do
		digits[--n] = "0123456789abcdef"[v % base];
	while ((v /= base) > 0);
	separate(w);
	fputs_unlocked(prefix, w->file);
	fwrite_unlocked(digits + n, 1, sizeof(digits) - n, w->file);
}

void csv_u64(struct csv_writer *w, uint64_t v)
{
	put_number(w, "", v, 10);
}

void csv_hex(struct csv_writer *w, uint64_t v)
{
	put_number(w, "0x", v, 16);
}

void csv_empty(struct csv_writer *w)
{
	separate(w);
}

void csv_end_row(struct csv_writer *w)
{
	putc_unlocked('\n', w->file);
	w->column = 0;
}

void csv_header(struct csv_writer *w, const char *const *names)
{
	for (; *names; names++)
		csv_str(w, *names);
	csv_end_row(w);
}
