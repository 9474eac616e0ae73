/* The table of systrace -c (common/syscall_table.h) and of report --syscalls
 * (analyses/syscall_report.h): strace -c's layout, its orders and notes, and the
 * rows of syscalls.csv matched to their processes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_fixture.h"
#include "run_dir.h"
#include "suites.h"
#include "syscall_report.h"
#include "syscall_table.h"

#define X86(nr) syscall_index(ABI_X86_64, (nr))

/* The table of counts as text (the caller frees it). */
static char *table_text(const struct syscall_count *counts, size_t n, struct syscall_table_options o)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	ck_assert_ptr_nonnull(f);
	syscall_table_print(f, counts, n, &o);
	fclose(f);
	return text;
}

static const struct syscall_table_options plain = { SYSCALL_SORT_DEFAULT, false, true, true };

START_TEST(the_layout_is_strace_c_with_two_columns_more)
{
	const struct syscall_count counts[] = {
		{ .index = X86(59), .calls = 1, .ptraced = 1, .errors = 1, .errors_known = 1 },
		{ .index = X86(0), .calls = 3, .ptraced = 1 },
	};
	char *text = table_text(counts, 2, plain);

	ck_assert_str_eq(text,
		"% time     seconds  usecs/call     calls    errors syscall          inprocess   ptraced\n"
		"------ ----------- ----------- --------- --------- ---------------- --------- ---------\n"
		"  0.00    0.000000           0         3           read                     2         1\n"
		"  0.00    0.000000           0         1         1 execve                   0         1\n"
		"------ ----------- ----------- --------- --------- ---------------- --------- ---------\n"
		"100.00    0.000000           0         4         1 total                    2         2\n"
		"note: the times of the calls were not measured: % time, seconds and usecs/call are 0\n"
		"note: errors are known for 1 of the 4 calls (those whose result systrace saw); blank: 0 or not known\n");
	free(text);
}
END_TEST

START_TEST(times_give_percentages_and_the_default_order)
{
	const struct syscall_count counts[] = {
		{ .index = X86(0), .calls = 3, .errors_known = 3, .time_ns = 3000000 },
		{ .index = X86(1), .calls = 4, .errors_known = 4, .time_ns = 1000000 },
	};
	char *text = table_text(counts, 2, (struct syscall_table_options){ SYSCALL_SORT_DEFAULT, true, true, true });

	/* by time, the most first; usecs/call truncated as strace truncates them */
	ck_assert_str_eq(text,
		"% time     seconds  usecs/call     calls    errors syscall          inprocess   ptraced\n"
		"------ ----------- ----------- --------- --------- ---------------- --------- ---------\n"
		" 75.00    0.003000        1000         3           read                     3         0\n"
		" 25.00    0.001000         250         4           write                    4         0\n"
		"------ ----------- ----------- --------- --------- ---------------- --------- ---------\n"
		"100.00    0.004000         571         7           total                    7         0\n");
	free(text);
}
END_TEST

/* Every line of the table as long as the header: the columns widen together. */
static void expect_aligned(const char *text)
{
	size_t width = strcspn(text, "\n");

	for (const char *line = text; *line && strncmp(line, "note:", 5); line += strcspn(line, "\n") + 1)
		ck_assert_msg(strcspn(line, "\n") == width, "line '%.*s' is not %zu wide", (int)strcspn(line, "\n"),
			      line, width);
}

START_TEST(columns_widen_for_large_numbers_and_long_names)
{
	const struct syscall_count counts[] = {
		{ .index = X86(0), .calls = 12345678901ull, .ptraced = 2, .errors = 1234567890, .errors_known = 12345678901ull,
		  .time_ns = 123456000000000ull },
		{ .index = syscall_index_of(ABI_X86_64, "sched_get_priority_max"), .calls = 1 },
	};
	char *text = table_text(counts, 2, (struct syscall_table_options){ SYSCALL_SORT_CALLS, true, true, false });

	expect_aligned(text);
	ck_assert_ptr_nonnull(strstr(text, " 12345678902 1234567890 total "));
	ck_assert_ptr_nonnull(strstr(text, " sched_get_priority_max  "));
	ck_assert_ptr_nonnull(strstr(text, " 123456.000000 "));
	free(text);
}
END_TEST

