#include <asm/prctl.h>
#include <capstone/capstone.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <ucontext.h>
#include <x86intrin.h>
#include <unistd.h>

#include "code_samples.h"
#include "gate_code.h"
#include "region.h"
#include "stub.h"
#include "suites.h"
#include "time_fixups.h"
#include "tsc_clock.h"

#define PAGE 4096
/* byte offsets in a thread's counter block */
#define ERRORS_SEEN 0
#define SITE_COUNTER 8
#define UNMAPS 120 /* the munmaps a guard let through */
#define NR_COUNTERS 128
#define NR_LIMIT 512
#define NR_ERRORS (NR_COUNTERS + 8 * NR_LIMIT)
#define SITE_ERRORS (NR_ERRORS + 8 * NR_LIMIT) /* a site's error counter: this past its calls' */
#define BLOCK_WORDS ((SITE_ERRORS + NR_COUNTERS) / 8)

/* A thread's counter block, as the tracer would set it up: the stubs find it at %gs. */
struct block {
	uint64_t w[BLOCK_WORDS];
};

static void gs_use(struct block *b)
{
	ck_assert_int_eq(syscall(SYS_arch_prctl, ARCH_SET_GS, (unsigned long)b), 0);
}

/* Check forks for each test, but not under CK_FORK=no: leave gs as found */
static void gs_release(void)
{
	gs_use(NULL);
}

/* One patched function, run for real: its code, the gate (`syscall; ret`) on the next
 * page and its stub on the third, all in one mapping so that they are near. Rigs
 * used together count in one block, each at its own site_counter. */
struct rig {
	uint8_t *code, *gate, *stub;
	int32_t site_counter;
	struct patch_plan plan;
	struct stub_layout layout;
};

typedef long (*fn3)(long, long, long);

/* The error test without flags (BMI2), for the rigs built while set. */
static bool rig_flag_free;

/* Runs test with the error test both ways: with the flags saved, and without flags
 * (where the CPU has BMI2). */
static void both_error_tests(void (*test)(void))
{
	rig_flag_free = false;
	test();
	if (__builtin_cpu_supports("bmi2")) {
		rig_flag_free = true;
		test();
		rig_flag_free = false;
	}
}
/* The numbers that must stop only in some cases, for the rigs built while set. */
static const struct stub_guard *rig_guards;
static size_t rig_nguards;
/* While set, rigs are built as under --time: their stubs call the gate page's time
 * routine, which adds the site's ticks at its counter index (site_counter / 8). */
static bool rig_time;

/* A thread's block with its time counters where the routine finds them (%gs +
 * REGION_TIME_AT), for timed rigs. */
static struct timed_block {
	struct block b;
	uint8_t gap[REGION_TIME_AT - sizeof(struct block)];
	struct region_time t;
} tb;

