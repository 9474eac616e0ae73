#include <stdlib.h>
#include <string.h>

#include "byte_runs.h"
#include "suites.h"

#define AT 0x7f0000010000ULL

/* A run on the heap (4 KiB of bytes), so that ASan sees a write past its room. */
static struct byte_run *run_new(void)
{
	struct byte_run *r = calloc(1, sizeof(*r));

	ck_assert_ptr_nonnull(r);
	return r;
}

/* n bytes of value v, added at addr: whether the run took them. */
static bool add_fill(struct byte_run *r, uint64_t addr, uint8_t v, size_t n, uint64_t gap)
{
	uint8_t b[BYTE_RUN_MAX];

	memset(b, v, n);
	return byte_run_add(r, addr, b, n, gap, NULL);
}

/* The run holds len bytes from AT. */
static void assert_run(const struct byte_run *r, size_t len)
{
	ck_assert_uint_eq(r->addr, AT);
	ck_assert_uint_eq(r->len, len);
}

START_TEST(an_empty_run_takes_any_address)
{
	struct byte_run *r = run_new();

	ck_assert(byte_run_add(r, AT, (const uint8_t[]){ 1, 2, 3 }, 3, 0, NULL));
	assert_run(r, 3);
	ck_assert_mem_eq(r->bytes, ((const uint8_t[]){ 1, 2, 3 }), 3);
	/* emptied (written out), it starts anew, even below where it was */
	r->len = 0;
	ck_assert(byte_run_add(r, AT - 0x1000, (const uint8_t[]){ 9 }, 1, 0, NULL));
	ck_assert_uint_eq(r->addr, AT - 0x1000);
	ck_assert_uint_eq(r->len, 1);
	ck_assert_uint_eq(r->bytes[0], 9);
	free(r);
}
END_TEST

START_TEST(consecutive_bytes_join)
{
	struct byte_run *r = run_new();

	ck_assert(byte_run_add(r, AT, (const uint8_t[]){ 1, 2 }, 2, 0, NULL));
	ck_assert(byte_run_add(r, AT + 2, (const uint8_t[]){ 3, 4, 5 }, 3, 0, NULL));
	assert_run(r, 5);
	ck_assert_mem_eq(r->bytes, ((const uint8_t[]){ 1, 2, 3, 4, 5 }), 5);
	free(r);
}
END_TEST

START_TEST(a_small_gap_is_filled_with_int3)
{
	struct byte_run *r = run_new();

	ck_assert(add_fill(r, AT, 0x11, 3, 4));
	/* a gap of exactly `gap` bytes */
	ck_assert(add_fill(r, AT + 3 + 4, 0x22, 2, 4));
	assert_run(r, 9);
	ck_assert_mem_eq(r->bytes, ((const uint8_t[]){ 0x11, 0x11, 0x11, 0xcc, 0xcc, 0xcc, 0xcc, 0x22, 0x22 }), 9);
	free(r);
}
END_TEST

START_TEST(a_larger_gap_is_refused)
{
	struct byte_run *r = run_new();

	ck_assert(add_fill(r, AT, 0x11, 3, 4));
	ck_assert(!add_fill(r, AT + 3 + 5, 0x22, 2, 4));
	/* with no gap allowed, one byte apart is too far */
	ck_assert(!add_fill(r, AT + 4, 0x22, 2, 0));
	assert_run(r, 3);
	ck_assert_mem_eq(r->bytes, ((const uint8_t[]){ 0x11, 0x11, 0x11, 0 }), 4);
	free(r);
}
END_TEST

START_TEST(bytes_before_the_end_are_refused)
{
	struct byte_run *r = run_new();

	ck_assert(add_fill(r, AT, 0x11, 4, 16));
	ck_assert(!add_fill(r, AT + 3, 0x22, 1, 16)); /* its last byte */
	ck_assert(!add_fill(r, AT, 0x22, 1, 16));     /* its first */
	ck_assert(!add_fill(r, AT - 1, 0x22, 1, 16)); /* before it */
	assert_run(r, 4);
	ck_assert_mem_eq(r->bytes, ((const uint8_t[]){ 0x11, 0x11, 0x11, 0x11 }), 4);
	free(r);
}
END_TEST

