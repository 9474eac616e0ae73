#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log_builder.h"
#include "log_file.h"
#include "suites.h"

/* A path to a new file holding text (in a new folder: remove both). */
static void write_text(char *dir, char *path, size_t pathlen, const char *text)
{
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, pathlen, "%s/%s", dir, LOG_SITES_FILE_NAME);
	ck_assert_int_eq(test_write_file(path, text, strlen(text)), 0);
}

/* Loads a sites file holding text; its status, and the message in err. */
static int load_text(const char *text, struct log_sites *s, char *path, size_t pathlen, char *err, size_t errlen)
{
	char dir[] = "/tmp/test_log_sites.XXXXXX";
	int status;

	write_text(dir, path, pathlen, text);
	status = log_sites_load(s, path, err, errlen);
	unlink(path);
	rmdir(dir);
	return status;
}

START_TEST(sparse_ids_index_the_table)
{
	struct log_sites s;
	char path[256], err[512];

	ck_assert_int_eq(load_text("site,object,offset,symbol\n"
				   "7,\"/opt/a,b\nc/x.so\",0x10,f+0x2\n"
				   "3,/lib/libc.so.6,0x1A2b,read+0x1b\n"
				   "5,,,\n",
				   &s, path, sizeof(path), err, sizeof(err)),
			 0);
	ck_assert_uint_eq(s.count, 8);
	ck_assert_str_eq(s.site[3].object, "/lib/libc.so.6");
	ck_assert_uint_eq(s.site[3].offset, 0x1a2b);
	ck_assert(s.site[3].has_offset);
	ck_assert_str_eq(s.site[3].symbol, "read+0x1b");
	ck_assert_str_eq(s.site[7].object, "/opt/a,b\nc/x.so");
	ck_assert_uint_eq(s.site[7].offset, 0x10);
	ck_assert(!s.site[5].has_offset);
	for (uint32_t id = 0; id < 3; id++) {
		ck_assert_str_eq(s.site[id].object, "");
		ck_assert_str_eq(s.site[id].symbol, "");
		ck_assert(!s.site[id].has_offset);
	}
	log_sites_free(&s);
}
END_TEST

START_TEST(columns_are_found_by_name)
{
	struct log_sites s;
	char path[256], err[512];

	ck_assert_int_eq(load_text("offset,site,object\r\n0xff,2,/bin/x\r\n", &s, path, sizeof(path), err,
				   sizeof(err)),
			 0);
	ck_assert_uint_eq(s.count, 3);
	ck_assert_str_eq(s.site[2].object, "/bin/x");
	ck_assert_uint_eq(s.site[2].offset, 0xff);
	ck_assert_str_eq(s.site[2].symbol, "");
	log_sites_free(&s);
}
END_TEST

START_TEST(missing_or_empty_file_names_no_site)
{
	struct log_sites s;
	char path[256], err[512];

	ck_assert_int_eq(log_sites_load(&s, "/nonexistent/syscall-log-sites.csv", err, sizeof(err)), 0);
	ck_assert_uint_eq(s.count, 1);
	ck_assert_str_eq(s.site[0].object, "");
	log_sites_free(&s);
	ck_assert_int_eq(load_text("", &s, path, sizeof(path), err, sizeof(err)), 0);
	ck_assert_uint_eq(s.count, 1);
	log_sites_free(&s);
}
END_TEST

START_TEST(bad_rows_are_named_by_line)
{
	static const struct {
		const char *text, *message;
	} cases[] = {
		{ "site,object\n1,/x\n", "line 1: the header has no column: 'offset'" },
		{ "site,object,offset\n1,/x,0x1\nx,/y,0x2\n", "line 3: site id is not a number below 4294967295: 'x'" },
		{ "site,object,offset\n4294967295,/y,0x2\n",
		  "line 2: site id is not a number below 4294967295: '4294967295'" },
		{ "site,object,offset\n-1,/y,0x2\n", "line 2: site id is not a number below 4294967295: '-1'" },
		{ "site,object,offset\n1,/y,12\n", "line 2: offset is not hexadecimal (0x...): '12'" },
		{ "site,object,offset\n1,/y,0xzz\n", "line 2: offset is not hexadecimal (0x...): '0xzz'" },
		{ "site,object,offset\n1,/y,0x-1\n", "line 2: offset is not hexadecimal (0x...): '0x-1'" },
		{ "site,object,offset,symbol\n1,/y,0x1\n", "line 2: too few fields in the row starting: '1'" },
		{ "site,object,offset\n1,/y,0x1\n2,\"/z\nq\",0x2\n1,/w,0x3\n", "line 5: site id 1 listed twice" },
		{ "site,object,offset\n0,/y,0x1\n", "line 2: site id 0 is reserved for no site" },
	};
	struct log_sites s;
	char path[256], err[512], expected[600];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ck_assert_int_eq(load_text(cases[i].text, &s, path, sizeof(path), err, sizeof(err)), -1);
		snprintf(expected, sizeof(expected), "%s: %s", path, cases[i].message);
		ck_assert_str_eq(err, expected);
		ck_assert_ptr_null(s.site);
	}
	/* the CSV reader's own complaint names the file too */
	ck_assert_int_eq(load_text("site,object,offset\n1,\"/y,0x1\n", &s, path, sizeof(path), err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, path));
}
END_TEST

START_TEST(partial_load_keeps_the_rows_before_a_bad_one)
{
	static const char cut[] = "site,object,offset\n1,/a,0x1\n2,\"/b,0x2\n"; /* cut in a quote */
	char dir[] = "/tmp/test_log_sites.XXXXXX", path[256], err[512];
	struct log_sites s;

	write_text(dir, path, sizeof(path), cut);
	ck_assert_int_eq(log_sites_load(&s, path, err, sizeof(err)), -1);
	ck_assert_ptr_null(s.site);
	ck_assert_int_eq(log_sites_load_partial(&s, path, err, sizeof(err)), 1);
	ck_assert_ptr_nonnull(strstr(err, path));
	ck_assert_uint_eq(s.count, 2);
	ck_assert_str_eq(s.site[1].object, "/a");
	log_sites_free(&s);
	ck_assert_int_eq(test_write_file(path, "site,object\n1,/a\n", 17), 0);
	ck_assert_int_eq(log_sites_load_partial(&s, path, err, sizeof(err)), -1); /* a bad header is not a cut */
	ck_assert_ptr_null(s.site);
	unlink(path);
	rmdir(dir);
}
END_TEST

Suite *log_sites_suite(void)
{
	return single_case_suite("log_sites", (const TTest *const[]){
		sparse_ids_index_the_table, columns_are_found_by_name, missing_or_empty_file_names_no_site,
		bad_rows_are_named_by_line, partial_load_keeps_the_rows_before_a_bad_one, NULL });
}
