/* systrace-stats log2csv as a user runs it: files, exit status, messages. */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "commands.h"
#include "log_builder.h"
#include "suites.h"

#define HEADER "t_ns,pid,tid,syscall,path,early,object,offset,ret\n"
#define ROWS                                                                                                  \
	"100,10,10,read,inprocess,0,\"/opt/a,b/x.so\",0x1a2b,5\n"                                             \
	"200,10,11,exit,ptraced,1,,,\n"

static char dir[64];
static char log_path[128], csv_path[128];

/* A folder with a two-entry log (cut short by `cut` bytes, its second entry's check
 * byte spoiled if `spoil`) and its sites file. */
static void make_dir(size_t cut, int spoil)
{
	static const char sites[] = "site,object,offset,symbol\n1,\"/opt/a,b/x.so\",0x1a2b,f+0x1\n";
	const struct log_entry entries[] = {
		test_entry(100, 10, 10, 0, 1, LOG_INPROCESS | LOG_HAS_RET, 5),
		test_entry(200, 10, 11, 60, 0, LOG_EARLY, 0),
	};
	char path[128];
	size_t size;
	unsigned char *data = test_log(entries, 2, &size);

	if (spoil)
		data[size - 1] = 0;
	strcpy(dir, "/tmp/test_log2csv.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(log_path, sizeof(log_path), "%s/%s", dir, LOG_FILE_NAME);
	snprintf(csv_path, sizeof(csv_path), "%s/syscall-log.csv", dir);
	snprintf(path, sizeof(path), "%s/%s", dir, LOG_SITES_FILE_NAME);
	ck_assert_int_eq(test_write_file(log_path, data, size - cut), 0);
	ck_assert_int_eq(test_write_file(path, sites, strlen(sites)), 0);
	free(data);
}

static void remove_dir(void)
{
	char path[512];
	DIR *d = opendir(dir);
	struct dirent *e;

	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
			unlink(path);
		}
	closedir(d);
	rmdir(dir);
}

static size_t files_in_dir(void)
{
	DIR *d = opendir(dir);
	size_t n = 0;

	while (readdir(d))
		n++;
	closedir(d);
	return n - 2;
}

/* The whole of a file (free it), or NULL. */
static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *text;
	long len;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	text = calloc(1, (size_t)len + 1);
	ck_assert_uint_eq(fread(text, 1, (size_t)len, f), (size_t)len);
	fclose(f);
	return text;
}

/* Runs log2csv with args (NULL-terminated) with fd (1 or 2) going to a file; the
 * exit status, and what went to fd in *captured (free it). */
static int run(char **captured, int fd, const char *const *args)
{
	char *argv[16], path[160];
	int argc = 0, saved = dup(fd), status, out;

	argv[argc++] = "log2csv";
	for (; *args; args++)
		argv[argc++] = (char *)*args;
	argv[argc] = NULL;
	snprintf(path, sizeof(path), "/tmp/test_log2csv_out.%d", getpid());
	out = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	fflush(fd == 1 ? stdout : stderr);
	dup2(out, fd);
	status = log2csv_main(argc, argv);
	fflush(fd == 1 ? stdout : stderr);
	dup2(saved, fd);
	close(saved);
	close(out);
	*captured = slurp(path);
	unlink(path);
	return status;
}

START_TEST(writes_the_csv_into_the_folder)
{
	char *err, *csv;

	make_dir(0, 0);
	ck_assert_int_eq(run(&err, 2, (const char *const[]){ "-j", "2", dir, "--no-progress", NULL }), 0);
	ck_assert_str_eq(err, "");
	csv = slurp(csv_path);
	ck_assert_str_eq(csv, HEADER ROWS);
	ck_assert_uint_eq(files_in_dir(), 3); /* the two read and the CSV: no temporary left */
	free(csv);
	free(err);
	remove_dir();
}
END_TEST

START_TEST(output_can_be_another_file_or_stdout)
{
	char *out, *csv, other[160];

	make_dir(0, 0);
	snprintf(other, sizeof(other), "%s/other.csv", dir);
	ck_assert_int_eq(run(&out, 1, (const char *const[]){ "-o", other, dir, NULL }), 0);
	csv = slurp(other);
	ck_assert_str_eq(csv, HEADER ROWS);
	ck_assert_str_eq(out, "");
	free(csv);
	free(out);
	ck_assert_int_eq(run(&out, 1, (const char *const[]){ "--output=-", "-j1", dir, NULL }), 0);
	ck_assert_str_eq(out, HEADER ROWS);
	ck_assert_ptr_null(slurp(csv_path));
	free(out);
	remove_dir();
}
END_TEST

START_TEST(output_to_a_pipe_keeps_the_pipe)
{
	char *err, fifo[160], got[512] = "";
	struct stat st;
	int reader;

	make_dir(0, 0);
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	ck_assert_int_eq(mkfifo(fifo, 0600), 0);
	/* a reader that does not block (Linux opens a FIFO for reading and writing at once) */
	reader = open(fifo, O_RDWR | O_NONBLOCK);
	ck_assert_int_ge(reader, 0);
	ck_assert_int_eq(run(&err, 2, (const char *const[]){ "-o", fifo, dir, NULL }), 0);
	ck_assert_int_eq(read(reader, got, sizeof(got) - 1), strlen(HEADER ROWS));
	ck_assert_str_eq(got, HEADER ROWS);
	ck_assert_int_eq(lstat(fifo, &st), 0);
	ck_assert(S_ISFIFO(st.st_mode));
	ck_assert_uint_eq(files_in_dir(), 3); /* log, sites, the FIFO: no CSV, no temporary */
	close(reader);
	free(err);
	remove_dir();
}
END_TEST

