/* tracer/layouts.c: the libraries' layouts kept per place of the loader in its 2 MB
 * page, for the libraries' hook to predict. The objects are opaque pointers there:
 * distinct addresses stand for them. */
#include "layouts.h"
#include "suites.h"

static char fake[4];
#define LIBC ((struct object *)&fake[0])
#define LIBISL ((struct object *)&fake[1])

#define MB2 0x200000ull

static struct layout_entry guess[LAYOUT_MAX];
/* two loaders at the same place in their 2 MB pages, a third at another */
#define AT_A 0x7f0000147000ull
#define AT_A_TOO (AT_A + 7 * MB2)
#define AT_B 0x7f00000dc000ull

static const struct layout_entry near_place_a[] = { { LIBC, -0x746000, -0x720000, 0 },
						    { LIBISL, -0x347000, -0x2e5000, 0 } };
static const struct layout_entry near_place_b[] = { { LIBC, -0x733000, -0x70d000, 0 },
						    { LIBISL, -0x2dc000, -0x27a000, 0 } };

START_TEST(nothing_seen_predicts_nothing)
{
	size_t n = 99;

	ck_assert_ptr_null(layouts_for(NULL, AT_A, guess, &n));
	ck_assert_uint_eq(n, 99);
	ck_assert_uint_eq(layouts_places(NULL), 0);
}
END_TEST

START_TEST(one_layout_serves_every_place)
{
	struct layouts *l = NULL;
	const struct layout_entry *e;
	size_t n = 0;

	layouts_keep(&l, AT_A, near_place_a, 2);
	layouts_keep(&l, AT_A_TOO, near_place_a, 2);
	e = layouts_for(l, AT_B, guess, &n);
	ck_assert_ptr_nonnull(e);
	ck_assert_uint_eq(n, 2);
	ck_assert_int_eq(e[1].start, -0x347000);
	ck_assert_uint_eq(layouts_places(l), 0);
	layouts_free(l);
}
END_TEST

START_TEST(two_places_two_layouts_each_its_own)
{
	struct layouts *l = NULL;
	const struct layout_entry *e;
	size_t n = 0;

	layouts_keep(&l, AT_A, near_place_a, 2);
	layouts_keep(&l, AT_B, near_place_b, 2);
	ck_assert_uint_eq(layouts_places(l), 2);
	e = layouts_for(l, AT_A_TOO, guess, &n);
	ck_assert_int_eq(e[1].start, -0x347000);
	e = layouts_for(l, AT_B + 5 * MB2, guess, &n);
	ck_assert_int_eq(e[1].start, -0x2dc000);
	/* the same layout seen again at the first place: still one place each */
	layouts_keep(&l, AT_A_TOO, near_place_a, 2);
	ck_assert_uint_eq(layouts_places(l), 2);
	ck_assert_int_eq(layouts_for(l, AT_B, guess, &n)[1].start, -0x2dc000);
	layouts_free(l);
}
END_TEST

START_TEST(a_place_seen_again_takes_the_newer)
{
	struct layouts *l = NULL;
	const struct layout_entry *e;
	size_t n = 0;

	/* (before the table: the same place replaces the one layout) */
	layouts_keep(&l, AT_A, near_place_b, 2);
	layouts_keep(&l, AT_A_TOO, near_place_a, 2);
	ck_assert_uint_eq(layouts_places(l), 0);
	ck_assert_int_eq(layouts_for(l, AT_B, guess, &n)[1].start, -0x347000);
	/* (with it: the place's own) */
	layouts_keep(&l, AT_B, near_place_b, 2);
	ck_assert_uint_eq(layouts_places(l), 2);
	layouts_keep(&l, AT_B, near_place_b, 2);
	layouts_keep(&l, AT_A, near_place_b, 2);
	ck_assert_uint_eq(layouts_places(l), 2);
	e = layouts_for(l, AT_A, guess, &n);
	ck_assert_int_eq(e[1].start, -0x2dc000);
	layouts_free(l);
}
END_TEST

