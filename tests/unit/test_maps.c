#include <sys/sysmacros.h>

#include "maps.h"
#include "suites.h"

START_TEST(file_mapping_line)
{
	struct map_entry e;

	ck_assert(maps_parse_line("7f42b8f8a000-7f42b90df000 r-xp 00026000 fe:01 1319093    "
				  "/usr/lib/x86_64-linux-gnu/libc.so.6\n", &e));
	ck_assert_uint_eq(e.start, 0x7f42b8f8a000);
	ck_assert_uint_eq(e.end, 0x7f42b90df000);
	ck_assert_uint_eq(e.file_offset, 0x26000);
	ck_assert_uint_eq(major(e.dev), 0xfe);
	ck_assert_uint_eq(minor(e.dev), 1);
	ck_assert_uint_eq(e.ino, 1319093);
	ck_assert(e.executable);
	ck_assert_str_eq(e.path, "/usr/lib/x86_64-linux-gnu/libc.so.6");
}
END_TEST

START_TEST(anonymous_and_special_lines)
{
	struct map_entry e;

	ck_assert(maps_parse_line("7ffd1000-7ffd3000 rw-p 00000000 00:00 0 \n", &e));
	ck_assert_str_eq(e.path, "");
	ck_assert(!e.executable);
	ck_assert(maps_parse_line("7fff1000-7fff3000 r-xp 00000000 00:00 0                  [vdso]", &e));
	ck_assert_str_eq(e.path, "[vdso]");
	ck_assert(maps_parse_line("1000-2000 r-xp 00000000 08:01 42 /tmp/a file (deleted)\n", &e));
	ck_assert_str_eq(e.path, "/tmp/a file (deleted)");
}
END_TEST

START_TEST(malformed_lines_are_refused)
{
	struct map_entry e;

	ck_assert(!maps_parse_line("", &e));
	ck_assert(!maps_parse_line("garbage\n", &e));
	ck_assert(!maps_parse_line("2000-1000 r-xp 00000000 00:00 0\n", &e));
	ck_assert(!maps_parse_line("1000-2000 r-xp 00000000 00:00\n", &e));
}
END_TEST

START_TEST(find_by_address)
{
	struct map_entry m[3] = {
		{ .start = 0x1000, .end = 0x2000 }, { .start = 0x5000, .end = 0x6000 }, { .start = 0x6000, .end = 0x9000 },
	};

	ck_assert_ptr_eq(maps_find(m, 3, 0x1000), &m[0]);
	ck_assert_ptr_eq(maps_find(m, 3, 0x1fff), &m[0]);
	ck_assert_ptr_null(maps_find(m, 3, 0x2000));
	ck_assert_ptr_eq(maps_find(m, 3, 0x6000), &m[2]);
	ck_assert_ptr_null(maps_find(m, 3, 0x9000));
	ck_assert_ptr_null(maps_find(m, 0, 0x1000));
}
END_TEST

Suite *maps_suite(void)
{
	return single_case_suite("maps", (const TTest *const[]){
		file_mapping_line, anonymous_and_special_lines, malformed_lines_are_refused, find_by_address, NULL });
}
