/* tracer/site_history.c: the rent-or-buy choice of the known sites written at an
 * image's start (docs/patching.md, "Which known sites are written"). The objects
 * are opaque pointers there: distinct addresses stand for them. Image serials start
 * at 1, as tracer/tasks.c numbers images. */
#include "site_history.h"
#include "suites.h"

static const char fake[8];
#define EXE_A ((const struct object *)&fake[0])
#define EXE_B ((const struct object *)&fake[1])
#define EXE_C ((const struct object *)&fake[2])
#define LIBC ((const struct object *)&fake[3])
#define LIBM ((const struct object *)&fake[4])

/* Each test starts from nothing (history_free, also what a serving thread does at
 * its end) and sets the stop cost it assumes (the run's, which history_free leaves),
 * so that the tests stand alone without Check's fork too. */

/* The calling thread's P and M, and P / M. */
static void costs(uint64_t *p, uint64_t *m)
{
	struct history_sums s;

	history_sums_get(&s);
	history_costs(&s, p, m);
}

static unsigned threshold(void)
{
	struct history_sums s;

	history_sums_get(&s);
	return history_threshold_permille(&s);
}

/* P = 6000 / 3 = 2000 ns; M = 5000 + (10000 + 30000) / 2 = 25000 ns: P/M = 80 permille */
static void measure_80_permille(void)
{
	history_free();
	history_set_stop_cost(5000);
	history_note_batch(6000, 3);
	history_note_trap_patch(10000);
	history_note_trap_patch(30000);
}

START_TEST(defaults_until_measured)
{
	uint64_t p, m;

	history_free();
	history_set_stop_cost(5000);
	costs(&p, &m);
	/* a batch write ~2 us, a stop (as calibrated) plus a patch at a trap ~20 us */
	ck_assert_uint_eq(p, 2000);
	ck_assert_uint_eq(m, 25000);
	ck_assert_uint_eq(threshold(), 80);
}
END_TEST

START_TEST(costs_are_the_means_measured)
{
	uint64_t p, m;

	measure_80_permille();
	costs(&p, &m);
	ck_assert_uint_eq(p, 2000);
	ck_assert_uint_eq(m, 25000);
	ck_assert_uint_eq(threshold(), 80);
	/* P = 10000 / 4 = 2500; M = 8000 + 20000; 1000 x 2500 / 28000 = 89.3 */
	history_note_batch(4000, 1);
	history_set_stop_cost(8000);
	costs(&p, &m);
	ck_assert_uint_eq(p, 2500);
	ck_assert_uint_eq(m, 28000);
	ck_assert_uint_eq(threshold(), 89);
}
END_TEST

/* Ten images of EXE_A, each noting three sites of libc: site 0 ran in the first only,
 * site 1 in none, site 2 in all. */
static void ten_images_of_a(void)
{
	for (uint64_t serial = 1; serial <= 10; serial++) {
		history_note(serial, EXE_A, LIBC, 0, serial == 1);
		history_note(serial, EXE_A, LIBC, 1, false);
		history_note(serial, EXE_A, LIBC, 2, true);
	}
}

START_TEST(written_when_the_share_reaches_p_over_m)
{
	measure_80_permille();
	ten_images_of_a();
	/* 1 of 10 images: 100 permille >= 80; each image counts once, not once a site */
	ck_assert(history_wants(EXE_A, LIBC, 0));
	ck_assert(!history_wants(EXE_A, LIBC, 1));
	ck_assert(history_wants(EXE_A, LIBC, 2));
	/* a site of a known object that no image of A ran */
	ck_assert(!history_wants(EXE_A, LIBC, 7));
	/* 1 of 12: 1000 >= 80 x 12 = 960; 1 of 13: 1000 < 1040 */
	history_note(11, EXE_A, LIBC, 1, false);
	history_note(12, EXE_A, LIBC, 1, false);
	ck_assert(history_wants(EXE_A, LIBC, 0));
	history_note(13, EXE_A, LIBC, 2, true);
	ck_assert(!history_wants(EXE_A, LIBC, 0));
	ck_assert(history_wants(EXE_A, LIBC, 2));
}
END_TEST

