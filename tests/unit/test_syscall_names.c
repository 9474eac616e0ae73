#include <sys/syscall.h>

#include "suites.h"
#include "syscall_names.h"

START_TEST(native_names_match_the_headers)
{
	char buf[32];

	ck_assert_str_eq(syscall_index_name(syscall_index(ABI_X86_64, SYS_read), buf, sizeof(buf)), "read");
	ck_assert_str_eq(syscall_index_name(syscall_index(ABI_X86_64, SYS_getppid), buf, sizeof(buf)), "getppid");
	ck_assert_str_eq(syscall_index_name(syscall_index(ABI_X86_64, SYS_newfstatat), buf, sizeof(buf)), "newfstatat");
	ck_assert_str_eq(syscall_index_name(syscall_index(ABI_X86_64, SYS_clone3), buf, sizeof(buf)), "clone3");
	ck_assert_int_eq(syscall_index_of(ABI_X86_64, "execve"), syscall_index(ABI_X86_64, SYS_execve));
	ck_assert_int_eq(syscall_index_of(ABI_I386, "execve"), syscall_index(ABI_I386, 11));
	ck_assert_int_eq(syscall_index_of(ABI_X86_64, "no_such_call"), -1);
}
END_TEST

START_TEST(other_abis_have_their_own_numbers)
{
	char buf[32];

	/* i386: getpid is 20, execve 11; x32: read is 0, rt_sigreturn 513 */
	ck_assert_str_eq(syscall_index_name(syscall_index(ABI_I386, 20), buf, sizeof(buf)), "getpid");
	ck_assert_str_eq(syscall_index_name(syscall_index(ABI_I386, 11), buf, sizeof(buf)), "execve");
	ck_assert_str_eq(syscall_index_name(syscall_index(ABI_X32, 513), buf, sizeof(buf)), "rt_sigreturn");
	ck_assert_int_ne(syscall_index(ABI_I386, 20), syscall_index(ABI_X86_64, 20));
}
END_TEST

START_TEST(unknown_numbers_get_a_generated_name)
{
	char buf[32];

	ck_assert_str_eq(syscall_index_name(syscall_index(ABI_X86_64, 1000), buf, sizeof(buf)), "syscall_0x3e8");
	ck_assert_str_eq(syscall_index_name(syscall_index(ABI_X86_64, SYSCALL_NR_OUT_OF_RANGE), buf, sizeof(buf)),
			 "syscall_out_of_range");
	ck_assert_int_eq(syscall_index(ABI_X86_64, SYSCALL_NR_SPAN), -1);
	ck_assert_int_eq(syscall_index(ABI_X86_64, -1), -1);
}
END_TEST

/* Every name syscalls.csv can hold is read back to its index. */
START_TEST(names_parse_back_to_their_index)
{
	char buf[32];

	for (int i = 0; i < SYSCALL_INDEX_COUNT; i++) {
		enum syscall_abi abi = (enum syscall_abi)(i / SYSCALL_NR_SPAN);
		const char *name = syscall_index_name(i, buf, sizeof(buf));

		ck_assert_msg(syscall_index_parse(abi, name) == i, "%s (%s) parses to %d, not %d", name,
			      syscall_abi_names[abi], syscall_index_parse(abi, name), i);
	}
	ck_assert_int_eq(syscall_index_parse(ABI_X86_64, "syscall_0x"), -1);
	ck_assert_int_eq(syscall_index_parse(ABI_X86_64, "syscall_0x0"), -1);  /* read has a name */
	ck_assert_int_eq(syscall_index_parse(ABI_X86_64, "syscall_0x3e8z"), -1);
	ck_assert_int_eq(syscall_index_parse(ABI_X86_64, "syscall_0x3ff"), -1); /* out of range is named so */
	ck_assert_int_eq(syscall_index_parse(ABI_X86_64, "frobnicate"), -1);
	ck_assert_int_eq(syscall_abi_parse("i386"), ABI_I386);
	ck_assert_int_eq(syscall_abi_parse("x32"), ABI_X32);
	ck_assert_int_eq(syscall_abi_parse("arm"), -1);
}
END_TEST

Suite *syscall_names_suite(void)
{
	return single_case_suite("syscall_names", (const TTest *const[]){
		native_names_match_the_headers, other_abis_have_their_own_numbers,
		unknown_numbers_get_a_generated_name, names_parse_back_to_their_index, NULL });
}
