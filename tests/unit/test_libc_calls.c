/* The plain logic of --libc-calls: which alias names a function, where a call went
 * from the caller's bytes, the tally of entry points per site, which file is glibc's
 * libc, and the option itself. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "call_decode.h"
#include "entry_tally.h"
#include "function_names.h"
#include "libc_calls.h"
#include "options.h"
#include "suites.h"

START_TEST(public_names_go_first)
{
	ck_assert(function_name_preferred("fopen", "_IO_fopen"));
	ck_assert(function_name_preferred("fopen", "fopen64"));
	ck_assert(function_name_preferred("getpid", "__getpid"));
	ck_assert(function_name_preferred("__clone3", "__GI___clone3"));
	ck_assert(function_name_preferred("open", "send"));
	ck_assert(!function_name_preferred("_IO_fopen", "fopen"));
	ck_assert(!function_name_preferred("fopen", "fopen"));
}
END_TEST

START_TEST(aliases_are_chosen_whatever_their_order)
{
	/* sorted by address as elf_object_load leaves them; aliases in any order */
	struct elf_symbol syms[] = {
		{ 0x100, 0x40, "__getpid" }, { 0x100, 0x40, "getpid" },
		{ 0x200, 0x80, "_IO_fopen" }, { 0x200, 0x80, "fopen64" }, { 0x200, 0x80, "fopen" },
		{ 0x280, 0x10, "__internal" },
	};
	struct elf_object o = { .symbols = syms, .nsymbols = sizeof(syms) / sizeof(syms[0]) };

	ck_assert_str_eq(function_name_at(&o, 0x100, true), "getpid");
	ck_assert_str_eq(function_name_at(&o, 0x200, true), "fopen");
	ck_assert_str_eq(function_name_at(&o, 0x23f, false), "fopen");
	ck_assert_str_eq(function_name_at(&o, 0x285, false), "__internal");
	/* exact: only a function starting there; not exact: only one containing it */
	ck_assert_ptr_null(function_name_at(&o, 0x201, true));
	ck_assert_ptr_null(function_name_at(&o, 0x150, false));
	ck_assert_ptr_null(function_name_at(&o, 0x50, false));
}
END_TEST

/* The glibc this test runs with, from its own mappings. */
static int open_own_libc(void)
{
	FILE *maps = fopen("/proc/self/maps", "r");
	char line[512], *path;
	int fd = -1;

	while (maps && fd < 0 && fgets(line, sizeof(line), maps)) {
		line[strcspn(line, "\n")] = '\0';
		if ((path = strchr(line, '/')) && libc_calls_is_glibc(path))
			fd = open(path, O_RDONLY);
	}
	if (maps)
		fclose(maps);
	return fd;
}

START_TEST(glibc_exports_fopen_under_aliases)
{
	struct elf_object o;
	int fd = open_own_libc();
	uint64_t fopen_at = 0;
	bool io_fopen_alias = false;

	ck_assert_int_ge(fd, 0);
	ck_assert(elf_object_load_exported(&o, fd));
	close(fd);
	for (size_t i = 0; i < o.nsymbols; i++)
		if (strcmp(o.symbols[i].name, "fopen") == 0)
			fopen_at = o.symbols[i].addr;
	ck_assert_uint_ne(fopen_at, 0);
	for (size_t i = 0; i < o.nsymbols; i++)
		io_fopen_alias |= strcmp(o.symbols[i].name, "_IO_fopen") == 0 && o.symbols[i].addr == fopen_at;
	ck_assert(io_fopen_alias);
	ck_assert_str_eq(function_name_at(&o, fopen_at, true), "fopen");
	elf_object_free(&o);
}
END_TEST

START_TEST(direct_and_got_calls_are_decoded)
{
	const uint8_t direct[CALL_BYTES] = { 0x90, 0xe8, 0xfb, 0xff, 0xff, 0xff };    /* call ret-5 */
	const uint8_t via_got[CALL_BYTES] = { 0xff, 0x15, 0x00, 0x10, 0x00, 0x00 };   /* call *0x1000(%rip) */
	const uint8_t via_register[CALL_BYTES] = { 0x90, 0x90, 0x90, 0x90, 0xff, 0xd0 }; /* call *%rax */
	uint64_t to = 0;

	ck_assert_int_eq(call_before(direct, 0x5000, &to), CALL_DIRECT);
	ck_assert_uint_eq(to, 0x5000 - 5);
	ck_assert_int_eq(call_before(via_got, 0x5000, &to), CALL_THROUGH_SLOT);
	ck_assert_uint_eq(to, 0x6000);
	ck_assert_int_eq(call_before(via_register, 0x5000, &to), CALL_UNKNOWN);
}
END_TEST

