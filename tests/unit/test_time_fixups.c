/* The time routine's fixups (tracer/time_fixups.c) at every address of the routine:
 * each window's moves, and nothing anywhere else; its frame as leave_gate reads it;
 * a call's ticks added as the routine adds them. (test_stub.c runs the real routine
 * under a SIGTRAP handler that applies them.) */
#include <string.h>

#include "gate_code.h"
#include "suites.h"
#include "time_fixups.h"

#define GATE 0x6f5ee7000000ull
#define AT(label) (GATE + (uint64_t)((label) - gate_code))

/* A stack of words at a fake address, for the reader. */
static uint64_t stack_words[4];
#define STACK_AT 0x7ffd0000ull

static bool read_stack(void *ctx, uint64_t addr, uint64_t *word)
{
	(void)ctx;
	if (addr < STACK_AT || addr >= STACK_AT + sizeof(stack_words) || addr % 8)
		return false;
	*word = stack_words[(addr - STACK_AT) / 8];
	return true;
}

static bool fixup(struct user_regs_struct *r)
{
	return time_routine_fixup(r, GATE, 0x123456789abcdefull, read_stack, NULL);
}

START_TEST(windows_and_nothing_else)
{
	for (uint64_t rip = GATE; rip < AT(gate_pad_syscall); rip++) {
		struct user_regs_struct r = { .rip = rip, .rsp = STACK_AT, .rax = 110, .rcx = 7, .rdx = 9 }, was = r;
		uint64_t want = rip;
		bool moved;

		memset(stack_words, 0, sizeof(stack_words)); /* no routine's frame at the gate */
		moved = fixup(&r);
		if (rip > AT(gate_time_start) && rip <= AT(gate_time_timed))
			want = AT(gate_time_start);
		else if (rip >= AT(gate_time_returned) && rip < AT(gate_time_took))
			want = AT(gate_time_took);
		else if (rip > AT(gate_time_max) && rip < AT(gate_time_max_done))
			want = AT(gate_time_max);
		else if (rip > AT(gate_time_min) && rip < AT(gate_time_min_done))
			want = AT(gate_time_min);
		ck_assert_msg(r.rip == want, "at +%#lx: to %#lx, not %#lx", (unsigned long)(rip - GATE),
			      (unsigned long)(r.rip - GATE), (unsigned long)(want - GATE));
		ck_assert_int_eq(moved, want != rip);
		ck_assert_uint_eq(r.rsp, was.rsp);
		if (moved && want == AT(gate_time_took)) {
			/* the end read now, the result where the routine keeps it */
			ck_assert_uint_eq(r.rcx, 110);
			ck_assert_uint_eq(r.rax, 0x89abcdefull);
			ck_assert_uint_eq(r.rdx, 0x1234567ull);
		} else {
			ck_assert_uint_eq(r.rax, was.rax);
			ck_assert_uint_eq(r.rcx, was.rcx);
			ck_assert_uint_eq(r.rdx, was.rdx);
		}
	}
}
END_TEST

/* At the gate's syscall, not made yet: back to start only under the routine's frame
 * with the number in rax still the routine's. */
START_TEST(at_the_gate)
{
	struct user_regs_struct r = { .rip = GATE, .rsp = STACK_AT, .rax = 110 };

	stack_words[0] = AT(gate_time_returned);
	stack_words[1] = 1000; /* the start */
	stack_words[2] = 110;  /* the number */
	ck_assert(fixup(&r));
	ck_assert_uint_eq(r.rip, AT(gate_time_start));
	ck_assert_uint_eq(r.rsp, STACK_AT + 8);
	/* the kernel's restart_syscall in rax: that call goes on */
	r = (struct user_regs_struct){ .rip = GATE, .rsp = STACK_AT, .rax = 219 };
	ck_assert(!fixup(&r));
	ck_assert_uint_eq(r.rip, GATE);
	/* a stub's own call of the gate, or the log routine's */
	stack_words[0] = AT(gate_log_returned);
	r = (struct user_regs_struct){ .rip = GATE, .rsp = STACK_AT, .rax = 110 };
	ck_assert(!fixup(&r));
	/* a stack that cannot be read */
	r.rsp = 0x1000;
	ck_assert(!fixup(&r));
}
END_TEST

START_TEST(the_frame_leave_gate_reads)
{
	uint64_t words[TIME_FRAME_WORDS] = { AT(gate_time_returned), 1000, 110, 9, 0x40123, 49152 + 3 * 4096 };
	struct time_frame f;

	ck_assert(time_routine_frame(words, GATE, &f));
	ck_assert_uint_eq(f.start, 1000);
	ck_assert_uint_eq(f.nr, 110);
	ck_assert_uint_eq(f.stub_return, 0x40123);
	words[0] = 0x40123; /* a stub's return address: no routine */
	ck_assert(!time_routine_frame(words, GATE, &f));
}
END_TEST

START_TEST(ticks_added_as_the_routine_adds_them)
{
	static struct region_time t;

	memset(&t, 0, sizeof(t));
	time_counters_add(&t, 3, 110, 500);
	time_counters_add(&t, 3, 110, 200);
	time_counters_add(&t, 4, 110, 900);
	ck_assert_uint_eq(t.site_ticks[3], 700);
	ck_assert_uint_eq(t.site_ticks[4], 900);
	ck_assert_uint_eq(t.nr_ticks[110], 1600);
	ck_assert_uint_eq(t.nr_max[110], 900);
	ck_assert_uint_eq(~t.nr_min_not[110], 200);
	/* past the counters: nothing, as the routine adds nothing */
	time_counters_add(&t, 3, REGION_NRS, 5);
	time_counters_add(&t, REGION_SLOT_SITES, 110, 5);
	ck_assert_uint_eq(t.site_ticks[3], 700);
	ck_assert_uint_eq(t.nr_ticks[110], 1600);
}
END_TEST

Suite *time_fixups_suite(void)
{
	return single_case_suite("time_fixups", (const TTest *const[]){ windows_and_nothing_else, at_the_gate,
								       the_frame_leave_gate_reads,
								       ticks_added_as_the_routine_adds_them, NULL });
}
