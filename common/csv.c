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

/* A field of s then tail (tail_len bytes with none of the characters that quote a
 * field), quoted when s needs it, its quotes doubled. */
static void put_field(struct csv_writer *w, const char *s, const char *tail, size_t tail_len)
{
	bool quoted = s[strcspn(s, ",\"\r\n")] != '\0';

	separate(w);
	if (!quoted) {
		fputs_unlocked(s, w->file);
	} else {
		putc_unlocked('"', w->file);
		for (; *s; s++) {
			if (*s == '"')
				putc_unlocked('"', w->file);
			putc_unlocked(*s, w->file);
		}
	}
	if (tail_len)
		fwrite_unlocked(tail, 1, tail_len, w->file);
	if (quoted)
		putc_unlocked('"', w->file);
}

void csv_str(struct csv_writer *w, const char *s)
{
	if (s)
		put_field(w, s, "", 0);
	else
		separate(w);
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

	text[--n] = '+';
	put_field(w, s, text + n, sizeof(text) - n);
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
