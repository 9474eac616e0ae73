#include <dlfcn.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "code_scan.h"
#include "suites.h"

START_TEST(syscalls_with_the_instructions_before)
{
	static const uint8_t code[] = {
		0x90,                         /* 0x1000 nop */
		0xb8, 0x27, 0x00, 0x00, 0x00, /* 0x1001 mov $0x27,%eax */
		0x90,                         /* 0x1006 nop */
		0x48, 0x89, 0xfe,             /* 0x1007 mov %rdi,%rsi */
		0x31, 0xff,                   /* 0x100a xor %edi,%edi */
		0x0f, 0x05,                   /* 0x100c syscall */
		0x0f, 0x05,                   /* 0x100e syscall */
		0xc3,                         /* 0x1010 ret */
	};
	struct code_scan s = { 0 };
	const struct scanned_syscall *sc;

	code_scan_add(&s, code, sizeof(code), 0x1000);
	code_scan_finish(&s);
	ck_assert_uint_eq(s.nsyscalls, 2);
	sc = code_scan_find(&s, 0x100c);
	ck_assert_ptr_nonnull(sc);
	ck_assert_uint_eq(sc->nprev, SCAN_PREV);
	ck_assert_uint_eq(sc->prev[0], 0x100a);
	ck_assert_uint_eq(sc->prev[1], 0x1007);
	ck_assert_uint_eq(sc->prev[2], 0x1006);
	ck_assert_uint_eq(sc->prev[3], 0x1001);
	sc = code_scan_find(&s, 0x100e);
	ck_assert_ptr_nonnull(sc);
	ck_assert_uint_eq(sc->prev[0], 0x100c);
	ck_assert_ptr_null(code_scan_find(&s, 0x100d));
	ck_assert_ptr_null(code_scan_find(&s, 0x2000));
	code_scan_free(&s);
}
END_TEST

START_TEST(undecodable_byte_cuts_the_instructions_before)
{
	static const uint8_t code[] = {
		0x90,       /* 0 nop */
		0x06,       /* 1 push %es: invalid in 64-bit mode */
		0x31, 0xc0, /* 2 xor %eax,%eax */
		0x0f, 0x05, /* 4 syscall */
	};
	struct code_scan s = { 0 };

	code_scan_add(&s, code, sizeof(code), 0);
	code_scan_finish(&s);
	ck_assert_uint_eq(s.nsyscalls, 1);
	ck_assert_uint_eq(s.syscalls[0].addr, 4);
	ck_assert_uint_eq(s.syscalls[0].nprev, 1);
	ck_assert_uint_eq(s.syscalls[0].prev[0], 2);
	code_scan_free(&s);
}
END_TEST

START_TEST(only_targets_near_a_syscall_are_kept)
{
	static const uint8_t code[] = {
		0x74, 0x04,                   /* 0x100 je 0x106 */
		0xeb, 0x02,                   /* 0x102 jmp 0x106 (again) */
		0xe8, 0xf7, 0x0e, 0x00, 0x00, /* 0x104 call 0x1000: far away */
		0x31, 0xc0,                   /* 0x109 xor %eax,%eax */
		0x0f, 0x05,                   /* 0x10b syscall */
		0xc3,                         /* 0x10d ret */
	};
	struct code_scan s = { 0 };

	code_scan_add(&s, code, sizeof(code), 0x100);
	code_scan_add_target(&s, 0x10b + SCAN_NEAR);     /* a function start just near enough */
	code_scan_add_target(&s, 0x10b + SCAN_NEAR + 1); /* and one too far */
	code_scan_finish(&s);
	ck_assert_uint_eq(s.ntargets, 2);
	ck_assert_uint_eq(s.targets[0], 0x106);
	ck_assert_uint_eq(s.targets[1], 0x10b + SCAN_NEAR);
	/* strictly between */
	ck_assert(code_scan_has_target(&s, 0x105, 0x107));
	ck_assert(!code_scan_has_target(&s, 0x106, 0x10b));
	ck_assert(!code_scan_has_target(&s, 0x100, 0x106));
	ck_assert(code_scan_is_target(&s, 0x106));
	ck_assert(!code_scan_is_target(&s, 0x107));
	ck_assert(!code_scan_is_target(&s, 0x1000));
	code_scan_free(&s);
}
END_TEST

/* The C library this test runs with, and its getppid: `mov $0x6e,%eax; syscall`. */
START_TEST(whole_object_is_swept)
{
	Dl_info info;
	struct elf_object o;
	struct code_scan s;
	uint64_t getppid_addr = 0;
	int fd;

	ck_assert(dladdr((void *)getppid, &info));
	fd = open(info.dli_fname, O_RDONLY);
	ck_assert_int_ge(fd, 0);
	ck_assert(elf_object_load(&o, fd, SIZE_MAX));
	ck_assert(code_scan_object(&s, fd, &o));
	close(fd);
	for (size_t i = 0; i < o.nsymbols; i++)
		if (strcmp(o.symbols[i].name, "getppid") == 0)
			getppid_addr = o.symbols[i].addr;
	ck_assert_uint_ne(getppid_addr, 0);
	ck_assert_uint_gt(s.nsyscalls, 100);
	ck_assert_ptr_nonnull(code_scan_find(&s, getppid_addr + 5));
	ck_assert_uint_eq(code_scan_find(&s, getppid_addr + 5)->prev[0], getppid_addr);
	ck_assert(code_scan_is_target(&s, getppid_addr));
	for (size_t i = 1; i < s.nsyscalls; i++)
		ck_assert_uint_lt(s.syscalls[i - 1].addr, s.syscalls[i].addr);
	code_scan_free(&s);
	elf_object_free(&o);
}
END_TEST

START_TEST(object_without_code)
{
	struct elf_object o = { 0 };
	struct code_scan s;
	int fd = open("/proc/self/maps", O_RDONLY);

	ck_assert(!code_scan_object(&s, fd, &o));
	close(fd);
	ck_assert_uint_eq(s.nsyscalls, 0);
	code_scan_free(&s);
}
END_TEST

Suite *code_scan_suite(void)
{
	return single_case_suite("code_scan", (const TTest *const[]){
		syscalls_with_the_instructions_before, undecodable_byte_cuts_the_instructions_before,
		only_targets_near_a_syscall_are_kept, whole_object_is_swept, object_without_code, NULL });
}
