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

/* another object's site at the same address: a record of its own, the old one kept */
START_TEST(a_retired_site_gives_its_address_to_the_next_generation)
{
	struct site_table t = { 0 };
	struct site_record *s;

	for (uint64_t i = 0; i < 40; i++)
		site_table_get(&t, 0x400000 + 16 * i);
	s = site_table_get(&t, 0x400010);
	s->ptraced = 5;
	site_table_retire(s);
	s = site_table_get(&t, 0x400010);
	ck_assert_uint_eq(s->gen, 1);
	ck_assert_uint_eq(s->ptraced, 0);
	s->ptraced = 7;
	ck_assert_uint_eq(t.n, 41);
	for (uint64_t i = 0; i < 100; i++) /* through a rehash */
		site_table_get(&t, 0x500000 + 16 * i);
	ck_assert_uint_eq(site_table_find(&t, 0x400010)->ptraced, 7);
	ck_assert_uint_eq(site_table_find_gen(&t, 0x400010, 0)->ptraced, 5);
	ck_assert_uint_eq(site_table_find_gen(&t, 0x400010, 1)->ptraced, 7);
	ck_assert_ptr_null(site_table_find_gen(&t, 0x400010, 2));
	/* an image's table is keyed by generation alone, none retired */
	ck_assert_uint_eq(site_table_get_gen(&t, 0x600000, 3)->gen, 3);
	ck_assert_ptr_null(site_table_find_gen(&t, 0x600000, 0));
	site_table_free(&t);
}
END_TEST

Suite *site_table_suite(void)
{
	return single_case_suite("site_table", (const TTest *const[]){
		sites_are_found_again_after_growth, a_site_seeing_two_numbers_varies,
		a_retired_site_gives_its_address_to_the_next_generation, NULL });
}
