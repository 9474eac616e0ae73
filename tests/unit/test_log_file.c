#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log_builder.h"
#include "log_file.h"
#include "suites.h"
#include "syscall_names.h"

static const struct log_entry three[] = {
	{ .t_ns = 1, .pid = 2, .tid = 2, .site = 1, .syscall = 0, .flags = LOG_HAS_RET, .check = LOG_ENTRY_CHECK },
	{ .t_ns = 2, .pid = 2, .tid = 3, .site = 0, .syscall = 1, .flags = LOG_INPROCESS, .check = LOG_ENTRY_CHECK },
	{ .t_ns = 3, .pid = 4, .tid = 4, .site = 2, .syscall = 2, .flags = LOG_EARLY, .check = LOG_ENTRY_CHECK },
};

/* log_file_view's status and message for a log of `three` changed by edit. */
static int view_edited(void (*edit)(unsigned char *, size_t *), size_t *count, char *err, size_t errlen)
{
	size_t size;
	unsigned char *data = test_log(three, 3, &size);
	struct log_file f;
	int status;

	edit(data, &size);
	status = log_file_view(&f, data, size, err, errlen);
	*count = f.count;
	free(data);
	return status;
}

static void unchanged(unsigned char *data, size_t *size)
{
	(void)data, (void)size;
}

START_TEST(good_log_is_viewed_whole)
{
	char err[256];
	size_t count;

	ck_assert_int_eq(view_edited(unchanged, &count, err, sizeof(err)), 0);
	ck_assert_uint_eq(count, 3);
}
END_TEST

static void short_header(unsigned char *data, size_t *size)
{
	(void)data;
	*size = 10;
}
static void bad_magic(unsigned char *data, size_t *size)
{
	(void)size;
	data[3] = 'x';
}
static void bad_version(unsigned char *data, size_t *size)
{
	(void)size;
	data[8] = 2;
}
static void bad_entry_size(unsigned char *data, size_t *size)
{
	(void)size;
	data[12] = 24;
}
static void reserved_set(unsigned char *data, size_t *size)
{
	(void)size;
	data[41] = 1; /* in reserved[3], which starts at 28 + 3 * 4 */
}
static void cut_in_entry(unsigned char *data, size_t *size)
{
	(void)data;
	*size -= 27; /* 5 bytes of the third entry are left */
}

START_TEST(header_problems_name_their_offset)
{
	static const struct {
		void (*edit)(unsigned char *, size_t *);
		const char *message;
	} cases[] = {
		{ short_header, "truncated header: 10 bytes, a log starts with a 64-byte header" },
		{ bad_magic, "not a systrace log: no magic \"SYSTRLOG\" at byte offset 0" },
		{ bad_version, "log version 2 at byte offset 8, this reader knows version 1" },
		{ bad_entry_size, "entry size 24 at byte offset 12, expected 32" },
		{ reserved_set, "reserved header field not zero at byte offset 40" },
	};
	char err[256];
	size_t count;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ck_assert_int_eq(view_edited(cases[i].edit, &count, err, sizeof(err)), -1);
		ck_assert_str_eq(err, cases[i].message);
	}
}
END_TEST

START_TEST(truncated_entry_keeps_the_whole_ones)
{
	char err[256];
	size_t count;

	ck_assert_int_eq(view_edited(cut_in_entry, &count, err, sizeof(err)), LOG_FILE_TRUNCATED);
	ck_assert_uint_eq(count, 2);
	ck_assert_str_eq(err, "truncated entry at byte offset 128 (5 of its 32 bytes; 2 whole entries before it)");
}
END_TEST

/* The message log_entry_check gives entry 1 of `three` once edit changed it. */
static const char *entry_problem(void (*edit)(struct log_entry *), char *err, size_t errlen)
{
	size_t size;
	unsigned char *data = test_log(three, 3, &size);
	struct log_file f;
	bool good;

	ck_assert_int_eq(log_file_view(&f, data, size, err, errlen), 0);
	edit((struct log_entry *)(data + sizeof(struct log_header)) + 1);
	ck_assert(log_entry_check(&f, 0, 3, err, errlen));
	good = log_entry_check(&f, 1, 3, err, errlen);
	free(data);
	return good ? NULL : err;
}

static void zeroed(struct log_entry *e)
{
	memset(e, 0, sizeof(*e));
}
static void unknown_flag(struct log_entry *e)
{
	e->flags |= 0x10;
}
static void syscall_too_big(struct log_entry *e)
{
	e->syscall = SYSCALL_INDEX_COUNT;
}
static void site_unknown(struct log_entry *e)
{
	e->site = 3;
}
static void pid_zero(struct log_entry *e)
{
	e->pid = 0;
}
static void tid_negative(struct log_entry *e)
{
	e->tid = -7;
}
static void largest_good(struct log_entry *e)
{
	e->syscall = SYSCALL_INDEX_COUNT - 1;
	e->site = 2;
	e->flags = LOG_FLAGS_KNOWN;
}

