#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "procfs.h"
#include "serving_load.h"
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
	p += sprintf(p, "Name:\tsh\nUmask:\t0022\nState:\tS (sleeping)\nTgid:\t4242\nPPid:\t17\n"
		       "Uid:\t0\t1000\t1001\t1002\nGroups:\t");
	for (unsigned i = 0; i < ngroups; i++)
		p += sprintf(p, "%u ", 1000000000u + i);
	p += sprintf(p, "\nNSpid:\t4242\t7\n");
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

/* the numbers of a line, before the Groups: line and after it however long it is
 * (NSpid, which says a pid namespace's ids, comes after it) */
static size_t list_of(const char *text, const char *key, uint64_t *v, size_t max)
{
	int fd = pipe_of(text);
	size_t n = procfs_status_list_read(fd, key, v, max);

	close(fd);
	return n;
}

static void expect_lists(unsigned ngroups)
{
	char *t = status_text(ngroups, 0);
	uint64_t v[4] = { 0 };

	ck_assert_uint_eq(list_of(t, "Uid", v, 4), 4);
	ck_assert(v[0] == 0 && v[1] == 1000 && v[2] == 1001 && v[3] == 1002);
	ck_assert_uint_eq(list_of(t, "NSpid", v, 4), 2);
	ck_assert(v[0] == 4242 && v[1] == 7);
	ck_assert_uint_eq(list_of(t, "NSpid", v, 1), 1); /* at most max */
	ck_assert_uint_eq(list_of(t, "NS", v, 4), 0);    /* not a key */
	ck_assert_uint_eq(list_of(t, "NStgid", v, 4), 0);
	free(t);
}

START_TEST(lists_before_and_after_a_long_groups_line)
{
	expect_lists(3);
	expect_lists(400);  /* NSpid past 4 KiB */
	expect_lists(4000); /* past a line longer than the buffer */
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

static void on_signal(int sig)
{
	(void)sig;
}

static bool caught(int sig)
{
	struct delivery d = { getpid(), sig, -1 };

	return delivery_caught(&d);
}

/* whether this process catches a signal, read again at each delivery (the kept
 * descriptor reads the disposition of now), under a name whose ") " would end the
 * command name early; real-time signals from status */
START_TEST(this_process_catches)
{
	char name[16];
	int rt = SIGRTMIN + 1;

	ck_assert_int_eq(prctl(PR_GET_NAME, name), 0);
	ck_assert_int_eq(prctl(PR_SET_NAME, "a) b ) c"), 0);
	signal(SIGUSR1, on_signal);
	signal(SIGUSR2, SIG_DFL);
	signal(rt, on_signal);
	ck_assert(caught(SIGUSR1));
	ck_assert(!caught(SIGUSR2));
	ck_assert(caught(rt));
	signal(SIGUSR1, SIG_IGN);
	signal(SIGUSR2, on_signal);
	signal(rt, SIG_DFL);
	ck_assert(!caught(SIGUSR1));
	ck_assert(caught(SIGUSR2));
	ck_assert(!caught(rt));
	ck_assert(!caught(0));
	ck_assert(!caught(65));
	signal(SIGUSR2, SIG_DFL);
	ck_assert_int_eq(prctl(PR_SET_NAME, name), 0);
}
END_TEST

/* run_delay is schedstat's second number; this thread's own figures are read */
START_TEST(schedstat_run_delay)
{
	uint64_t delay = 7;
	struct serving_load a, b, d;
	volatile uint64_t spin = 0;

	ck_assert(serving_load_parse_schedstat("1234567 89012 34\n", &delay));
	ck_assert_uint_eq(delay, 89012);
	ck_assert(!serving_load_parse_schedstat("1234567 89012\n", &delay));
	ck_assert(!serving_load_parse_schedstat("", &delay));
	a = serving_load_now();
	for (int i = 0; i < 1000000; i++)
		spin += (uint64_t)i;
	b = serving_load_now();
	d = serving_load_since(&a, &b);
	ck_assert_uint_gt(d.cpu_ns, 0);
	ck_assert_uint_ge(b.run_delay_ns, a.run_delay_ns);
	/* the kernels systrace runs on here keep schedstat */
	ck_assert(access("/proc/thread-self/schedstat", R_OK) != 0 || d.run_delay_known);
}
END_TEST

Suite *procfs_suite(void)
{
	return single_case_suite("procfs", (const TTest *const[]){
		fields_of_a_short_file, fields_after_a_long_groups_line, fields_after_a_line_longer_than_the_buffer,
		a_line_cut_between_two_reads, a_missing_key_or_a_longer_one_is_not_found, lists_before_and_after_a_long_groups_line,
		this_process_status, this_process_catches, schedstat_run_delay, NULL });
}
