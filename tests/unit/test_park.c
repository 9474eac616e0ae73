/* tracer/park.c: where a handed-off image waits: a `syscall` in a vDSO image, and
 * the vDSO's address in an exec-time stack's auxiliary vector. */
#include <elf.h>
#include <string.h>
#include <sys/auxv.h>

#include "park.h"
#include "suites.h"

/* An ELF image with two program headers: a non-executable PT_LOAD holding 0f 05 at
 * 0x100 (not taken), and an executable one from 0x200 of len bytes. */
static size_t fake_vdso(uint8_t *img, size_t size, uint64_t len)
{
	Elf64_Ehdr eh = { .e_phoff = sizeof(Elf64_Ehdr), .e_phentsize = sizeof(Elf64_Phdr), .e_phnum = 2 };
	Elf64_Phdr ph[2] = {
		{ .p_type = PT_LOAD, .p_flags = PF_R, .p_offset = 0x100, .p_filesz = 0x10 },
		{ .p_type = PT_LOAD, .p_flags = PF_R | PF_X, .p_offset = 0x200, .p_filesz = len },
	};

	memset(img, 0x90, size);
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	memcpy(img, &eh, sizeof(eh));
	memcpy(img + eh.e_phoff, ph, sizeof(ph));
	img[0x100] = 0x0f;
	img[0x101] = 0x05;
	return size;
}

START_TEST(finds_a_syscall_in_the_executable_segment_only)
{
	static uint8_t img[0x400];
	uint64_t at = 0;

	fake_vdso(img, sizeof(img), 0x100);
	ck_assert(!park_vdso_syscall(img, sizeof(img), &at));
	img[0x2f0] = 0x0f;
	img[0x2f1] = 0x05;
	ck_assert(park_vdso_syscall(img, sizeof(img), &at));
	ck_assert_uint_eq(at, 0x2f0);
	/* both bytes must be inside the segment */
	img[0x2f0] = img[0x2f1] = 0x90;
	img[0x2ff] = 0x0f;
	img[0x300] = 0x05;
	ck_assert(!park_vdso_syscall(img, sizeof(img), &at));
	/* a segment that says it reaches past the image is not read */
	fake_vdso(img, sizeof(img), 0x1000);
	img[0x2f0] = 0x0f;
	img[0x2f1] = 0x05;
	ck_assert(!park_vdso_syscall(img, sizeof(img), &at));
	/* not an ELF image */
	ck_assert(!park_vdso_syscall(img, 16, &at));
	img[0] = 0;
	ck_assert(!park_vdso_syscall(img, sizeof(img), &at));
}
END_TEST

START_TEST(finds_this_process_vdso_syscall)
{
	const uint8_t *vdso = (const uint8_t *)getauxval(AT_SYSINFO_EHDR);
	uint64_t at;

	if (!vdso)
		return; /* a kernel booted without a vDSO */
	ck_assert(park_vdso_syscall(vdso, 1 << 20, &at));
	ck_assert(vdso[at] == 0x0f && vdso[at + 1] == 0x05);
}
END_TEST

START_TEST(reads_the_auxiliary_vector_past_argv_and_envp)
{
	/* argc 2, argv, NULL, envp (3), NULL, then AT_PAGESZ, AT_SYSINFO_EHDR, AT_NULL */
	const uint64_t words[] = { 2, 0x1000, 0x1008, 0, 0x2000, 0x2008, 0x2010, 0,
				   AT_PAGESZ, 4096, AT_SYSINFO_EHDR, 0x7fff1000, AT_NULL, 0 };
	uint64_t v = 0;

	ck_assert(park_auxv_value(words, sizeof(words) / 8, AT_SYSINFO_EHDR, &v));
	ck_assert_uint_eq(v, 0x7fff1000);
	ck_assert(park_auxv_value(words, sizeof(words) / 8, AT_PAGESZ, &v));
	ck_assert_uint_eq(v, 4096);
	/* after AT_NULL, or not in the vector */
	ck_assert(!park_auxv_value(words, sizeof(words) / 8, AT_ENTRY, &v));
	/* the vector cut short by what was read */
	ck_assert(!park_auxv_value(words, 10, AT_SYSINFO_EHDR, &v));
	ck_assert(!park_auxv_value(words, 11, AT_SYSINFO_EHDR, &v));
	/* an argc beyond what was read */
	ck_assert(!park_auxv_value((const uint64_t[]){ 5, 0, 0 }, 3, AT_SYSINFO_EHDR, &v));
	ck_assert(!park_auxv_value(words, 0, AT_SYSINFO_EHDR, &v));
}
END_TEST

Suite *park_suite(void)
{
	return single_case_suite("park", (const TTest *const[]){
		finds_a_syscall_in_the_executable_segment_only, finds_this_process_vdso_syscall,
		reads_the_auxiliary_vector_past_argv_and_envp, NULL });
}
