#include "csv.h"

#include <stdbool.h>
#include <string.h>

/* A row is written for every image and site of a run, a field at a time: each field
 * goes into the writer's row buffer (a memcpy, a hand-made number), and the row to
 * the FILE with one call at its end. A field longer than the buffer goes to the
 * FILE after what the buffer holds. */
void csv_flush(struct csv_writer *w)
{
	fwrite_unlocked(w->row, 1, w->len, w->file);
	w->len = 0;
}

static void put_bytes(struct csv_writer *w, const char *s, size_t n)
{
	if (w->len + n > sizeof(w->row)) {
		csv_flush(w);
		if (n > sizeof(w->row)) {
			fwrite_unlocked(s, 1, n, w->file);
			return;
		}
	}
	memcpy(w->row + w->len, s, n);
	w->len += n;
}

static void put_char(struct csv_writer *w, char c)
{
	if (w->len == sizeof(w->row))
		csv_flush(w);
	w->row[w->len++] = c;
}

static void separate(struct csv_writer *w)
{
	if (w->column++ > 0)
		put_char(w, ',');
}

/* A field of s then tail (tail_len bytes with none of the characters that quote a
 * field), quoted when s needs it, its quotes doubled. */
static void put_field(struct csv_writer *w, const char *s, const char *tail, size_t tail_len)
{
	size_t plain = strcspn(s, ",\"\r\n");
	bool quoted = s[plain] != '\0';

	separate(w);
	if (!quoted) {
		put_bytes(w, s, plain);
	} else {
		put_char(w, '"');
		for (; *s; s++) {
			if (*s == '"')
				put_char(w, '"');
			put_char(w, *s);
		}
	}
	put_bytes(w, tail, tail_len);
	if (quoted)
		put_char(w, '"');
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
 * base). */
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
	put_bytes(w, text + n, sizeof(text) - n);
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
	put_char(w, '\n');
	csv_flush(w);
	w->column = 0;
}

void csv_header(struct csv_writer *w, const char *const *names)
{
	for (; *names; names++)
		csv_str(w, *names);
	csv_end_row(w);
}