/* The names of the rows of text's first table, in order, joined by spaces. */
static void row_names(const char *text, char *out, size_t len)
{
	const char *line = strchr(strchr(text, '\n') + 1, '\n') + 1;

	out[0] = '\0';
	for (; *line != '-'; line = strchr(line, '\n') + 1) {
		char name[64];

		ck_assert_int_eq(sscanf(line, "%*s %*s %*s %*s %63s", name), 1);
		if (!strcmp(name, "1")) /* an errors cell */
			ck_assert_int_eq(sscanf(line, "%*s %*s %*s %*s %*s %63s", name), 1);
		snprintf(out + strlen(out), len - strlen(out), "%s%s", out[0] ? " " : "", name);
	}
}

START_TEST(sort_keys_break_ties_by_number)
{
	const struct syscall_count counts[] = {
		{ .index = X86(1), .calls = 5, .ptraced = 5 },                  /* write */
		{ .index = X86(39), .calls = 7, .ptraced = 1 },                 /* getpid */
		{ .index = X86(0), .calls = 5, .ptraced = 2, .errors = 1, .errors_known = 5 }, /* read */
		{ .index = X86(3), .calls = 0 },                                /* close: no calls, no row */
	};
	static const struct { const char *key, *order; } cases[] = {
		{ "calls", "getpid read write" }, { "name", "getpid read write" }, { "errors", "read write getpid" },
		{ "ptraced", "write read getpid" }, { "inprocess", "getpid read write" },
		{ "time", "getpid read write" }, /* no times: by calls */
	};
	char names[256];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct syscall_table_options o = plain;
		char *text;

		ck_assert_int_eq(syscall_sort_parse(cases[i].key, &o.sort), 0);
		text = table_text(counts, 4, o);
		row_names(text, names, sizeof(names));
		ck_assert_msg(!strcmp(names, cases[i].order), "-S %s: %s, expected %s", cases[i].key, names,
			      cases[i].order);
		ck_assert_int_eq(strstr(text, "(sorted by calls, not by time)") != NULL, !strcmp(cases[i].key, "time"));
		free(text);
	}
	ck_assert_int_eq(syscall_sort_parse("fastest", &(enum syscall_sort){ 0 }), -1);
}
END_TEST

START_TEST(other_abis_get_strace_s_headings)
{
	const struct syscall_count counts[] = {
		{ .index = syscall_index(ABI_I386, 20), .calls = 7, .ptraced = 7 },
		{ .index = X86(39), .calls = 5 },
	};
	char *text = table_text(counts, 2, plain), *i386 = strstr(text, "System call usage summary for 32 bit mode:\n");

	ck_assert_ptr_nonnull(i386);
	ck_assert_ptr_null(strstr(text, "x32 mode"));
	/* the 64-bit table first, unheaded; the notes once, at the end */
	ck_assert_ptr_nonnull(strstr(text, " getpid "));
	ck_assert(strstr(text, " getpid ") < i386);
	ck_assert_ptr_nonnull(strstr(i386, "         7           getpid  "));
	ck_assert(strstr(text, "note:") > i386);
	free(text);
}
END_TEST

START_TEST(no_calls_is_an_empty_table)
{
	char *text = table_text(NULL, 0, plain);

	ck_assert_ptr_nonnull(strstr(text, "100.00    0.000000           0         0           total                    0         0\n"));
	ck_assert_ptr_null(strstr(text, "errors are known"));
	ck_assert_ptr_null(strstr(text, "nan"));
	free(text);
}
END_TEST

START_TEST(unknown_paths_are_blank)
{
	const struct syscall_count counts[] = { { .index = X86(0), .calls = 3, .errors_known = 3 } };
	char *text = table_text(counts, 1, (struct syscall_table_options){ SYSCALL_SORT_DEFAULT, false, false, true });

	/* the two cells as wide as their headers, empty */
	ck_assert_ptr_nonnull(strstr(text, "           read                                \n"));
	ck_assert_ptr_nonnull(strstr(text, "note: the files do not split"));
	expect_aligned(text);
	free(text);
}
END_TEST

/* syscalls.csv for analysis_fixture.h's processes: their syscalls, ptraced and
 * inprocess, the reused pid's image 1 rows (weird, then cat) in their blocks. */
