#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis_fixture.h"
#include "commands.h"
#include "json_write.h"
#include "log_builder.h"
#include "log_format.h"
#include "run_dir.h"
#include "suites.h"

/* The text of a file (the caller frees it), or NULL if there is none. */
static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *text = NULL;
	size_t len = 0;

	if (!f)
		return NULL;
	ck_assert_int_eq(getdelim(&text, &len, '\0', f) > 0, 1);
	fclose(f);
	return text;
}

static size_t occurrences(const char *text, const char *what)
{
	size_t n = 0;

	for (const char *p = text; (p = strstr(p, what)); p += strlen(what))
		n++;
	return n;
}

/* Brackets and braces nest and close, outside strings, whose escapes are JSON's. */
static void assert_balanced_json(const char *text)
{
	char stack[64];
	int depth = 0;
	bool in_string = false;

	for (const char *p = text; *p; p++) {
		if (in_string) {
			ck_assert_msg((unsigned char)*p >= 0x20, "a raw control character in a string");
			if (*p == '\\') {
				p++;
				ck_assert_msg(strchr("\"\\/bfnrtu", *p) != NULL, "a bad escape \\%c", *p);
			} else if (*p == '"') {
				in_string = false;
			}
		} else if (*p == '"') {
			in_string = true;
		} else if (*p == '{' || *p == '[') {
			ck_assert_int_lt(depth, 64);
			stack[depth++] = *p == '{' ? '}' : ']';
		} else if (*p == '}' || *p == ']') {
			ck_assert_msg(depth > 0 && stack[depth - 1] == *p, "an unbalanced %c", *p);
			depth--;
		}
	}
	ck_assert(!in_string);
	ck_assert_int_eq(depth, 0);
}

/* Runs `export [extra] -o DIR/out.json DIR` and returns the output (NULL if none). */
static char *export_of(const char *dir, const char *extra, int *status)
{
	char out[512];
	char *argv[6];
	int argc = 0;

	snprintf(out, sizeof(out), "%s/out.json", dir);
	argv[argc++] = "export";
	if (extra) {
		argv[argc++] = "--max-syscalls";
		argv[argc++] = (char *)extra;
	}
	argv[argc++] = "-o";
	argv[argc++] = out;
	argv[argc++] = (char *)dir;
	*status = export_main(argc, argv);
	return slurp(out);
}

static char *fixture_dir(void)
{
	char *dir = run_dir_new();

	run_dir_write(dir, "processes.csv", FIXTURE_PROCESSES);
	run_dir_write(dir, "sites.csv", FIXTURE_SITES);
	run_dir_write(dir, "summary.csv", FIXTURE_SUMMARY);
	return dir;
}

START_TEST(processes_and_patches_without_a_log)
{
	char *dir = fixture_dir();
	int status;
	char *json = export_of(dir, NULL, &status);

	ck_assert_int_eq(status, 0);
	ck_assert_ptr_nonnull(json);
	assert_balanced_json(json);
	ck_assert(!strncmp(json, "{\"traceEvents\":[", 16));
	/* a track and a lifetime per row: pid 101 image 1 twice, on tracks of their own */
	ck_assert_uint_eq(occurrences(json, "\"name\":\"process_name\""), 5);
	ck_assert_uint_eq(occurrences(json, "\"ph\":\"X\""), 5);
	ck_assert_ptr_nonnull(strstr(json, "\"args\":{\"name\":\"/bin/we,ird \\\"x\\\" [pid 101 image 1]\"}"));
	ck_assert_ptr_nonnull(strstr(json, "\"name\":\"cat\",\"pid\":5,\"tid\":101,\"ts\":200000.000,\"dur\":50000.000"));
	ck_assert_ptr_nonnull(strstr(json, "\"name\":\"sh\",\"pid\":1,\"tid\":100,\"ts\":0.000,\"dur\":500000.000"));
	/* the tracks in the order the processes started: cat (row 4) is the last */
	ck_assert_ptr_nonnull(strstr(json, "\"pid\":5,\"tid\":101,\"args\":{\"sort_index\":4}"));
	/* a patch event per site row with patched_ns, on its own image's track */
	ck_assert_uint_eq(occurrences(json, "\"cat\":\"patch\""), 8);
	ck_assert_ptr_nonnull(strstr(json, "\"cat\":\"patch\",\"name\":\"close\",\"pid\":5,\"tid\":101,\"ts\":200300.000"));
	ck_assert_ptr_nonnull(strstr(json, "\"cat\":\"patch\",\"name\":\"mmap\",\"pid\":3,\"tid\":101,\"ts\":101500.000"));
	ck_assert_ptr_nonnull(strstr(json, "\"syscall_events\":\"none: no temporal log (systrace --log)\""));
	free(json);
	run_dir_remove(dir);
}
END_TEST

/* DIR/syscall-log.bin with these entries, and a sites file naming site 1. */
static void write_log(const char *dir, const struct log_entry *entries, size_t n)
{
	size_t size;
	unsigned char *log = test_log(entries, n, &size);
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", dir, LOG_FILE_NAME);
	ck_assert_int_eq(test_write_file(path, log, size), 0);
	free(log);
	run_dir_write(dir, LOG_SITES_FILE_NAME, "site,object,offset,symbol\n1,/lib/libc.so.6,0x10,read+0x5\n");
}

static const struct log_entry four_calls[] = {
	{ 1000000500, -2, 100, 100, 1, 0, LOG_INPROCESS | LOG_HAS_RET, LOG_ENTRY_CHECK },
	{ 1100500000, 0, 101, 101, 0, 110, 0, LOG_ENTRY_CHECK },
	{ 1200500000, 5, 101, 102, 1, 0, LOG_INPROCESS | LOG_EARLY | LOG_HAS_RET, LOG_ENTRY_CHECK },
	{ 1300000000, 0, 999, 999, 0, 39, LOG_HAS_RET, LOG_ENTRY_CHECK },
};

