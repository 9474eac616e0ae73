#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log_builder.h"
#include "log_csv.h"
#include "log_file.h"
#include "suites.h"
#include "syscall_names.h"

static struct log_site site_rows[] = {
	{ "", 0, false, "" },
	{ "/lib/libc.so.6", 0x1a2b, true, "read+0x1b" },
	{ "/opt/a,b \"q\"/x.so", 0x10, true, "" },
	{ "", 0, false, "" },
};
static const struct log_sites sites = { site_rows, 4, NULL };

/* Converts the log at data (size bytes) as c says; the CSV text (free it). */
static char *convert(struct log_csv *c, const void *data, size_t size, int *status, char *err, size_t errlen)
{
	struct log_file f;
	struct log_row_parts parts;
	FILE *out = tmpfile();
	char *text;
	long len;

	ck_assert_ptr_nonnull(out);
	ck_assert_int_ge(log_file_view(&f, data, size, err, errlen), 0);
	ck_assert_int_eq(log_row_parts_init(&parts, &sites), 0);
	c->log = &f;
	c->parts = &parts;
	c->out = fileno(out);
	*status = log_csv_write(c, err, errlen);
	log_row_parts_free(&parts);
	len = lseek(c->out, 0, SEEK_END);
	text = calloc(1, (size_t)len + 1);
	ck_assert_int_eq(pread(c->out, text, (size_t)len, 0), len);
	fclose(out);
	return text;
}

START_TEST(rows_have_every_column)
{
	const struct log_entry entries[] = {
		test_entry(100, 10, 10, 0, 1, LOG_INPROCESS | LOG_HAS_RET, 5),
		test_entry(200, 10, 11, 59, 0, LOG_EARLY | LOG_HAS_RET, -2),
		test_entry(300, 12, 12, 60, 2, LOG_INPROCESS | LOG_EARLY, 0),
		test_entry(UINT64_MAX, INT32_MAX, 1, SYSCALL_NR_SPAN + 1, 3, LOG_HAS_RET, INT64_MIN),
		test_entry(0, 1, 1, 1000, 1, LOG_HAS_RET, 0),
		test_entry(7, 1, 1, SYSCALL_NR_OUT_OF_RANGE, 0, LOG_HAS_RET, INT64_MAX),
	};
	size_t size;
	unsigned char *data = test_log(entries, 6, &size);
	struct log_csv c = { .threads = 1 };
	char err[256];
	int status;
	char *text = convert(&c, data, size, &status, err, sizeof(err));

	ck_assert_int_eq(status, 0);
	ck_assert_uint_eq(c.rows, 6);
	ck_assert_str_eq(text, "t_ns,pid,tid,syscall,path,early,object,offset,ret\n"
			       "100,10,10,read,inprocess,0,/lib/libc.so.6,0x1a2b,5\n"
			       "200,10,11,execve,ptraced,1,,,-2\n"
			       "300,12,12,exit,inprocess,1,\"/opt/a,b \"\"q\"\"/x.so\",0x10,\n"
			       "18446744073709551615,2147483647,1,exit,ptraced,0,,,-9223372036854775808\n"
			       "0,1,1,syscall_0x3e8,ptraced,0,/lib/libc.so.6,0x1a2b,0\n"
			       "7,1,1,syscall_out_of_range,ptraced,0,,,9223372036854775807\n");
	free(text);
	free(data);
}
END_TEST

START_TEST(empty_log_is_the_header)
{
	size_t size;
	unsigned char *data = test_log(NULL, 0, &size);
	struct log_csv c = { .threads = 4 };
	char err[256];
	int status;
	char *text = convert(&c, data, size, &status, err, sizeof(err));

	ck_assert_int_eq(status, 0);
	ck_assert_str_eq(text, "t_ns,pid,tid,syscall,path,early,object,offset,ret\n");
	free(text);
	free(data);
}
END_TEST

START_TEST(sites_past_the_file_are_corrupt_or_no_site)
{
	const struct log_entry entries[] = { test_entry(1, 2, 3, 0, 9, 0, 0) };
	size_t size;
	unsigned char *data = test_log(entries, 1, &size);
	struct log_csv strict = { .threads = 1 }, lenient = { .threads = 1, .any_site = true };
	char err[256];
	int status;
	char *text = convert(&strict, data, size, &status, err, sizeof(err));

	ck_assert_int_eq(status, -1);
	ck_assert_str_eq(err, "corrupt entry at byte offset 64: site 9 not in the sites file (ids below 4)");
	free(text);
	text = convert(&lenient, data, size, &status, err, sizeof(err));
	ck_assert_int_eq(status, 0);
	ck_assert_str_eq(text, "t_ns,pid,tid,syscall,path,early,object,offset,ret\n1,2,3,read,ptraced,0,,,\n");
	free(text);
	free(data);
}
END_TEST

static size_t count_lines(const char *text)
{
	size_t n = 0;

	for (; *text; text++)
		n += *text == '\n';
	return n;
}

/* A log of count entries of every kind, in a pattern that does not repeat with
 * chunk sizes; its size in *size. */
static unsigned char *varied_log(size_t count, size_t *size)
{
	struct log_entry *e = calloc(count, sizeof(*e));
	unsigned char *data;

	for (size_t i = 0; i < count; i++)
		e[i] = test_entry(i * 1000 + i % 13, 100 + (int32_t)(i % 17), 100 + (int32_t)(i % 29),
				  (uint16_t)(i * 7 % SYSCALL_INDEX_COUNT), (uint32_t)(i % 4), (uint8_t)(i % 8),
				  (int64_t)(i % 5) - 2);
	data = test_log(e, count, size);
	free(e);
	return data;
}