#define FIXTURE_SYSCALLS                                           \
	"pid,image,syscall,calls,errors,abi,ptraced,inprocess\n"   \
	"100,1,read,30,,x86_64,10,20\n"                            \
	"100,1,execve,1,0,x86_64,1,0\n"                            \
	"100,1,getpid,19,,i386,9,10\n"                             \
	"101,0,rt_sigprocmask,1,,x86_64,0,1\n"                     \
	"101,1,read,25,,x86_64,5,20\n"                             \
	"101,1,openat,14,3,x86_64,4,10\n"                          \
	"101,1,execve,1,1,x86_64,1,0\n"                            \
	"101,0,rt_sigprocmask,1,,x86_64,0,1\n"                     \
	"101,1,close,20,,x86_64,5,15\n"

/* report --syscalls of a folder of the fixture's processes and summary and this
 * syscalls.csv: its status, and stdout and stderr in *out and *warn. */
static int report_text(const char *syscalls, bool per_process, size_t limit, char **out, char **warn, char *err,
		       size_t errlen)
{
	char *dir = run_dir_new();
	size_t len;
	FILE *o, *w;
	int ret;

	run_dir_write(dir, "processes.csv", FIXTURE_PROCESSES);
	run_dir_write(dir, "summary.csv", FIXTURE_SUMMARY);
	run_dir_write(dir, "syscalls.csv", syscalls);
	o = open_memstream(out, &len);
	w = open_memstream(warn, &len);
	ret = syscall_report(o, w, &(struct syscall_report_options){ dir, per_process, SYSCALL_SORT_DEFAULT, limit },
			     err, errlen);
	fclose(o);
	fclose(w);
	run_dir_remove(dir);
	return ret;
}

START_TEST(report_sums_the_rows_of_syscalls_csv)
{
	char *out, *warn, err[512];

	ck_assert_msg(report_text(FIXTURE_SYSCALLS, false, SIZE_MAX, &out, &warn, err, sizeof(err)) == 0, "%s", err);
	ck_assert_str_eq(warn, "");
	ck_assert_ptr_nonnull(strstr(out, "        55           read                    40        15\n"));
	ck_assert_ptr_nonnull(strstr(out, "         2         1 execve                   0         2\n"));
	ck_assert_ptr_nonnull(strstr(out, "        93         4 total                   67        26\n"));
	ck_assert_ptr_nonnull(strstr(out, "System call usage summary for 32 bit mode:\n"));
	ck_assert_ptr_nonnull(strstr(out, "note: errors are known for 16 of the 112 calls"));
	free(out);
	free(warn);
}
END_TEST

START_TEST(report_per_process_matches_blocks_to_images)
{
	char *out, *warn, err[512], *weird, *cat, *all;

	ck_assert_msg(report_text(FIXTURE_SYSCALLS, true, SIZE_MAX, &out, &warn, err, sizeof(err)) == 0, "%s", err);
	ck_assert_ptr_nonnull(strstr(out, " sh (pid 100, image 1), 50 syscalls, 44.6%\n"));
	weird = strstr(out, " we,ird \"x\" (pid 101, image 1), 40 syscalls, 35.7%\n");
	cat = strstr(out, " cat (pid 101, image 1), 20 syscalls, 17.9%\n");
	all = strstr(out, " all processes (5 with syscalls), 112 syscalls\n");
	ck_assert(weird && cat && all && weird < cat && cat < all);
	/* the reused pid's blocks: openat in the first image 1, close in the second */
	ck_assert(strstr(weird, " openat ") < cat && strstr(cat, " close ") < all);
	ck_assert(strstr(out, " sh (pid 101, image 0), 1 syscalls, 0.9%\n") < all);
	/* the notes once, under the run's table */
	ck_assert(strstr(out, "note:") > all);
	free(out);
	free(warn);
	ck_assert_msg(report_text(FIXTURE_SYSCALLS, true, 2, &out, &warn, err, sizeof(err)) == 0, "%s", err);
	ck_assert_ptr_null(strstr(out, " cat (pid"));
	ck_assert_ptr_nonnull(strstr(out, " all processes (5 with syscalls, the first shown: --limit), 112 syscalls\n"));
	free(out);
	free(warn);
}
END_TEST