/* What memory holds from AT on, for the gap bytes: byte i is 0x40 + i (a gap's
 * bytes are read from where they lie, not from the gap's start). Nothing from AT +
 * 0x100 on. */
static bool mapped_bytes(const void *ctx, uint64_t addr, void *buf, size_t len)
{
	(void)ctx;
	if (addr < AT || addr + len > AT + 0x100)
		return false;
	for (size_t i = 0; i < len; i++)
		((uint8_t *)buf)[i] = (uint8_t)(0x40 + addr - AT + i);
	return true;
}

static const struct gap_bytes mapped = { mapped_bytes, NULL };

START_TEST(a_gap_takes_the_bytes_memory_holds)
{
	struct byte_run *r = run_new();

	ck_assert(byte_run_add(r, AT, (const uint8_t[]){ 1, 2 }, 2, 8, &mapped));
	ck_assert(byte_run_add(r, AT + 5, (const uint8_t[]){ 3 }, 1, 8, &mapped));
	ck_assert(byte_run_add(r, AT + 6, (const uint8_t[]){ 4 }, 1, 8, &mapped)); /* no gap */
	assert_run(r, 7);
	ck_assert_mem_eq(r->bytes, ((const uint8_t[]){ 1, 2, 0x42, 0x43, 0x44, 3, 4 }), 7);
	free(r);
}
END_TEST

START_TEST(a_gap_whose_bytes_are_not_known_is_refused)
{
	struct byte_run *r = run_new();

	ck_assert(byte_run_add(r, AT + 0xf8, (const uint8_t[]){ 1, 2, 3, 4 }, 4, 16, &mapped));
	/* its gap reaches past what the source knows: the run is as it was */
	ck_assert(!byte_run_add(r, AT + 0x104, (const uint8_t[]){ 5 }, 1, 16, &mapped));
	ck_assert_uint_eq(r->addr, AT + 0xf8);
	ck_assert_uint_eq(r->len, 4);
	/* nor does the source widen how far a gap may be */
	r->addr = AT;
	ck_assert(!byte_run_add(r, AT + 4 + 17, (const uint8_t[]){ 5 }, 1, 16, &mapped));
	ck_assert_uint_eq(r->len, 4);
	free(r);
}
END_TEST

/* A run of `held` bytes from AT gets n more after a gap of `skip`: taken exactly when
 * it ends within BYTE_RUN_MAX of AT, gap bytes included. */
static const struct room_case {
	size_t held, skip, n;
	bool taken;
} room_cases[] = {
	{ 4000, 0, 96, true },   /* fills the run exactly */
	{ 4000, 0, 97, false },  /* one byte over */
	{ 4000, 10, 86, true },  /* the gap counts: exactly */
	{ 4000, 10, 87, false },
	{ 4096, 0, 1, false },   /* full */
};

START_TEST(the_run_holds_at_most_byte_run_max)
{
	const struct room_case *c = &room_cases[_i];
	struct byte_run *r = run_new();

	ck_assert(add_fill(r, AT, 0x11, c->held, 16));
	ck_assert_int_eq(add_fill(r, AT + c->held + c->skip, 0x22, c->n, 16), c->taken);
	assert_run(r, c->taken ? c->held + c->skip + c->n : c->held);
	ck_assert_uint_eq(r->bytes[BYTE_RUN_MAX - 1], c->taken ? 0x22 : (c->held == BYTE_RUN_MAX ? 0x11 : 0));
	free(r);
}
END_TEST

Suite *byte_runs_suite(void)
{
	return tables_suite("byte_runs", (const TTest *const[]){
		an_empty_run_takes_any_address, consecutive_bytes_join, a_small_gap_is_filled_with_int3,
		a_larger_gap_is_refused, bytes_before_the_end_are_refused, a_gap_takes_the_bytes_memory_holds,
		a_gap_whose_bytes_are_not_known_is_refused, NULL }, (const struct table_test[]){
		{ the_run_holds_at_most_byte_run_max, TABLE_ROWS(room_cases) }, { NULL, 0 } });
}
