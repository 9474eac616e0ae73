#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "code_samples.h"
#include "patch_plan.h"
#include "suites.h"

/* Plans the syscall at code + site_off, with code at address 0x1000 as its own scan
 * and window; targets are extra function starts (0-terminated offsets). */
static const char *plan_bytes(const uint8_t *code, size_t len, size_t site_off, const int *targets,
			      struct patch_plan *p)
{
	struct code_scan s = { 0 };
	const char *why;

	code_scan_add(&s, code, len, 0x1000);
	for (; targets && *targets; targets++)
		code_scan_add_target(&s, 0x1000 + (uint64_t)*targets);
	code_scan_finish(&s);
	why = patch_plan_make(&s, code, len, 0x1000, 0x1000 + site_off, p);
	code_scan_free(&s);
	return why;
}

START_TEST(instructions_before_are_taken)
{
	const uint8_t *code = sample_before;
	struct patch_plan p;

	/* targets at the start and at the syscall do not matter */
	ck_assert_ptr_null(plan_bytes(code, sizeof(sample_before), 0xb, (const int[]){ 3, 0xb, 0 }, &p));
	ck_assert_int_eq(p.shape, PATCH_BEFORE);
	ck_assert_uint_eq(p.site, 0x100b);
	ck_assert_uint_eq(p.start, 0x1003);
	ck_assert_uint_eq(p.end, 0x100b);
	ck_assert_int_eq(p.nr, 0);
	ck_assert_uint_eq(p.ninsn, 2);
	ck_assert_uint_eq(p.insn_off[0], 0);
	ck_assert_uint_eq(p.insn_off[1], 5);
	ck_assert_mem_eq(p.original, code + 3, 8);
}
END_TEST

START_TEST(numbers_known_before_the_syscall)
{
	static const uint8_t mov_rax[] = { 0x48, 0xc7, 0xc0, 0x3c, 0x00, 0x00, 0x00, 0x0f, 0x05 };
	static const uint8_t mov_eax[] = { 0xb8, 0xe7, 0x00, 0x00, 0x00, 0x0f, 0x05 };
	static const uint8_t negative[] = { 0x48, 0xc7, 0xc0, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x05 };
	static const uint8_t from_reg[] = { 0x48, 0x89, 0xf8, 0x48, 0x89, 0xf7, 0x0f, 0x05 };
	static const uint8_t xor_eax[] = { 0x48, 0x89, 0xf8, 0x48, 0x89, 0xf7, 0x33, 0xc0, 0x0f, 0x05 };
	struct patch_plan p;

	ck_assert_ptr_null(plan_bytes(mov_rax, sizeof(mov_rax), 7, NULL, &p));
	ck_assert_int_eq(p.nr, 60);
	ck_assert_ptr_null(plan_bytes(mov_eax, sizeof(mov_eax), 5, NULL, &p));
	ck_assert_int_eq(p.nr, 231);
	ck_assert_ptr_null(plan_bytes(negative, sizeof(negative), 7, NULL, &p));
	ck_assert_int_eq(p.nr, -1);
	ck_assert_ptr_null(plan_bytes(from_reg, sizeof(from_reg), 6, NULL, &p));
	ck_assert_int_eq(p.nr, -1);
	ck_assert_ptr_null(plan_bytes(xor_eax, sizeof(xor_eax), 8, NULL, &p));
	ck_assert_int_eq(p.nr, 0);
	ck_assert_uint_eq(p.ninsn, 2);
}
END_TEST

START_TEST(one_byte_instruction_before)
{
	/* nop; syscall; mov %rax,%rdi; ret, in memory of its own so that a read before
	 * it is caught by the sanitizer */
	static const uint8_t bytes[] = { 0x90, 0x0f, 0x05, 0x48, 0x89, 0xc7, 0xc3 };
	uint8_t *code = malloc(sizeof(bytes));
	struct patch_plan p;

	memcpy(code, bytes, sizeof(bytes));
	ck_assert_ptr_null(plan_bytes(code, sizeof(bytes), 1, NULL, &p));
	ck_assert_int_eq(p.shape, PATCH_AFTER);
	ck_assert_int_eq(p.nr, -1);
	free(code);
}
END_TEST