START_TEST(plt_entries_give_their_slot)
{
	const uint8_t classic[PLT_BYTES] = { 0xff, 0x25, 0x10, 0x00, 0x00, 0x00, 0x68, 0, 0, 0, 0 };
	const uint8_t ibt[PLT_BYTES] = { 0xf3, 0x0f, 0x1e, 0xfa, 0xf2, 0xff, 0x25, 0xf0, 0xff, 0xff, 0xff };
	const uint8_t function[PLT_BYTES] = { 0xf3, 0x0f, 0x1e, 0xfa, 0x55, 0x48, 0x89, 0xe5, 0, 0, 0 };
	uint64_t slot = 0;

	ck_assert(plt_entry_slot(classic, 0x1000, &slot));
	ck_assert_uint_eq(slot, 0x1000 + 6 + 0x10);
	ck_assert(plt_entry_slot(ibt, 0x1000, &slot));
	ck_assert_uint_eq(slot, 0x1000 + 11 - 0x10);
	ck_assert(!plt_entry_slot(function, 0x1000, &slot));
}
END_TEST

START_TEST(the_top_entry_is_the_first_of_the_most_calls)
{
	struct libc_entry *e = NULL;
	unsigned n = 0;
	char other_fopen[] = "fopen"; /* the same name from another copy of libc */

	ck_assert_ptr_null(entry_tally_top(e, n));
	entry_tally_add(&e, &n, "fopen");
	entry_tally_add(&e, &n, "getpid");
	entry_tally_add(&e, &n, "getpid");
	ck_assert_str_eq(entry_tally_top(e, n), "getpid");
	entry_tally_add(&e, &n, other_fopen);
	ck_assert_uint_eq(n, 2);
	ck_assert_str_eq(e[0].name, "fopen");
	ck_assert_uint_eq(e[0].calls, 2);
	/* a tie: the one seen first */
	ck_assert_str_eq(entry_tally_top(e, n), "fopen");
	free(e);
}
END_TEST

START_TEST(glibc_is_known_by_its_file_name)
{
	ck_assert(libc_calls_is_glibc("/usr/lib/x86_64-linux-gnu/libc.so.6"));
	ck_assert(libc_calls_is_glibc("/lib/libc.so.6 (deleted)"));
	ck_assert(libc_calls_is_glibc("/lib/x86_64-linux-gnu/libc-2.31.so"));
	ck_assert(libc_calls_is_glibc("libc.so.6"));
	ck_assert(!libc_calls_is_glibc("/usr/lib/libc.so.60"));
	ck_assert(!libc_calls_is_glibc("/opt/mylibc.so.6"));
	ck_assert(!libc_calls_is_glibc("/opt/libc.so.6.bak"));
	ck_assert(!libc_calls_is_glibc("/opt/libc-tools.so"));
	ck_assert(!libc_calls_is_glibc("/usr/lib/libc.so"));
	ck_assert(!libc_calls_is_glibc("/usr/lib/libc-.so"));
}
END_TEST

START_TEST(the_option_is_off_by_default)
{
	struct options o;
	char *plain[] = { "systrace", "--", "true", NULL };
	char *with[] = { "systrace", "--libc-calls", "--patch=off", "--", "true", NULL };

	optind = 0;
	ck_assert_int_eq(options_parse(&o, 3, plain), OPTIONS_RUN);
	ck_assert(!o.libc_calls);
	optind = 0;
	ck_assert_int_eq(options_parse(&o, 5, with), OPTIONS_RUN);
	ck_assert(o.libc_calls);
	ck_assert_int_eq(o.patch, PATCH_OFF);
}
END_TEST

Suite *libc_calls_suite(void)
{
	return single_case_suite("libc_calls", (const TTest *const[]){
		public_names_go_first, aliases_are_chosen_whatever_their_order, glibc_exports_fopen_under_aliases,
		direct_and_got_calls_are_decoded, plt_entries_give_their_slot,
		the_top_entry_is_the_first_of_the_most_calls, glibc_is_known_by_its_file_name,
		the_option_is_off_by_default, NULL });
}
