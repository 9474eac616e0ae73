#include <stdint.h>
#include <stdlib.h>
#include <sys/syscall.h>

#include "counting.h"
#include "suites.h"

#define SITE 0x7f0000001234ULL
#define READ syscall_index(ABI_X86_64, SYS_read)
#define WRITE syscall_index(ABI_X86_64, SYS_write)

/* An image as tasks.c makes one, without its process: nothing counted yet. */
static struct image *image_alloc(void)
{
	struct image *img = calloc(1, sizeof(*img));

	ck_assert_ptr_nonnull(img);
	return img;
}

static void image_release(struct image *img)
{
	site_table_free(&img->sites);
	free(img);
}

/* The site in the address space's table that stub counts come from: named there. */
static const struct site_record libc_read = {
	.addr = SITE, .syscall = 0 /* READ */, .object = "/lib/libc.so.6", .offset = 0x1234, .symbol = "read",
	.symbol_offset = 0x14, .named = true,
};

static void assert_totals(const struct image *img, uint64_t ptraced, uint64_t inprocess, uint64_t early)
{
	ck_assert_uint_eq(img->rec.ptraced, ptraced);
	ck_assert_uint_eq(img->rec.inprocess, inprocess);
	ck_assert_uint_eq(img->rec.early, early);
}

/* The image's record of SITE, with these counts, and the sites it has left to name. */
static struct site_record *site_counted(struct image *img, uint64_t ptraced, uint64_t inprocess, size_t unnamed)
{
	struct site_record *s = site_table_find(&img->sites, SITE);

	ck_assert_ptr_nonnull(s);
	ck_assert_uint_eq(s->ptraced, ptraced);
	ck_assert_uint_eq(s->inprocess, inprocess);
	ck_assert_uint_eq(img->unnamed_sites, unnamed);
	return s;
}

START_TEST(ptraced_calls_count_at_their_site)
{
	struct image *img = image_alloc();
	struct site_record *s = count_ptraced(img, READ, SITE);

	ck_assert_ptr_eq(s, site_counted(img, 1, 0, 1)); /* to be named while its code is mapped */
	ck_assert_int_eq(s->syscall, READ);
	s = count_ptraced(img, READ, SITE);
	ck_assert_ptr_eq(s, site_counted(img, 2, 0, 1));
	ck_assert_int_eq(s->syscall, READ);
	ck_assert_uint_eq(img->rec.calls[READ], 2);
	assert_totals(img, 2, 0, 2);
	/* another number at the same site: it varies */
	s = count_ptraced(img, WRITE, SITE);
	ck_assert_int_eq(s->syscall, SITE_SYSCALL_VARIES);
	ck_assert_uint_eq(img->rec.calls[WRITE], 1);
	/* per syscall, the calls that stopped (syscalls.csv's ptraced) */
	ck_assert_uint_eq(img->rec.ptraced_calls[READ], 2);
	ck_assert_uint_eq(img->rec.ptraced_calls[WRITE], 1);
	ck_assert_uint_eq(img->sites.n, 1);
	image_release(img);
}
END_TEST

START_TEST(early_only_while_the_image_is_not_late)
{
	struct image *img = image_alloc();

	count_ptraced(img, READ, SITE);
	count_inprocess(img, &libc_read, 5, READ);
	assert_totals(img, 1, 5, 6);
	img->late = true;
	count_ptraced(img, READ, SITE);
	count_inprocess(img, &libc_read, 7, READ);
	assert_totals(img, 2, 12, 6);
	ck_assert_uint_eq(img->rec.calls[READ], 14);
	ck_assert_uint_eq(img->rec.ptraced_calls[READ], 2);
	image_release(img);
}
END_TEST

START_TEST(inprocess_calls_bring_their_sites_name)
{
	struct image *img = image_alloc();
	struct site_record *s;

	count_inprocess(img, &libc_read, 3, READ);
	s = site_counted(img, 0, 3, 0);
	ck_assert(s->named);
	ck_assert_str_eq(s->object, "/lib/libc.so.6");
	ck_assert_uint_eq(s->offset, 0x1234);
	ck_assert_str_eq(s->symbol, "read");
	ck_assert_uint_eq(s->symbol_offset, 0x14);
	ck_assert_int_eq(s->syscall, READ);
	image_release(img);
}
END_TEST