START_TEST(instructions_after_when_before_is_refused)
{
	struct patch_plan p;

	ck_assert_ptr_null(plan_bytes(sample_read, sizeof(sample_read), 6, NULL, &p));
	ck_assert_int_eq(p.shape, PATCH_AFTER);
	ck_assert_uint_eq(p.start, 0x1006);
	ck_assert_uint_eq(p.end, 0x100e);
	ck_assert_int_eq(p.nr, 0);
	ck_assert_uint_eq(p.ninsn, 2);
	ck_assert_uint_eq(p.insn_off[0], 0);
	ck_assert_uint_eq(p.insn_off[1], 2);
	ck_assert_mem_eq(p.original, sample_read + 6, 8);
	/* a branch to the syscall may bring any number */
	ck_assert_ptr_null(plan_bytes(sample_read, sizeof(sample_read), 6, (const int[]){ 6, 0 }, &p));
	ck_assert_int_eq(p.nr, -1);
	/* a branch to the syscall's return point, which the patch would cover (the
	 * reason reported is the refused BEFORE's) */
	ck_assert_ptr_nonnull(plan_bytes(sample_read, sizeof(sample_read), 6, (const int[]){ 8, 0 }, &p));
}
END_TEST

START_TEST(not_a_syscall)
{
	/* 0f 05 inside `mov $0x50f,%eax`: the sweep never saw an instruction there */
	static const uint8_t code[] = { 0xb8, 0x0f, 0x05, 0x00, 0x00, 0x0f, 0x05 };
	struct patch_plan p;

	ck_assert_str_eq(plan_bytes(code, sizeof(code), 1, NULL, &p), "not-a-syscall");
	ck_assert_str_eq(plan_bytes(code, sizeof(code), 0, NULL, &p), "not-a-syscall");
	ck_assert_str_eq(plan_bytes(code, sizeof(code), 6, NULL, &p), "not-a-syscall"); /* past the window */
	ck_assert_ptr_null(plan_bytes(code, sizeof(code), 5, NULL, &p));
}
END_TEST

START_TEST(memory_that_differs_from_the_sweep)
{
	static const uint8_t swept[] = { 0xb8, 0x6e, 0x00, 0x00, 0x00, 0x0f, 0x05, 0xc3 };
	static const uint8_t memory[] = { 0x66, 0x90, 0x90, 0x90, 0x90, 0x0f, 0x05, 0xc3 };
	struct code_scan s = { 0 };
	struct patch_plan p;

	code_scan_add(&s, swept, sizeof(swept), 0x1000);
	code_scan_finish(&s);
	ck_assert_str_eq(patch_plan_make(&s, memory, sizeof(memory), 0x1000, 0x1005, &p), "decode");
	/* a window that ends before the covered bytes do */
	ck_assert_str_eq(patch_plan_make(&s, swept + 2, 6, 0x1002, 0x1005, &p), "decode");
	code_scan_free(&s);
}
END_TEST

START_TEST(refusals)
{
	static const uint8_t target_inside[] = { 0xb9, 0x01, 0x00, 0x00, 0x00, 0x31, 0xc0, 0x0f, 0x05, 0xc3 };
	static const uint8_t rip_relative[] = { 0x48, 0x8b, 0x05, 0x00, 0x00, 0x00, 0x00, 0x0f, 0x05, 0xc3 };
	static const uint8_t call_before[] = { 0xe8, 0x00, 0x00, 0x00, 0x00, 0x0f, 0x05, 0xc3 };
	static const uint8_t first[] = { 0x0f, 0x05, 0xc3 };
	/* the syscall is reached by a jump, and a rip-relative load follows it */
	static const uint8_t rip_after[] = { 0xeb, 0x00, 0x0f, 0x05, 0x48, 0x8b, 0x05, 0x00, 0x00, 0x00, 0x00, 0xc3 };
	static const uint8_t ok_after[] = { 0xeb, 0x00, 0x0f, 0x05, 0x48, 0x89, 0xc7, 0xc3 };
	struct patch_plan p;

	ck_assert_str_eq(plan_bytes(target_inside, sizeof(target_inside), 7, (const int[]){ 5, 0 }, &p),
			 "branch-target");
	ck_assert_str_eq(plan_bytes(rip_relative, sizeof(rip_relative), 7, NULL, &p), "rip-relative");
	ck_assert_str_eq(plan_bytes(call_before, sizeof(call_before), 5, NULL, &p), "control-flow");
	ck_assert_str_eq(plan_bytes(first, sizeof(first), 0, NULL, &p), "too-short");
	/* when AFTER is refused too, the reason reported is BEFORE's */
	ck_assert_str_eq(plan_bytes(rip_after, sizeof(rip_after), 2, NULL, &p), "too-short");
	ck_assert_ptr_null(plan_bytes(ok_after, sizeof(ok_after), 2, NULL, &p));
	ck_assert_int_eq(p.shape, PATCH_AFTER);
	ck_assert_uint_eq(p.end - p.start, 5);
	ck_assert_int_eq(p.nr, -1); /* the jmp lands on the syscall */
	ck_assert_str_eq(plan_bytes(ok_after, sizeof(ok_after), 2, (const int[]){ 4, 0 }, &p), "too-short");
}
END_TEST

