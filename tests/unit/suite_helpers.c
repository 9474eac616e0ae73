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