START_TEST(each_logged_syscall_on_its_image_and_thread)
{
	char *dir = fixture_dir();
	int status;
	char *json;

	write_log(dir, four_calls, 4);
	json = export_of(dir, NULL, &status);
	ck_assert_int_eq(status, 0);
	ck_assert_ptr_nonnull(json);
	assert_balanced_json(json);
	ck_assert_ptr_nonnull(strstr(json, "\"cat\":\"inprocess\",\"name\":\"read\",\"pid\":1,\"tid\":100,\"ts\":0.500,"
					   "\"args\":{\"early\":0,\"ret\":-2,\"object\":\"/lib/libc.so.6\","
					   "\"offset\":\"0x10\",\"symbol\":\"read+0x5\"}"));
	/* pid 101 at 1.1005 s: its first image (track 2); no site, no result */
	ck_assert_ptr_nonnull(strstr(json, "\"cat\":\"ptraced\",\"name\":\"getppid\",\"pid\":2,\"tid\":101,"
					   "\"ts\":100500.000,\"args\":{\"early\":0,\"ret\":null}"));
	/* pid 101 at 1.2005 s: the reused pid's cat image (track 5), on thread 102 */
	ck_assert_ptr_nonnull(strstr(json, "\"cat\":\"inprocess\",\"name\":\"read\",\"pid\":5,\"tid\":102,"
					   "\"ts\":200500.000,\"args\":{\"early\":1,\"ret\":5,"));
	ck_assert_uint_eq(occurrences(json, "\"cat\":\"inprocess\"") + occurrences(json, "\"cat\":\"ptraced\""), 3);
	ck_assert_ptr_nonnull(strstr(json, "\"syscall_events\":3,\"syscalls_in_log\":4,\"syscalls_without_process\":1,"
					   "\"capped\":false"));
	free(json);
	run_dir_remove(dir);
}
END_TEST

START_TEST(max_syscalls_caps_and_says_so)
{
	char *dir = fixture_dir();
	int status;
	char *json;

	write_log(dir, four_calls, 4);
	json = export_of(dir, "2", &status);
	ck_assert_int_eq(status, 0);
	assert_balanced_json(json);
	ck_assert_uint_eq(occurrences(json, "\"cat\":\"inprocess\"") + occurrences(json, "\"cat\":\"ptraced\""), 2);
	ck_assert_ptr_nonnull(strstr(json, "\"syscall_events\":2,\"syscalls_in_log\":4,\"syscalls_without_process\":0,"
					   "\"capped\":true,\"note\":\"capped by --max-syscalls: only the first 2 of 4"));
	free(json);
	run_dir_remove(dir);
}
END_TEST

START_TEST(a_corrupt_log_fails_and_leaves_no_file)
{
	char *dir = fixture_dir();
	struct log_entry bad[2] = { four_calls[0], four_calls[1] };
	int status;
	char *json;

	bad[1].check = 0;
	write_log(dir, bad, 2);
	json = export_of(dir, NULL, &status);
	ck_assert_int_eq(status, 1);
	ck_assert_ptr_null(json);
	run_dir_remove(dir);
}
END_TEST

/* A log cut inside an entry (a tracer killed while writing) exports its whole entries. */
START_TEST(a_truncated_log_exports_its_whole_entries)
{
	char *dir = fixture_dir();
	char path[512];
	int status;
	char *json;

	write_log(dir, four_calls, 4);
	snprintf(path, sizeof(path), "%s/%s", dir, LOG_FILE_NAME);
	ck_assert_int_eq(truncate(path, sizeof(struct log_header) + 2 * sizeof(struct log_entry) + 5), 0);
	json = export_of(dir, NULL, &status);
	ck_assert_int_eq(status, 0);
	assert_balanced_json(json);
	ck_assert_ptr_nonnull(strstr(json, "\"syscall_events\":2,\"syscalls_in_log\":2,\"syscalls_without_process\":0,"
					   "\"capped\":false,\"log_truncated\":true"));
	free(json);
	run_dir_remove(dir);
}
END_TEST

START_TEST(usage_errors_exit_2)
{
	char *no_dir[] = { "export", NULL };
	char *bad_cap[] = { "export", "--max-syscalls", "many", "/tmp", NULL };

	ck_assert_int_eq(export_main(1, no_dir), 2);
	ck_assert_int_eq(export_main(4, bad_cap), 2);
}
END_TEST

START_TEST(json_strings_are_escaped_for_any_bytes)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	json_string(f, "a\"b\\c\nd\te</script>&\x01 \xc3\xa9 \xff\xc3( \xe2\x82\xac \xed\xa0\x80");
	fclose(f);
	ck_assert_str_eq(text, "\"a\\\"b\\\\c\\u000ad\\u0009e\\u003c/script\\u003e\\u0026\\u0001 \xc3\xa9 "
			       "\\u00ff\\u00c3( \xe2\x82\xac \\u00ed\\u00a0\\u0080\"");
	free(text);
}
END_TEST

Suite *trace_export_suite(void)
{
	return single_case_suite("trace_export", (const TTest *const[]){
		processes_and_patches_without_a_log, each_logged_syscall_on_its_image_and_thread,
		max_syscalls_caps_and_says_so, a_corrupt_log_fails_and_leaves_no_file, a_truncated_log_exports_its_whole_entries, usage_errors_exit_2,
		json_strings_are_escaped_for_any_bytes, NULL });
}