/* The C library this test runs with, as the tracer sees it: its sweep, and its code
 * as memory holds it (addresses in the object's ELF space). */
static struct {
	struct elf_object o;
	struct code_scan scan;
	const uint8_t *base; /* where ELF address 0 is mapped */
} libc;

static void libc_setup(void)
{
	Dl_info info;
	struct link_map *map;
	int fd;

	ck_assert(dladdr1((void *)getppid, &info, (void **)&map, RTLD_DL_LINKMAP));
	libc.base = (const uint8_t *)map->l_addr;
	fd = open(info.dli_fname, O_RDONLY);
	ck_assert_int_ge(fd, 0);
	ck_assert(elf_object_load(&libc.o, fd, SIZE_MAX));
	ck_assert(code_scan_object(&libc.scan, fd, &libc.o));
	close(fd);
}

static void libc_teardown(void)
{
	code_scan_free(&libc.scan);
	elf_object_free(&libc.o);
}

/* Plans the first syscall of libc's function name. */
static const char *plan_libc(const char *name, struct patch_plan *p)
{
	const struct elf_symbol *sym = NULL;
	const struct scanned_syscall *sc = NULL;

	for (size_t i = 0; i < libc.o.nsymbols && !sym; i++)
		if (strcmp(libc.o.symbols[i].name, name) == 0)
			sym = &libc.o.symbols[i];
	ck_assert_ptr_nonnull(sym);
	for (size_t i = 0; i < libc.scan.nsyscalls && !sc; i++)
		if (libc.scan.syscalls[i].addr >= sym->addr && libc.scan.syscalls[i].addr < sym->addr + sym->size)
			sc = &libc.scan.syscalls[i];
	ck_assert_ptr_nonnull(sc);
	return patch_plan_make(&libc.scan, libc.base + sc->addr - 64, 128, sc->addr - 64, sc->addr, p);
}

START_TEST(libc_getppid)
{
	struct patch_plan p;

	ck_assert_ptr_null(plan_libc("getppid", &p));
	ck_assert_int_eq(p.shape, PATCH_BEFORE);
	ck_assert_int_eq(p.nr, 0x6e);
	ck_assert_uint_eq(p.end - p.start, 5);
	ck_assert_mem_eq(p.original, ((const uint8_t[]){ 0xb8, 0x6e, 0, 0, 0 }), 5);
}
END_TEST

START_TEST(libc_read)
{
	struct patch_plan p;

	ck_assert_ptr_null(plan_libc("read", &p));
	ck_assert_int_eq(p.shape, PATCH_AFTER);
	ck_assert_int_eq(p.nr, 0);
	ck_assert_uint_eq(p.end - p.start, 8);
	ck_assert_mem_eq(p.original, ((const uint8_t[]){ 0x0f, 0x05, 0x48, 0x3d }), 4);
}
END_TEST

START_TEST(libc_syscall)
{
	struct patch_plan p;

	ck_assert_ptr_null(plan_libc("syscall", &p));
	ck_assert_int_eq(p.shape, PATCH_BEFORE);
	ck_assert_int_eq(p.nr, -1);
	ck_assert_uint_eq(p.end - p.start, 5);
	ck_assert_uint_eq(p.ninsn, 1);
}
END_TEST

Suite *patch_plan_suite(void)
{
	Suite *s = single_case_suite("patch_plan", (const TTest *const[]){
		instructions_before_are_taken, numbers_known_before_the_syscall, one_byte_instruction_before,
		instructions_after_when_before_is_refused, not_a_syscall, memory_that_differs_from_the_sweep,
		refusals, NULL });
	TCase *tc = tcase_create("patch_plan_libc");

	tcase_add_unchecked_fixture(tc, libc_setup, libc_teardown);
	tcase_add_test(tc, libc_getppid);
	tcase_add_test(tc, libc_read);
	tcase_add_test(tc, libc_syscall);
	suite_add_tcase(s, tc);
	return s;
}