START_TEST(corrupt_entry_fails_without_a_file)
{
	char *err, expected[300];

	make_dir(0, 1);
	ck_assert_int_eq(run(&err, 2, (const char *const[]){ dir, NULL }), 1);
	snprintf(expected, sizeof(expected),
		 "systrace-stats log2csv: %s: corrupt entry at byte offset 96: check byte 0x00, expected 0xa5\n",
		 log_path);
	ck_assert_str_eq(err, expected);
	ck_assert_uint_eq(files_in_dir(), 2);
	free(err);
	remove_dir();
}
END_TEST

/* That --salvage converts the folder with a warning saying `warning`, into `csv`. */
static void expect_salvaged(const char *warning, const char *csv)
{
	char *err, *got;

	ck_assert_int_eq(run(&err, 2, (const char *const[]){ "--salvage", dir, NULL }), 0);
	ck_assert_ptr_nonnull(strstr(err, "warning: "));
	ck_assert_ptr_nonnull(strstr(err, warning));
	got = slurp(csv_path);
	ck_assert_str_eq(got, csv);
	free(got);
	free(err);
}

START_TEST(truncated_log_fails_unless_salvaged)
{
	char *err, expected[400];

	make_dir(5, 0);
	ck_assert_int_eq(run(&err, 2, (const char *const[]){ dir, NULL }), 1);
	snprintf(expected, sizeof(expected),
		 "systrace-stats log2csv: %s: truncated entry at byte offset 96 (27 of its 32 bytes; 1 whole entries "
		 "before it) (--salvage converts the entries before it)\n",
		 log_path);
	ck_assert_str_eq(err, expected);
	ck_assert_uint_eq(files_in_dir(), 2);
	free(err);
	expect_salvaged("truncated entry at byte offset 96", HEADER "100,10,10,read,inprocess,0,\"/opt/a,b/x.so\",0x1a2b,5\n");
	remove_dir();
}
END_TEST

START_TEST(salvage_keeps_rows_before_a_corrupt_entry)
{
	make_dir(0, 1);
	expect_salvaged("corrupt entry at byte offset 96: check byte 0x00, expected 0xa5: kept the 1 rows before it",
			HEADER "100,10,10,read,inprocess,0,\"/opt/a,b/x.so\",0x1a2b,5\n");
	remove_dir();
}
END_TEST

START_TEST(salvage_takes_the_sites_before_a_cut)
{
	static const char cut[] = "site,object,offset,symbol\n1,\"/opt/a,b/x.so";
	char *err, path[160];

	make_dir(0, 0);
	snprintf(path, sizeof(path), "%s/%s", dir, LOG_SITES_FILE_NAME);
	ck_assert_int_eq(test_write_file(path, cut, strlen(cut)), 0);
	ck_assert_int_eq(run(&err, 2, (const char *const[]){ dir, NULL }), 1);
	ck_assert_ptr_nonnull(strstr(err, path));
	ck_assert_uint_eq(files_in_dir(), 2);
	free(err);
	expect_salvaged("keeping the sites before it", HEADER "100,10,10,read,inprocess,0,,,5\n200,10,11,exit,ptraced,1,,,\n");
	remove_dir();
}
END_TEST

START_TEST(bad_usage_exits_2)
{
	const char *const *const cases[] = {
		(const char *const[]){ NULL },
		(const char *const[]){ "-j", "0", "/tmp", NULL },
		(const char *const[]){ "-j", "two", "/tmp", NULL },
		(const char *const[]){ "--frobnicate", "/tmp", NULL },
		(const char *const[]){ "/tmp", "/var", NULL },
		(const char *const[]){ "-o", NULL },
	};
	char *err;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ck_assert_int_eq(run(&err, 2, cases[i]), 2);
		ck_assert_ptr_nonnull(strstr(err, "systrace-stats log2csv: "));
		ck_assert_ptr_nonnull(strstr(err, "usage: systrace-stats log2csv"));
		free(err);
	}
	ck_assert_int_eq(run(&err, 1, (const char *const[]){ "--help", NULL }), 0);
	ck_assert_ptr_nonnull(strstr(err, "usage: systrace-stats log2csv"));
	free(err);
}
END_TEST

START_TEST(missing_log_exits_1)
{
	char *err;

	ck_assert_int_eq(run(&err, 2, (const char *const[]){ "/nonexistent", NULL }), 1);
	ck_assert_str_eq(err, "systrace-stats log2csv: /nonexistent/syscall-log.bin: No such file or directory\n");
	free(err);
}
END_TEST

Suite *log2csv_command_suite(void)
{
	return single_case_suite("log2csv_command", (const TTest *const[]){
		writes_the_csv_into_the_folder, output_can_be_another_file_or_stdout, output_to_a_pipe_keeps_the_pipe,
		corrupt_entry_fails_without_a_file,
		truncated_log_fails_unless_salvaged, salvage_keeps_rows_before_a_corrupt_entry,
		salvage_takes_the_sites_before_a_cut, bad_usage_exits_2,
		missing_log_exits_1, NULL });
}
