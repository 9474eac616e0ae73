/* --time's sums (tracer/time_sums.c) and the TSC conversion they use: merged as the
 * slots keep them, and turned into nanoseconds so that the rows add up exactly and
 * each row's shortest and longest bound its mean. */
#include <check.h>
#include <stdlib.h>

#include "suites.h"
#include "time_sums.h"
#include "tsc_clock.h"

/* 3 ticks a nanosecond, exactly: 1/3 ns a tick */
static uint64_t down3(uint64_t t)
{
	return t / 3;
}

static uint64_t up3(uint64_t t)
{
	return (t + 2) / 3;
}

START_TEST(the_kernel_conversion_both_ways)
{
	/* mult / 2^shift = 3 / 8 ns a tick */
	ck_assert_uint_eq(tsc_scale_ns(8, 3, 3, false), 3);
	ck_assert_uint_eq(tsc_scale_ns(8, 3, 3, true), 3);   /* exact: no rounding */
	ck_assert_uint_eq(tsc_scale_ns(9, 3, 3, false), 3);  /* 3.375 */
	ck_assert_uint_eq(tsc_scale_ns(9, 3, 3, true), 4);
	ck_assert_uint_eq(tsc_scale_ns(0, 3, 3, true), 0);
	/* a year of ticks at 3 GHz does not overflow: 1e17 ticks at 1/3 ns */
	ck_assert_uint_eq(tsc_scale_ns(100000000000000000ull, 1u << 30, 32, false), 25000000000000000ull);
	ck_assert_uint_eq(tsc_scale_ns(100000000000000001ull, 1u << 30, 32, true), 25000000000000001ull);
}
END_TEST

START_TEST(the_clock_rounds_up_never_below_down)
{
	tsc_clock_init();
	for (uint64_t t = 0; t < 100000; t += 7) {
		uint64_t d = tsc_ticks_ns(t), u = tsc_ticks_ns_up(t);

		ck_assert_uint_ge(u, d);
		ck_assert_uint_le(u, d + 1);
	}
}
END_TEST

START_TEST(merged_as_the_slots_keep_them)
{
	struct time_sums *s = calloc(1, sizeof(*s));

	ck_assert_ptr_nonnull(s);
	time_sums_add(s, 5, 30);
	time_sums_add(s, 5, 10);
	/* a slot's: 100 ticks, longest 60, shortest 4 */
	time_sums_merge(s, 5, 100, 60, ~(uint64_t)4);
	/* a slot whose number never returned: nothing, whatever else it holds */
	time_sums_merge(s, 5, 1000, 1000, 0);
	ck_assert_uint_eq(s->ticks[5], 140);
	ck_assert_uint_eq(s->max[5], 60);
	ck_assert_uint_eq(~s->min_not[5], 4);
	/* a call of no ticks is the shortest, and a call all the same */
	time_sums_add(s, 6, 0);
	ck_assert_uint_eq(~s->min_not[6], 0);
	ck_assert_uint_ne(s->min_not[6], 0);
	free(s);
}
END_TEST

START_TEST(rows_add_up_and_bound_their_mean)
{
	struct time_sums *s = calloc(1, sizeof(*s));
	uint64_t total = 0, rows = 0;

	ck_assert_ptr_nonnull(s);
	/* 7 calls of 1 tick (1/3 ns each, 7/3 in all), and 2 calls of 4 and 5 */
	for (int i = 0; i < 7; i++)
		time_sums_add(s, 1, 1);
	time_sums_add(s, 2, 4);
	time_sums_add(s, 2, 5);
	time_sums_to_ns(s, down3, up3);
	for (int i = 0; i < SYSCALL_INDEX_COUNT; i++)
		rows += s->ticks[i];
	total = down3(7 + 4 + 5);
	ck_assert_uint_eq(rows, total); /* 5, where rounding each row down gives 2 + 3 */
	ck_assert_uint_eq(s->ticks[1], 2);
	ck_assert_uint_eq(s->ticks[2], 3);
	/* calls * min <= time <= calls * max */
	ck_assert_uint_eq(s->min_not[1], 0);
	ck_assert_uint_eq(s->max[1], 1);
	ck_assert_uint_le(7 * s->min_not[1], s->ticks[1]);
	ck_assert_uint_le(s->ticks[1], 7 * s->max[1]);
	ck_assert_uint_eq(s->min_not[2], 1);
	ck_assert_uint_eq(s->max[2], 2);
	ck_assert_uint_le(2 * s->min_not[2], s->ticks[2]);
	ck_assert_uint_le(s->ticks[2], 2 * s->max[2]);
	/* no call: no shortest */
	ck_assert_uint_eq(s->min_not[3], UINT64_MAX);
	ck_assert_uint_eq(s->ticks[3], 0);
	free(s);
}
END_TEST

START_TEST(shares_of_a_running_sum)
{
	uint64_t sum = 0, a, b, c;

	a = time_share_ns(&sum, 2, down3); /* 0 -> 0 */
	b = time_share_ns(&sum, 2, down3); /* 0 -> 1 */
	c = time_share_ns(&sum, 2, down3); /* 1 -> 2 */
	ck_assert_uint_eq(a + b + c, down3(6));
	ck_assert_uint_eq(a, 0);
	ck_assert_uint_eq(b, 1);
	ck_assert_uint_eq(sum, 6);
}
END_TEST

Suite *time_sums_suite(void)
{
	return single_case_suite("time_sums", (const TTest *const[]){ the_kernel_conversion_both_ways,
								     the_clock_rounds_up_never_below_down,
								     merged_as_the_slots_keep_them,
								     rows_add_up_and_bound_their_mean,
								     shares_of_a_running_sum, NULL });
}