/* test_lib_hook's "moved": a preloaded library once, between two plain images */
START_TEST(other_mappings_start_again)
{
	struct layouts *l = NULL;
	const struct layout_entry *e;
	size_t n = 0;

	layouts_keep(&l, AT_A, near_place_a, 2);
	layouts_keep(&l, AT_B, near_place_a, 1);
	ck_assert_uint_eq(layouts_places(l), 0);
	e = layouts_for(l, AT_A, guess, &n);
	ck_assert_uint_eq(n, 1);
	layouts_keep(&l, AT_B + 0x5000, near_place_a, 2);
	ck_assert_uint_eq(layouts_places(l), 0);
	e = layouts_for(l, AT_A + 0x3000, guess, &n);
	ck_assert_uint_eq(n, 2);
	ck_assert_int_eq(e[1].start, -0x347000);
	/* with a table: dropped, the new set's layout for every place */
	layouts_keep(&l, AT_B, near_place_b, 2);
	ck_assert_uint_eq(layouts_places(l), 2);
	layouts_keep(&l, AT_A + 0x9000, near_place_a, 1);
	ck_assert_uint_eq(layouts_places(l), 0);
	e = layouts_for(l, AT_B, guess, &n);
	ck_assert_uint_eq(n, 1);
	ck_assert_int_eq(e[0].start, -0x746000);
	layouts_free(l);
}
END_TEST

START_TEST(an_image_without_libraries_predicts_none)
{
	struct layouts *l = NULL;
	size_t n = 0;

	layouts_keep(&l, AT_A, NULL, 0);
	ck_assert_ptr_null(layouts_for(l, AT_A, guess, &n));
	ck_assert_ptr_null(layouts_for(l, AT_B, guess, &n));
	layouts_keep(&l, AT_B, near_place_b, 2);
	ck_assert_ptr_nonnull(layouts_for(l, AT_A, guess, &n));
	layouts_keep(&l, AT_A, NULL, 0);
	ck_assert_ptr_null(layouts_for(l, AT_B, guess, &n));
	layouts_free(l);
}
END_TEST

START_TEST(every_place_its_own)
{
	struct layouts *l = NULL;
	struct layout_entry e = { LIBC, 0, 0x1000, 0 };
	size_t n = 0;

	for (uint64_t page = 0; page < 512; page++) {
		e.start = -(int64_t)page * 0x1000;
		e.end = e.start + 0x1000;
		layouts_keep(&l, (AT_B & ~(MB2 - 1)) + 3 * MB2 + page * 0x1000, &e, 1);
	}
	ck_assert_uint_eq(layouts_places(l), 512);
	for (uint64_t page = 0; page < 512; page++)
		ck_assert_int_eq(layouts_for(l, (AT_B & ~(MB2 - 1)) + page * 0x1000, guess, &n)[0].start,
				 -(int64_t)page * 0x1000);
	layouts_free(l);
}
END_TEST

/* Two places seen, 100 and 200 pages into the 2 MB page: libisl at the same distance
 * from the loader in both (mapped with it), libc at the same address (below a
 * 2 MB-aligned library that stayed put while the loader moved up 100 pages). */
#define PAGE_AT(place) ((AT_B & ~(MB2 - 1)) + (uint64_t)(place) * 0x1000)
static const struct layout_entry at_100[] = { { LIBC, -0x700000, -0x6d0000, 0 }, { LIBISL, -0x30000, -0x20000, 0 } };
static const struct layout_entry at_200[] = { { LIBC, -0x700000 - 100 * 0x1000, -0x6d0000 - 100 * 0x1000, 0 },
					      { LIBISL, -0x30000, -0x20000, 0 } };

