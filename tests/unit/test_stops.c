#include <signal.h>
#include <stdlib.h>
#include <sys/ptrace.h>

#include "serve_times.h"
#include "stops.h"
#include "suites.h"

/* A stop that is not a seccomp one, and the kind it is counted as. */
static const struct kind_case {
	int event, sig;
	bool first_stop, in_execve;
	enum stop_kind kind;
} kind_cases[] = {
	/* the events that make, replace and end processes and threads, whatever else */
	{ PTRACE_EVENT_FORK, SIGTRAP, false, false, STOP_LIFECYCLE },
	{ PTRACE_EVENT_VFORK, SIGTRAP, false, false, STOP_LIFECYCLE },
	{ PTRACE_EVENT_CLONE, SIGTRAP, false, false, STOP_LIFECYCLE },
	{ PTRACE_EVENT_EXEC, SIGTRAP, false, true, STOP_LIFECYCLE },
	{ PTRACE_EVENT_EXIT, SIGTRAP, false, false, STOP_LIFECYCLE },
	{ PTRACE_EVENT_FORK, SIGTRAP, true, true, STOP_LIFECYCLE },
	/* an attach stop is a new thread's first; later ones are group stops or ours */
	{ PTRACE_EVENT_STOP, SIGSTOP, true, false, STOP_LIFECYCLE },
	{ PTRACE_EVENT_STOP, SIGSTOP, false, false, STOP_OTHER },
	{ PTRACE_EVENT_STOP, SIGTRAP, false, true, STOP_OTHER },
	/* a syscall-exit stop belongs to the execve it ends, and only to that */
	{ 0, SIGTRAP | 0x80, false, true, STOP_LIFECYCLE },
	{ 0, SIGTRAP | 0x80, false, false, STOP_OTHER },
	{ 0, SIGTRAP, false, true, STOP_OTHER },
	/* signals */
	{ 0, SIGCHLD, false, false, STOP_OTHER },
	{ 0, SIGSEGV, false, true, STOP_OTHER },
	/* events that are none of those */
	{ PTRACE_EVENT_VFORK_DONE, SIGTRAP, false, false, STOP_OTHER },
	{ PTRACE_EVENT_SECCOMP, SIGTRAP, false, false, STOP_OTHER },
};

START_TEST(stop_kinds)
{
	const struct kind_case *c = &kind_cases[_i];

	ck_assert_int_eq(stop_kind_of(c->event, c->sig, c->first_stop, c->in_execve), c->kind);
}
END_TEST

/* A waitpid status and the kind its serving time is counted as (serve_times.h). */
#define EVENT_STATUS(event, sig) ((event) << 16 | (sig) << 8 | 0x7f)
static const struct serve_case {
	int status;
	enum serve_kind kind;
} serve_cases[] = {
	{ EVENT_STATUS(PTRACE_EVENT_SECCOMP, SIGTRAP), SERVE_SYSCALL },
	{ EVENT_STATUS(0, SIGTRAP | 0x80), SERVE_SYSCALL }, /* a syscall-exit stop */
	{ EVENT_STATUS(PTRACE_EVENT_EXEC, SIGTRAP), SERVE_EXEC },
	{ EVENT_STATUS(PTRACE_EVENT_FORK, SIGTRAP), SERVE_CREATE },
	{ EVENT_STATUS(PTRACE_EVENT_VFORK, SIGTRAP), SERVE_CREATE },
	{ EVENT_STATUS(PTRACE_EVENT_CLONE, SIGTRAP), SERVE_CREATE },
	{ EVENT_STATUS(PTRACE_EVENT_EXIT, SIGTRAP), SERVE_EXIT },
	{ EVENT_STATUS(0, SIGCHLD), SERVE_SIGNAL },
	{ EVENT_STATUS(0, SIGTRAP), SERVE_SIGNAL }, /* a breakpoint's, not ours */
	{ EVENT_STATUS(PTRACE_EVENT_STOP, SIGSTOP), SERVE_OTHER },
	{ EVENT_STATUS(PTRACE_EVENT_STOP, SIGTRAP), SERVE_OTHER },
	{ EVENT_STATUS(PTRACE_EVENT_VFORK_DONE, SIGTRAP), SERVE_OTHER },
	{ 0 << 8, SERVE_REAP },         /* exited 0 */
	{ 3 << 8, SERVE_REAP },         /* exited 3 */
	{ SIGKILL, SERVE_REAP },        /* killed */
	{ SIGSEGV | 0x80, SERVE_REAP }, /* killed, with a core */
};

