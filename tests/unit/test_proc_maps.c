#include <string.h>
#include <unistd.h>

#include "proc_maps.h"
#include "suites.h"

__attribute__((noinline)) static int code_here(void)
{
	return 42;
}

/* Looks up this test's own code and libc's, by PROCMAP_QUERY or by the text. */
static void check_own_mappings(bool force_text)
{
	struct proc_maps m = { .fd = -1 };
	const struct map_entry *e;
	uint64_t own = (uint64_t)(uintptr_t)code_here, libc = (uint64_t)(uintptr_t)getpid;
	char own_path[256];
	ssize_t n = readlink("/proc/self/exe", own_path, sizeof(own_path) - 1);

	ck_assert_int_gt(n, 0);
	own_path[n] = '\0';
	ck_assert(proc_maps_open(&m, getpid()));
	m.text = m.text || force_text;
	e = proc_maps_find(&m, own);
	ck_assert_ptr_nonnull(e);
	ck_assert(e->start <= own && own < e->end);
	ck_assert_str_eq(e->path, own_path);
	ck_assert_uint_ne(e->ino, 0);
	e = proc_maps_find(&m, libc);
	ck_assert_ptr_nonnull(e);
	ck_assert_ptr_nonnull(strstr(e->path, "libc"));
	/* data is not code */
	ck_assert_ptr_null(proc_maps_find(&m, (uint64_t)(uintptr_t)&m));
	proc_maps_close(&m);
	code_here();
}

START_TEST(finds_code_by_query)
{
	check_own_mappings(false);
}
END_TEST

START_TEST(finds_code_by_text)
{
	check_own_mappings(true);
}
END_TEST

Suite *proc_maps_suite(void)
{
	return single_case_suite("proc_maps", (const TTest *const[]){ finds_code_by_query, finds_code_by_text, NULL });
}
