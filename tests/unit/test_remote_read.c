#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "remote_read.h"
#include "suites.h"

/* Three pages of this process, the middle one unmapped: page k holds the byte k + 1. */
static uint8_t *three_pages(size_t *page)
{
	uint8_t *p;

	*page = (size_t)sysconf(_SC_PAGESIZE);
	p = mmap(NULL, 3 * *page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(p, MAP_FAILED);
	memset(p, 1, *page);
	memset(p + 2 * *page, 3, *page);
	ck_assert_int_eq(munmap(p + *page, *page), 0);
	return p;
}

START_TEST(ranges_after_one_that_fails_are_read_too)
{
	size_t page;
	uint8_t *p = three_pages(&page);
	/* what process_vm_readv alone leaves: a failing range (the hole), and after it
	 * ranges it never reads; one that runs into the hole is read in part */
	struct { size_t off, len; bool whole; uint8_t value; } cases[] = {
		{ 0, 16, true, 1 },         { page, 16, false, 0 },        { 2 * page, 16, true, 3 },
		{ page - 8, 16, false, 0 }, { 2 * page + 100, 24, true, 3 }, { 10, 0, true, 0 },
		{ 2 * page - 1, 1, false, 0 }, { 8, 5, true, 1 },
	};
	enum { N = sizeof(cases) / sizeof(cases[0]) };
	struct iovec local[N], remote[N];
	uint8_t got[N][32];
	bool whole[N];

	memset(got, 0xee, sizeof(got));
	for (size_t i = 0; i < N; i++) {
		local[i] = (struct iovec){ got[i], cases[i].len };
		remote[i] = (struct iovec){ p + cases[i].off, cases[i].len };
	}
	ck_assert_uint_eq(remote_read_ranges(getpid(), local, remote, N, whole), 5);
	for (size_t i = 0; i < N; i++) {
		ck_assert_msg(whole[i] == cases[i].whole, "range %zu", i);
		for (size_t b = 0; cases[i].whole && b < cases[i].len; b++)
			ck_assert_uint_eq(got[i][b], cases[i].value);
	}
	munmap(p, page);
	munmap(p + 2 * page, page);
}
END_TEST

/* More ranges than one call takes (IOV_MAX, 1024), a hole among them. */
START_TEST(more_ranges_than_one_call_takes)
{
	enum { N = 2500 };
	size_t page;
	uint8_t *p = three_pages(&page);
	struct iovec *local = calloc(N, sizeof(*local)), *remote = calloc(N, sizeof(*remote));
	uint8_t *got = calloc(N, 2);
	bool *whole = calloc(N, sizeof(*whole));
	size_t expect = 0;

	ck_assert(local && remote && got && whole);
	for (size_t i = 0; i < N; i++) {
		/* every seventh range in the hole */
		size_t off = i % 7 == 3 ? page + 2 * (i % 100) : (i % 2 ? 0 : 2 * page) + 2 * (i % 1000);

		local[i] = (struct iovec){ got + 2 * i, 2 };
		remote[i] = (struct iovec){ p + off, 2 };
		expect += i % 7 != 3;
	}
	ck_assert_uint_eq(remote_read_ranges(getpid(), local, remote, N, whole), expect);
	for (size_t i = 0; i < N; i++) {
		ck_assert_msg(whole[i] == (i % 7 != 3), "range %zu", i);
		if (whole[i])
			ck_assert_uint_eq(got[2 * i], i % 2 ? 1 : 3);
	}
	free(local);
	free(remote);
	free(got);
	free(whole);
	munmap(p, page);
	munmap(p + 2 * page, page);
}
END_TEST

START_TEST(a_process_that_is_gone_reads_nothing)
{
	uint8_t mine[4] = { 1, 2, 3, 4 }, got[2][4];
	struct iovec local[2] = { { got[0], 4 }, { got[1], 4 } }, remote[2] = { { mine, 4 }, { mine, 4 } };
	bool whole[2] = { true, true };
	siginfo_t si;
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		_exit(0);
	/* exited, not reaped: its pid stays its own, with no memory */
	ck_assert_int_eq(waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT), 0);
	ck_assert_uint_eq(remote_read_ranges(pid, local, remote, 2, whole), 0);
	ck_assert(!whole[0] && !whole[1]);
	ck_assert_int_eq(waitpid(pid, NULL, 0), pid);
}
END_TEST

Suite *remote_read_suite(void)
{
	return single_case_suite("remote_read", (const TTest *const[]){
		ranges_after_one_that_fails_are_read_too, more_ranges_than_one_call_takes,
		a_process_that_is_gone_reads_nothing, NULL });
}
