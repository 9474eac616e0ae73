#include <stdlib.h>

#include "grow_array.h"
#include "suites.h"

START_TEST(room_for_one_more_doubles_from_16)
{
	size_t cap = 0;
	int *a = grow_array(NULL, &cap, 0, sizeof(*a));

	ck_assert_uint_eq(cap, 16);
	a = grow_array(a, &cap, 15, sizeof(*a));
	ck_assert_uint_eq(cap, 16);
	a = grow_array(a, &cap, 16, sizeof(*a));
	ck_assert_uint_eq(cap, 32);
	a[31] = 1; /* ASan: the room is there */
	free(a);
}
END_TEST

START_TEST(room_for_n_doubles_as_often_as_needed)
{
	size_t cap = 0;
	char *s = grow_array_to(NULL, &cap, 0, 1);

	ck_assert_ptr_null(s); /* nothing needed, nothing allocated */
	ck_assert_uint_eq(cap, 0);
	s = grow_array_to(s, &cap, 17, 1);
	ck_assert_uint_eq(cap, 32);
	s = grow_array_to(s, &cap, 32, 1);
	ck_assert_uint_eq(cap, 32);
	s = grow_array_to(s, &cap, 1000, 1);
	ck_assert_uint_eq(cap, 1024);
	s[999] = 'x';
	free(s);
}
END_TEST

Suite *grow_array_suite(void)
{
	return single_case_suite("grow_array", (const TTest *const[]){
		room_for_one_more_doubles_from_16, room_for_n_doubles_as_often_as_needed, NULL });
}
