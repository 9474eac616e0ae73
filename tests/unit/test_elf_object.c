#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "elf_object.h"
#include "prologue.h"
#include "suites.h"

/* A function of this test binary, to be found by address in its own symbol table. */
__attribute__((noinline)) int elf_test_marker_function(int x)
{
	return x * 3 + 1;
}

START_TEST(own_symbols_are_found)
{
	struct elf_object o;
	int fd = open("/proc/self/exe", O_RDONLY);
	uint64_t vaddr = 0;
	const struct elf_symbol *sym = NULL;

	ck_assert_int_ge(fd, 0);
	ck_assert(elf_object_load(&o, fd, SIZE_MAX));
	close(fd);
	ck_assert_uint_gt(o.nsegments, 0);
	ck_assert_uint_gt(o.nsymbols, 0);
	for (size_t i = 0; i < o.nsymbols; i++)
		if (strcmp(o.symbols[i].name, "elf_test_marker_function") == 0)
			vaddr = o.symbols[i].addr;
	ck_assert_uint_ne(vaddr, 0);
	sym = elf_object_symbol(&o, vaddr + 2);
	ck_assert_ptr_nonnull(sym);
	ck_assert_str_eq(sym->name, "elf_test_marker_function");
	ck_assert_ptr_null(elf_object_symbol(&o, 0));
	elf_object_free(&o);
}
END_TEST

/* A table left for the first lookup (a threshold of 0 defers any): nothing read
 * at the load, the same symbol found at the lookup, the file's descriptor closed. */
START_TEST(large_tables_are_read_at_the_first_lookup)
{
	struct elf_object o;
	int fd = open("/proc/self/exe", O_RDONLY), kept;
	const struct elf_symbol *sym;
	uint64_t vaddr = 0;
	size_t n;

	ck_assert_int_ge(fd, 0);
	ck_assert(elf_object_load(&o, fd, SIZE_MAX));
	for (size_t i = 0; i < o.nsymbols; i++)
		if (strcmp(o.symbols[i].name, "elf_test_marker_function") == 0)
			vaddr = o.symbols[i].addr;
	ck_assert(!o.later);
	elf_object_free(&o);
	ck_assert_uint_ne(vaddr, 0);
	ck_assert(elf_object_load(&o, fd, 0));
	close(fd);
	ck_assert(o.later);
	ck_assert_uint_eq(o.nsymbols, 0);
	kept = o.later_fd;
	ck_assert_int_ge(fcntl(kept, F_GETFD), 0);
	sym = elf_object_symbol(&o, vaddr + 2);
	ck_assert_ptr_nonnull(sym);
	ck_assert_str_eq(sym->name, "elf_test_marker_function");
	ck_assert(!o.later);
	ck_assert_int_eq(fcntl(kept, F_GETFD), -1);
	ck_assert_ptr_nonnull(elf_object_symbols(&o, &n));
	ck_assert_uint_gt(n, 0);
	elf_object_free(&o);
}
END_TEST

START_TEST(file_offsets_become_vaddrs)
{
	struct elf_object o = { 0 };
	struct elf_segment segs[2] = { { 0, 0, 0x1000, false }, { 0x1000, 0x201000, 0x500, true } };
	uint64_t v;

	o.segments = segs;
	o.nsegments = 2;
	ck_assert(elf_object_vaddr(&o, 0x10, &v));
	ck_assert_uint_eq(v, 0x10);
	ck_assert(elf_object_vaddr(&o, 0x1234, &v));
	ck_assert_uint_eq(v, 0x201234);
	ck_assert(!elf_object_vaddr(&o, 0x2000, &v));
}
END_TEST

START_TEST(only_readonly_bytes_come_from_the_file)
{
	struct elf_segment segs[2] = { { 0, 0, 0x1000, false }, { 0x1000, 0x201000, 0x500, true } };
	struct elf_object o = { .segments = segs, .nsegments = 2 };
	uint64_t off = 0;

	ck_assert(elf_object_readonly_offset(&o, 0x10, 8, &off));
	ck_assert_uint_eq(off, 0x10);
	ck_assert(elf_object_readonly_offset(&o, 0xff8, 8, &off));
	/* past the segment's end, or in a segment the program writes (relocated data) */
	ck_assert(!elf_object_readonly_offset(&o, 0xffc, 8, &off));
	ck_assert(!elf_object_readonly_offset(&o, 0x201010, 8, &off));
	ck_assert(!elf_object_readonly_offset(&o, 0x5000, 8, &off));
}
END_TEST

