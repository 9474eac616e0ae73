#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "addr_space.h"
#include "code_samples.h"
#include "suites.h"

/* Code as if mapped at CODE (one function every FN_GAP bytes), its stub area 1 MiB
 * below; nothing here runs: the plans, stubs and areas are those of that memory. */
#define CODE 0x7f0000400000ULL
#define FN_GAP 0x100
#define AREA (CODE - 0x100000)
#define GATE 0x7fff00000000ULL
#define fn_at(k) (CODE + (uint64_t)(k) * FN_GAP)

struct fn {
	const uint8_t *code;
	size_t len, site_off;
};

/* PATCH_BEFORE: [+3, +0xb) is `mov $1,%ecx; xor %rax,%rax`, its instructions at +3
 * and +8; the syscall at +0xb stays. */
static const struct fn before_fn = { sample_before, sizeof(sample_before), 0xb };
/* PATCH_AFTER: [+6, +0xe) is `syscall; cmp $-4096,%rax`, its instructions at +6
 * and +8. */
static const struct fn after_fn = { sample_read, sizeof(sample_read), 6 };

/* The patch of the site at addr, looked up again (as_site may move patches). */
static struct patch *patch_at(struct addr_space *as, uint64_t site)
{
	struct patch *p;

	as_site(as, site, &p);
	return p;
}

/* Plans f, as if at addr, in as: its site's patch. */
static struct patch *plan_fn(struct addr_space *as, const struct fn *f, uint64_t addr)
{
	struct code_scan s = { 0 };
	struct patch *p = patch_at(as, addr + f->site_off);

	code_scan_add(&s, f->code, f->len, addr);
	code_scan_add_target(&s, addr);
	code_scan_finish(&s);
	ck_assert_ptr_null(patch_plan_make(&s, f->code, f->len, addr, addr + f->site_off, &p->plan));
	code_scan_free(&s);
	patch_decide(p, NULL);
	return p;
}

/* ... and writes it as patching.c does: its stub in the first room, room and
 * counter taken. */
static struct patch *write_fn(struct addr_space *as, const struct fn *f, uint64_t addr)
{
	struct patch *p = plan_fn(as, f, addr);
	struct stub_config cfg = { .gate = GATE, .site_counter = 8 * as->next_counter, .nr_counters = 4096,
				   .nr_limit = 512 };
	uint8_t stub[STUB_MAX_LEN];
	uint64_t at = as_stub_room(as, p->plan.start, p->plan.end, STUB_MAX_LEN);
	size_t len;

	ck_assert_uint_ne(at, 0);
	len = stub_build(&p->plan, &cfg, at, stub, sizeof(stub), &p->stub);
	ck_assert_uint_gt(len, 0);
	as_stub_taken(as, at, len);
	p->state = PATCH_WRITTEN;
	p->origin = PATCH_AT_TRAP;
	p->counter = as->next_counter++;
	as->npatched++;
	return p;
}

/* A memory with a stub area and both functions written: before_fn at fn_at(0),
 * after_fn at fn_at(1). */
static struct addr_space *two_patched(void)
{
	struct addr_space *as = as_new();

	as_add_area(as, AREA, PATCH_AREA_SIZE);
	write_fn(as, &before_fn, fn_at(0));
	write_fn(as, &after_fn, fn_at(1));
	return as;
}

START_TEST(the_test_plans_are_as_described)
{
	struct addr_space *as = two_patched();
	const struct patch *b = patch_at(as, fn_at(0) + 0xb), *a = patch_at(as, fn_at(1) + 6);

	ck_assert_int_eq(b->plan.shape, PATCH_BEFORE);
	ck_assert_uint_eq(b->plan.start, fn_at(0) + 3);
	ck_assert_uint_eq(b->plan.end, fn_at(0) + 0xb);
	ck_assert_uint_eq(b->stub.addr, AREA);
	ck_assert_int_eq(a->plan.shape, PATCH_AFTER);
	ck_assert_uint_eq(a->plan.start, fn_at(1) + 6);
	ck_assert_uint_eq(a->plan.end, fn_at(1) + 0xe);
	ck_assert_uint_eq(a->stub.addr, AREA + ((b->stub.len + 15) & ~(size_t)15));
	ck_assert_int_eq(as->next_counter, 2);
	as_put(as);
}
END_TEST