/* Entry i of a log made by test_log, to spoil. */
static struct log_entry *entry_in(unsigned char *data, size_t i)
{
	return (struct log_entry *)(data + sizeof(struct log_header)) + i;
}

START_TEST(chunks_and_threads_do_not_change_the_output)
{
	static const struct {
		unsigned threads;
		uint64_t chunk;
	} runs[] = { { 1, 0 }, { 2, 0 }, { 1, 7 }, { 2, 7 }, { 2, 1 }, { 3, 64 }, { 2, 999 }, { 2, 1000 }, { 2, 1001 } };
	size_t size;
	unsigned char *data = varied_log(1000, &size);
	char err[256], *first = NULL;

	for (size_t r = 0; r < sizeof(runs) / sizeof(runs[0]); r++) {
		struct log_csv c = { .threads = runs[r].threads, .chunk_entries = runs[r].chunk };
		int status;
		char *text = convert(&c, data, size, &status, err, sizeof(err));

		ck_assert_int_eq(status, 0);
		ck_assert_uint_eq(c.rows, 1000);
		if (!first) {
			first = text;
			continue;
		}
		ck_assert_str_eq(text, first);
		free(text);
	}
	ck_assert_uint_eq(count_lines(first), 1001);
	free(first);
	free(data);
}
END_TEST

START_TEST(corrupt_entry_stops_the_conversion)
{
	size_t size;
	unsigned char *data = varied_log(1000, &size);
	char err[256];

	entry_in(data, 500)->check = 0;
	entry_in(data, 700)->pid = -1;
	for (unsigned threads = 1; threads <= 2; threads++) {
		struct log_csv c = { .threads = threads, .chunk_entries = 9 };
		int status;
		char *text = convert(&c, data, size, &status, err, sizeof(err));

		ck_assert_int_eq(status, -1);
		ck_assert(!c.write_failed);
		ck_assert_str_eq(err, "corrupt entry at byte offset 16064: check byte 0x00, expected 0xa5");
		free(text);
	}
	free(data);
}
END_TEST

START_TEST(salvage_keeps_the_rows_before_a_corrupt_entry)
{
	size_t size;
	unsigned char *data = varied_log(1000, &size);
	char err[256];

	entry_in(data, 500)->flags = 0x80;
	for (unsigned threads = 1; threads <= 2; threads++) {
		struct log_csv c = { .threads = threads, .chunk_entries = 9, .keep_before_corrupt = true };
		int status;
		char *text = convert(&c, data, size, &status, err, sizeof(err));

		ck_assert_int_eq(status, 1);
		ck_assert_uint_eq(c.rows, 500);
		ck_assert_uint_eq(count_lines(text), 501);
		ck_assert_str_eq(err, "corrupt entry at byte offset 16064: unknown flag bits 0x80");
		ck_assert(strstr(text, "\n499005,") && !strstr(text, "\n500006,")); /* t_ns of 499 and 500 */
		free(text);
	}
	free(data);
}
END_TEST

START_TEST(write_errors_are_reported_as_such)
{
	size_t size;
	unsigned char *data = varied_log(1000, &size);
	struct log_file f;
	struct log_row_parts parts;
	struct log_csv c = { .log = &f, .parts = &parts, .threads = 2, .chunk_entries = 10 };
	char err[256];

	c.out = open("/dev/full", O_WRONLY);
	ck_assert_int_ge(c.out, 0);
	ck_assert_int_eq(log_file_view(&f, data, size, err, sizeof(err)), 0);
	ck_assert_int_eq(log_row_parts_init(&parts, &sites), 0);
	ck_assert_int_eq(log_csv_write(&c, err, sizeof(err)), -1);
	log_row_parts_free(&parts);
	ck_assert(c.write_failed);
	ck_assert_str_eq(err, "write: No space left on device");
	close(c.out);
	free(data);
}
END_TEST

struct progress_seen {
	unsigned calls;
	uint64_t last_rows, total;
};

static void note_progress(void *arg, uint64_t rows, uint64_t total)
{
	struct progress_seen *seen = arg;

	ck_assert_uint_ge(rows, seen->last_rows);
	seen->calls++;
	seen->last_rows = rows;
	seen->total = total;
}

START_TEST(progress_ends_at_the_total)
{
	size_t size;
	unsigned char *data = varied_log(1000, &size);
	struct progress_seen seen = { 0 };
	struct log_csv c = { .threads = 2, .chunk_entries = 3, .progress = note_progress, .progress_arg = &seen };
	char err[256];
	int status;

	free(convert(&c, data, size, &status, err, sizeof(err)));
	ck_assert_int_eq(status, 0);
	ck_assert_uint_ge(seen.calls, 1);
	ck_assert_uint_eq(seen.last_rows, 1000);
	ck_assert_uint_eq(seen.total, 1000);
	free(data);
}
END_TEST

Suite *log2csv_suite(void)
{
	return single_case_suite("log2csv", (const TTest *const[]){
		rows_have_every_column, empty_log_is_the_header, sites_past_the_file_are_corrupt_or_no_site,
		chunks_and_threads_do_not_change_the_output, corrupt_entry_stops_the_conversion,
		salvage_keeps_the_rows_before_a_corrupt_entry, write_errors_are_reported_as_such, progress_ends_at_the_total, NULL });
}