START_TEST(report_reads_times_and_older_files)
{
	char *out, *warn, err[512];

	ck_assert_msg(report_text("pid,image,syscall,calls,errors,abi,ptraced,inprocess,time_ns\n"
				  "100,1,read,30,0,x86_64,10,20,3000000\n100,1,write,20,0,x86_64,10,10,9000000\n",
				  false, SIZE_MAX, &out, &warn, err, sizeof(err)) == 0, "%s", err);
	ck_assert_ptr_nonnull(strstr(out, " 75.00    0.009000         450        20           write "));
	ck_assert_ptr_null(strstr(out, "note:"));
	/* the totals are not summary.csv's: said on the warnings' stream */
	ck_assert_ptr_nonnull(strstr(warn, "syscalls: the rows of syscalls.csv sum to 50, summary.csv says 112"));
	free(out);
	free(warn);
	ck_assert_msg(report_text("pid,image,syscall,calls,errors\n100,1,read,30,\n", false, SIZE_MAX, &out, &warn,
				  err, sizeof(err)) == 0, "%s", err);
	ck_assert_ptr_nonnull(strstr(out, "note: the files do not split"));
	free(out);
	free(warn);
}
END_TEST

START_TEST(report_refuses_bad_rows)
{
	static const struct { const char *file, *message; } cases[] = {
		{ "pid,image,syscall,calls,errors,abi,ptraced,inprocess\n100,1,frobnicate,1,,x86_64,1,0\n",
		  "syscalls.csv:2: syscall 'frobnicate' (x86_64) is not a name" },
		{ "pid,image,syscall,calls,errors,abi,ptraced,inprocess\n100,1,read,3,,x86_64,1,1\n",
		  "syscalls.csv:2: ptraced 1 + inprocess 1 is not calls 3" },
		{ "pid,image,syscall,calls,errors,abi,ptraced,inprocess\n100,1,read,3,4,x86_64,1,2\n",
		  "syscalls.csv:2: errors 4 is more than calls 3" },
		{ "pid,image,syscall,calls,errors,abi,ptraced,inprocess\n100,1,read,3,,arm,1,2\n",
		  "syscalls.csv:2: column abi: 'arm' is not" },
		{ "pid,image,syscall,calls,errors\n999,1,read,3,\n", "syscalls.csv:2: pid 999 image 1 has no row" },
		{ "pid,image,syscall,errors\n", "no column 'calls'" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *out, *warn, err[512];

		ck_assert_int_eq(report_text(cases[i].file, true, SIZE_MAX, &out, &warn, err, sizeof(err)), -1);
		ck_assert_msg(strstr(err, cases[i].message), "'%s' does not say '%s'", err, cases[i].message);
		free(out);
		free(warn);
	}
}
END_TEST

/* The sums the HTML page shows: the run's, per counter index, as the table's. */
START_TEST(totals_sum_the_rows_per_syscall)
{
	struct syscall_totals t;
	char *dir = run_dir_new(), err[512];
	const struct syscall_count *read_, *execve;

	run_dir_write(dir, "syscalls.csv", FIXTURE_SYSCALLS);
	ck_assert_msg(syscall_totals_load(&t, dir, err, sizeof(err)) == 0, "%s", err);
	ck_assert(t.present.paths && !t.present.time);
	read_ = &t.all[X86(0)];
	execve = &t.all[X86(59)];
	ck_assert_uint_eq(read_->calls, 55);
	ck_assert_uint_eq(read_->ptraced, 15);
	ck_assert_uint_eq(read_->errors_known, 0);
	ck_assert_uint_eq(execve->calls, 2);
	ck_assert_uint_eq(execve->errors, 1);
	ck_assert_uint_eq(execve->errors_known, 2);
	/* i386's getpid (20) is its own entry, not x86_64's (39) */
	ck_assert_uint_eq(t.all[syscall_index(ABI_I386, 20)].calls, 19);
	ck_assert_uint_eq(t.all[X86(39)].calls, 0);
	syscall_totals_free(&t);
	run_dir_write(dir, "syscalls.csv", "pid,image,syscall,errors\n");
	ck_assert_int_eq(syscall_totals_load(&t, dir, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "no column 'calls'"));
	syscall_totals_free(&t);
	run_dir_remove(dir);
}
END_TEST

Suite *syscall_table_suite(void)
{
	return single_case_suite("syscall_table", (const TTest *const[]){
		the_layout_is_strace_c_with_two_columns_more, times_give_percentages_and_the_default_order,
		columns_widen_for_large_numbers_and_long_names, sort_keys_break_ties_by_number,
		other_abis_get_strace_s_headings, no_calls_is_an_empty_table, unknown_paths_are_blank,
		report_sums_the_rows_of_syscalls_csv, report_per_process_matches_blocks_to_images,
		report_reads_times_and_older_files, report_refuses_bad_rows, totals_sum_the_rows_per_syscall, NULL });
}