START_TEST(new_sites_are_unplanned_and_patches_stay_parallel)
{
	struct addr_space *as = as_new();
	struct patch *p;

	/* past 16, 32 and 64 sites: the patches grow with them */
	for (unsigned i = 0; i < 100; i++) {
		struct site_record *s = as_site(as, CODE + 16 * i, &p);

		ck_assert_uint_eq(s->addr, CODE + 16 * i);
		ck_assert_uint_eq(as->sites.n, i + 1);
		ck_assert_ptr_eq(as_patch_of(as, s), p);
		ck_assert_int_eq(p->state, PATCH_UNPLANNED);
		ck_assert_ptr_null(p->reason);
		ck_assert_uint_eq(p->plan.site, 0);
		p->counter = (int)i + 1; /* a mark, to find again */
	}
	/* a site seen again is the same record and patch */
	as_site(as, CODE + 16 * 17, &p);
	ck_assert_uint_eq(as->sites.n, 100);
	ck_assert_int_eq(p->counter, 18);
	for (unsigned i = 0; i < 100; i++) {
		struct site_record *s = site_table_find(&as->sites, CODE + 16 * i);

		ck_assert_ptr_nonnull(s);
		ck_assert_int_eq(as_patch_of(as, s)->counter, (int)i + 1);
	}
	as_put(as);
}
END_TEST

