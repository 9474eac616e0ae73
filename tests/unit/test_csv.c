#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csv.h"
#include "suites.h"

/* Writes one row through fn into memory and returns it (caller frees). */
static char *row_of(void (*fn)(struct csv_writer *))
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct csv_writer w = { f, 0 };

	fn(&w);
	fclose(f);
	return buf;
}

static void plain_fields(struct csv_writer *w)
{
	csv_str(w, "abc");
	csv_u64(w, 18446744073709551615ULL);
	csv_hex(w, 0x1fc45);
	csv_empty(w);
	csv_str(w, NULL);
	csv_end_row(w);
}

START_TEST(plain_fields_are_not_quoted)
{
	char *row = row_of(plain_fields);

	ck_assert_str_eq(row, "abc,18446744073709551615,0x1fc45,,\n");
	free(row);
}
END_TEST

static void special_fields(struct csv_writer *w)
{
	csv_str(w, "a,b");
	csv_str(w, "say \"hi\"");
	csv_str(w, "two\nlines");
	csv_str(w, "cr\r");
	csv_str(w, "");
	csv_end_row(w);
}

START_TEST(fields_with_separators_are_quoted)
{
	char *row = row_of(special_fields);

	ck_assert_str_eq(row, "\"a,b\",\"say \"\"hi\"\"\",\"two\nlines\",\"cr\r\",\n");
	free(row);
}
END_TEST

static void symbol_fields(struct csv_writer *w)
{
	csv_str_plus_hex(w, "pthread_sigmask@@GLIBC_2.32", 0x42);
	csv_str_plus_hex(w, "f", 0);
	csv_str_plus_hex(w, "operator,\"x\"", 0xffffffffffffffffULL);
	csv_end_row(w);
}

START_TEST(symbol_plus_offset_is_one_field)
{
	char *row = row_of(symbol_fields);

	ck_assert_str_eq(row, "pthread_sigmask@@GLIBC_2.32+0x42,f+0x0,\"operator,\"\"x\"\"+0xffffffffffffffff\"\n");
	free(row);
}
END_TEST

static void header_then_row(struct csv_writer *w)
{
	csv_header(w, (const char *const[]){ "pid", "exe", NULL });
	csv_u64(w, 7);
	csv_str(w, "/bin/a b");
	csv_end_row(w);
}

START_TEST(header_resets_columns)
{
	char *row = row_of(header_then_row);

	ck_assert_str_eq(row, "pid,exe\n7,/bin/a b\n");
	free(row);
}
END_TEST

/* Rows and fields of kilobytes, a quoted one among them: nothing lost or
 * reordered. */
static void long_fields(struct csv_writer *w)
{
	char plain[3000], quoted[1500];

	memset(plain, 'p', sizeof(plain) - 1);
	plain[sizeof(plain) - 1] = '\0';
	memset(quoted, '"', sizeof(quoted) - 1);
	quoted[sizeof(quoted) - 1] = '\0';
	for (int i = 0; i < 100; i++)
		csv_u64(w, 1000000 + (uint64_t)i);
	csv_str(w, plain);
	csv_str(w, quoted);
	csv_str_plus_hex(w, plain, 0x1f);
	csv_end_row(w);
}

START_TEST(long_rows_and_fields)
{
	char *row = row_of(long_fields), *p = row;

	for (int i = 0; i < 100; i++) {
		char num[16];

		snprintf(num, sizeof(num), "%d,", 1000000 + i);
		ck_assert_int_eq(strncmp(p, num, 8), 0);
		p += 8;
	}
	ck_assert_uint_eq(strspn(p, "p"), 2999);
	p += 2999;
	ck_assert_int_eq(*p++, ',');
	/* quoted: its 1499 quotes doubled, between two */
	ck_assert_int_eq(*p++, '"');
	ck_assert_uint_eq(strspn(p, "\""), 2 * 1499 + 1);
	p += 2 * 1499 + 1;
	ck_assert_int_eq(*p++, ',');
	ck_assert_uint_eq(strspn(p, "p"), 2999);
	p += 2999;
	ck_assert_str_eq(p, "+0x1f\n");
	free(row);
}
END_TEST

Suite *csv_suite(void)
{
	return single_case_suite("csv", (const TTest *const[]){
		plain_fields_are_not_quoted, fields_with_separators_are_quoted, symbol_plus_offset_is_one_field,
		header_resets_columns, long_rows_and_fields, NULL });
}
