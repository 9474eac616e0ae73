#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "procfs.h"
#include "suites.h"

/* A status file's text, read back through a pipe as from /proc (4095 bytes a read
 * at most, as procfs_status_read asks). */
static int pipe_of(const char *text)
{
	int fds[2];
	size_t len = strlen(text);

	ck_assert_int_eq(pipe(fds), 0);
	ck_assert_uint_lt(len, 65536); /* a pipe holds it all */
	ck_assert_int_eq(write(fds[1], text, len), (ssize_t)len);
	close(fds[1]);
	return fds[0];
}

/* status_text's lines with a Groups: line of n ten-digit groups, and `pad` bytes of
 * filler line before the Sig* lines (0: none). */
static char *status_text(unsigned ngroups, size_t pad)
{
	size_t cap = 64 + 11 * (size_t)ngroups + pad + 512;
	char *t = malloc(cap), *p = t;

	ck_assert_ptr_nonnull(t);
	p += sprintf(p, "Name:\tsh\nUmask:\t0022\nState:\tS (sleeping)\nTgid:\t4242\nPPid:\t17\nGroups:\t");
	for (unsigned i = 0; i < ngroups; i++)
		p += sprintf(p, "%u ", 1000000000u + i);
	p += sprintf(p, "\n");
	if (pad) {
		p += sprintf(p, "Filler:\t");
		memset(p, 'x', pad);
		p += pad;
		*p++ = '\n';
	}
	sprintf(p, "SigQ:\t0/63438\nSigPnd:\t0000000000000100\nShdPnd:\t0000000000000001\n"
		   "SigBlk:\t0000000000010000\nSigIgn:\t0000000000001000\nSigCgt:\t0000000180004a02\n"
		   "Cpus_allowed_list:\t0-1");
	return t;
}

static void expect_sig_fields(int fd)
{
	struct status_field f[] = { { "SigPnd", 16, 0 }, { "ShdPnd", 16, 0 }, { "SigBlk", 16, 0 },
				    { "SigCgt", 16, 0 }, { "Tgid", 10, 0 }, { "PPid", 10, 0 } };

	ck_assert(procfs_status_read(fd, f, 6));
	ck_assert_uint_eq(f[0].value, 0x100);
	ck_assert_uint_eq(f[1].value, 0x1);
	ck_assert_uint_eq(f[2].value, 0x10000);
	ck_assert_uint_eq(f[3].value, 0x180004a02);
	ck_assert_uint_eq(f[4].value, 4242);
	ck_assert_uint_eq(f[5].value, 17);
	close(fd);
}

START_TEST(fields_of_a_short_file)
{
	char *t = status_text(3, 0);

	expect_sig_fields(pipe_of(t));
	free(t);
}
END_TEST

/* 400 groups of ten digits: the Sig* lines begin past 4 KiB (a hang in
 * test_interrupted_waits when they were not read) */
START_TEST(fields_after_a_long_groups_line)
{
	char *t = status_text(400, 0);

	ck_assert_ptr_nonnull(strstr(t, "SigPnd"));
	ck_assert_int_gt(strstr(t, "SigPnd") - t, 4096);
	expect_sig_fields(pipe_of(t));
	free(t);
}
END_TEST

/* a Groups: line several times longer than the reader's buffer */
START_TEST(fields_after_a_line_longer_than_the_buffer)
{
	char *t = status_text(4000, 0);

	expect_sig_fields(pipe_of(t));
	free(t);
}
END_TEST

/* the wanted lines cut by a read's end, at every place near it */
START_TEST(a_line_cut_between_two_reads)
{
	char *t = status_text(0, 0);
	size_t before = (size_t)(strstr(t, "SigQ") - t);

	free(t);
	for (size_t cut = 0; cut < 200; cut++) {
		/* the Sig* lines from 3995 + cut on: the first read (4095 bytes) ends in one */
		t = status_text(0, 4095 - 100 + cut - before - 9);
		expect_sig_fields(pipe_of(t));
		free(t);
	}
}
END_TEST

START_TEST(a_missing_key_or_a_longer_one_is_not_found)
{
	char *t = status_text(400, 0);
	struct status_field missing[] = { { "SigCgt", 16, 0 }, { "VmHWM", 10, 0 } };
	struct status_field prefix[] = { { "Sig", 16, 0 } };
	struct status_field last[] = { { "Cpus_allowed_list", 10, 0 } };

	/* what is there is read, and the call says one was not */
	ck_assert(!procfs_status_read(pipe_of(t), missing, 2));
	ck_assert_uint_eq(missing[0].value, 0x180004a02);
	/* "Sig" is not SigQ's key */
	ck_assert(!procfs_status_read(pipe_of(t), prefix, 1));
	/* the last line has no newline: it is read at the end */
	ck_assert(procfs_status_read(pipe_of(t), last, 1));
	ck_assert_uint_eq(last[0].value, 0);
	free(t);
}
END_TEST

/* the same through /proc, for this process: its own Tgid and PPid */
START_TEST(this_process_status)
{
	struct status_field f[] = { { "Tgid", 10, 0 }, { "PPid", 10, 0 }, { "SigCgt", 16, 0 } };

	ck_assert(procfs_status(getpid(), f, 3));
	ck_assert_uint_eq(f[0].value, (uint64_t)getpid());
	ck_assert_uint_eq(f[1].value, (uint64_t)getppid());
}
END_TEST

Suite *procfs_suite(void)
{
	return single_case_suite("procfs", (const TTest *const[]){
		fields_of_a_short_file, fields_after_a_long_groups_line, fields_after_a_line_longer_than_the_buffer,
		a_line_cut_between_two_reads, a_missing_key_or_a_longer_one_is_not_found, this_process_status, NULL });
}
