#include "csv.h"

#include <stdbool.h>
#include <string.h>

/* A row is written a field at a time for every image of a run: stdio's unlocked
 * calls and a hand-made number, not fprintf (a FILE is only ever written by one
 * thread at a time here). */
static void separate(struct csv_writer *w)
{
	if (w->column++ > 0)
		putc_unlocked(',', w->file);
}

static bool needs_quotes(const char *s)
{
	return s[strcspn(s, ",\"\r\n")] != '\0';
}

/* s, its quotes doubled when the field is quoted */
static void put_text(struct csv_writer *w, const char *s, bool quoted)
{
	if (!quoted) {
		fputs_unlocked(s, w->file);
		return;
	}
	for (; *s; s++) {
		if (*s == '"')
			putc_unlocked('"', w->file);
		putc_unlocked(*s, w->file);
	}
}

void csv_str(struct csv_writer *w, const char *s)
{
	bool quoted;

	separate(w);
	if (!s)
		return;
	quoted = needs_quotes(s);
	if (quoted)
		putc_unlocked('"', w->file);
	put_text(w, s, quoted);
	if (quoted)
		putc_unlocked('"', w->file);
}

/* v in decimal, or in hex after "0x", at the end of text: where it begins. The
 * digits are built from the end (a division by a constant, not by a variable
 * base), to be written with one call. */
static size_t format_number(char text[24], uint64_t v, bool hex)
{
	size_t n = 24;

	if (hex) {
		do
			text[--n] = "0123456789abcdef"[v & 15];
		while ((v >>= 4) > 0);
		text[--n] = 'x';
		text[--n] = '0';
	} else {
		do
			text[--n] = (char)('0' + v % 10);
		while ((v /= 10) > 0);
	}
	return n;
}

static void put_number(struct csv_writer *w, uint64_t v, bool hex)
{
	char text[24];
	size_t n = format_number(text, v, hex);

	separate(w);
	fwrite_unlocked(text + n, 1, sizeof(text) - n, w->file);
}

void csv_u64(struct csv_writer *w, uint64_t v)
{
	put_number(w, v, false);
}

void csv_hex(struct csv_writer *w, uint64_t v)
{
	put_number(w, v, true);
}

void csv_str_plus_hex(struct csv_writer *w, const char *s, uint64_t v)
{
	char text[24];
	size_t n = format_number(text, v, true);
	bool quoted = needs_quotes(s);

	separate(w);
	if (quoted)
		putc_unlocked('"', w->file);
	put_text(w, s, quoted);
	putc_unlocked('+', w->file);
	fwrite_unlocked(text + n, 1, sizeof(text) - n, w->file);
	if (quoted)
		putc_unlocked('"', w->file);
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