START_TEST(translate_moves_a_thread_inside_the_bytes_to_its_copy)
{
	struct addr_space *as = two_patched();
	const struct patch *b = patch_at(as, fn_at(0) + 0xb), *a = patch_at(as, fn_at(1) + 6);
	const struct {
		uint64_t rip, to;
	} cases[] = {
		/* BEFORE: the copies open the stub */
		{ fn_at(0) + 8, b->stub.addr + 5 },
		{ fn_at(0) + 3, fn_at(0) + 3 },     /* the first byte: it becomes the jmp */
		{ fn_at(0) + 0xb, fn_at(0) + 0xb }, /* the syscall, left in place */
		{ fn_at(0) + 2, fn_at(0) + 2 },
		{ fn_at(0) + 4, 0 },                /* not an instruction start */
		{ fn_at(0) + 9, 0 },
		/* AFTER: site + 2 is where the call continues in the stub */
		{ fn_at(1) + 8, a->stub.after },
		{ fn_at(1) + 6, fn_at(1) + 6 },
		{ fn_at(1) + 0xe, fn_at(1) + 0xe },
		{ fn_at(1) + 7, 0 },
		{ fn_at(1) + 0xa, 0 },
		/* not code that is patched at all */
		{ AREA + 3, AREA + 3 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		ck_assert_msg(as_translate(as, cases[i].rip) == cases[i].to, "rip %#llx",
			      (unsigned long long)cases[i].rip);
	as_put(as);
}
END_TEST

START_TEST(a_stale_or_planned_patch_is_not_translated)
{
	struct addr_space *as = two_patched();

	patch_at(as, fn_at(0) + 0xb)->state = PATCH_STALE;
	plan_fn(as, &before_fn, fn_at(2));
	ck_assert_uint_eq(as_translate(as, fn_at(0) + 8), fn_at(0) + 8);
	ck_assert_uint_eq(as_translate(as, fn_at(0) + 4), fn_at(0) + 4);
	ck_assert_uint_eq(as_translate(as, fn_at(2) + 8), fn_at(2) + 8);
	/* the other is still written */
	ck_assert_uint_eq(as_translate(as, fn_at(1) + 8), patch_at(as, fn_at(1) + 6)->stub.after);
	as_put(as);
}
END_TEST

START_TEST(a_stubs_own_syscall_stands_for_its_site)
{
	struct addr_space *as = two_patched();
	const struct stub_layout b = patch_at(as, fn_at(0) + 0xb)->stub, a = patch_at(as, fn_at(1) + 6)->stub;

	ck_assert_uint_eq(as_site_of(as, b.slow), fn_at(0) + 0xb);
	ck_assert_uint_eq(as_site_of(as, a.slow), fn_at(1) + 6);
	/* anything else is itself: the site, the rest of a stub, an empty part of the area */
	ck_assert_uint_eq(as_site_of(as, fn_at(0) + 0xb), fn_at(0) + 0xb);
	ck_assert_uint_eq(as_site_of(as, b.addr), b.addr);
	ck_assert_uint_eq(as_site_of(as, b.slow + 1), b.slow + 1);
	ck_assert_uint_eq(as_site_of(as, b.after), b.after);
	ck_assert_uint_eq(as_site_of(as, AREA + PATCH_AREA_SIZE - 2), AREA + PATCH_AREA_SIZE - 2);
	/* a stale stub still runs */
	patch_at(as, fn_at(0) + 0xb)->state = PATCH_STALE;
	ck_assert_uint_eq(as_site_of(as, b.slow), fn_at(0) + 0xb);
	as_put(as);
}
END_TEST

START_TEST(the_patch_whose_stub_holds_an_address)
{
	struct addr_space *as = two_patched();
	struct patch *b = patch_at(as, fn_at(0) + 0xb), *a = patch_at(as, fn_at(1) + 6);

	ck_assert_ptr_eq(as_patch_of_stub(as, b->stub.addr), b);
	ck_assert_ptr_eq(as_patch_of_stub(as, b->stub.addr + b->stub.len - 1), b);
	ck_assert_ptr_eq(as_patch_of_stub(as, a->stub.addr), a);
	ck_assert_ptr_eq(as_patch_of_stub(as, a->stub.slow), a);
	ck_assert_ptr_null(as_patch_of_stub(as, a->stub.addr + a->stub.len));
	ck_assert_ptr_null(as_patch_of_stub(as, fn_at(0) + 8)); /* the code, not a stub */
	ck_assert_ptr_null(as_patch_of_stub(as, AREA - 1));
	b->state = PATCH_STALE;
	ck_assert_ptr_eq(as_patch_of_stub(as, b->stub.slow), b);
	as_put(as);
}
END_TEST

START_TEST(overlapping_only_written_patches)
{
	struct addr_space *as = two_patched();
	const struct site_record *b = site_table_find(&as->sites, fn_at(0) + 0xb);
	/* [lo, hi) against before_fn's [+3, +0xb) */
	const struct {
		uint64_t lo, hi;
		bool overlaps;
	} cases[] = {
		{ fn_at(0), fn_at(0) + 3, false },
		{ fn_at(0), fn_at(0) + 4, true },
		{ fn_at(0) + 0xa, fn_at(0) + 0xb, true },
		{ fn_at(0) + 0xb, fn_at(0) + 0x10, false },
		{ fn_at(0) + 4, fn_at(0) + 5, true },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		ck_assert_ptr_eq(as_site_overlapping(as, cases[i].lo, cases[i].hi), cases[i].overlaps ? b : NULL);
	/* planned, refused or stale: nothing written there any more */
	plan_fn(as, &before_fn, fn_at(2));
	patch_decide(plan_fn(as, &before_fn, fn_at(3)), "branch-target");
	patch_at(as, fn_at(0) + 0xb)->state = PATCH_STALE;
	ck_assert_ptr_null(as_site_overlapping(as, fn_at(0), fn_at(0) + FN_GAP));
	ck_assert_ptr_null(as_site_overlapping(as, fn_at(2), fn_at(4)));
	ck_assert_uint_eq(as_site_overlapping(as, fn_at(0), fn_at(4))->addr, fn_at(1) + 6);
	as_put(as);
}
END_TEST

/* This process's memory as a traced one's: two pages, before_fn and after_fn planned
 * and written in the first (their code, then their jumps), before_fn in the second;
 * the stub area lies within reach (nothing runs: only the bytes are read). */
static struct addr_space *written_here(uint8_t **mem, size_t *page)
{
	struct addr_space *as = as_new();
	const struct { const struct fn *f; size_t at; } fns[] = {
		{ &before_fn, 0 }, { &after_fn, FN_GAP }, { &before_fn, 0 },
	};

	*page = (size_t)sysconf(_SC_PAGESIZE);
	*mem = mmap(NULL, 2 * *page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(*mem, MAP_FAILED);
	as_add_area(as, (uint64_t)(uintptr_t)*mem + (16 << 20), PATCH_AREA_SIZE);
	for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++) {
		uint8_t *code = *mem + (i == 2 ? *page : 0) + fns[i].at;
		struct patch *p;

		memcpy(code, fns[i].f->code, fns[i].f->len);
		p = write_fn(as, fns[i].f, (uint64_t)(uintptr_t)code);
		ck_assert(patch_bytes(&p->plan, p->stub.addr, code + (p->plan.start - (uint64_t)(uintptr_t)code)));
	}
	return as;
}

START_TEST(a_patch_whose_jump_is_gone_goes_stale)
{
	uint8_t *mem;
	size_t page;
	struct addr_space *as = written_here(&mem, &page);
	uint64_t base = (uint64_t)(uintptr_t)mem;
	struct patch *first = patch_at(as, base + 0xb), *second = patch_at(as, base + FN_GAP + 6),
		     *third = patch_at(as, base + page + 0xb);
	uint64_t inside = base + FN_GAP + 8; /* after_fn's second covered instruction */

	/* every jump in place: nothing changes */
	ck_assert_uint_eq(as_drop_replaced(as, getpid(), 0, UINT64_MAX), 0);
	ck_assert(first->state == PATCH_WRITTEN && second->state == PATCH_WRITTEN && third->state == PATCH_WRITTEN);
	ck_assert_uint_eq(as_translate(as, inside), second->stub.after);
	/* other code where after_fn's jump was (its object unmapped, another mapped at
	 * the same address: the original bytes, as a fresh copy of it has them), and the
	 * second page unmapped */
	memcpy(mem + FN_GAP, after_fn.code, after_fn.len);
	ck_assert_int_eq(munmap(mem + page, page), 0);
	/* a range that no written patch overlaps reads nothing, changes nothing */
	ck_assert_uint_eq(as_drop_replaced(as, getpid(), base, base + 3), 0);
	ck_assert_uint_eq(as_drop_replaced(as, getpid(), base + FN_GAP, base + FN_GAP + 6), 0);
	ck_assert_int_eq(second->state, PATCH_WRITTEN);
	/* a range over one of them checks that one only */
	ck_assert_uint_eq(as_drop_replaced(as, getpid(), inside, inside + 1), 1);
	ck_assert_int_eq(second->state, PATCH_STALE);
	ck_assert_int_eq(third->state, PATCH_WRITTEN);
	/* stale: a frame or thread there is left where it is */
	ck_assert_uint_eq(as_translate(as, inside), inside);
	/* all of them: the unmapped one too; the one in place stays */
	ck_assert_uint_eq(as_drop_replaced(as, getpid(), 0, UINT64_MAX), 1);
	ck_assert_int_eq(first->state, PATCH_WRITTEN);
	ck_assert_int_eq(third->state, PATCH_STALE);
	ck_assert_uint_eq(as->npatched, 3); /* their counters still count */
	munmap(mem, page);
	as_put(as);
}
END_TEST

START_TEST(overlapping_a_patch_whose_jump_is_gone)
{
	uint8_t *mem;
	size_t page;
	struct addr_space *as = written_here(&mem, &page);
	uint64_t base = (uint64_t)(uintptr_t)mem;

	/* in place: it overlaps */
	ck_assert_uint_eq(as_site_overlapping_in(as, getpid(), base + FN_GAP, base + FN_GAP + 7)->addr,
			  base + FN_GAP + 6);
	ck_assert_int_eq(patch_at(as, base + FN_GAP + 6)->state, PATCH_WRITTEN);
	/* replaced: it does not, and is stale from then on */
	mem[FN_GAP + 6] = 0x0f;
	ck_assert_ptr_null(as_site_overlapping_in(as, getpid(), base + FN_GAP, base + FN_GAP + 7));
	ck_assert_int_eq(patch_at(as, base + FN_GAP + 6)->state, PATCH_STALE);
	ck_assert_uint_eq(as_site_overlapping_in(as, getpid(), base, base + FN_GAP)->addr, base + 0xb);
	munmap(mem, 2 * page);
	as_put(as);
}
END_TEST

START_TEST(reach_is_strictly_less_than_as_reach)
{
	const struct {
		uint64_t a, b;
		bool reach;
	} cases[] = {
		{ CODE, CODE, true },
		{ CODE, CODE + AS_REACH - 1, true },
		{ CODE, CODE + AS_REACH, false },
		{ CODE + AS_REACH - 1, CODE, true },
		{ CODE + AS_REACH, CODE, false },
		{ 0, UINT64_MAX, false },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		ck_assert_int_eq(as_within_reach(cases[i].a, cases[i].b), cases[i].reach);
}
END_TEST

START_TEST(stub_room_is_taken_in_16_byte_steps)
{
	struct addr_space *as = as_new();

	ck_assert_uint_eq(as_stub_room(as, CODE, CODE + 8, 16), 0); /* no area yet */
	as_add_area(as, AREA, PATCH_AREA_SIZE);
	ck_assert_uint_eq(as->nareas, 1);
	ck_assert_uint_eq(as_stub_room(as, CODE, CODE + 8, 16), AREA);
	as_stub_taken(as, AREA, 37);
	ck_assert_uint_eq(as->areas[0].used, 48);
	ck_assert_uint_eq(as_stub_room(as, CODE, CODE + 8, 16), AREA + 48);
	as_stub_taken(as, AREA + 48, 16);
	ck_assert_uint_eq(as_stub_room(as, CODE, CODE + 8, 16), AREA + 64);
	as_stub_taken(as, AREA + 64, 1);
	ck_assert_uint_eq(as_stub_room(as, CODE, CODE + 8, 16), AREA + 80);
	/* an address in no area takes nothing */
	as_stub_taken(as, AREA + PATCH_AREA_SIZE, 64);
	as_stub_taken(as, AREA - 64, 32);
	ck_assert_uint_eq(as->areas[0].used, 80);
	as_put(as);
}
END_TEST

START_TEST(a_full_or_far_area_is_passed_over)
{
	struct addr_space *as = as_new();
	const uint64_t far = CODE + 4 * AS_REACH, near = CODE + 0x100000;

	as_add_area(as, AREA, PATCH_AREA_SIZE);
	/* 96 bytes left: (65536 - 100 rounded up to 16) */
	as_stub_taken(as, AREA, PATCH_AREA_SIZE - 100);
	ck_assert_uint_eq(as->areas[0].used, PATCH_AREA_SIZE - 96);
	ck_assert_uint_eq(as_stub_room(as, CODE, CODE + 8, 96), AREA + PATCH_AREA_SIZE - 96);
	ck_assert_uint_eq(as_stub_room(as, CODE, CODE + 8, 97), 0);
	as_add_area(as, far, PATCH_AREA_SIZE);
	ck_assert_uint_eq(as_stub_room(as, CODE, CODE + 8, 97), 0);
	as_add_area(as, near, PATCH_AREA_SIZE);
	ck_assert_uint_eq(as_stub_room(as, CODE, CODE + 8, 97), near);
	/* the first area that serves is taken */
	ck_assert_uint_eq(as_stub_room(as, CODE, CODE + 8, 96), AREA + PATCH_AREA_SIZE - 96);
	ck_assert_uint_eq(as_stub_room(as, far, far + 8, 16), far);
	as_put(as);
}
END_TEST

/* One area at A (2 GiB up), code [lo, hi) below or above it: the jump at lo must
 * reach the stub's start, the stub's jump back at its end must reach hi. */
#define A (1ULL << 33)
static const struct reach_case {
	uint64_t lo, hi;
	bool room;
} reach_cases[] = {
	/* code above the area: hi is the farther end from the stub's end */
	{ A + AS_REACH - 1, A + 8 + AS_REACH - 1, true },
	{ A + AS_REACH - 1, A + 8 + AS_REACH, false },
	{ A + AS_REACH, A + AS_REACH + 4, false },
	/* code below it: lo is the farther end from the stub's start */
	{ A - AS_REACH + 1, A - AS_REACH + 10, true },
	{ A - AS_REACH, A - AS_REACH + 9, false },
};

START_TEST(room_within_reach_of_both_ends)
{
	const struct reach_case *c = &reach_cases[_i];
	struct addr_space *as = as_new();

	as_add_area(as, A, PATCH_AREA_SIZE);
	ck_assert_uint_eq(as_stub_room(as, c->lo, c->hi, 8), c->room ? A : 0);
	as_put(as);
}
END_TEST

START_TEST(deciding_a_patch)
{
	static const struct {
		enum patch_state state;
		enum site_state site;
	} cases[] = {
		{ PATCH_UNPLANNED, SITE_PENDING }, { PATCH_PLANNED, SITE_PENDING }, { PATCH_WRITTEN, SITE_PATCHED },
		{ PATCH_STALE, SITE_PATCHED },     { PATCH_REFUSED, SITE_UNPATCHABLE },
	};
	struct patch p = { 0 };

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		p.state = cases[i].state;
		ck_assert_int_eq(patch_site_state(&p), cases[i].site);
	}
	patch_decide(&p, "branch-target");
	ck_assert_int_eq(p.state, PATCH_REFUSED);
	ck_assert_str_eq(p.reason, "branch-target");
	patch_decide(&p, NULL);
	ck_assert_int_eq(p.state, PATCH_PLANNED);
	ck_assert_ptr_null(p.reason);
}
END_TEST

START_TEST(the_site_a_counter_counts)
{
	struct addr_space *as = as_new();

	as_add_area(as, AREA, PATCH_AREA_SIZE);
	patch_at(as, fn_at(9));                       /* unplanned, index 0 */
	write_fn(as, &before_fn, fn_at(0));           /* counter 0, index 1 */
	patch_decide(patch_at(as, fn_at(8)), "decode"); /* refused, index 2 */
	write_fn(as, &after_fn, fn_at(1));            /* counter 1 */
	write_fn(as, &before_fn, fn_at(2));           /* counter 2 */
	ck_assert_uint_eq(as_site_of_counter(as, 0)->addr, fn_at(0) + 0xb);
	ck_assert_uint_eq(as_site_of_counter(as, 1)->addr, fn_at(1) + 6);
	ck_assert_uint_eq(as_site_of_counter(as, 2)->addr, fn_at(2) + 0xb);
	ck_assert_ptr_null(as_site_of_counter(as, -1));
	ck_assert_ptr_null(as_site_of_counter(as, 3));
	/* stale: its counter still counts its site; a new one is found too */
	patch_at(as, fn_at(1) + 6)->state = PATCH_STALE;
	write_fn(as, &after_fn, fn_at(3));
	ck_assert_uint_eq(as_site_of_counter(as, 1)->addr, fn_at(1) + 6);
	ck_assert_uint_eq(as_site_of_counter(as, 3)->addr, fn_at(3) + 6);
	as_put(as);
}
END_TEST

/* A parent memory with one patch in each state, 30 sites more than 16, and every
 * flag set. */
#define FORK_SITES 36
static struct addr_space *fork_parent(void)
{
	struct addr_space *as = as_new();
	struct patch *p;

	as_add_area(as, AREA, PATCH_AREA_SIZE);
	as_add_area(as, CODE + 0x200000, PATCH_AREA_SIZE);
	p = write_fn(as, &before_fn, fn_at(0));
	p->cost_ns = 700;
	p = write_fn(as, &after_fn, fn_at(1));
	p->origin = PATCH_IN_BATCH;
	p->cost_ns = 300;
	p = write_fn(as, &before_fn, fn_at(2));
	p->state = PATCH_STALE;
	p->cost_ns = 200;
	plan_fn(as, &after_fn, fn_at(3));
	patch_decide(plan_fn(as, &before_fn, fn_at(4)), "branch-target");
	for (unsigned i = 5; i < FORK_SITES; i++)
		patch_at(as, fn_at(i));
	as->region_base = 0x7e0000000000;
	as->mapped_at_exec = true;
	as->gs_taken = true;
	as->loader_start = 0x7fa000000000;
	as->loader_end = 0x7fa000030000;
	as->library_site = 0x7fb000001000;
	as->mem_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	ck_assert_int_ge(as->mem_fd, 0);
	return as;
}

START_TEST(a_fork_child_has_the_same_patches)
{
	struct addr_space *parent = fork_parent();
	struct addr_space *child = as_fork(parent);

	ck_assert_int_eq(child->refs, 1);
	ck_assert_int_eq(child->mem_fd, -1); /* its own memory, opened when needed */
	ck_assert_uint_eq(child->sites.n, FORK_SITES);
	for (size_t i = 0; i < FORK_SITES; i++) {
		const struct site_record *ps = &parent->sites.sites[i];
		const struct patch *pp = &parent->patches[i];
		const struct site_record *cs = site_table_find(&child->sites, ps->addr);
		const struct patch *cp;

		ck_assert_ptr_nonnull(cs);
		ck_assert_uint_eq(cs - child->sites.sites, i);
		cp = as_patch_of(child, cs);
		ck_assert_int_eq(cp->state, pp->state);
		ck_assert_ptr_eq(cp->reason, pp->reason);
		ck_assert_int_eq(cp->counter, pp->counter);
		ck_assert_mem_eq(&cp->plan, &pp->plan, sizeof(cp->plan));
		ck_assert_mem_eq(&cp->stub, &pp->stub, sizeof(cp->stub));
		if (patch_has_counter(pp)) {
			ck_assert_int_eq(cp->origin, PATCH_INHERITED); /* the child paid nothing */
			ck_assert_uint_eq(cp->cost_ns, 0);
		}
	}
	/* the parent's keep what they cost it */
	ck_assert_int_eq(patch_at(parent, fn_at(0) + 0xb)->origin, PATCH_AT_TRAP);
	ck_assert_uint_eq(patch_at(parent, fn_at(0) + 0xb)->cost_ns, 700);
	ck_assert_int_eq(patch_at(parent, fn_at(1) + 6)->origin, PATCH_IN_BATCH);
	ck_assert_uint_eq(patch_at(parent, fn_at(1) + 6)->cost_ns, 300);
	ck_assert_uint_eq(patch_at(parent, fn_at(2) + 0xb)->cost_ns, 200);
	ck_assert_int_eq(patch_at(child, fn_at(2) + 0xb)->state, PATCH_STALE);
	ck_assert_int_eq(patch_at(child, fn_at(3) + 6)->state, PATCH_PLANNED);
	ck_assert_str_eq(patch_at(child, fn_at(4) + 0xb)->reason, "branch-target");
	/* the bookkeeping of the memory */
	ck_assert_uint_eq(child->nareas, 2);
	ck_assert_ptr_ne(child->areas, parent->areas);
	ck_assert_mem_eq(child->areas, parent->areas, 2 * sizeof(*child->areas));
	ck_assert_int_eq(child->next_counter, 3);
	ck_assert_uint_eq(child->npatched, 3);
	ck_assert_uint_eq(child->region_base, 0x7e0000000000);
	ck_assert(child->mapped_at_exec);
	ck_assert(child->gs_taken);
	ck_assert_uint_eq(child->loader_start, 0x7fa000000000);
	ck_assert_uint_eq(child->loader_end, 0x7fa000030000);
	ck_assert_uint_eq(child->library_site, 0x7fb000001000);
	/* and what follows from it */
	ck_assert_uint_eq(as_translate(child, fn_at(0) + 8), as_translate(parent, fn_at(0) + 8));
	ck_assert_uint_eq(as_site_of_counter(child, 1)->addr, fn_at(1) + 6);
	ck_assert_uint_eq(as_stub_room(child, CODE, CODE + 8, 16), as_stub_room(parent, CODE, CODE + 8, 16));
	as_put(child);
	as_put(parent);
}
END_TEST

START_TEST(a_fork_child_and_its_parent_change_apart)
{
	struct addr_space *parent = fork_parent();
	struct addr_space *child = as_fork(parent);
	uint64_t room = as_stub_room(parent, CODE, CODE + 8, 16);
	uint64_t used = parent->areas[0].used;
	int fd = parent->mem_fd;

	/* the child changes */
	as_stub_taken(child, room, 100);
	patch_at(child, fn_at(FORK_SITES));
	patch_decide(patch_at(child, fn_at(3) + 6), "counters-full");
	patch_at(child, fn_at(0) + 0xb)->state = PATCH_STALE;
	ck_assert_uint_eq(parent->areas[0].used, used);
	ck_assert_uint_eq(parent->sites.n, FORK_SITES);
	ck_assert_ptr_null(site_table_find(&parent->sites, fn_at(FORK_SITES)));
	ck_assert_int_eq(patch_at(parent, fn_at(3) + 6)->state, PATCH_PLANNED);
	ck_assert_uint_eq(as_translate(parent, fn_at(0) + 8), patch_at(parent, fn_at(0) + 0xb)->stub.addr + 5);
	/* the parent changes */
	as_add_area(parent, CODE + 0x300000, PATCH_AREA_SIZE);
	patch_decide(patch_at(parent, fn_at(4) + 0xb), NULL);
	as_stub_taken(parent, room, 200);
	ck_assert_uint_eq(child->nareas, 2);
	ck_assert_str_eq(patch_at(child, fn_at(4) + 0xb)->reason, "branch-target");
	ck_assert_uint_eq(child->areas[0].used, (room - AREA + 100 + 15) & ~15ULL);
	as_put(child);
	ck_assert_int_eq(fcntl(fd, F_GETFD), FD_CLOEXEC); /* the parent's memory stays open */
	as_put(parent);
	ck_assert_int_eq(fcntl(fd, F_GETFD), -1);
}
END_TEST

START_TEST(references_are_counted)
{
	struct addr_space *as = as_new(), *again;

	ck_assert_int_eq(as->refs, 1);
	ck_assert_int_eq(as->mem_fd, -1);
	ck_assert_uint_eq(as->sites.n, 0);
	ck_assert_uint_eq(as->nareas, 0);
	again = as_get(as);
	ck_assert_ptr_eq(again, as);
	ck_assert_int_eq(as->refs, 2);
	as_put(again);
	/* still there (ASan: a use after free otherwise) */
	ck_assert_int_eq(as->refs, 1);
	patch_at(as, CODE);
	as_add_area(as, AREA, PATCH_AREA_SIZE);
	as_put(as); /* freed: ASan reports a leak or a double free */
	as_put(NULL);
}
END_TEST

Suite *addr_space_suite(void)
{
	return tables_suite("addr_space", (const TTest *const[]){
		the_test_plans_are_as_described, new_sites_are_unplanned_and_patches_stay_parallel,
		translate_moves_a_thread_inside_the_bytes_to_its_copy, a_stale_or_planned_patch_is_not_translated,
		a_stubs_own_syscall_stands_for_its_site, the_patch_whose_stub_holds_an_address,
		overlapping_only_written_patches, reach_is_strictly_less_than_as_reach, stub_room_is_taken_in_16_byte_steps,
		a_full_or_far_area_is_passed_over, deciding_a_patch, the_site_a_counter_counts,
		a_fork_child_has_the_same_patches, a_fork_child_and_its_parent_change_apart, references_are_counted,
		a_patch_whose_jump_is_gone_goes_stale, overlapping_a_patch_whose_jump_is_gone, NULL }, (const struct table_test[]){ { room_within_reach_of_both_ends, TABLE_ROWS(reach_cases) }, { NULL, 0 } });
}
