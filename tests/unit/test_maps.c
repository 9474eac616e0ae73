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

START_TEST(room_near_code_prefers_below_it)
{
	/* an executable with its heap above it, a library far above both */
	struct map_entry m[3] = {
		{ .start = 0x555500000000, .end = 0x555500010000 },
		{ .start = 0x555500010000, .end = 0x555500200000 },
		{ .start = 0x7f0000000000, .end = 0x7f0000200000 },
	};
	const uint64_t reach = 1ULL << 31, size = 0x10000;
	uint64_t at;

	/* below the executable, right against it */
	ck_assert(maps_gap_near(m, 3, 0x555500001000, 0x555500001008, size, reach, &at));
	ck_assert_uint_eq(at, 0x555500000000 - size);
	/* below the library: the gap above the heap is far, and above it is worse */
	ck_assert(maps_gap_near(m, 3, 0x7f0000001000, 0x7f0000001008, size, reach, &at));
	ck_assert_uint_eq(at, 0x7f0000000000 - size);
}
END_TEST

START_TEST(room_near_code_above_or_none)
{
	/* nothing free below the code within reach: above it, or nowhere */
	struct map_entry m[2] = {
		{ .start = 0x10000, .end = 0x90000000 },
		{ .start = 0x90000000, .end = 0x90010000 },
	};
	const uint64_t size = 0x10000;
	uint64_t at;

	ck_assert(maps_gap_near(m, 2, 0x90001000, 0x90001008, size, 1ULL << 31, &at));
	ck_assert_uint_eq(at, 0x90010000);
	ck_assert(!maps_gap_near(m, 2, 0x90001000, 0x90001008, size, 0x1000, &at));
}
END_TEST

Suite *maps_suite(void)
{
	return single_case_suite("maps", (const TTest *const[]){
		file_mapping_line, anonymous_and_special_lines, malformed_lines_are_refused, find_by_address,
		room_near_code_prefers_below_it, room_near_code_above_or_none, NULL });
}
