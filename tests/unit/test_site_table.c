#include "site_table.h"
#include "suites.h"

START_TEST(sites_are_found_again_after_growth)
{
	struct site_table t = { 0 };

	for (uint64_t i = 0; i < 1000; i++)
		site_table_get(&t, 0x400000 + 16 * i)->ptraced = i;
	ck_assert_uint_eq(t.n, 1000);
	for (uint64_t i = 0; i < 1000; i++) {
		struct site_record *s = site_table_get(&t, 0x400000 + 16 * i);

		ck_assert_uint_eq(s->addr, 0x400000 + 16 * i);
		ck_assert_uint_eq(s->ptraced, i);
	}
	ck_assert_uint_eq(t.n, 1000);
	/* first-seen order is kept */
	ck_assert_uint_eq(t.sites[3].addr, 0x400030);
	site_table_free(&t);
}
END_TEST

START_TEST(a_site_seeing_two_numbers_varies)
{
	struct site_table t = { 0 };
	struct site_record *s = site_table_get(&t, 0x1000);

	ck_assert_int_eq(s->syscall, SITE_SYSCALL_UNSET);
	site_note_syscall(s, 39);
	site_note_syscall(s, 39);
	ck_assert_int_eq(s->syscall, 39);
	site_note_syscall(s, 110);
	ck_assert_int_eq(s->syscall, SITE_SYSCALL_VARIES);
	site_note_syscall(s, 39);
	ck_assert_int_eq(s->syscall, SITE_SYSCALL_VARIES);
	site_table_free(&t);
}
END_TEST

Suite *site_table_suite(void)
{
	return single_case_suite("site_table", (const TTest *const[]){
		sites_are_found_again_after_growth, a_site_seeing_two_numbers_varies, NULL });
}
