#include <errno.h>
#include <sys/syscall.h>

#include "restarts.h"
#include "suites.h"

/* A blocking call (wait4) at SITE; OTHER is another site of the same memory. */
#define SITE 0x7f0000001234ULL
#define OTHER 0x7f0000005678ULL
#define NR SYS_wait4

/* What restarts.c keeps of a thread's pending restart. */
struct pending {
	int restart;
	uint64_t site;
	long nr;
	enum restart_cause cause;
};

static void assert_pending(const struct thread *t, struct pending want)
{
	ck_assert_int_eq(t->restart, want.restart);
	ck_assert_uint_eq(t->restart_site, want.site);
	ck_assert_int_eq(t->restart_nr, want.nr);
	ck_assert_int_eq(t->restart_cause, want.cause);
}

/* Taken: the next entry is a call, whatever the one before was. */
static void assert_taken(const struct thread *t)
{
	ck_assert_int_eq(t->restart, RESTART_NONE);
	ck_assert_int_eq(t->restart_cause, RESTART_BY_SIGNAL);
}

static struct thread with_pending(int restart)
{
	return (struct thread){ .restart = restart, .restart_site = SITE, .restart_nr = NR };
}

START_TEST(only_the_four_restart_codes)
{
	static const struct {
		long ret;
		bool code;
	} cases[] = {
		{ -512, true },  /* ERESTARTSYS */
		{ -513, true },  /* ERESTARTNOINTR */
		{ -514, true },  /* ERESTARTNOHAND */
		{ -516, true },  /* ERESTART_RESTARTBLOCK */
		{ -515, false }, /* ENOIOCTLCMD, no restart */
		{ -EINTR, false },
		{ -511, false },
		{ -517, false },
		{ 512, false },
		{ 0, false },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		ck_assert_msg(restart_is_code(cases[i].ret) == cases[i].code, "ret %ld", cases[i].ret);
}
END_TEST

/* A call left with a restart code, at a signal without a handler or at an
 * interrupt stop: its next entry is the kernel's restart, even where a reissue was
 * expected (the call put back was interrupted in the kernel). */
START_TEST(a_restart_code_is_entered_again)
{
	struct thread starts[2] = { { 0 }, { 0 } };

	restart_expect_reissue(&starts[1], OTHER, SYS_read);
	for (int i = 0; i < 2; i++) {
		struct thread sig = starts[i], stop = starts[i];

		restart_rule_signal(&sig, NR, -512, SITE, false);
		restart_rule_interrupt(&stop, SYS_poll, -514, SITE, false, false);
		assert_pending(&sig, (struct pending){ RESTART_NEXT, SITE, NR, RESTART_BY_SIGNAL });
		assert_pending(&stop, (struct pending){ RESTART_NEXT, SITE, SYS_poll, RESTART_BY_SIGNAL });
	}
}
END_TEST

/* A call our interrupt alone made enter again is the same call, but no restart of
 * the program's (not counted in `restarted`); one a signal's stop had
 * already left to restart stays a restart at the interrupt reported after it. */
START_TEST(our_interrupt_is_no_restart_of_the_program)
{
	struct thread ours = { 0 }, signalled = { 0 };

	restart_rule_interrupt(&ours, SYS_poll, -514, SITE, false, true);
	assert_pending(&ours, (struct pending){ RESTART_NEXT, SITE, SYS_poll, RESTART_BY_INTERRUPT });
	ck_assert(restart_is_repeat(&ours, SITE, SYS_poll, false));
	restart_rule_interrupt(&signalled, SYS_poll, -514, SITE, false, false);
	restart_rule_interrupt(&signalled, SYS_poll, -514, SITE, false, true);
	assert_pending(&signalled, (struct pending){ RESTART_NEXT, SITE, SYS_poll, RESTART_BY_SIGNAL });
}
END_TEST

/* A caught signal in a restartable call: the handler's frame, read at its
 * rt_sigreturn, says whether the call is entered again. */
static const struct frame_case {
	long saved_rax;
	uint64_t rip_site, before_rip_site;
	int after;
} frame_cases[] = {
	{ NR, SITE, OTHER, RESTART_NEXT },            /* back to the call (SA_RESTART) */
	{ -EINTR, OTHER, SITE, RESTART_NONE },        /* back past it, with EINTR */
	{ 0, OTHER, OTHER, RESTART_IF_FRAME_SAYS },   /* another handler's frame */
	{ -EINTR, SITE, OTHER, RESTART_IF_FRAME_SAYS }, /* at the call, not restarting */
	{ NR, OTHER, SITE, RESTART_IF_FRAME_SAYS },   /* past it without EINTR */
	{ -EAGAIN, OTHER, SITE, RESTART_IF_FRAME_SAYS },
};

START_TEST(a_caught_signal_lets_the_frame_decide)
{
	const struct frame_case *c = &frame_cases[_i];
	struct thread t = { 0 };

	restart_rule_signal(&t, NR, -512, SITE, true);
	assert_pending(&t, (struct pending){ RESTART_IF_FRAME_SAYS, SITE, NR, RESTART_BY_SIGNAL });
	restart_rule_frame(&t, c->saved_rax, c->rip_site, c->before_rip_site);
	assert_pending(&t, (struct pending){ c->after, SITE, NR, RESTART_BY_SIGNAL });
}
END_TEST

START_TEST(a_frame_matters_only_while_one_is_awaited)
{
	struct thread none = { 0 }, next = with_pending(RESTART_NEXT);

	restart_rule_frame(&none, -EINTR, OTHER, SITE);
	restart_rule_frame(&next, -EINTR, OTHER, SITE);
	assert_pending(&none, (struct pending){ RESTART_NONE, 0, 0, RESTART_BY_SIGNAL });
	assert_pending(&next, (struct pending){ RESTART_NEXT, SITE, NR, RESTART_BY_SIGNAL });
}
END_TEST

/* A signal that interrupted no restartable call (outside a syscall, nr -1, where
 * rax is the program's data; or a call that returned) leaves what is pending alone,
 * except that a handler now runs before a pending restart. */
static const struct outside_case {
	long nr, ret;
	int before;
	bool caught;
	int after;
} outside_cases[] = {
	{ -1, -512, RESTART_NEXT, false, RESTART_NEXT },
	{ -1, -512, RESTART_NEXT, true, RESTART_IF_FRAME_SAYS },
	{ -1, -512, RESTART_NONE, true, RESTART_NONE },
	{ -1, 0, RESTART_IF_FRAME_SAYS, false, RESTART_IF_FRAME_SAYS },
	{ -1, 0, RESTART_IF_FRAME_SAYS, true, RESTART_IF_FRAME_SAYS },
	{ SYS_read, -EINTR, RESTART_NEXT, true, RESTART_IF_FRAME_SAYS },
	{ SYS_read, 0, RESTART_NEXT, false, RESTART_NEXT },
};

START_TEST(a_signal_outside_a_restartable_call)
{
	const struct outside_case *c = &outside_cases[_i];
	struct thread t = with_pending(c->before);

	restart_rule_signal(&t, c->nr, c->ret, OTHER, c->caught);
	assert_pending(&t, (struct pending){ c->after, SITE, NR, RESTART_BY_SIGNAL });
}
END_TEST

START_TEST(an_interrupt_that_restarts_nothing_here)
{
	static const struct {
		long nr, ret;
		bool at_gate;
	} cases[] = {
		{ SYS_poll, -514, true },   /* restarts in the gate, untraced */
		{ -1, -514, false },        /* not in a syscall */
		{ SYS_poll, -EINTR, false }, /* returned */
		{ SYS_poll, 0, false },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct thread none = { 0 }, next = with_pending(RESTART_NEXT);

		restart_rule_interrupt(&none, cases[i].nr, cases[i].ret, OTHER, cases[i].at_gate, false);
		restart_rule_interrupt(&next, cases[i].nr, cases[i].ret, OTHER, cases[i].at_gate, true);
		assert_pending(&none, (struct pending){ RESTART_NONE, 0, 0, RESTART_BY_SIGNAL });
		assert_pending(&next, (struct pending){ RESTART_NEXT, SITE, NR, RESTART_BY_SIGNAL });
	}
}
END_TEST

/* The next entry after a pending restart of wait4 at SITE. */
static const struct repeat_case {
	uint64_t site;
	long nr;
	bool is_restart_syscall, repeat;
} repeat_cases[] = {
	{ SITE, NR, false, true },
	{ SITE, SYS_restart_syscall, true, true },
	{ SITE, SYS_read, false, false },
	{ OTHER, NR, false, false },
	{ OTHER, SYS_restart_syscall, true, false },
};

START_TEST(a_repeat_is_the_same_call_at_the_same_site)
{
	const struct repeat_case *c = &repeat_cases[_i];
	struct thread t = with_pending(RESTART_NEXT);

	ck_assert_int_eq(restart_is_repeat(&t, c->site, c->nr, c->is_restart_syscall), c->repeat);
	/* whichever it was, the restart was taken */
	assert_taken(&t);
	ck_assert(!restart_is_repeat(&t, c->site, c->nr, c->is_restart_syscall));
}
END_TEST

START_TEST(no_repeat_while_the_frame_has_not_said)
{
	struct thread none = { 0 }, frame = with_pending(RESTART_IF_FRAME_SAYS);

	ck_assert(!restart_is_repeat(&none, 0, 0, false));
	/* the handler's own calls come first, even one like the interrupted call */
	ck_assert(!restart_is_repeat(&frame, SITE, NR, false));
	assert_pending(&frame, (struct pending){ RESTART_IF_FRAME_SAYS, SITE, NR, RESTART_BY_SIGNAL });
}
END_TEST

START_TEST(a_reissue_is_marked)
{
	struct thread t = { 0 };

	restart_expect_reissue(&t, SITE, SYS_read);
	assert_pending(&t, (struct pending){ RESTART_NEXT, SITE, SYS_read, RESTART_BY_REISSUE });
	ck_assert(restart_is_repeat(&t, SITE, SYS_read, false));
	assert_taken(&t);
}
END_TEST

START_TEST(a_reissue_survives_a_handler_that_returns_to_it)
{
	struct thread t = { 0 };

	restart_expect_reissue(&t, SITE, SYS_read);
	/* a caught signal before the call is entered again, outside a syscall */
	restart_rule_signal(&t, -1, SYS_read, OTHER, true);
	assert_pending(&t, (struct pending){ RESTART_IF_FRAME_SAYS, SITE, SYS_read, RESTART_BY_REISSUE });
	restart_rule_frame(&t, SYS_read, SITE, OTHER);
	assert_pending(&t, (struct pending){ RESTART_NEXT, SITE, SYS_read, RESTART_BY_REISSUE });
	ck_assert(restart_is_repeat(&t, SITE, SYS_read, false));
	assert_taken(&t);
}
END_TEST

Suite *restarts_suite(void)
{
	return tables_suite("restarts", (const TTest *const[]){
		only_the_four_restart_codes, a_restart_code_is_entered_again, our_interrupt_is_no_restart_of_the_program,
		a_frame_matters_only_while_one_is_awaited,
		an_interrupt_that_restarts_nothing_here, no_repeat_while_the_frame_has_not_said, a_reissue_is_marked,
		a_reissue_survives_a_handler_that_returns_to_it, NULL }, (const struct table_test[]){
		{ a_caught_signal_lets_the_frame_decide, TABLE_ROWS(frame_cases) },
		{ a_signal_outside_a_restartable_call, TABLE_ROWS(outside_cases) },
		{ a_repeat_is_the_same_call_at_the_same_site, TABLE_ROWS(repeat_cases) }, { NULL, 0 } });
}