START_TEST(serve_kinds)
{
	const struct serve_case *c = &serve_cases[_i];

	ck_assert_int_eq(serve_kind_of(c->status), c->kind);
}
END_TEST

/* The strides between sampled serves: within 1..2M-1, every one of them drawn, and
 * a mean of M over many (so that one serve in M is sampled: serve_times.h). */
START_TEST(serve_sample_strides)
{
	uint32_t state = 0x2545f491, seen[2 * SERVE_SAMPLE_MEAN] = { 0 };
	uint64_t sum = 0;
	const int n = 100000;

	for (int i = 0; i < n; i++) {
		uint32_t s = serve_sample_stride(&state);

		ck_assert_uint_ge(s, 1);
		ck_assert_uint_le(s, 2 * SERVE_SAMPLE_MEAN - 1);
		seen[s]++;
		sum += s;
	}
	for (int s = 1; s < 2 * SERVE_SAMPLE_MEAN; s++)
		ck_assert_uint_gt(seen[s], n / (2 * SERVE_SAMPLE_MEAN) / 2);
	ck_assert_uint_ge(sum, (uint64_t)n * SERVE_SAMPLE_MEAN * 99 / 100);
	ck_assert_uint_le(sum, (uint64_t)n * SERVE_SAMPLE_MEAN * 101 / 100);
}
END_TEST

/* A kind's CPU: its count times the mean of its sampled serves, without overflow;
 * nothing without a sample. */
START_TEST(serve_cpu_estimates)
{
	ck_assert_uint_eq(serve_cpu_estimate(100, 12, 1200000), 10000000);
	ck_assert_uint_eq(serve_cpu_estimate(7, 3, 10), 23); /* 7 * 10 / 3, rounded down */
	ck_assert_uint_eq(serve_cpu_estimate(5, 0, 0), 0);
	ck_assert_uint_eq(serve_cpu_estimate(0, 0, 0), 0);
	ck_assert_uint_eq(serve_cpu_estimate(UINT64_MAX / 2, 2, 4), UINT64_MAX / 2 * 2);
}
END_TEST

/* The lifecycle calls by name and number in each ABI (the kernel's syscall tables:
 * arch/x86/entry/syscalls/syscall_{64,32}.tbl; x32's execve and execveat are its own). */
static const struct call_case {
	enum syscall_abi abi;
	const char *name;
	long nr;
} lifecycle_calls[] = {
	{ ABI_X86_64, "clone", 56 },  { ABI_X86_64, "fork", 57 },       { ABI_X86_64, "vfork", 58 },
	{ ABI_X86_64, "execve", 59 }, { ABI_X86_64, "exit", 60 },       { ABI_X86_64, "exit_group", 231 },
	{ ABI_X86_64, "execveat", 322 }, { ABI_X86_64, "clone3", 435 },
	{ ABI_I386, "exit", 1 },      { ABI_I386, "fork", 2 },          { ABI_I386, "execve", 11 },
	{ ABI_I386, "clone", 120 },   { ABI_I386, "vfork", 190 },       { ABI_I386, "exit_group", 252 },
	{ ABI_I386, "execveat", 358 }, { ABI_I386, "clone3", 435 },
	{ ABI_X32, "clone", 56 },     { ABI_X32, "fork", 57 },          { ABI_X32, "vfork", 58 },
	{ ABI_X32, "exit", 60 },      { ABI_X32, "exit_group", 231 },   { ABI_X32, "clone3", 435 },
	{ ABI_X32, "execve", 520 },   { ABI_X32, "execveat", 545 },
}, other_calls[] = {
	{ ABI_X86_64, "read", 0 },    { ABI_X86_64, "getppid", 110 },   { ABI_X86_64, "wait4", 61 },
	{ ABI_I386, "read", 3 },      { ABI_I386, "getppid", 64 },      { ABI_I386, "waitpid", 7 },
	{ ABI_X32, "read", 0 },       { ABI_X32, "getppid", 110 },      { ABI_X32, "kill", 62 },
};

