#include <string.h>

#include "calibrate.h"
#include "shared_region.h"
#include "suites.h"

START_TEST(median_of_odd_and_even_counts)
{
	uint64_t odd[] = { 9, 1, 7, 3, 5 }, even[] = { 40, 10, 30, 20 }, big[] = { UINT64_MAX, UINT64_MAX - 2 };
	uint64_t one[] = { 42 }, halves[] = { 3, 4 };

	ck_assert_uint_eq(calibrate_median(odd, 5), 5);
	ck_assert_uint_eq(odd[0], 1); /* sorted in place */
	ck_assert_uint_eq(odd[4], 9);
	ck_assert_uint_eq(calibrate_median(even, 4), 25);
	ck_assert_uint_eq(calibrate_median(big, 2), UINT64_MAX - 1); /* no overflow */
	ck_assert_uint_eq(calibrate_median(one, 1), 42);
	ck_assert_uint_eq(calibrate_median(halves, 2), 3); /* rounded down */
	ck_assert_uint_eq(calibrate_median(NULL, 0), 0);
}
END_TEST

START_TEST(median_resists_one_outlier)
{
	uint64_t v[] = { 4100, 4000, 95000, 3900, 4050 };

	ck_assert_uint_eq(calibrate_median(v, 5), 4050);
}
END_TEST

/* The real thing, in this process: a stop costs more than a call through the gate,
 * and both cost something. */
START_TEST(measures_a_stop_above_an_inprocess_call)
{
	struct calibration c = { 0 };
	char err[256] = "";

	ck_assert(region_create(1, false, false));
	ck_assert_msg(calibrate(&c, region_fd(), err, sizeof(err)), "calibrate failed: %s", err);
	region_destroy();
	ck_assert_uint_gt(c.inprocess_ns, 0);
	ck_assert_uint_gt(c.stop_ns, c.inprocess_ns);
	ck_assert_uint_gt(c.took_ns, 0);
}
END_TEST

/* Without a gate to map the child cannot measure: calibrate says why, and returns. */
START_TEST(fails_with_a_reason_without_a_gate)
{
	struct calibration c = { 0 };
	char err[256] = "";

	ck_assert(!calibrate(&c, -1, err, sizeof(err)));
	ck_assert_ptr_nonnull(strstr(err, "gate"));
}
END_TEST

Suite *calibrate_suite(void)
{
	return single_case_suite("calibrate", (const TTest *const[]){
		median_of_odd_and_even_counts, median_resists_one_outlier,
		measures_a_stop_above_an_inprocess_call, fails_with_a_reason_without_a_gate, NULL });
}