START_TEST(entry_problems_name_offset_and_kind)
{
	static const struct {
		void (*edit)(struct log_entry *);
		const char *message;
	} cases[] = {
		{ zeroed, "corrupt entry at byte offset 96: check byte 0x00, expected 0xa5" },
		{ unknown_flag, "corrupt entry at byte offset 96: unknown flag bits 0x10" },
		{ syscall_too_big, "corrupt entry at byte offset 96: syscall index 3072, expected below 3072" },
		{ site_unknown, "corrupt entry at byte offset 96: site 3 not in the sites file (ids below 3)" },
		{ pid_zero, "corrupt entry at byte offset 96: pid 0, expected a positive id" },
		{ tid_negative, "corrupt entry at byte offset 96: tid -7, expected a positive id" },
	};
	char err[256];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *problem = entry_problem(cases[i].edit, err, sizeof(err));

		ck_assert_ptr_nonnull(problem);
		ck_assert_str_eq(problem, cases[i].message);
	}
	ck_assert_ptr_null(entry_problem(largest_good, err, sizeof(err)));
}
END_TEST

/* Writes `three`, cut by `cut` bytes, to a new file in dir; its path in path. */
static void write_log(char *dir, char *path, size_t pathlen, size_t cut)
{
	size_t size;
	unsigned char *data = test_log(three, 3, &size);

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, pathlen, "%s/%s", dir, LOG_FILE_NAME);
	ck_assert_int_eq(test_write_file(path, data, size - cut), 0);
	free(data);
}

/* That a call on path returned want, with the message "PATH: what". */
static void expect_failure(int got, int want, const char *err, const char *path, const char *what)
{
	char expected[600];

	snprintf(expected, sizeof(expected), "%s: %s", path, what);
	ck_assert_int_eq(got, want);
	ck_assert_str_eq(err, expected);
}

START_TEST(open_maps_a_good_file)
{
	char dir[] = "/tmp/test_log_file.XXXXXX", path[256], err[512];
	struct log_file f;

	write_log(dir, path, sizeof(path), 0);
	ck_assert_int_eq(log_file_open(&f, path, err, sizeof(err)), 0);
	ck_assert(f.mapped);
	ck_assert_uint_eq(f.count, 3);
	ck_assert_int_eq(f.entries[2].pid, 4);
	log_file_close(&f);
	ck_assert_ptr_null(f.header);
	unlink(path);
	rmdir(dir);
}
END_TEST

START_TEST(open_refuses_what_map_salvages)
{
	static const char what[] = "truncated entry at byte offset 128 (31 of its 32 bytes; 2 whole entries before it)";
	char dir[] = "/tmp/test_log_file.XXXXXX", path[256], err[512];
	struct log_file f;

	write_log(dir, path, sizeof(path), 1);
	expect_failure(log_file_open(&f, path, err, sizeof(err)), -1, err, path, what);
	ck_assert_ptr_null(f.header);
	expect_failure(log_file_map(&f, path, err, sizeof(err)), LOG_FILE_TRUNCATED, err, path, what);
	ck_assert_uint_eq(f.count, 2);
	ck_assert_int_eq(f.entries[1].tid, 3);
	log_file_close(&f);
	unlink(path);
	rmdir(dir);
}
END_TEST

START_TEST(open_names_a_missing_or_empty_file)
{
	char dir[] = "/tmp/test_log_file.XXXXXX", path[256], err[512];
	struct log_file f;

	write_log(dir, path, sizeof(path), 0);
	ck_assert_int_eq(test_write_file(path, "", 0), 0);
	expect_failure(log_file_open(&f, path, err, sizeof(err)), -1, err, path,
		       "truncated header: 0 bytes, a log starts with a 64-byte header");
	unlink(path);
	expect_failure(log_file_map(&f, path, err, sizeof(err)), -1, err, path, "No such file or directory");
	rmdir(dir);
}
END_TEST

Suite *log_file_suite(void)
{
	return single_case_suite("log_file", (const TTest *const[]){
		good_log_is_viewed_whole, header_problems_name_their_offset, truncated_entry_keeps_the_whole_ones,
		entry_problems_name_offset_and_kind, open_maps_a_good_file, open_refuses_what_map_salvages,
		open_names_a_missing_or_empty_file, NULL });
}
