#include "suites.h"

Suite *single_case_suite(const char *name, const TTest *const *tests)
{
	Suite *s = suite_create(name);
	TCase *tc = tcase_create(name);

	for (; *tests; tests++)
		tcase_add_test(tc, *tests);
	suite_add_tcase(s, tc);
	return s;
}

Suite *tables_suite(const char *name, const TTest *const *tests, const struct table_test *tables)
{
	Suite *s = single_case_suite(name, tests);
	TCase *tc = tcase_create("tables"); /* Check keeps the name, not a copy */

	for (; tables->test; tables++)
		tcase_add_loop_test(tc, tables->test, 0, tables->rows);
	suite_add_tcase(s, tc);
	return s;
}
