#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "scan_cache.h"
#include "suites.h"

static struct code_scan sample(void)
{
	static const uint8_t code[] = {
		0x74, 0x07,                   /* 0x1000 je 0x1009 */
		0xb8, 0x27, 0x00, 0x00, 0x00, /* 0x1002 mov $0x27,%eax */
		0x0f, 0x05,                   /* 0x1007 syscall */
		0xc3,                         /* 0x1009 ret */
	};
	struct code_scan s = { 0 };

	code_scan_add(&s, code, sizeof(code), 0x1000);
	code_scan_finish(&s);
	return s;
}

START_TEST(a_stored_sweep_loads_back_the_same)
{
	char dir[] = "/tmp/systrace-scan-cache.XXXXXX", cmd[64];
	struct code_scan s = sample(), back;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	scan_cache_store(dir, "0123abcd", &s);
	ck_assert(scan_cache_load(dir, "0123abcd", &back));
	ck_assert_uint_eq(back.nsyscalls, s.nsyscalls);
	ck_assert_uint_eq(back.ntargets, s.ntargets);
	ck_assert_int_eq(memcmp(back.syscalls, s.syscalls, s.nsyscalls * sizeof(*s.syscalls)), 0);
	ck_assert_int_eq(memcmp(back.targets, s.targets, s.ntargets * sizeof(*s.targets)), 0);
	ck_assert(code_scan_is_target(&back, 0x1009));
	code_scan_free(&back);
	ck_assert(!scan_cache_load(dir, "ffff", &back));
	code_scan_free(&s);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

START_TEST(a_damaged_entry_is_refused)
{
	char dir[] = "/tmp/systrace-scan-cache.XXXXXX", path[128], cmd[64];
	struct code_scan s = sample(), back;
	FILE *f;
	long size;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	scan_cache_store(dir, "77", &s);
	snprintf(path, sizeof(path), "%s/77.scan", dir);
	f = fopen(path, "r+");
	ck_assert_ptr_nonnull(f);
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	ck_assert_int_eq(ftruncate(fileno(f), size - 3), 0);
	fclose(f);
	ck_assert(!scan_cache_load(dir, "77", &back));
	ck_assert_ptr_null(back.syscalls);
	code_scan_free(&s);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

Suite *scan_cache_suite(void)
{
	return single_case_suite("scan_cache", (const TTest *const[]){
		a_stored_sweep_loads_back_the_same, a_damaged_entry_is_refused, NULL });
}