static fn3 rig_install_at(struct rig *r, const uint8_t *fn, size_t len, size_t site_off, const int *slow,
			  size_t nslow, int32_t site_counter)
{
	uint8_t *m = mmap(NULL, 3 * PAGE, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct code_scan s = { 0 };
	struct stub_config cfg;

	ck_assert_ptr_ne(m, MAP_FAILED);
	memset(r, 0, sizeof(*r));
	r->code = m;
	r->gate = m + PAGE;
	r->stub = m + 2 * PAGE;
	r->site_counter = site_counter;
	memcpy(r->code, fn, len);
	/* the gate page as the tracer writes it: the gate (`syscall; ret`) first */
	memcpy(r->gate, gate_code, (size_t)(gate_code_end - gate_code));
	code_scan_add(&s, r->code, len, (uintptr_t)r->code);
	code_scan_add_target(&s, (uintptr_t)r->code);
	code_scan_finish(&s);
	ck_assert_ptr_null(patch_plan_make(&s, r->code, len, (uintptr_t)r->code, (uintptr_t)r->code + site_off, &r->plan));
	code_scan_free(&s);
	cfg = (struct stub_config){ .gate = (uintptr_t)r->gate, .site_counter = site_counter,
				    .nr_counters = NR_COUNTERS, .site_errors = site_counter + SITE_ERRORS,
				    .nr_errors = NR_ERRORS, .errors_seen = ERRORS_SEEN, .unmaps = UNMAPS,
				    .nr_limit = NR_LIMIT, .slow_nrs = slow, .nslow = nslow, .guards = rig_guards, .nguards = rig_nguards,
				    .flag_free_errors = rig_flag_free };
	if (rig_time) {
		cfg.time_call = (uintptr_t)r->gate + (uintptr_t)(gate_time_call - gate_code);
		cfg.site_time = REGION_TIME_SITE_TICKS + site_counter;
	}
	ck_assert_uint_gt(stub_build(&r->plan, &cfg, (uintptr_t)r->stub, r->stub, STUB_MAX_LEN, &r->layout), 0);
	ck_assert(patch_bytes(&r->plan, (uintptr_t)r->stub, r->code + (r->plan.start - (uintptr_t)r->code)));
	return (fn3)(void *)r->code;
}

static fn3 rig_install(struct rig *r, const uint8_t *fn, size_t len, size_t site_off, const int *slow, size_t nslow)
{
	return rig_install_at(r, fn, len, site_off, slow, nslow, SITE_COUNTER);
}

static void rig_free(struct rig *r)
{
	munmap(r->code, 3 * PAGE);
}

static uint64_t site_count(const struct block *b, const struct rig *r)
{
	return b->w[r->site_counter / 8];
}

static uint64_t nr_count(const struct block *b, long nr)
{
	return b->w[NR_COUNTERS / 8 + nr];
}

static uint64_t site_errors(const struct block *b, const struct rig *r)
{
	return b->w[(r->site_counter + SITE_ERRORS) / 8];
}

static uint64_t nr_errors(const struct block *b, long nr)
{
	return b->w[NR_ERRORS / 8 + nr];
}

static const uint8_t getppid_fn[] = { 0xb8, 0x6e, 0x00, 0x00, 0x00, 0x0f, 0x05, 0xc3 };
/* glibc's syscall() in small: the number known only at run time */
static const uint8_t syscall_fn[] = {
	0x48, 0x89, 0xf8, /* mov %rdi,%rax */
	0x48, 0x89, 0xf7, /* mov %rsi,%rdi */
	0x48, 0x89, 0xd6, /* mov %rdx,%rsi */
	0x0f, 0x05,       /* syscall */
	0xc3,             /* ret */
};

START_TEST(fixed_number_before)
{
	struct block b = { { 0 } };
	struct rig r;
	fn3 fn = rig_install(&r, getppid_fn, sizeof(getppid_fn), 5, NULL, 0);

	gs_use(&b);
	ck_assert_int_eq(r.plan.shape, PATCH_BEFORE);
	ck_assert_int_eq(r.plan.nr, SYS_getppid);
	ck_assert_uint_eq(r.code[0], 0xe9);
	ck_assert_int_eq(fn(0, 0, 0), getppid());
	ck_assert_uint_eq(site_count(&b, &r), 1);
	ck_assert_int_eq(fn(0, 0, 0), getppid());
	ck_assert_uint_eq(site_count(&b, &r), 2);
	ck_assert_uint_eq(nr_count(&b, SYS_getppid), 0); /* a fixed number needs no count of its own */
	gs_release();
	rig_free(&r);
}
END_TEST

START_TEST(fixed_number_after)
{
	char buf[8];
	struct block b = { { 0 } };
	struct rig r;
	fn3 fn = rig_install(&r, sample_read, sizeof(sample_read), 6, NULL, 0);

	gs_use(&b);
	ck_assert_int_eq(r.plan.shape, PATCH_AFTER);
	ck_assert_int_eq(r.plan.nr, SYS_read);
	ck_assert_int_eq(fn(-1, (long)buf, sizeof(buf)), -EBADF);
	ck_assert_uint_eq(site_count(&b, &r), 1);
	ck_assert_int_eq(fn(-1, (long)buf, sizeof(buf)), -EBADF);
	ck_assert_uint_eq(site_count(&b, &r), 2);
	gs_release();
	rig_free(&r);
}
END_TEST

static void run_time_number_with(void)
{
	static const int slow[] = { SYS_vfork, SYS_getpid };
	struct block b = { { 0 } };
	struct rig r;
	fn3 fn = rig_install(&r, syscall_fn, sizeof(syscall_fn), 9, slow, 2);
	uint64_t total = 0;

	gs_use(&b);
	ck_assert_int_eq(r.plan.shape, PATCH_BEFORE);
	ck_assert_int_eq(r.plan.nr, -1);
	ck_assert_int_eq(fn(SYS_getppid, 0, 0), getppid());
	ck_assert_uint_eq(site_count(&b, &r), 1);
	ck_assert_uint_eq(nr_count(&b, SYS_getppid), 1);
	ck_assert_uint_eq(site_errors(&b, &r), 0);
	ck_assert_uint_eq(b.w[ERRORS_SEEN / 8], 0);
	ck_assert_int_eq(fn(NR_LIMIT - 1, 0, 0), -ENOSYS);
	ck_assert_uint_eq(site_count(&b, &r), 2);
	ck_assert_uint_eq(nr_count(&b, NR_LIMIT - 1), 1);
	ck_assert_uint_eq(site_errors(&b, &r), 1); /* an error, at the site and its number */
	ck_assert_uint_eq(nr_errors(&b, NR_LIMIT - 1), 1);
	ck_assert_uint_eq(nr_errors(&b, SYS_getppid), 0);
	ck_assert_uint_ne(b.w[ERRORS_SEEN / 8], 0);
	/* the slow path: the stub's own syscall, not counted here */
	ck_assert_int_eq(fn(SYS_getpid, 0, 0), getpid());
	ck_assert_int_eq(fn(NR_LIMIT, 0, 0), -ENOSYS);
	ck_assert_int_eq(fn(-1, 0, 0), -ENOSYS);
	ck_assert_uint_eq(site_count(&b, &r), 2);
	ck_assert_uint_eq(nr_count(&b, SYS_getpid), 0);
	/* nothing else in the block was written: 4 calls, 2 errors and the mark */
	for (size_t i = 0; i < BLOCK_WORDS; i++)
		total += b.w[i];
	ck_assert_uint_eq(total, 4 + 2 + 1);
	gs_release();
	rig_free(&r);
}

START_TEST(run_time_number)
{
	both_error_tests(run_time_number_with);
}
END_TEST

static const struct stub_guard guards[] = {
	{ SYS_arch_prctl, GUARD_SETS_GS },
	{ SYS_munmap, GUARD_UNMAPS_OWN },
	{ SYS_prctl, GUARD_SETS_SECCOMP },
};

/* Whether the site's count and the block's munmaps (before: both) moved by one, or
 * neither did: the tracer learns of every munmap that went in-process. */
static bool unmap_moved(const struct block *b, const struct rig *r, const uint64_t before[2])
{
	bool counted = site_count(b, r) == before[0] + 1;

	ck_assert_uint_eq(b->w[UNMAPS / 8], before[1] + counted);
	return counted;
}

/* Calls munmap through fn on [at, at + len) (not page-aligned: EINVAL on either path,
 * nothing is unmapped); whether the stub made it in-process (counted). */
static bool unmap_counted(fn3 fn, bool fixed, const struct block *b, const struct rig *r, uint64_t at, long len)
{
	uint64_t before[2] = { site_count(b, r), b->w[UNMAPS / 8] };

	ck_assert_int_eq(fixed ? fn((long)at, len, 0) : fn(SYS_munmap, (long)at, len), -EINVAL);
	return unmap_moved(b, r, before);
}

/* Calls fn(a0, a1, a2) on a stack whose top is top: fn starts with rsp = top - 16. */
long stub_test_call_on_stack(fn3 fn, long a0, long a1, long a2, uint64_t top);
__asm__(".pushsection .text\n"
	".globl stub_test_call_on_stack\n"
	".type stub_test_call_on_stack, @function\n"
	"stub_test_call_on_stack:\n"
	"	mov %rsp,%rax; mov %r8,%rsp; push %rax\n"
	"	mov %rdi,%rax; mov %rsi,%rdi; mov %rdx,%rsi; mov %rcx,%rdx\n"
	"	call *%rax\n"
	"	pop %rsp; ret\n"
	".size stub_test_call_on_stack, .-stub_test_call_on_stack\n"
	".popsection\n");

/* unmap_counted with the program's stack pointer at top - 16. */
static bool unmap_counted_on(fn3 fn, bool fixed, const struct block *b, const struct rig *r, uint64_t top,
			     uint64_t at, long len)
{
	uint64_t before[2] = { site_count(b, r), b->w[UNMAPS / 8] };
	long ret = fixed ? stub_test_call_on_stack(fn, (long)at, len, 0, top)
			 : stub_test_call_on_stack(fn, SYS_munmap, (long)at, len, top);

	ck_assert_int_eq(ret, -EINVAL);
	return unmap_moved(b, r, before);
}

/* arch_prctl stops only to set %gs; munmap only over the stack, the stub or the gate. */
START_TEST(guarded_numbers)
{
	static const uint8_t munmap_fn[] = { 0xb8, 0x0b, 0x00, 0x00, 0x00, 0x0f, 0x05, 0xc3 };
	struct block b = { { 0 } };
	struct rig r, fixed;
	fn3 fn, fixed_fn;
	uint64_t gs = 0, here = (uintptr_t)&gs;
	uint8_t *stack_area = mmap(NULL, 3 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint64_t stack = (uintptr_t)stack_area;

	rig_guards = guards;
	rig_nguards = 3;
	fn = rig_install(&r, syscall_fn, sizeof(syscall_fn), 9, NULL, 0);
	fixed_fn = rig_install_at(&fixed, munmap_fn, sizeof(munmap_fn), 5, NULL, 0, 16);
	rig_guards = NULL;
	rig_nguards = 0;
	ck_assert_ptr_ne(stack_area, MAP_FAILED);
	ck_assert_int_eq(fixed.plan.nr, SYS_munmap);
	gs_use(&b);
	ck_assert_int_eq(fn(SYS_arch_prctl, ARCH_GET_GS, (long)&gs), 0);
	ck_assert_uint_eq(gs, (uintptr_t)&b);
	ck_assert_uint_eq(site_count(&b, &r), 1);
	ck_assert_uint_eq(nr_count(&b, SYS_arch_prctl), 1);
	ck_assert_int_eq(fn(SYS_arch_prctl, ARCH_SET_GS, (long)&b), 0); /* slow: not counted */
	ck_assert_uint_eq(site_count(&b, &r), 1);
	/* the kernel takes the code as an int: garbage above it still sets gs */
	ck_assert_int_eq(fn(SYS_arch_prctl, (long)(0xdead000000000000ul | ARCH_SET_GS), (long)&b), 0);
	ck_assert_uint_eq(site_count(&b, &r), 1);
	/* prctl stops only to install a seccomp filter (the mode 0 is refused: EINVAL) */
	ck_assert_int_eq(fn(SYS_prctl, PR_GET_DUMPABLE, 0), prctl(PR_GET_DUMPABLE));
	ck_assert_uint_eq(site_count(&b, &r), 2);
	ck_assert_int_eq(fn(SYS_prctl, PR_SET_SECCOMP, 0), -EINVAL); /* slow: not counted */
	ck_assert_uint_eq(site_count(&b, &r), 2);
	ck_assert_uint_eq(b.w[UNMAPS / 8], 0); /* only a munmap's guard counts there */
	for (int k = 0; k < 2; k++) {
		fn3 f = k ? fixed_fn : fn;
		const struct rig *g = k ? &fixed : &r;

		ck_assert(unmap_counted(f, k, &b, g, (uintptr_t)g->code + 3 * PAGE + 1, 16));
		ck_assert(!unmap_counted(f, k, &b, g, here - 4097, 8192)); /* the stack pointer */
		ck_assert(unmap_counted(f, k, &b, g, here + 4097, 8192));  /* above it */
		/* below it, where the stub's return address and pushes go */
		ck_assert(!unmap_counted_on(f, k, &b, g, stack + 2 * PAGE + 72, stack + PAGE + 1, PAGE - 1));
		ck_assert(unmap_counted_on(f, k, &b, g, stack + 2 * PAGE + STUB_STACK_DEPTH + 72, stack + PAGE + 1,
					   PAGE - 1));
		ck_assert(!unmap_counted(f, k, &b, g, (uintptr_t)g->stub - 1, PAGE));
		ck_assert(!unmap_counted(f, k, &b, g, (uintptr_t)g->gate - 1, 16));
		/* a length the kernel rounds up to a page that holds the gate */
		ck_assert(!unmap_counted(f, k, &b, g, (uintptr_t)g->gate - PAGE + 1, PAGE - 2));
		ck_assert(unmap_counted(f, k, &b, g, (uintptr_t)g->gate - 2 * PAGE + 1, PAGE - 2));
	}
	gs_release();
	rig_free(&r);
	rig_free(&fixed);
	munmap(stack_area, 3 * PAGE);
}
END_TEST

/* Where a child made on a new stack returns to (its stack's top word): it exits. */
void stub_test_child_exits(void);
__asm__(".pushsection .text\n"
	".globl stub_test_child_exits\n"
	".type stub_test_child_exits, @function\n"
	"stub_test_child_exits:\n"
	"	mov $231,%eax; xor %edi,%edi; syscall\n"
	".size stub_test_child_exits, .-stub_test_child_exits\n"
	".popsection\n");

/* clone(flags, stack) through fn; whether the stub made it in-process (counted).
 * A child returns 0 through the stub as its parent does and exits at once, or on
 * the new stack to stub_test_child_exits. */
static bool clone_counted(fn3 fn, bool fixed, const struct block *b, const struct rig *r, long flags, uint64_t stack)
{
	uint64_t before = site_count(b, r);
	long pid = fixed ? fn(flags, (long)stack, 0) : fn(SYS_clone, flags, (long)stack);
	int status = -1;

	if (pid == 0)
		syscall(SYS_exit_group, 0);
	if (pid > 0) {
		ck_assert_int_eq(waitpid((pid_t)pid, &status, __WALL), pid);
		ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
	return site_count(b, r) == before + 1;
}

/* clone goes in-process only as a plain fork: its child has its own copy of the
 * stack the stub and the gate return through. */
START_TEST(forks_go_in_process)
{
	static const uint8_t clone_fn[] = { 0xb8, 0x38, 0x00, 0x00, 0x00, 0x0f, 0x05, 0xc3 };
	static const struct stub_guard fork_guard[] = { { SYS_clone, GUARD_NOT_A_FORK } };
	struct block b = { { 0 } };
	struct rig r, fixed;
	fn3 fn, fixed_fn;
	uint8_t *stack_area = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint64_t top = (uintptr_t)stack_area + PAGE - 16;

	ck_assert_ptr_ne(stack_area, MAP_FAILED);
	*(uint64_t *)(uintptr_t)top = (uintptr_t)stub_test_child_exits;
	rig_guards = fork_guard;
	rig_nguards = 1;
	fn = rig_install(&r, syscall_fn, sizeof(syscall_fn), 9, NULL, 0);
	fixed_fn = rig_install_at(&fixed, clone_fn, sizeof(clone_fn), 5, NULL, 0, 16);
	rig_guards = NULL;
	rig_nguards = 0;
	gs_use(&b);
	for (int k = 0; k < 2; k++) {
		fn3 f = k ? fixed_fn : fn;
		const struct rig *g = k ? &fixed : &r;

		ck_assert(clone_counted(f, k, &b, g, SIGCHLD, 0));
		ck_assert(clone_counted(f, k, &b, g, SIGCHLD | CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID, 0));
		/* shared signal handlers without shared memory: EINVAL, from the traced path */
		ck_assert(!clone_counted(f, k, &b, g, SIGCHLD | CLONE_SIGHAND, 0));
		ck_assert(!clone_counted(f, k, &b, g, SIGCHLD | CLONE_UNTRACED | CLONE_SIGHAND, 0));
		/* a new stack: the child returns on it, not through the stub */
		ck_assert(!clone_counted(f, k, &b, g, SIGCHLD, top));
		ck_assert(!clone_counted(f, k, &b, g, (long)(SIGCHLD | 0x100000000ul), top));
	}
	gs_release();
	rig_free(&r);
	rig_free(&fixed);
	munmap(stack_area, PAGE);
}
END_TEST

/* Everything the kernel keeps across a syscall, set before a call and read after it,
 * and the callee's red zone. Offsets are the assembly's below. */
struct cpu_regs {
	uint64_t rax, rbx, rdx, rsi, rdi, rbp, r8, r9, r10, r12, r13, r14, r15, rflags;
	uint64_t xmm0[2], xmm1[2];
	uint8_t below[128];
};
_Static_assert(offsetof(struct cpu_regs, rflags) == 104 && offsetof(struct cpu_regs, xmm0) == 112
		       && offsetof(struct cpu_regs, below) == 144,
	       "call_with_regs assumes this layout");

void stub_test_call_with_regs(const struct cpu_regs *in, struct cpu_regs *out, fn3 fn);
__asm__(".pushsection .text\n"
	".globl stub_test_call_with_regs\n"
	".type stub_test_call_with_regs, @function\n"
	"stub_test_call_with_regs:\n"
	"	push %rbx; push %rbp; push %r12; push %r13; push %r14; push %r15\n"
	"	push %rsi\n" /* out, at 8(%rsp) */
	"	push %rdx\n" /* fn, at (%rsp); call it R */
	/* fn's red zone: the 128 bytes below its rsp, R - 8 */
	"	xor %ecx,%ecx\n"
	"1:	mov 144(%rdi,%rcx),%rax; mov %rax,-136(%rsp,%rcx)\n"
	"	add $8,%rcx; cmp $128,%rcx; jb 1b\n"
	"	movdqu 112(%rdi),%xmm0; movdqu 128(%rdi),%xmm1\n"
	"	mov 8(%rdi),%rbx; mov 16(%rdi),%rdx; mov 24(%rdi),%rsi; mov 40(%rdi),%rbp\n"
	"	mov 48(%rdi),%r8; mov 56(%rdi),%r9; mov 64(%rdi),%r10; mov 72(%rdi),%r12\n"
	"	mov 80(%rdi),%r13; mov 88(%rdi),%r14; mov 96(%rdi),%r15; mov 0(%rdi),%rax\n"
	"	push 104(%rdi); popfq\n" /* uses R - 8 only, as the call does */
	"	mov 32(%rdi),%rdi\n"
	"	call *(%rsp)\n"
	"	pushfq; cld\n" /* the ABI wants DF clear back in C */
	"	mov 16(%rsp),%r11\n"
	"	pop 104(%r11)\n"
	"	mov %rax,0(%r11); mov %rbx,8(%r11); mov %rdx,16(%r11); mov %rsi,24(%r11)\n"
	"	mov %rdi,32(%r11); mov %rbp,40(%r11); mov %r8,48(%r11); mov %r9,56(%r11)\n"
	"	mov %r10,64(%r11); mov %r12,72(%r11); mov %r13,80(%r11); mov %r14,88(%r11)\n"
	"	mov %r15,96(%r11); movdqu %xmm0,112(%r11); movdqu %xmm1,128(%r11)\n"
	"	xor %ecx,%ecx\n"
	"2:	mov -136(%rsp,%rcx),%rax; mov %rax,144(%r11,%rcx)\n"
	"	add $8,%rcx; cmp $128,%rcx; jb 2b\n"
	"	add $16,%rsp\n"
	"	pop %r15; pop %r14; pop %r13; pop %r12; pop %rbp; pop %rbx\n"
	"	ret\n"
	".size stub_test_call_with_regs, .-stub_test_call_with_regs\n"
	".popsection\n");

/* carry, parity, adjust, zero, sign, direction, overflow */
#define STATUS_FLAGS 0xcd5

/* Calls fn with rax = nr and every other register known; returns its rax. */
static long call_checking_regs(fn3 fn, long nr, uint64_t rflags)
{
	struct cpu_regs in = {
		.rax = (uint64_t)nr, .rbx = 0x1111111111111111, .rdx = 0x2222222222222222,
		.rsi = 0x3333333333333333, .rdi = 0x4444444444444444, .rbp = 0x5555555555555555,
		.r8 = 0x8888888888888888, .r9 = 0x9999999999999999, .r10 = 0xaaaaaaaaaaaaaaaa,
		.r12 = 0xcccccccccccccccc, .r13 = 0xdddddddddddddddd, .r14 = 0xeeeeeeeeeeeeeeee,
		.r15 = 0xffffffffffffffff, .rflags = rflags, .xmm0 = { 0x0123456789abcdef, 0xfedcba9876543210 },
		.xmm1 = { 0x0f0f0f0f0f0f0f0f, 0xf0f0f0f0f0f0f0f0 },
	};
	struct cpu_regs out;

	for (size_t i = 0; i < sizeof(in.below); i++)
		in.below[i] = (uint8_t)(0xa5 ^ i);
	memset(&out, 0, sizeof(out));
	stub_test_call_with_regs(&in, &out, fn);
	ck_assert_uint_eq(out.rbx, in.rbx);
	ck_assert_uint_eq(out.rdx, in.rdx);
	ck_assert_uint_eq(out.rsi, in.rsi);
	ck_assert_uint_eq(out.rdi, in.rdi);
	ck_assert_uint_eq(out.rbp, in.rbp);
	ck_assert_uint_eq(out.r8, in.r8);
	ck_assert_uint_eq(out.r9, in.r9);
	ck_assert_uint_eq(out.r10, in.r10);
	ck_assert_uint_eq(out.r12, in.r12);
	ck_assert_uint_eq(out.r13, in.r13);
	ck_assert_uint_eq(out.r14, in.r14);
	ck_assert_uint_eq(out.r15, in.r15);
	ck_assert_uint_eq(out.rflags & STATUS_FLAGS, in.rflags & STATUS_FLAGS);
	ck_assert_mem_eq(out.xmm0, in.xmm0, sizeof(in.xmm0));
	ck_assert_mem_eq(out.xmm1, in.xmm1, sizeof(in.xmm1));
	ck_assert_mem_eq(out.below, in.below, sizeof(in.below));
	return (long)out.rax;
}

/* all status flags set, all but direction, then all clear (bit 1 and IF always read
 * as set) */
static const uint64_t flag_sets[] = { 0x202 | STATUS_FLAGS, 0x202 | (STATUS_FLAGS & ~0x400ul), 0x202 };
#define NFLAG_SETS (sizeof(flag_sets) / sizeof(flag_sets[0]))

/* Each path, with and without an error, with the stubs made as under --time when
 * timed: every register the kernel keeps, the status flags and the red zone too. */
static void registers_flags_and_red_zone_kept(bool timed)
{
	static const uint8_t before_fn[] = {
		0x48, 0x89, 0xd2, /* mov %rdx,%rdx */
		0x48, 0x89, 0xf6, /* mov %rsi,%rsi */
		0x0f, 0x05,       /* syscall */
		0xc3,             /* ret */
	};
	static const uint8_t after_fn[] = {
		0xeb, 0x00,                   /* jmp +0: the syscall is a target, its number unknown */
		0x0f, 0x05,                   /* syscall */
		0x0f, 0x1f, 0x44, 0x00, 0x00, /* nopl 0(%rax,%rax) */
		0xc3,                         /* ret */
	};
	/* close(0x44444444), the rdi call_checking_regs gives: EBADF, an error */
	static const uint8_t close_fn[] = { 0xb8, 0x03, 0x00, 0x00, 0x00, 0x0f, 0x05, 0xc3 };
	static const int slow[] = { SYS_getpid };
	struct rig fixed, before, after, failing;
	fn3 fixed_fn, before_fn3, after_fn3, close_fn3;

	memset(&tb, 0, sizeof(tb));
	rig_time = timed;
	fixed_fn = rig_install_at(&fixed, getppid_fn, sizeof(getppid_fn), 5, slow, 1, 8);
	before_fn3 = rig_install_at(&before, before_fn, sizeof(before_fn), 6, slow, 1, 16);
	after_fn3 = rig_install_at(&after, after_fn, sizeof(after_fn), 2, slow, 1, 24);
	close_fn3 = rig_install_at(&failing, close_fn, sizeof(close_fn), 5, slow, 1, 32);
	rig_time = false;
	gs_use(&tb.b);
	ck_assert_int_eq(after.plan.shape, PATCH_AFTER);
	/* each path, with and without an error (whose count compares, then puts the
	 * syscall's flags back) */
	for (size_t i = 0; i < NFLAG_SETS; i++) {
		ck_assert_int_eq(call_checking_regs(fixed_fn, 0, flag_sets[i]), getppid());
		ck_assert_int_eq(call_checking_regs(close_fn3, 0, flag_sets[i]), -EBADF);
		ck_assert_int_eq(call_checking_regs(before_fn3, SYS_getppid, flag_sets[i]), getppid());
		ck_assert_int_eq(call_checking_regs(before_fn3, NR_LIMIT - 1, flag_sets[i]), -ENOSYS);
		ck_assert_int_eq(call_checking_regs(before_fn3, SYS_getpid, flag_sets[i]), getpid());
		ck_assert_int_eq(call_checking_regs(after_fn3, SYS_getppid, flag_sets[i]), getppid());
		ck_assert_int_eq(call_checking_regs(after_fn3, NR_LIMIT - 1, flag_sets[i]), -ENOSYS);
		ck_assert_int_eq(call_checking_regs(after_fn3, SYS_getpid, flag_sets[i]), getpid());
	}
	ck_assert_uint_eq(site_count(&tb.b, &fixed), NFLAG_SETS);
	ck_assert_uint_eq(site_count(&tb.b, &failing), NFLAG_SETS);
	ck_assert_uint_eq(site_count(&tb.b, &before), 2 * NFLAG_SETS);
	ck_assert_uint_eq(site_count(&tb.b, &after), 2 * NFLAG_SETS);
	ck_assert_uint_eq(nr_count(&tb.b, SYS_getppid), 2 * NFLAG_SETS);
	ck_assert_uint_eq(nr_count(&tb.b, NR_LIMIT - 1), 2 * NFLAG_SETS);
	ck_assert_uint_eq(nr_count(&tb.b, SYS_getpid), 0);
	ck_assert_uint_eq(site_errors(&tb.b, &fixed), 0);
	ck_assert_uint_eq(site_errors(&tb.b, &failing), NFLAG_SETS);
	ck_assert_uint_eq(site_errors(&tb.b, &before), NFLAG_SETS);
	ck_assert_uint_eq(site_errors(&tb.b, &after), NFLAG_SETS);
	ck_assert_uint_eq(nr_errors(&tb.b, NR_LIMIT - 1), 2 * NFLAG_SETS);
	ck_assert_uint_eq(nr_errors(&tb.b, SYS_getppid), 0);
	gs_release();
	/* timed: every call made through the gate took ticks, at its site and number;
	 * untimed: no tick anywhere */
	ck_assert_uint_eq(tb.t.site_ticks[1] != 0, timed);
	ck_assert_uint_eq(tb.t.site_ticks[4] != 0, timed);
	ck_assert_uint_eq(tb.t.nr_ticks[SYS_getppid] != 0, timed);
	ck_assert_uint_eq(tb.t.nr_ticks[SYS_getppid] + tb.t.nr_ticks[NR_LIMIT - 1] + tb.t.nr_ticks[SYS_close],
			  tb.t.site_ticks[1] + tb.t.site_ticks[2] + tb.t.site_ticks[3] + tb.t.site_ticks[4]);
	ck_assert_uint_eq(tb.t.nr_ticks[SYS_getpid], 0); /* the slow path: not through the gate */
	rig_free(&fixed);
	rig_free(&before);
	rig_free(&after);
	rig_free(&failing);
}

static void untimed_registers_kept(void)
{
	registers_flags_and_red_zone_kept(false);
}

static void timed_registers_kept(void)
{
	registers_flags_and_red_zone_kept(true);
}

START_TEST(registers_flags_and_red_zone_are_kept)
{
	both_error_tests(untimed_registers_kept);
}
END_TEST

/* with BMI2 too: the flags the time routine changes after the call must not show */
START_TEST(timed_registers_flags_and_red_zone_are_kept)
{
	both_error_tests(timed_registers_kept);
}
END_TEST

/* A plan made by hand: BEFORE covering `mov %rsi,%rdi; mov $1,%eax` at 0x1000. */
static struct patch_plan before_plan(void)
{
	return (struct patch_plan){ .site = 0x1008, .start = 0x1000, .end = 0x1008, .shape = PATCH_BEFORE, .nr = 1,
				    .original = { 0x48, 0x89, 0xf7, 0xb8, 0x01, 0x00, 0x00, 0x00 },
				    .ninsn = 2, .insn_off = { 0, 3 } };
}

/* AFTER covering `syscall; mov %rax,%rdi; mov %rax,%rsi` at 0x1000. */
static struct patch_plan after_plan(void)
{
	return (struct patch_plan){ .site = 0x1000, .start = 0x1000, .end = 0x1008, .shape = PATCH_AFTER, .nr = -1,
				    .original = { 0x0f, 0x05, 0x48, 0x89, 0xc7, 0x48, 0x89, 0xc6 },
				    .ninsn = 3, .insn_off = { 0, 2, 5 } };
}

static const struct stub_config some_config = { .gate = 0x7000, .site_counter = 8, .nr_counters = 128,
						.site_errors = 8 + SITE_ERRORS, .nr_errors = NR_ERRORS,
						.errors_seen = ERRORS_SEEN, .nr_limit = 512 };

START_TEST(layout_and_translation)
{
	struct patch_plan b = before_plan(), a = after_plan();
	struct stub_layout l;
	uint8_t out[STUB_MAX_LEN];
	size_t len = stub_build(&b, &some_config, 0x40000, out, sizeof(out), &l);

	ck_assert_uint_gt(len, 0);
	ck_assert_uint_eq(l.addr, 0x40000);
	ck_assert_uint_eq(l.len, len);
	ck_assert_mem_eq(out, b.original, 8); /* the copies open the stub */
	ck_assert_uint_eq(l.after, l.slow + 2);
	ck_assert_mem_eq(out + (l.slow - l.addr), ((const uint8_t[]){ 0x0f, 0x05, 0xe9 }), 3);
	ck_assert_uint_eq(stub_translate(&b, &l, 0x1000), 0x1000); /* the jmp is there */
	ck_assert_uint_eq(stub_translate(&b, &l, 0x1003), 0x40003);
	ck_assert_uint_eq(stub_translate(&b, &l, 0x1004), 0);
	ck_assert_uint_eq(stub_translate(&b, &l, 0x1008), 0x1008); /* the syscall stays */
	ck_assert_uint_eq(stub_translate(&b, &l, 0x100a), 0x100a);

	len = stub_build(&a, &some_config, 0x40000, out, sizeof(out), &l);
	ck_assert_uint_gt(len, 0);
	ck_assert_mem_eq(out + (l.after - l.addr), a.original + 2, 6);
	ck_assert_uint_eq(stub_translate(&a, &l, 0x1000), 0x1000);
	ck_assert_uint_eq(stub_translate(&a, &l, 0x1002), l.after); /* returning from the syscall */
	ck_assert_uint_eq(stub_translate(&a, &l, 0x1005), l.after + 3);
	ck_assert_uint_eq(stub_translate(&a, &l, 0x1001), 0);
	ck_assert_uint_eq(stub_translate(&a, &l, 0x1008), 0x1008);
}
END_TEST

START_TEST(patch_is_a_jump_then_int3)
{
	struct patch_plan b = before_plan();
	uint8_t out[8];

	ck_assert(patch_bytes(&b, 0x1008 + 0x100, out));
	ck_assert_mem_eq(out, ((const uint8_t[]){ 0xe9, 0x03, 0x01, 0x00, 0x00, 0xcc, 0xcc, 0xcc }), 8);
	ck_assert(patch_bytes(&b, 0x1005 + 0x7ffffffful, out)); /* the farthest a rel32 reaches */
	ck_assert(!patch_bytes(&b, 0x1005 + 0x80000000ul, out));
}
END_TEST

START_TEST(stubs_that_cannot_be_built)
{
	struct patch_plan b = before_plan(), a = after_plan();
	struct stub_config cfg = some_config;
	struct stub_layout l;
	uint8_t out[STUB_MAX_LEN];
	static const int slow_one[] = { 1 };

	ck_assert_uint_eq(stub_build(&b, &cfg, 0x1008 + 0x80000000ul, out, sizeof(out), &l), 0); /* the way back */
	ck_assert_uint_gt(stub_build(&b, &cfg, 0x40000, out, sizeof(out), &l), 0);
	ck_assert_uint_eq(stub_build(&b, &cfg, 0x40000, out, l.len - 1, &l), 0);
	cfg.slow_nrs = slow_one;
	cfg.nslow = 1;
	ck_assert_uint_eq(stub_build(&b, &cfg, 0x40000, out, sizeof(out), &l), 0); /* must stay traced */
	ck_assert_uint_gt(stub_build(&a, &cfg, 0x40000, out, sizeof(out), &l), 0); /* dispatched at run time */
	cfg.nr_limit = 0x80000000u;
	ck_assert_uint_eq(stub_build(&a, &cfg, 0x40000, out, sizeof(out), &l), 0);
}
END_TEST

/* Instruction by instruction, as capstone reads it. */
struct decoded {
	csh h;
	cs_insn *insn;
	size_t n;
};

static void decode(struct decoded *d, const uint8_t *code, size_t len, uint64_t addr)
{
	ck_assert_int_eq(cs_open(CS_ARCH_X86, CS_MODE_64, &d->h), CS_ERR_OK);
	cs_option(d->h, CS_OPT_DETAIL, CS_OPT_ON);
	d->n = cs_disasm(d->h, code, len, addr, 0, &d->insn);
}

static void decoded_free(struct decoded *d)
{
	cs_free(d->insn, d->n);
	cs_close(&d->h);
}

static size_t insn_at(const struct decoded *d, uint64_t addr)
{
	for (size_t i = 0; i < d->n; i++)
		if (d->insn[i].address == addr)
			return i;
	ck_abort_msg("no instruction at %#lx", (unsigned long)addr);
	return 0;
}

static uint64_t branch_target(const cs_insn *insn)
{
	ck_assert_int_eq(insn->detail->x86.op_count, 1);
	ck_assert_int_eq(insn->detail->x86.operands[0].type, X86_OP_IMM);
	return (uint64_t)insn->detail->x86.operands[0].imm;
}

/* %gs:disp, or %gs:disp(,index,8) (X86_REG_INVALID: none) */
static void assert_gs_operand(const cs_x86_op *op, int64_t disp, x86_reg index)
{
	ck_assert_int_eq(op->type, X86_OP_MEM);
	ck_assert_int_eq(op->mem.segment, X86_REG_GS);
	ck_assert_int_eq(op->mem.base, X86_REG_INVALID);
	ck_assert_int_eq(op->mem.index, index);
	if (index != X86_REG_INVALID)
		ck_assert_int_eq(op->mem.scale, 8);
	ck_assert_int_eq(op->mem.disp, disp);
}

static void assert_reg_operand(const cs_x86_op *op, x86_reg reg)
{
	ck_assert_int_eq(op->type, X86_OP_REG);
	ck_assert_int_eq(op->reg, reg);
}

/* The count triple from..to: load, lea 1, store, on %gs:disp[(,index,8)] through r11. */
static void assert_count_triple(const struct decoded *d, uint64_t from, uint64_t to, int64_t disp, x86_reg index)
{
	size_t i = insn_at(d, from);
	const cs_x86 *load = &d->insn[i].detail->x86, *add = &d->insn[i + 1].detail->x86,
		     *store = &d->insn[i + 2].detail->x86;

	ck_assert_int_eq(d->insn[i].id, X86_INS_MOV);
	assert_reg_operand(&load->operands[0], X86_REG_R11);
	ck_assert_int_eq(load->operands[1].size, 8);
	assert_gs_operand(&load->operands[1], disp, index);
	ck_assert_int_eq(d->insn[i + 1].id, X86_INS_LEA);
	assert_reg_operand(&add->operands[0], X86_REG_R11);
	ck_assert_int_eq(add->operands[1].type, X86_OP_MEM);
	ck_assert_int_eq(add->operands[1].mem.base, X86_REG_R11);
	ck_assert_int_eq(add->operands[1].mem.index, X86_REG_INVALID);
	ck_assert_int_eq(add->operands[1].mem.disp, 1);
	ck_assert_int_eq(d->insn[i + 2].id, X86_INS_MOV);
	assert_gs_operand(&store->operands[0], disp, index);
	assert_reg_operand(&store->operands[1], X86_REG_R11);
	ck_assert_uint_eq(d->insn[i + 2].address + d->insn[i + 2].size, to);
}

/* From insn i on, the part after the gate's return that counts an error: push r11,
 * cmp $-4095, jb over the triples and the mark, popfq. */
static size_t assert_error_count(const struct decoded *d, size_t i, const struct stub_layout *l, unsigned first,
				 const struct stub_config *cfg)
{
	const cs_x86 *mark;
	size_t popfq;

	ck_assert_int_eq(d->insn[i].id, X86_INS_PUSH);
	assert_reg_operand(&d->insn[i].detail->x86.operands[0], X86_REG_R11);
	ck_assert_str_eq(d->insn[i + 1].op_str, "rax, -0xfff");
	ck_assert_int_eq(d->insn[i + 2].id, X86_INS_JB);
	ck_assert_uint_eq(l->count_from[first], d->insn[i + 3].address);
	assert_count_triple(d, l->count_from[first], l->count_to[first], cfg->site_errors, X86_REG_INVALID);
	if (first + 1 < l->ncounts)
		assert_count_triple(d, l->count_from[first + 1], l->count_to[first + 1], cfg->nr_errors, X86_REG_RCX);
	i = insn_at(d, l->count_to[l->ncounts - 1]);
	mark = &d->insn[i].detail->x86;
	ck_assert_int_eq(d->insn[i].id, X86_INS_MOV);
	ck_assert_int_eq(mark->operands[0].size, 1);
	assert_gs_operand(&mark->operands[0], cfg->errors_seen, X86_REG_INVALID);
	ck_assert_int_eq(mark->operands[1].type, X86_OP_IMM);
	ck_assert_int_eq(mark->operands[1].imm, 1);
	popfq = i + 1;
	ck_assert_int_eq(d->insn[popfq].id, X86_INS_POPFQ);
	ck_assert_uint_eq(branch_target(&d->insn[insn_at(d, l->count_from[first]) - 1]), d->insn[popfq].address);
	return popfq + 1;
}

static void assert_ids(const struct decoded *d, const unsigned *ids, size_t n)
{
	ck_assert_uint_eq(d->n, n);
	for (size_t i = 0; i < n; i++)
		ck_assert_msg(d->insn[i].id == ids[i], "instruction %zu: %s %s", i, d->insn[i].mnemonic,
			      d->insn[i].op_str);
}

START_TEST(stubs_decode_as_documented)
{
	static const unsigned fixed_ids[] = {
		X86_INS_MOV, X86_INS_MOV,                          /* the copies */
		X86_INS_MOV, X86_INS_LEA, X86_INS_MOV,             /* count the site */
		X86_INS_LEA, X86_INS_MOVABS, X86_INS_CALL,
		X86_INS_PUSH, X86_INS_CMP, X86_INS_JB,             /* its error */
		X86_INS_MOV, X86_INS_LEA, X86_INS_MOV, X86_INS_MOV, X86_INS_POPFQ,
		X86_INS_LEA, X86_INS_JMP, X86_INS_SYSCALL, X86_INS_JMP,
	};
	static const unsigned runtime_ids[] = {
		X86_INS_LEA, X86_INS_PUSHFQ,
		X86_INS_CMP, X86_INS_JAE, X86_INS_CMP, X86_INS_JE, X86_INS_CMP, X86_INS_JE,
		X86_INS_MOV, X86_INS_LEA, X86_INS_MOV,             /* count the site */
		X86_INS_MOV, X86_INS_LEA, X86_INS_MOV,             /* count the number */
		X86_INS_POPFQ, X86_INS_PUSH, X86_INS_MOVABS, X86_INS_CALL,
		X86_INS_POP, X86_INS_PUSH, X86_INS_CMP, X86_INS_JB, /* its error */
		X86_INS_MOV, X86_INS_LEA, X86_INS_MOV, X86_INS_MOV, X86_INS_LEA, X86_INS_MOV, X86_INS_MOV,
		X86_INS_POPFQ, X86_INS_LEA, X86_INS_JMP,
		X86_INS_POPFQ, X86_INS_LEA,                        /* slow_pop */
		X86_INS_SYSCALL, X86_INS_MOV, X86_INS_MOV, X86_INS_JMP,
	};
	static const int slow[] = { SYS_vfork, SYS_getpid };
	struct patch_plan b = before_plan(), a = after_plan();
	struct stub_config cfg = some_config;
	struct stub_layout l;
	struct decoded d;
	uint8_t out[STUB_MAX_LEN];
	size_t len, i;

	cfg.slow_nrs = slow;
	cfg.nslow = 2;
	cfg.site_counter = 0x1238; /* a fixed number: slow_nrs do not matter */
	cfg.site_errors = 0x3238;
	len = stub_build(&b, &cfg, 0x40000, out, sizeof(out), &l);
	ck_assert_uint_gt(len, 0);
	decode(&d, out, len, l.addr);
	assert_ids(&d, fixed_ids, sizeof(fixed_ids) / sizeof(fixed_ids[0]));
	ck_assert_uint_eq(l.ncounts, 2);
	ck_assert_uint_eq(l.count_from[0], l.addr + 8);
	assert_count_triple(&d, l.count_from[0], l.count_to[0], 0x1238, X86_REG_INVALID);
	i = insn_at(&d, l.count_to[0]); /* then the red zone, the gate, the error, the way back */
	ck_assert_str_eq(d.insn[i].op_str, "rsp, [rsp - 0x80]");
	ck_assert_uint_eq((uint64_t)d.insn[i + 1].detail->x86.operands[1].imm, cfg.gate);
	assert_reg_operand(&d.insn[i + 2].detail->x86.operands[0], X86_REG_R11);
	i = assert_error_count(&d, i + 3, &l, 1, &cfg);
	ck_assert_str_eq(d.insn[i].op_str, "rsp, [rsp + 0x80]");
	ck_assert_uint_eq(branch_target(&d.insn[i + 1]), l.after);
	ck_assert_uint_eq(d.insn[i + 2].address, l.slow);
	ck_assert_uint_eq(branch_target(&d.insn[i + 3]), b.site + 2);
	decoded_free(&d);

	cfg.site_counter = -0x10; /* a negative displacement stays one */
	len = stub_build(&a, &cfg, 0x40000, out, sizeof(out), &l);
	ck_assert_uint_gt(len, 0);
	decode(&d, out, len, l.addr);
	assert_ids(&d, runtime_ids, sizeof(runtime_ids) / sizeof(runtime_ids[0]));
	ck_assert_str_eq(d.insn[0].op_str, "rsp, [rsp - 0x80]");
	ck_assert_str_eq(d.insn[2].op_str, "rax, 0x200");
	ck_assert_str_eq(d.insn[4].op_str, "eax, 0x3a");
	ck_assert_str_eq(d.insn[6].op_str, "eax, 0x27");
	for (i = 3; i <= 7; i += 2) /* to slow_pop */
		ck_assert_uint_eq(branch_target(&d.insn[i]), d.insn[32].address);
	ck_assert_uint_eq(l.ncounts, 4);
	ck_assert_uint_eq(l.count_from[0], d.insn[8].address);
	ck_assert_uint_eq(l.count_to[0], l.count_from[1]);
	assert_count_triple(&d, l.count_from[0], l.count_to[0], -0x10, X86_REG_INVALID);
	assert_count_triple(&d, l.count_from[1], l.count_to[1], NR_COUNTERS, X86_REG_RAX);
	ck_assert_uint_eq(insn_at(&d, l.count_to[1]), 14); /* popfq */
	assert_reg_operand(&d.insn[15].detail->x86.operands[0], X86_REG_RAX); /* the number, kept */
	ck_assert_uint_eq((uint64_t)d.insn[16].detail->x86.operands[1].imm, cfg.gate);
	assert_reg_operand(&d.insn[18].detail->x86.operands[0], X86_REG_RCX);  /* back, for its error */
	ck_assert_uint_eq(assert_error_count(&d, 19, &l, 2, &cfg), 30);
	ck_assert_uint_eq(branch_target(&d.insn[31]), l.after);
	ck_assert_str_eq(d.insn[33].op_str, "rsp, [rsp + 0x80]");
	ck_assert_uint_eq(d.insn[34].address, l.slow);
	ck_assert_uint_eq(d.insn[35].address, l.after);
	ck_assert_uint_eq(branch_target(&d.insn[37]), a.end);
	decoded_free(&d);
}
END_TEST

/* The error test without flags (BMI2): lea, mov, shrx, jrcxz into the counts, jmp
 * past them; a run-time number read from the stack and dropped with a lea. */
START_TEST(flag_free_errors_decode_as_documented)
{
	static const unsigned fixed_ids[] = {
		X86_INS_MOV, X86_INS_MOV, X86_INS_MOV, X86_INS_LEA, X86_INS_MOV,
		X86_INS_LEA, X86_INS_MOVABS, X86_INS_CALL,
		X86_INS_LEA, X86_INS_MOV, X86_INS_SHRX, X86_INS_JRCXZ, X86_INS_JMP, /* the test */
		X86_INS_MOV, X86_INS_LEA, X86_INS_MOV, X86_INS_MOV,                  /* the count */
		X86_INS_LEA, X86_INS_JMP, X86_INS_SYSCALL, X86_INS_JMP,
	};
	static const unsigned runtime_tail_ids[] = {
		X86_INS_LEA, X86_INS_MOV, X86_INS_SHRX, X86_INS_JRCXZ, X86_INS_JMP,
		X86_INS_MOV,                                                         /* the number */
		X86_INS_MOV, X86_INS_LEA, X86_INS_MOV, X86_INS_MOV, X86_INS_LEA, X86_INS_MOV, X86_INS_MOV,
		X86_INS_LEA,                                                         /* dropped */
		X86_INS_LEA, X86_INS_JMP,
	};
	struct patch_plan b = before_plan(), a = after_plan();
	struct stub_config cfg = some_config;
	struct stub_layout l;
	struct decoded d;
	uint8_t out[STUB_MAX_LEN];
	size_t len, i;

	cfg.flag_free_errors = true;
	len = stub_build(&b, &cfg, 0x40000, out, sizeof(out), &l);
	ck_assert_uint_gt(len, 0);
	decode(&d, out, len, l.addr);
	assert_ids(&d, fixed_ids, sizeof(fixed_ids) / sizeof(fixed_ids[0]));
	ck_assert_str_eq(d.insn[8].op_str, "rcx, [rax + 0x1000]");
	ck_assert_str_eq(d.insn[10].op_str, "rcx, rcx, r11");
	ck_assert_uint_eq(l.ncounts, 2);
	ck_assert_uint_eq(branch_target(&d.insn[11]), l.count_from[1]); /* jrcxz: an error */
	ck_assert_uint_eq(branch_target(&d.insn[12]), d.insn[17].address); /* jmp: none */
	assert_count_triple(&d, l.count_from[1], l.count_to[1], cfg.site_errors, X86_REG_INVALID);
	ck_assert_str_eq(d.insn[17].op_str, "rsp, [rsp + 0x80]");
	decoded_free(&d);

	len = stub_build(&a, &cfg, 0x40000, out, sizeof(out), &l);
	ck_assert_uint_gt(len, 0);
	decode(&d, out, len, l.addr);
	ck_assert_uint_eq(l.ncounts, 4);
	i = insn_at(&d, l.count_to[1]) + 4; /* popfq, push, movabs, call */
	ck_assert_int_eq(d.insn[i - 1].id, X86_INS_CALL);
	ck_assert_uint_ge(d.n, i + sizeof(runtime_tail_ids) / sizeof(runtime_tail_ids[0]));
	for (size_t k = 0; k < sizeof(runtime_tail_ids) / sizeof(runtime_tail_ids[0]); k++)
		ck_assert_msg(d.insn[i + k].id == runtime_tail_ids[k], "instruction %zu: %s %s", i + k,
			      d.insn[i + k].mnemonic, d.insn[i + k].op_str);
	ck_assert_uint_eq(branch_target(&d.insn[i + 3]), d.insn[i + 5].address);
	ck_assert_uint_eq(branch_target(&d.insn[i + 4]), d.insn[i + 13].address);
	ck_assert_str_eq(d.insn[i + 5].op_str, "rcx, qword ptr [rsp]");
	assert_count_triple(&d, l.count_from[2], l.count_to[2], cfg.site_errors, X86_REG_INVALID);
	assert_count_triple(&d, l.count_from[3], l.count_to[3], cfg.nr_errors, X86_REG_RCX);
	ck_assert_str_eq(d.insn[i + 13].op_str, "rsp, [rsp + 8]");
	ck_assert_str_eq(d.insn[i + 14].op_str, "rsp, [rsp + 0x80]");
	ck_assert_uint_eq(branch_target(&d.insn[i + 15]), l.after);
	decoded_free(&d);
}
END_TEST

/* glibc's vfork (`mov $58,%eax; syscall`): the stackless stub of stub.h, its count,
 * the handoff (lea of the landing, its store to the slot's word, the jump to the
 * gate's stackless entry), the landing (the red zone, the errors, the way back);
 * rewound to the handoff from inside it; none without a stackless gate, or under
 * the log routine, and no other number gets one. */
START_TEST(stackless_stub_decodes_as_documented)
{
	static const unsigned ids[] = {
		X86_INS_MOV,                                        /* mov $58,%eax */
		X86_INS_MOV, X86_INS_LEA, X86_INS_MOV,              /* the count */
		X86_INS_LEA, X86_INS_MOV, X86_INS_MOVABS, X86_INS_JMP, /* the handoff */
		X86_INS_LEA,                                        /* landing: the red zone */
		X86_INS_PUSH, X86_INS_CMP, X86_INS_JB, X86_INS_MOV, X86_INS_LEA, X86_INS_MOV, X86_INS_MOV,
		X86_INS_POPFQ,                                      /* the errors */
		X86_INS_LEA, X86_INS_JMP, X86_INS_SYSCALL, X86_INS_JMP,
	};
	static const int slow[] = { SYS_vfork };
	struct patch_plan v = { .site = 0x1005, .start = 0x1000, .end = 0x1005, .shape = PATCH_BEFORE, .nr = SYS_vfork,
				.original = { 0xb8, 0x3a, 0x00, 0x00, 0x00 }, .ninsn = 1, .insn_off = { 0 } };
	struct patch_plan b = before_plan();
	struct stub_config cfg = some_config;
	struct stub_layout l;
	struct decoded d;
	uint8_t out[STUB_MAX_LEN];
	size_t len, i;

	cfg.slow_nrs = slow;
	cfg.nslow = 1;
	ck_assert_uint_eq(stub_build(&v, &cfg, 0x40000, out, sizeof(out), &l), 0); /* no stackless gate */
	cfg.stackless_gate = 0x7010;
	cfg.stackless_return = 0x40;
	len = stub_build(&v, &cfg, 0x40000, out, sizeof(out), &l);
	ck_assert_uint_gt(len, 0);
	decode(&d, out, len, l.addr);
	assert_ids(&d, ids, sizeof(ids) / sizeof(ids[0]));
	ck_assert_uint_eq(l.ncounts, 2);
	assert_count_triple(&d, l.count_from[0], l.count_to[0], cfg.site_counter, X86_REG_INVALID);
	i = insn_at(&d, l.handoff);
	ck_assert_uint_eq(l.handoff, l.count_to[0]);
	ck_assert_uint_eq(d.insn[i].detail->x86.operands[1].mem.base, X86_REG_RIP);
	ck_assert_uint_eq(d.insn[i + 1].address + (uint64_t)d.insn[i].detail->x86.operands[1].mem.disp, l.landing);
	assert_gs_operand(&d.insn[i + 1].detail->x86.operands[0], cfg.stackless_return, X86_REG_INVALID);
	assert_reg_operand(&d.insn[i + 1].detail->x86.operands[1], X86_REG_R11);
	ck_assert_uint_eq((uint64_t)d.insn[i + 2].detail->x86.operands[1].imm, cfg.stackless_gate);
	assert_reg_operand(&d.insn[i + 3].detail->x86.operands[0], X86_REG_R11);
	ck_assert_uint_eq(d.insn[i + 4].address, l.landing);
	ck_assert_str_eq(d.insn[i + 4].op_str, "rsp, [rsp - 0x80]");
	i = assert_error_count(&d, i + 5, &l, 1, &cfg);
	ck_assert_str_eq(d.insn[i].op_str, "rsp, [rsp + 0x80]");
	ck_assert_uint_eq(branch_target(&d.insn[i + 1]), l.after);
	ck_assert_uint_eq(d.insn[i + 2].address, l.slow);
	ck_assert_uint_eq(branch_target(&d.insn[i + 3]), v.site + 2);
	/* no call anywhere: nothing comes back through the stack */
	for (size_t k = 0; k < d.n; k++)
		ck_assert_int_ne(d.insn[k].id, X86_INS_CALL);
	/* a signal past the handoff, short of the landing, goes back to it */
	for (i = insn_at(&d, l.handoff); d.insn[i].address < l.landing; i++)
		ck_assert_uint_eq(stub_rewind(&l, d.insn[i].address), l.handoff);
	ck_assert_uint_eq(stub_rewind(&l, l.landing), l.landing);
	decoded_free(&d);

	/* another fixed number is no stackless stub; nor is vfork under --log */
	len = stub_build(&b, &cfg, 0x40000, out, sizeof(out), &l);
	ck_assert_uint_gt(len, 0);
	ck_assert_uint_eq(l.handoff, 0);
	ck_assert_uint_eq(l.landing, 0);
	cfg.log_call = 0x7040;
	ck_assert_uint_eq(stub_build(&v, &cfg, 0x40000, out, sizeof(out), &l), 0);
}
END_TEST

START_TEST(rewind_to_an_interrupted_load)
{
	struct patch_plan plans[] = { before_plan(), after_plan() };
	uint8_t out[STUB_MAX_LEN];

	for (size_t p = 0; p < 2; p++) {
		struct stub_layout l;
		size_t len = stub_build(&plans[p], &some_config, 0x40000, out, sizeof(out), &l);

		ck_assert_uint_gt(len, 0);
		ck_assert_uint_eq(l.ncounts, plans[p].nr >= 0 ? 2 : 4); /* calls, then errors */
		for (unsigned i = 0; i < l.ncounts; i++) {
			uint64_t from = l.count_from[i], to = l.count_to[i];

			ck_assert_uint_eq(to - from, 9 + 4 + 9);
			ck_assert_mem_eq(out + (from - l.addr), ((const uint8_t[]){ 0x65, 0x4c, 0x8b }), 3);
			ck_assert_mem_eq(out + (to - 9 - l.addr), ((const uint8_t[]){ 0x65, 0x4c, 0x89 }), 3);
			for (uint64_t rip = from + 1; rip < to; rip++)
				ck_assert_uint_eq(stub_rewind(&l, rip), from);
			/* the two places a thread can really be stopped at in between */
			ck_assert_uint_eq(stub_rewind(&l, from + 9), from);
			ck_assert_uint_eq(stub_rewind(&l, to - 9), from);
			ck_assert_uint_eq(stub_rewind(&l, from), from); /* nothing has run */
			ck_assert_uint_eq(stub_rewind(&l, to), to);     /* the store is done */
		}
		for (uint64_t rip = l.addr; rip < l.addr + l.len; rip++) {
			bool inside = false;

			for (unsigned i = 0; i < l.ncounts; i++)
				inside |= l.count_from[i] < rip && rip < l.count_to[i];
			if (!inside)
				ck_assert_uint_eq(stub_rewind(&l, rip), rip);
		}
		ck_assert_uint_eq(stub_rewind(&l, l.count_from[0] - 1), l.count_from[0] - 1);
		ck_assert_uint_eq(stub_rewind(&l, l.count_to[l.ncounts - 1] + 1), l.count_to[l.ncounts - 1] + 1);
		ck_assert_uint_eq(stub_rewind(&l, 0), 0);
		ck_assert_uint_eq(stub_rewind(&l, 0x1000), 0x1000);
		ck_assert_uint_eq(stub_rewind(&l, UINT64_MAX), UINT64_MAX);
	}
}
END_TEST

/* Calls fn(a0, 0, 0) with the trap flag set: a SIGTRAP after each instruction. */
long stub_test_call_stepping(fn3 fn, long a0);
__asm__(".pushsection .text\n"
	".globl stub_test_call_stepping\n"
	".type stub_test_call_stepping, @function\n"
	"stub_test_call_stepping:\n"
	"	mov %rdi,%rax; mov %rsi,%rdi; xor %esi,%esi; xor %edx,%edx\n"
	"	pushfq; orq $0x100,(%rsp); popfq\n"
	"	call *%rax\n"
	"	pushfq; andq $-0x101,(%rsp); popfq\n"
	"	ret\n"
	".size stub_test_call_stepping, .-stub_test_call_stepping\n"
	".popsection\n");

/* What the tracer does at a signal's delivery, done by the SIGTRAP handler itself:
 * at each place between a load and its store, the first time, a call at the same
 * site from the handler, then (when rewinding) rip back to the load. */
static struct {
	const struct stub_layout *layout;
	fn3 fn;
	long a0;
	bool rewind;
	uint64_t seen[8];
	unsigned nseen, calls;
} stepping;

static void on_step(int sig, siginfo_t *si, void *ctx)
{
	greg_t *rip = &((ucontext_t *)ctx)->uc_mcontext.gregs[REG_RIP];
	const struct stub_layout *l = stepping.layout;
	bool inside = false;

	(void)sig;
	(void)si;
	for (unsigned i = 0; i < l->ncounts; i++)
		inside |= l->count_from[i] < (uint64_t)*rip && (uint64_t)*rip < l->count_to[i];
	for (unsigned i = 0; i < stepping.nseen; i++)
		inside &= stepping.seen[i] != (uint64_t)*rip;
	if (!inside || stepping.nseen == 8)
		return;
	stepping.seen[stepping.nseen++] = (uint64_t)*rip;
	stepping.fn(stepping.a0, 0, 0); /* the handler runs with the trap flag clear */
	stepping.calls++;
	if (stepping.rewind)
		*rip = (greg_t)stub_rewind(l, (uint64_t)*rip);
}

/* What one call interrupted at every place in its triples counted, with the
 * handler's calls: the site's and the number's calls, and their errors. */
struct step_counts {
	uint64_t site, nr, site_errors, nr_errors;
};

/* A call (a0: its first argument) interrupted at every place in the triples it runs
 * (triples: those of its calls, and of its errors if it fails) by a handler that
 * makes the same call. */
static void step_through(fn3 fn, const struct rig *r, long a0, bool rewind, unsigned triples,
			 struct step_counts *c)
{
	struct block b = { { 0 } };
	struct sigaction sa = { .sa_sigaction = on_step, .sa_flags = SA_SIGINFO }, old;

	stepping = (typeof(stepping)){ .layout = &r->layout, .fn = fn, .a0 = a0, .rewind = rewind };
	ck_assert_int_eq(sigaction(SIGTRAP, &sa, &old), 0);
	gs_use(&b);
	stub_test_call_stepping(fn, a0);
	gs_release();
	ck_assert_int_eq(sigaction(SIGTRAP, &old, NULL), 0);
	ck_assert_uint_eq(stepping.calls, 2 * triples);
	*c = (struct step_counts){ site_count(&b, r), nr_count(&b, a0), site_errors(&b, r), nr_errors(&b, a0) };
}

static void a_rewound_triple_loses_no_count_with(void)
{
	static const uint8_t close_fn[] = { 0xb8, 0x03, 0x00, 0x00, 0x00, 0x0f, 0x05, 0xc3 };
	struct rig fixed, runtime, failing;
	fn3 fixed_fn = rig_install(&fixed, getppid_fn, sizeof(getppid_fn), 5, NULL, 0);
	fn3 runtime_fn = rig_install(&runtime, syscall_fn, sizeof(syscall_fn), 9, NULL, 0);
	fn3 close_fn3 = rig_install(&failing, close_fn, sizeof(close_fn), 5, NULL, 0);
	struct step_counts c;

	/* 2 places in each triple, each interrupted once by a handler's call */
	step_through(fixed_fn, &fixed, 0, true, 1, &c);
	ck_assert_uint_eq(c.site, 1 + 2);
	step_through(runtime_fn, &runtime, SYS_getppid, true, 2, &c);
	ck_assert_uint_eq(c.site, 1 + 4);
	ck_assert_uint_eq(c.nr, 1 + 4);
	ck_assert_uint_eq(c.nr_errors, 0);
	/* a failing call runs its error triples too: close(-1), syscall(NR_LIMIT - 1) */
	step_through(close_fn3, &failing, -1, true, 2, &c);
	ck_assert_uint_eq(c.site, 1 + 4);
	ck_assert_uint_eq(c.site_errors, 1 + 4);
	step_through(runtime_fn, &runtime, NR_LIMIT - 1, true, 4, &c);
	ck_assert_uint_eq(c.site, 1 + 8);
	ck_assert_uint_eq(c.nr, 1 + 8);
	ck_assert_uint_eq(c.site_errors, 1 + 8);
	ck_assert_uint_eq(c.nr_errors, 1 + 8);
	/* the control: without the rewind the interrupted stores overwrite the handler's */
	step_through(fixed_fn, &fixed, 0, false, 1, &c);
	ck_assert_uint_lt(c.site, 1 + 2);
	step_through(runtime_fn, &runtime, SYS_getppid, false, 2, &c);
	ck_assert_uint_lt(c.site, 1 + 4);
	ck_assert_uint_lt(c.nr, 1 + 4);
	step_through(close_fn3, &failing, -1, false, 2, &c);
	ck_assert_uint_lt(c.site_errors, 1 + 4);
	step_through(runtime_fn, &runtime, NR_LIMIT - 1, false, 4, &c);
	ck_assert_uint_lt(c.nr_errors, 1 + 8);
	rig_free(&fixed);
	rig_free(&runtime);
	rig_free(&failing);
}

START_TEST(a_rewound_triple_loses_no_count)
{
	both_error_tests(a_rewound_triple_loses_no_count_with);
}
END_TEST

/* Threads calling the same stubs at once, each counting in its own block. */
#define THREADS 4
#define CALLS 20000

struct worker {
	pthread_t id;
	fn3 fixed, runtime;
	struct block b;
};

static void *work(void *arg)
{
	struct worker *w = arg;

	/* a new thread starts with its creator's gs base; the tracer sets each thread's */
	if (syscall(SYS_arch_prctl, ARCH_SET_GS, (unsigned long)&w->b) != 0)
		return NULL;
	for (int i = 0; i < CALLS; i++) {
		w->fixed(0, 0, 0);
		w->runtime(SYS_getppid, 0, 0);
		w->runtime(NR_LIMIT - 1, 0, 0);
	}
	return w;
}

START_TEST(each_thread_counts_in_its_own_block)
{
	static struct worker w[THREADS];
	struct block mine = { { 0 } };
	struct rig fixed, runtime;
	fn3 fixed_fn = rig_install_at(&fixed, getppid_fn, sizeof(getppid_fn), 5, NULL, 0, 8);
	fn3 runtime_fn = rig_install_at(&runtime, syscall_fn, sizeof(syscall_fn), 9, NULL, 0, 16);

	gs_use(&mine);
	for (int t = 0; t < THREADS; t++) {
		w[t] = (struct worker){ .fixed = fixed_fn, .runtime = runtime_fn };
		ck_assert_int_eq(pthread_create(&w[t].id, NULL, work, &w[t]), 0);
	}
	for (int t = 0; t < THREADS; t++) {
		void *ok;

		ck_assert_int_eq(pthread_join(w[t].id, &ok), 0);
		ck_assert_ptr_eq(ok, &w[t]);
		ck_assert_uint_eq(site_count(&w[t].b, &fixed), CALLS);
		ck_assert_uint_eq(site_count(&w[t].b, &runtime), 2 * CALLS);
		ck_assert_uint_eq(nr_count(&w[t].b, SYS_getppid), CALLS);
		ck_assert_uint_eq(nr_count(&w[t].b, NR_LIMIT - 1), CALLS);
	}
	for (size_t i = 0; i < BLOCK_WORDS; i++) /* the threads' counts went to their blocks */
		ck_assert_uint_eq(mine.w[i], 0);
	gs_release();
	rig_free(&fixed);
	rig_free(&runtime);
}
END_TEST

/* Under --time: the stub counts as without it, then calls the time routine with the
 * site's ticks displacement pushed; its flags and errors as without it. */
START_TEST(timed_stubs_decode_as_documented)
{
	static const unsigned fixed_ids[] = {
		X86_INS_MOV, X86_INS_MOV,                          /* the copies */
		X86_INS_MOV, X86_INS_LEA, X86_INS_MOV,             /* count the site */
		X86_INS_LEA, X86_INS_PUSH, X86_INS_MOVABS, X86_INS_CALL,
		X86_INS_PUSH, X86_INS_CMP, X86_INS_JB,             /* its error */
		X86_INS_MOV, X86_INS_LEA, X86_INS_MOV, X86_INS_MOV, X86_INS_POPFQ,
		X86_INS_LEA, X86_INS_JMP, X86_INS_SYSCALL, X86_INS_JMP,
	};
	struct patch_plan b = before_plan(), a = after_plan();
	struct stub_config cfg = some_config;
	struct stub_layout l;
	struct decoded d;
	uint8_t out[STUB_MAX_LEN];
	size_t len, i;

	cfg.time_call = 0x7040;
	cfg.site_time = REGION_TIME_SITE_TICKS + 8;
	len = stub_build(&b, &cfg, 0x40000, out, sizeof(out), &l);
	ck_assert_uint_gt(len, 0);
	decode(&d, out, len, l.addr);
	assert_ids(&d, fixed_ids, sizeof(fixed_ids) / sizeof(fixed_ids[0]));
	ck_assert_uint_eq(l.ncounts, 2); /* the counts are the stub's, as without --time */
	assert_count_triple(&d, l.count_from[0], l.count_to[0], cfg.site_counter, X86_REG_INVALID);
	i = insn_at(&d, l.count_to[0]);
	ck_assert_str_eq(d.insn[i].op_str, "rsp, [rsp - 0x80]");
	ck_assert_int_eq(d.insn[i + 1].detail->x86.operands[0].type, X86_OP_IMM);
	ck_assert_int_eq(d.insn[i + 1].detail->x86.operands[0].imm, REGION_TIME_SITE_TICKS + 8);
	ck_assert_uint_eq((uint64_t)d.insn[i + 2].detail->x86.operands[1].imm, cfg.time_call);
	assert_reg_operand(&d.insn[i + 3].detail->x86.operands[0], X86_REG_R11);
	assert_error_count(&d, i + 4, &l, 1, &cfg);
	decoded_free(&d);

	/* a run-time number: the number pushed for its errors, then the displacement */
	len = stub_build(&a, &cfg, 0x40000, out, sizeof(out), &l);
	ck_assert_uint_gt(len, 0);
	decode(&d, out, len, l.addr);
	ck_assert_uint_eq(l.ncounts, 4);
	i = insn_at(&d, l.count_to[1]);
	ck_assert_int_eq(d.insn[i].id, X86_INS_POPFQ);
	ck_assert_int_eq(d.insn[i + 1].id, X86_INS_PUSH);
	assert_reg_operand(&d.insn[i + 1].detail->x86.operands[0], X86_REG_RAX);
	ck_assert_int_eq(d.insn[i + 2].id, X86_INS_PUSH);
	ck_assert_int_eq(d.insn[i + 2].detail->x86.operands[0].imm, REGION_TIME_SITE_TICKS + 8);
	ck_assert_uint_eq((uint64_t)d.insn[i + 3].detail->x86.operands[1].imm, cfg.time_call);
	ck_assert_int_eq(d.insn[i + 4].id, X86_INS_CALL);
	ck_assert_int_eq(d.insn[i + 5].id, X86_INS_POP); /* the number, back for its error */
	assert_reg_operand(&d.insn[i + 5].detail->x86.operands[0], X86_REG_RCX);
	assert_error_count(&d, i + 6, &l, 2, &cfg);
	decoded_free(&d);
}
END_TEST

static uint64_t ns_of(uint64_t ticks)
{
	return tsc_ticks_ns(ticks);
}

/* Calls through timed stubs take their ticks to the site and to the number, the
 * number's longest and shortest too; by construction, a 2 ms sleep takes 2 ms or
 * more, and the shortest getppid of a hundred less than that. */
START_TEST(timed_calls_count_and_time)
{
	struct rig fixed, runtime;
	fn3 fixed_fn, runtime_fn;
	struct timespec two_ms = { 0, 2000000 };
	const struct region_time *t = &tb.t;

	rig_time = true;
	fixed_fn = rig_install_at(&fixed, getppid_fn, sizeof(getppid_fn), 5, NULL, 0, 8);
	runtime_fn = rig_install_at(&runtime, syscall_fn, sizeof(syscall_fn), 9, NULL, 0, 16);
	rig_time = false;
	memset(&tb, 0, sizeof(tb));
	tsc_clock_init();
	gs_use(&tb.b);
	for (int i = 0; i < 100; i++)
		ck_assert_int_eq(fixed_fn(0, 0, 0), getppid());
	for (int i = 0; i < 3; i++)
		ck_assert_int_eq(runtime_fn(SYS_nanosleep, (long)&two_ms, 0), 0);
	ck_assert_int_eq(runtime_fn(NR_LIMIT - 1, 0, 0), -ENOSYS);
	gs_release();
	/* counted as without --time, errors too */
	ck_assert_uint_eq(site_count(&tb.b, &fixed), 100);
	ck_assert_uint_eq(site_count(&tb.b, &runtime), 4);
	ck_assert_uint_eq(nr_count(&tb.b, SYS_nanosleep), 3);
	ck_assert_uint_eq(site_errors(&tb.b, &runtime), 1);
	ck_assert_uint_eq(nr_errors(&tb.b, NR_LIMIT - 1), 1);
	/* the ticks, at the site and at the number alike */
	ck_assert_uint_gt(t->site_ticks[1], 0);
	ck_assert_uint_eq(t->site_ticks[1], t->nr_ticks[SYS_getppid]);
	ck_assert_uint_eq(t->site_ticks[2], t->nr_ticks[SYS_nanosleep] + t->nr_ticks[NR_LIMIT - 1]);
	ck_assert_uint_gt(t->nr_ticks[NR_LIMIT - 1], 0);
	/* the sleeps: each 2 ms at least, the sum within 3 shortest and 3 longest */
	ck_assert_uint_ge(ns_of(t->nr_ticks[SYS_nanosleep]), 6000000);
	ck_assert_uint_ne(t->nr_min_not[SYS_nanosleep], 0);
	ck_assert_uint_ge(ns_of(~t->nr_min_not[SYS_nanosleep]), 2000000);
	ck_assert_uint_ge(t->nr_max[SYS_nanosleep], ~t->nr_min_not[SYS_nanosleep]);
	ck_assert_uint_ge(t->nr_ticks[SYS_nanosleep], 3 * ~t->nr_min_not[SYS_nanosleep]);
	ck_assert_uint_le(t->nr_ticks[SYS_nanosleep], 3 * t->nr_max[SYS_nanosleep]);
	/* getppid: the same bounds, and its shortest call is shorter than a sleep */
	ck_assert_uint_ge(t->nr_ticks[SYS_getppid], 100 * ~t->nr_min_not[SYS_getppid]);
	ck_assert_uint_le(t->nr_ticks[SYS_getppid], 100 * t->nr_max[SYS_getppid]);
	ck_assert_uint_lt(ns_of(~t->nr_min_not[SYS_getppid]), 2000000);
	/* a number not called has nothing: none shortest (0), none longest */
	ck_assert_uint_eq(t->nr_ticks[SYS_getpid] | t->nr_max[SYS_getpid] | t->nr_min_not[SYS_getpid], 0);
	rig_free(&fixed);
	rig_free(&runtime);
}
END_TEST

/* What the tracer does at a signal's delivery inside the time routine
 * (time_routine_fixup), done by the SIGTRAP handler itself, while the routine is
 * stepped an instruction at a time; and, the first time the thread is at each
 * place, what a handler's call could do there: in (start, timed] and at the gate
 * before its syscall, a call at the same site (getpid, where the stepped call is a
 * getppid); between getppid's longest's compare and its store, a longer call's
 * store (a huge max); between its shortest's, a shorter one's (1 tick). */
#define AT_RIG(label) ((uint64_t)(uintptr_t)timing.gate + (uint64_t)((label) - gate_code))
#define HUGE_TICKS (1ull << 60)

static struct {
	const uint8_t *gate;
	fn3 fn;
	bool fixup;
	bool before_done, gate_done, end_done, max_done, min_done;
	uint64_t handler_start, handler_end; /* the TSC around the handler's calls */
	uint64_t fixed_end;                  /* the end the fixup gave, at returned */
	uint64_t ticks;                      /* the call's, in rdx at the longest's compare */
	unsigned handler_calls;
} timing;

static bool read_own(void *ctx, uint64_t addr, uint64_t *word)
{
	(void)ctx;
	memcpy(word, (const void *)(uintptr_t)addr, 8);
	return true;
}

static void handler_call(void)
{
	if (!timing.handler_start)
		timing.handler_start = __rdtsc();
	timing.fn(SYS_getpid, 0, 0); /* the handler runs with the trap flag clear */
	timing.handler_calls++;
	timing.handler_end = __rdtsc();
}

static void on_time_step(int sig, siginfo_t *si, void *ctx)
{
	greg_t *g = ((ucontext_t *)ctx)->uc_mcontext.gregs;
	uint64_t rip = (uint64_t)g[REG_RIP], now;
	struct user_regs_struct regs;

	(void)sig;
	(void)si;
	if (rip == AT_RIG(gate_time_max))
		timing.ticks = (uint64_t)g[REG_RDX];
	/* a signal the tracer sees: only where one is taken, once, as a handler ran */
	if (rip > AT_RIG(gate_time_start) && rip <= AT_RIG(gate_time_timed) && !timing.before_done) {
		timing.before_done = true;
		handler_call();
	} else if (rip == (uintptr_t)timing.gate && !timing.gate_done) {
		timing.gate_done = true;
		handler_call();
	} else if (rip > AT_RIG(gate_time_max) && rip < AT_RIG(gate_time_max_done) && !timing.max_done) {
		timing.max_done = true;
		tb.t.nr_max[SYS_getppid] = HUGE_TICKS;
	} else if (rip > AT_RIG(gate_time_min) && rip < AT_RIG(gate_time_min_done) && !timing.min_done) {
		timing.min_done = true;
		tb.t.nr_min_not[SYS_getppid] = ~1ull;
	} else if (rip == AT_RIG(gate_time_returned) && !timing.end_done) {
		timing.end_done = true;
	} else {
		return;
	}
	now = __rdtsc();
	if (rip == AT_RIG(gate_time_returned))
		timing.fixed_end = now;
	if (!timing.fixup)
		return;
	regs = (struct user_regs_struct){ .rip = rip, .rsp = (uint64_t)g[REG_RSP], .rax = (uint64_t)g[REG_RAX],
					  .rcx = (uint64_t)g[REG_RCX], .rdx = (uint64_t)g[REG_RDX] };
	if (time_routine_fixup(&regs, (uintptr_t)timing.gate, now, read_own, NULL)) {
		g[REG_RIP] = (greg_t)regs.rip;
		g[REG_RSP] = (greg_t)regs.rsp;
		g[REG_RAX] = (greg_t)regs.rax;
		g[REG_RCX] = (greg_t)regs.rcx;
		g[REG_RDX] = (greg_t)regs.rdx;
	}
}

static void step_timed(fn3 fn, const struct rig *r, bool fixup)
{
	struct sigaction sa = { .sa_sigaction = on_time_step, .sa_flags = SA_SIGINFO }, old;

	memset(&tb, 0, sizeof(tb));
	timing = (typeof(timing)){ .gate = r->gate, .fn = fn, .fixup = fixup };
	ck_assert_int_eq(sigaction(SIGTRAP, &sa, &old), 0);
	gs_use(&tb.b);
	ck_assert_int_eq(stub_test_call_stepping(fn, SYS_getppid), getppid());
	gs_release();
	ck_assert_int_eq(sigaction(SIGTRAP, &old, NULL), 0);
	ck_assert(timing.before_done && timing.gate_done && timing.end_done && timing.max_done && timing.min_done);
	ck_assert_uint_eq(timing.handler_calls, 2);
	/* every call counted and timed, the handler's too: the sums are single adds */
	ck_assert_uint_eq(site_count(&tb.b, r), 1 + 2);
	ck_assert_uint_eq(nr_count(&tb.b, SYS_getpid), 2);
	ck_assert_uint_eq(tb.t.site_ticks[r->site_counter / 8],
			  tb.t.nr_ticks[SYS_getppid] + tb.t.nr_ticks[SYS_getpid]);
	ck_assert_uint_eq(tb.t.nr_ticks[SYS_getppid], timing.ticks);
	ck_assert_uint_ne(tb.t.nr_min_not[SYS_getpid], 0);
}

START_TEST(a_signal_in_the_time_routine)
{
	struct rig r;
	fn3 fn;

	rig_time = true;
	fn = rig_install_at(&r, syscall_fn, sizeof(syscall_fn), 9, NULL, 0, 8);
	rig_time = false;
	step_timed(fn, &r, true);
	/* what the handler stored between a compare and its store was compared again */
	ck_assert_uint_eq(tb.t.nr_max[SYS_getppid], HUGE_TICKS);
	ck_assert_uint_eq(tb.t.nr_min_not[SYS_getppid], ~1ull);
	/* the call's time is neither the handler's at its start (taken again after it)
	 * nor at its end (read before it ran: the fixup's reading) */
	ck_assert_uint_le(timing.ticks, timing.fixed_end - timing.handler_end);
	/* the control: left alone, the routine overwrites both and takes the handler's
	 * time for the call's */
	step_timed(fn, &r, false);
	ck_assert_uint_ne(tb.t.nr_max[SYS_getppid], HUGE_TICKS);
	ck_assert_uint_ne(tb.t.nr_min_not[SYS_getppid], ~1ull);
	ck_assert_uint_gt(timing.ticks, timing.handler_end - timing.handler_start);
	rig_free(&r);
}
END_TEST

Suite *stub_suite(void)
{
	return single_case_suite("stub", (const TTest *const[]){
		fixed_number_before, fixed_number_after, run_time_number, registers_flags_and_red_zone_are_kept,
		layout_and_translation, patch_is_a_jump_then_int3, stubs_that_cannot_be_built, stubs_decode_as_documented, flag_free_errors_decode_as_documented,
		stackless_stub_decodes_as_documented,
		rewind_to_an_interrupted_load, a_rewound_triple_loses_no_count, each_thread_counts_in_its_own_block,
		guarded_numbers, forks_go_in_process, timed_registers_flags_and_red_zone_are_kept, timed_stubs_decode_as_documented,
		timed_calls_count_and_time, a_signal_in_the_time_routine, NULL });
}