START_TEST(nearest_symbol_when_none_contains)
{
	struct elf_object o = { 0 };
	struct elf_symbol syms[3] = { { 0x100, 0x10, "a" }, { 0x200, 0x100, "b" }, { 0x220, 0x8, "inner" } };

	o.symbols = syms;
	o.nsymbols = 3;
	ck_assert_str_eq(elf_object_symbol(&o, 0x105)->name, "a");
	ck_assert_str_eq(elf_object_symbol(&o, 0x150)->name, "a"); /* past a's end: nearest below */
	ck_assert_str_eq(elf_object_symbol(&o, 0x224)->name, "inner");
	ck_assert_str_eq(elf_object_symbol(&o, 0x240)->name, "b"); /* inner ended, b contains it */
	ck_assert_ptr_null(elf_object_symbol(&o, 0xff));
}
END_TEST

/* The build-id's bytes where the object's memory holds them (read here from the
 * file, at the offset that address comes from), and a dynamic symbol by name. */
START_TEST(build_id_and_dynamic_symbols)
{
	struct elf_object o;
	int fd = open("/proc/self/exe", O_RDONLY), libc = open("/lib/x86_64-linux-gnu/libc.so.6", O_RDONLY);
	uint8_t at_vaddr[20];
	uint64_t off, vaddr, size;

	ck_assert_int_ge(fd, 0);
	ck_assert(elf_object_load(&o, fd, SIZE_MAX));
	ck_assert_uint_eq(o.build_id_len, 20);
	ck_assert_uint_ne(o.build_id_vaddr, 0);
	ck_assert(elf_object_file_offset(&o, o.build_id_vaddr, &off));
	ck_assert_int_eq(pread(fd, at_vaddr, sizeof(at_vaddr), (off_t)off), (ssize_t)sizeof(at_vaddr));
	ck_assert_mem_eq(at_vaddr, o.build_id_bytes, 20);
	elf_object_free(&o);
	close(fd);
	ck_assert_int_ge(libc, 0);
	ck_assert(elf_object_find_dynsym(libc, "getppid", &vaddr, &size));
	ck_assert_uint_ne(vaddr, 0);
	ck_assert_uint_gt(size, 0);
	ck_assert(!elf_object_find_dynsym(libc, "no_such_symbol_here", &vaddr, &size));
	close(libc);
}
END_TEST

/* What the libraries' hook may copy of a function's start (patcher/prologue.h). */
START_TEST(prologues_cover_whole_instructions)
{
	static const uint8_t pushes[] = { 0x41, 0x57, 0x41, 0x56, 0x41, 0x55, 0x41, 0x54 };
	static const uint8_t endbr[] = { 0xf3, 0x0f, 0x1e, 0xfa, 0x55, 0x48, 0x89, 0xe5 };
	static const uint8_t frame[] = { 0x55, 0x48, 0x89, 0xe5, 0x48, 0x83, 0xec, 0x20 };
	static const uint8_t ret[] = { 0xc3, 0x66, 0x2e, 0x0f, 0x1f, 0x84, 0x00, 0x00 };
	static const uint8_t riprel[] = { 0x53, 0x48, 0x8b, 0x05, 0x00, 0x10, 0x00, 0x00 };

	ck_assert_uint_eq(prologue_cover(pushes, sizeof(pushes), 5), 6);
	ck_assert_uint_eq(prologue_cover(endbr, sizeof(endbr), 5), 5);
	ck_assert_uint_eq(prologue_cover(frame, sizeof(frame), 5), 8);
	ck_assert_uint_eq(prologue_cover(ret, sizeof(ret), 5), 0);
	ck_assert_uint_eq(prologue_cover(riprel, sizeof(riprel), 5), 0); /* a mov from %rip+... */
	ck_assert_uint_eq(prologue_cover(frame, 3, 5), 0);              /* cut short */
}
END_TEST

START_TEST(non_elf_is_refused)
{
	struct elf_object o;
	int fd = open("/proc/self/maps", O_RDONLY);

	ck_assert(!elf_object_load(&o, fd, SIZE_MAX));
	close(fd);
	ck_assert_uint_eq(o.nsymbols, 0);
}
END_TEST

Suite *elf_object_suite(void)
{
	return single_case_suite("elf_object", (const TTest *const[]){
		own_symbols_are_found, large_tables_are_read_at_the_first_lookup, file_offsets_become_vaddrs,
		only_readonly_bytes_come_from_the_file,
		nearest_symbol_when_none_contains, build_id_and_dynamic_symbols, prologues_cover_whole_instructions,
		non_elf_is_refused, NULL });
}
