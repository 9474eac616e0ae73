#include "amortization.h"
#include "suites.h"

START_TEST(break_even_rounds_up)
{
	ck_assert_uint_eq(amortization_break_even(10000, 5000), 2);
	ck_assert_uint_eq(amortization_break_even(10001, 5000), 3);
	ck_assert_uint_eq(amortization_break_even(1, 5000), 1);
}
END_TEST

START_TEST(an_inherited_patch_cost_nothing_here)
{
	ck_assert_uint_eq(amortization_break_even(0, 5000), 0);
	ck_assert(amortization_paid_off(0, 5000, 0));
}
END_TEST

START_TEST(no_measured_saving_is_one_ns)
{
	ck_assert_uint_eq(amortization_break_even(7000, 0), 7000);
}
END_TEST

START_TEST(paid_off_at_exactly_break_even)
{
	ck_assert(!amortization_paid_off(20000, 6000, 3));
	ck_assert(amortization_paid_off(20000, 6000, 4));
}
END_TEST

Suite *amortization_suite(void)
{
	return single_case_suite("amortization", (const TTest *const[]){
		break_even_rounds_up, an_inherited_patch_cost_nothing_here, no_measured_saving_is_one_ns,
		paid_off_at_exactly_break_even, NULL });
}