START_TEST(lifecycle_calls_in_every_abi)
{
	const struct call_case *c = &lifecycle_calls[_i];
	int idx = syscall_index_of(c->abi, c->name);

	stops_setup();
	ck_assert_int_eq(idx, syscall_index(c->abi, c->nr));
	ck_assert_msg(stop_call_is_lifecycle(idx), "%s in ABI %d", c->name, c->abi);
}
END_TEST

START_TEST(other_calls_are_not_lifecycle)
{
	const struct call_case *c = &other_calls[_i];
	int idx = syscall_index_of(c->abi, c->name);

	stops_setup();
	ck_assert_int_eq(idx, syscall_index(c->abi, c->nr));
	ck_assert_msg(!stop_call_is_lifecycle(idx), "%s in ABI %d", c->name, c->abi);
}
END_TEST

START_TEST(indexes_out_of_range_are_not_lifecycle)
{
	stops_setup();
	/* x32 has no execve of number 59: that one is x86-64's alone */
	ck_assert(!stop_call_is_lifecycle(syscall_index(ABI_X32, 59)));
	ck_assert(!stop_call_is_lifecycle(-1));
	ck_assert(!stop_call_is_lifecycle(-2));
	ck_assert(!stop_call_is_lifecycle(SYSCALL_INDEX_COUNT));
	ck_assert(!stop_call_is_lifecycle(SYSCALL_INDEX_COUNT + 59));
}
END_TEST

static void assert_stops(const struct image *img, uint64_t lifecycle, uint64_t early, uint64_t late)
{
	ck_assert_uint_eq(img->rec.stops_lifecycle, lifecycle);
	ck_assert_uint_eq(img->rec.stops_early, early);
	ck_assert_uint_eq(img->rec.stops_late, late);
	ck_assert_uint_eq(img->rec.ptrace_stops, lifecycle + early + late);
}

START_TEST(stops_split_three_ways)
{
	struct image *img = calloc(1, sizeof(*img));

	ck_assert_ptr_nonnull(img);
	count_stop(img, STOP_LIFECYCLE);
	assert_stops(img, 1, 0, 0);
	count_stop(img, STOP_OTHER);
	count_stop(img, STOP_OTHER);
	assert_stops(img, 1, 2, 0);
	img->late = true; /* its library has been up */
	count_stop(img, STOP_OTHER);
	assert_stops(img, 1, 2, 1);
	count_stop(img, STOP_LIFECYCLE);
	assert_stops(img, 2, 2, 1);
	/* late stays late, even when the library is no longer ready */
	img->ready = false;
	count_stop(img, STOP_OTHER);
	assert_stops(img, 2, 2, 2);
	free(img);
}
END_TEST

Suite *stops_suite(void)
{
	return tables_suite("stops", (const TTest *const[]){
		indexes_out_of_range_are_not_lifecycle, stops_split_three_ways, serve_sample_strides, serve_cpu_estimates,
		NULL }, (const struct table_test[]){
		{ stop_kinds, TABLE_ROWS(kind_cases) }, { serve_kinds, TABLE_ROWS(serve_cases) }, { lifecycle_calls_in_every_abi, TABLE_ROWS(lifecycle_calls) },
		{ other_calls_are_not_lifecycle, TABLE_ROWS(other_calls) }, { NULL, 0 } });
}