START_TEST(inprocess_calls_name_a_ptraced_site_once)
{
	struct image *img = image_alloc();
	struct site_record other = libc_read;
	struct site_record *s;

	count_ptraced(img, READ, SITE);
	site_counted(img, 1, 0, 1);
	count_inprocess(img, &libc_read, 4, READ);
	s = site_counted(img, 1, 4, 0); /* the one to name is named */
	ck_assert(s->named);
	ck_assert_str_eq(s->object, "/lib/libc.so.6");
	/* named once: a later count keeps the name it has */
	other.object = "/elsewhere";
	count_inprocess(img, &other, 1, READ);
	ck_assert_str_eq(site_counted(img, 1, 5, 0)->object, "/lib/libc.so.6");
	/* named, a new ptraced call has nothing left to name */
	count_ptraced(img, READ, SITE);
	site_counted(img, 2, 5, 0);
	image_release(img);
}
END_TEST

START_TEST(inprocess_calls_of_another_number_vary_the_site)
{
	struct image *img = image_alloc();
	struct site_record varies = libc_read;

	count_ptraced(img, WRITE, SITE);
	count_inprocess(img, &libc_read, 1, READ);
	ck_assert_int_eq(site_table_find(&img->sites, SITE)->syscall, SITE_SYSCALL_VARIES);
	/* a site the memory knows as varying makes it vary here too */
	varies.addr = SITE + 0x100;
	varies.syscall = SITE_SYSCALL_VARIES;
	count_inprocess(img, &varies, 2, -1);
	ck_assert_int_eq(site_table_find(&img->sites, SITE + 0x100)->syscall, SITE_SYSCALL_VARIES);
	image_release(img);
}
END_TEST

START_TEST(inprocess_calls_without_a_site_or_a_number)
{
	struct image *img = image_alloc();
	uint64_t calls = 0;

	/* idx -1: the caller counts them per number */
	count_inprocess(img, &libc_read, 6, -1);
	/* (an index's counts are valid once counted in: the arrays are not zeroed) */
	for (int i = 0; i < SYSCALL_INDEX_COUNT; i++)
		calls += image_record_counted(&img->rec, i) ? img->rec.calls[i] : 0;
	ck_assert_uint_eq(calls, 0);
	site_counted(img, 0, 6, 0);
	/* no site: only the image's totals */
	count_inprocess(img, NULL, 2, READ);
	ck_assert_uint_eq(img->sites.n, 1);
	ck_assert_uint_eq(img->rec.calls[READ], 2);
	assert_totals(img, 0, 8, 8);
	image_release(img);
}
END_TEST

START_TEST(errors_are_minus_4095_to_minus_1)
{
	static const struct {
		int64_t ret;
		bool error;
	} cases[] = {
		{ -1, true }, { -4095, true }, { -4, true }, { -4096, false }, { 0, false }, { 1, false },
		{ INT64_MIN, false }, { 0x7f0000000000, false }, /* an address mmap returned */
	};
	struct image *img = image_alloc();
	struct site_record *s = count_ptraced(img, READ, SITE);
	uint64_t errors = 0;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		count_result(img, s, READ, cases[i].ret);
		errors += cases[i].error;
		ck_assert_msg(img->rec.errors[READ] == errors, "ret %lld", (long long)cases[i].ret);
		ck_assert_uint_eq(s->errors, errors);
	}
	ck_assert_uint_eq(errors, 3);
	ck_assert(!image_record_counted(&img->rec, WRITE)); /* (its counts not valid yet) */
	/* a call whose site is not known counts in its syscall's row only */
	count_result(img, NULL, WRITE, -9);
	ck_assert_uint_eq(img->rec.errors[WRITE], 1);
	ck_assert_uint_eq(s->errors, 3);
	image_release(img);
}
END_TEST

Suite *counting_suite(void)
{
	return single_case_suite("counting", (const TTest *const[]){
		ptraced_calls_count_at_their_site, early_only_while_the_image_is_not_late,
		inprocess_calls_bring_their_sites_name, inprocess_calls_name_a_ptraced_site_once,
		inprocess_calls_of_another_number_vary_the_site, inprocess_calls_without_a_site_or_a_number,
		errors_are_minus_4095_to_minus_1, NULL });
}