START_TEST(a_new_executable_goes_by_all_images_of_the_object)
{
	measure_80_permille();
	ten_images_of_a();
	/* ten images of C ran site 1, which A never ran */
	for (uint64_t serial = 11; serial <= 20; serial++)
		history_note(serial, EXE_C, LIBC, 1, true);
	ck_assert(!history_wants(EXE_A, LIBC, 1));
	ck_assert(history_wants(EXE_C, LIBC, 1));
	/* B has no history of libc: 10 of the 20 images that mapped it */
	ck_assert(history_wants(EXE_B, LIBC, 1));
	ck_assert(history_wants(NULL, LIBC, 1));
	/* C never ran site 0 (its own history says so), though libc's says 1 of 20 */
	ck_assert(!history_wants(EXE_C, LIBC, 0));
	ck_assert(!history_wants(EXE_B, LIBC, 0));
	/* 110 images of an unknown executable (NULL) count for all, for no executable:
	 * 10 of 130 images, 10000 < 80 x 130 = 10400 */
	for (uint64_t serial = 21; serial <= 130; serial++)
		history_note(serial, NULL, LIBC, 1, false);
	ck_assert(!history_wants(EXE_B, LIBC, 1));
	ck_assert(!history_wants(NULL, LIBC, 1));
	ck_assert(history_wants(EXE_C, LIBC, 1));
	/* an executable's history is per object: B, with a history of libm now, still
	 * goes by all images for libc */
	history_note(131, EXE_B, LIBM, 0, true);
	ck_assert(history_wants(EXE_B, LIBM, 0));
	ck_assert(!history_wants(EXE_B, LIBM, 1));
	ck_assert(!history_wants(EXE_B, LIBC, 1));
	ck_assert(!history_wants(EXE_B, LIBC, 0));
}
END_TEST

/* An image whose executable is not known (NULL) counts once, in the history of all. */
START_TEST(an_unknown_executable_counts_once)
{
	measure_80_permille();
	for (uint64_t serial = 1; serial <= 13; serial++) {
		history_note(serial, NULL, LIBM, 0, serial == 1);
		history_note(serial, NULL, LIBM, 1, serial <= 2);
	}
	/* 1 of 13: 1000 < 80 x 13 = 1040; 2 of 13: 2000 >= 1040 */
	ck_assert(!history_wants(EXE_B, LIBM, 0));
	ck_assert(!history_wants(NULL, LIBM, 0));
	ck_assert(history_wants(EXE_B, LIBM, 1));
}
END_TEST

START_TEST(an_object_never_noted_is_wanted)
{
	measure_80_permille();
	ck_assert(history_wants(EXE_A, LIBC, 0));
	ck_assert(history_wants(NULL, LIBC, 0));
	ten_images_of_a();
	ck_assert(history_wants(EXE_A, LIBM, 1));
	ck_assert(history_wants(EXE_B, LIBM, 5));
	ck_assert(history_wants(NULL, LIBM, 0));
}
END_TEST

START_TEST(thresholds_are_clamped)
{
	history_free();
	/* P = 100, M = 1000000 + 20000: 0.098 permille, taken as 10 */
	history_set_stop_cost(1000000);
	history_note_batch(100, 1);
	ck_assert_uint_eq(threshold(), 10);
	/* at 10 permille: 1 of 100 images is enough, 1 of 101 is not */
	for (uint64_t serial = 1; serial <= 100; serial++)
		history_note(serial, EXE_A, LIBC, 0, serial == 1);
	ck_assert(history_wants(EXE_A, LIBC, 0));
	history_note(101, EXE_A, LIBC, 0, false);
	ck_assert(!history_wants(EXE_A, LIBC, 0));
	history_free();
	/* P = 5000 > M = 0 + 1000: 5000 permille, taken as 1000: only sites that ran in every image */
	history_set_stop_cost(0);
	history_note_trap_patch(1000);
	history_note_batch(5000, 1);
	ck_assert_uint_eq(threshold(), 1000);
	for (uint64_t serial = 1; serial <= 10; serial++) {
		history_note(serial, EXE_A, LIBC, 0, true);
		history_note(serial, EXE_A, LIBC, 1, serial > 1);
	}
	ck_assert(history_wants(EXE_A, LIBC, 0));
	ck_assert(!history_wants(EXE_A, LIBC, 1));
	history_free();
	/* M = 0 (no stop, a free trap patch): 1000 */
	history_set_stop_cost(0);
	history_note_trap_patch(0);
	ck_assert_uint_eq(threshold(), 1000);
}
END_TEST