START_TEST(a_place_between_two_goes_by_both)
{
	struct layouts *l = NULL;
	const struct layout_entry *e;
	size_t n = 0;

	layouts_keep(&l, PAGE_AT(100), at_100, 2);
	layouts_keep(&l, PAGE_AT(200), at_200, 2);
	e = layouts_for(l, PAGE_AT(150), guess, &n);
	ck_assert_uint_eq(n, 2);
	ck_assert_ptr_eq(e, guess);
	ck_assert_int_eq(e[0].start, -0x700000 - 50 * 0x1000);
	ck_assert_int_eq(e[0].end, -0x6d0000 - 50 * 0x1000);
	ck_assert_int_eq(e[1].start, -0x30000);
	/* round the page the other way (200 up to 100 through 0: 412 places) libc did
	 * not keep its address: where the nearer place (200, 100 below) saw it */
	e = layouts_for(l, PAGE_AT(300), guess, &n);
	ck_assert_int_eq(e[0].start, -0x700000 - 100 * 0x1000);
	ck_assert_int_eq(e[1].start, -0x30000);
	e = layouts_for(l, PAGE_AT(20), guess, &n);
	ck_assert_int_eq(e[0].start, -0x700000);
	layouts_free(l);
}
END_TEST

static const struct layout_entry at_10[] = { { LIBC, -0x700000 - 22 * 0x1000, -0x6d0000 - 22 * 0x1000, 0 },
					     { LIBISL, -0x30000, -0x20000, 0 } };

START_TEST(round_the_page_and_halfway)
{
	struct layouts *l = NULL;
	const struct layout_entry *e;
	size_t n = 0;

	/* 500 and 10: 22 places apart through 0; libc kept its address */
	layouts_keep(&l, PAGE_AT(500), at_100, 2);
	layouts_keep(&l, PAGE_AT(10), at_10, 2);
	e = layouts_for(l, PAGE_AT(505), guess, &n);
	ck_assert_ptr_eq(e, guess);
	ck_assert_int_eq(e[0].start, -0x700000 - 5 * 0x1000);
	ck_assert_int_eq(e[1].start, -0x30000);
	e = layouts_for(l, PAGE_AT(2), guess, &n);
	ck_assert_int_eq(e[0].start, -0x700000 - 14 * 0x1000);
	/* halfway the other way round (10 up to 500: 490 places), libc did not keep
	 * its address nor its distance: the nearer, below at a tie */
	e = layouts_for(l, PAGE_AT(255), guess, &n);
	ck_assert_int_eq(e[0].start, -0x700000 - 22 * 0x1000);
	ck_assert_int_eq(e[1].start, -0x30000);
	layouts_free(l);
}
END_TEST

/* The maps walk lists mappings by address: a library above the large one at one
 * place and below it at another is the same set. */
START_TEST(the_order_of_the_walk_does_not_matter)
{
	static const struct layout_entry libisl_first[] = { { LIBISL, -0x347000, -0x2e5000, 0 },
							    { LIBC, -0x120000, -0xfa000, 0 } };
	struct layouts *l = NULL;
	const struct layout_entry *e;
	size_t n = 0;

	layouts_keep(&l, AT_A, near_place_a, 2);
	layouts_keep(&l, AT_B, libisl_first, 2);
	ck_assert_uint_eq(layouts_places(l), 2);
	e = layouts_for(l, AT_B, guess, &n);
	ck_assert_uint_eq(n, 2);
	for (size_t i = 0; i < n; i++)
		ck_assert_int_eq(e[i].start, e[i].o == LIBC ? -0x120000 : -0x347000);
	layouts_free(l);
}
END_TEST

Suite *layouts_suite(void)
{
	return single_case_suite("layouts", (const TTest *const[]){
		nothing_seen_predicts_nothing, one_layout_serves_every_place, two_places_two_layouts_each_its_own,
		a_place_seen_again_takes_the_newer, an_image_without_libraries_predicts_none, every_place_its_own,
		a_place_between_two_goes_by_both, other_mappings_start_again, round_the_page_and_halfway,
		the_order_of_the_walk_does_not_matter, NULL });
}
