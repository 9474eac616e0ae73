#include <stdlib.h>
#include <string.h>

#include "csv.h"
#include "csv_read.h"
#include "suites.h"

/* A reader over text in memory (the caller closes r->file and frees r). */
static void reader_of(struct csv_reader *r, const char *text)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");

	ck_assert_ptr_nonnull(f);
	csv_reader_init(r, f, "t.csv");
}

static void done(struct csv_reader *r)
{
	fclose(r->file);
	csv_reader_free(r);
}

START_TEST(plain_rows_and_header_lookup)
{
	struct csv_reader r;
	char err[256];

	reader_of(&r, "pid,exe,calls\n7,/bin/sh,12\n8,,\n");
	ck_assert_int_eq(csv_read_row(&r, err, sizeof(err)), 1);
	ck_assert_int_eq(csv_column(&r, "exe"), 1);
	ck_assert_int_eq(csv_column(&r, "calls"), 2);
	ck_assert_int_eq(csv_column(&r, "nope"), -1);
	ck_assert_int_eq(csv_read_row(&r, err, sizeof(err)), 1);
	ck_assert_uint_eq(r.nfields, 3);
	ck_assert_str_eq(r.fields[0], "7");
	ck_assert_str_eq(r.fields[1], "/bin/sh");
	ck_assert_str_eq(r.fields[2], "12");
	ck_assert_uint_eq(r.line, 2);
	ck_assert_int_eq(csv_read_row(&r, err, sizeof(err)), 1);
	ck_assert_uint_eq(r.nfields, 3);
	ck_assert_str_eq(r.fields[1], "");
	ck_assert_str_eq(r.fields[2], "");
	ck_assert_int_eq(csv_read_row(&r, err, sizeof(err)), 0);
	done(&r);
}
END_TEST

START_TEST(quoted_fields_keep_commas_quotes_and_newlines)
{
	struct csv_reader r;
	char err[256];

	reader_of(&r, "\"a,b\",\"say \"\"hi\"\"\",\"two\nlines\",\"\",\"cr\r\n\"\nnext,row\n");
	ck_assert_int_eq(csv_read_row(&r, err, sizeof(err)), 1);
	ck_assert_uint_eq(r.nfields, 5);
	ck_assert_str_eq(r.fields[0], "a,b");
	ck_assert_str_eq(r.fields[1], "say \"hi\"");
	ck_assert_str_eq(r.fields[2], "two\nlines");
	ck_assert_str_eq(r.fields[3], "");
	ck_assert_str_eq(r.fields[4], "cr\r\n");
	ck_assert_uint_eq(r.line, 1);
	ck_assert_int_eq(csv_read_row(&r, err, sizeof(err)), 1);
	ck_assert_str_eq(r.fields[0], "next");
	/* the row before took lines 1 to 3 */
	ck_assert_uint_eq(r.line, 4);
	done(&r);
}
END_TEST

START_TEST(crlf_rows_and_no_final_newline)
{
	struct csv_reader r;
	char err[256];

	reader_of(&r, "a,b\r\n1,2\r\n\r\n3,x\ry");
	ck_assert_int_eq(csv_read_row(&r, err, sizeof(err)), 1);
	ck_assert_str_eq(r.fields[1], "b");
	ck_assert_int_eq(csv_read_row(&r, err, sizeof(err)), 1);
	ck_assert_str_eq(r.fields[1], "2");
	/* a blank line is skipped; a lone CR is data */
	ck_assert_int_eq(csv_read_row(&r, err, sizeof(err)), 1);
	ck_assert_uint_eq(r.line, 4);
	ck_assert_uint_eq(r.nfields, 2);
	ck_assert_str_eq(r.fields[0], "3");
	ck_assert_str_eq(r.fields[1], "x\ry");
	ck_assert_int_eq(csv_read_row(&r, err, sizeof(err)), 0);
	done(&r);
}
END_TEST

/* Reads rows of text until the end or an error; returns the last result. */
static int read_all(const char *text, char *err, size_t errlen)
{
	struct csv_reader r;
	int got;

	reader_of(&r, text);
	while ((got = csv_read_row(&r, err, errlen)) == 1)
		;
	done(&r);
	return got;
}

START_TEST(malformed_rows_name_file_and_line)
{
	char err[256];

	ck_assert_int_eq(read_all("a,b\n1,\"open\n", err, sizeof(err)), -1);
	ck_assert_str_eq(err, "t.csv:2: malformed CSV: a quoted field is not closed before the end of the file");
	ck_assert_int_eq(read_all("a,b\n\"x\ny\",2\n3,a\"b\n", err, sizeof(err)), -1);
	ck_assert_str_eq(err, "t.csv:4: malformed CSV: a quote inside an unquoted field");
	ck_assert_int_eq(read_all("\"x\"y,1\n", err, sizeof(err)), -1);
	ck_assert_str_eq(err, "t.csv:1: malformed CSV: a character after the closing quote of a field");
}
END_TEST

/* What csv.h writes, csv_read gives back. */
START_TEST(reads_what_the_writer_wrote)
{
	static const char *const values[] = { "plain", "a,b", "\"q\"", "l1\nl2", "cr\r", "", "x\r\ny", NULL };
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	struct csv_writer w = { f, 0 };
	struct csv_reader r;
	char err[256];

	for (int row = 0; row < 3; row++) {
		for (const char *const *v = values; *v; v++)
			csv_str(&w, *v);
		csv_end_row(&w);
	}
	fclose(f);
	reader_of(&r, text);
	for (int row = 0; row < 3; row++) {
		ck_assert_int_eq(csv_read_row(&r, err, sizeof(err)), 1);
		ck_assert_uint_eq(r.nfields, 7);
		for (size_t i = 0; values[i]; i++)
			ck_assert_str_eq(r.fields[i], values[i]);
	}
	ck_assert_int_eq(csv_read_row(&r, err, sizeof(err)), 0);
	done(&r);
	free(text);
}
END_TEST

/* Rows longer than the first buffer, with many fields. */
START_TEST(long_rows_grow_the_buffers)
{
	char *text = malloc(100000);
	size_t n = 0;
	struct csv_reader r;
	char err[256];

	for (int i = 0; i < 5000; i++)
		n += (size_t)sprintf(text + n, "%sfield%d", i ? "," : "", i);
	text[n++] = '\n';
	text[n] = '\0';
	reader_of(&r, text);
	ck_assert_int_eq(csv_read_row(&r, err, sizeof(err)), 1);
	ck_assert_uint_eq(r.nfields, 5000);
	ck_assert_str_eq(r.fields[0], "field0");
	ck_assert_str_eq(r.fields[4999], "field4999");
	done(&r);
	free(text);
}
END_TEST

Suite *csv_read_suite(void)
{
	return single_case_suite("csv_read", (const TTest *const[]){
		plain_rows_and_header_lookup, quoted_fields_keep_commas_quotes_and_newlines,
		crlf_rows_and_no_final_newline, malformed_rows_name_file_and_line,
		reads_what_the_writer_wrote, long_rows_grow_the_buffers, NULL });
}