START_TEST(free_forgets_everything)
{
	uint64_t p, m;

	history_free();
	history_set_stop_cost(1000000);
	history_note_batch(100, 1);
	history_note_trap_patch(7);
	ten_images_of_a();
	ck_assert(!history_wants(EXE_A, LIBC, 1));
	history_free();
	costs(&p, &m);
	/* the measured P and trap cost forgotten; the run's stop cost kept */
	ck_assert_uint_eq(p, 2000);
	ck_assert_uint_eq(m, 1020000);
	ck_assert_uint_eq(threshold(), 10);
	history_set_stop_cost(5000);
	ck_assert_uint_eq(threshold(), 80);
	ck_assert(history_wants(EXE_A, LIBC, 1));
	ck_assert(history_wants(NULL, LIBC, 1));
	/* and it starts again from nothing */
	history_note(1, EXE_A, LIBC, 0, true);
	history_note(2, EXE_A, LIBC, 1, true);
	ck_assert(history_wants(EXE_A, LIBC, 0));
	ck_assert(history_wants(EXE_A, LIBC, 1));
	ck_assert(!history_wants(EXE_A, LIBC, 2));
}
END_TEST

/* Two serving threads' sums, added at the end of the run, give the costs of all
 * their batches and traps: not the mean of their means. */
START_TEST(sums_of_threads_add)
{
	struct history_sums a = { 6000, 3, 10000, 1 }, b = { 4000, 1, 30000, 3 }, sum = { 0 };
	uint64_t p, m;

	history_free();
	history_set_stop_cost(5000);
	history_sums_add(&sum, &a);
	history_sums_add(&sum, &b);
	history_costs(&sum, &p, &m);
	/* P = 10000 / 4; M = 5000 + 40000 / 4 */
	ck_assert_uint_eq(p, 2500);
	ck_assert_uint_eq(m, 15000);
	ck_assert_uint_eq(history_threshold_permille(&sum), 166);
	/* the calling thread's own sums are not touched */
	costs(&p, &m);
	ck_assert_uint_eq(p, 2000);
	ck_assert_uint_eq(m, 25000);
}
END_TEST

/* Hundreds of objects (the table grows past its first 256 slots): each keeps its own
 * history. */
START_TEST(many_objects_keep_their_history)
{
	static char objects[600];

	measure_80_permille();
	for (size_t i = 0; i < 300; i++)
		for (uint64_t serial = 1; serial <= 20; serial++)
			history_note(serial, EXE_A, (const struct object *)&objects[i], (uint32_t)(i % 5),
				     serial <= 2 * (i % 2));
	for (size_t i = 0; i < 300; i++) {
		const struct object *o = (const struct object *)&objects[i];

		/* odd objects: 2 of 20 images ran site i % 5 (100 permille); even ones: none */
		ck_assert_msg(history_wants(EXE_A, o, (uint32_t)(i % 5)) == (i % 2 == 1), "object %zu", i);
		ck_assert_msg(history_wants(EXE_B, o, (uint32_t)(i % 5)) == (i % 2 == 1), "object %zu (fallback)", i);
		ck_assert_msg(!history_wants(EXE_A, o, (uint32_t)(i % 5 + 1)), "object %zu, another site", i);
	}
	for (size_t i = 300; i < 600; i++)
		ck_assert(history_wants(EXE_A, (const struct object *)&objects[i], 0));
}
END_TEST

Suite *site_history_suite(void)
{
	return single_case_suite("site_history", (const TTest *const[]){
		defaults_until_measured, costs_are_the_means_measured, written_when_the_share_reaches_p_over_m,
		a_new_executable_goes_by_all_images_of_the_object, an_unknown_executable_counts_once,
		an_object_never_noted_is_wanted, thresholds_are_clamped, free_forgets_everything,
		sums_of_threads_add, many_objects_keep_their_history, NULL });
}
