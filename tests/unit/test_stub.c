#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "stub.h"
#include "suites.h"

#define PAGE 4096
/* byte offsets in the counter slot */
#define SITE_COUNTER 8
#define NR_COUNTERS 128
#define NR_LIMIT 512

/* One patched function, run for real: its code, the gate (`syscall; ret`) on the next
 * page and its stub on the third, all in one mapping so that they are near. */
struct rig {
	uint8_t *code, *gate, *stub;
	uint64_t slot[NR_COUNTERS / 8 + NR_LIMIT];
	uint64_t slot_ptr; /* the stub finds the slot through it */
	struct patch_plan plan;
	struct stub_layout layout;
};

typedef long (*fn3)(long, long, long);

static fn3 rig_install(struct rig *r, const uint8_t *fn, size_t len, size_t site_off, const int *slow,
		       size_t nslow)
{
	uint8_t *m = mmap(NULL, 3 * PAGE, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct code_scan s = { 0 };
	struct stub_config cfg;

	ck_assert_ptr_ne(m, MAP_FAILED);
	memset(r, 0, sizeof(*r));
	r->code = m;
	r->gate = m + PAGE;
	r->stub = m + 2 * PAGE;
	r->slot_ptr = (uintptr_t)r->slot;
	memcpy(r->code, fn, len);
	memcpy(r->gate, (const uint8_t[]){ 0x0f, 0x05, 0xc3 }, 3);
	code_scan_add(&s, r->code, len, (uintptr_t)r->code);
	code_scan_add_target(&s, (uintptr_t)r->code);
	code_scan_finish(&s);
	ck_assert_ptr_null(patch_plan_make(&s, r->code, len, (uintptr_t)r->code, (uintptr_t)r->code + site_off, &r->plan));
	code_scan_free(&s);
	cfg = (struct stub_config){ .gate = (uintptr_t)r->gate, .slot_ptr = (uintptr_t)&r->slot_ptr,
				    .site_counter = SITE_COUNTER, .nr_counters = NR_COUNTERS, .nr_limit = NR_LIMIT,
				    .slow_nrs = slow, .nslow = nslow };
	ck_assert_uint_gt(stub_build(&r->plan, &cfg, (uintptr_t)r->stub, r->stub, STUB_MAX_LEN, &r->layout), 0);
	ck_assert(patch_bytes(&r->plan, (uintptr_t)r->stub, r->code + (r->plan.start - (uintptr_t)r->code)));
	return (fn3)(void *)r->code;
}

static void rig_free(struct rig *r)
{
	munmap(r->code, 3 * PAGE);
}

static uint64_t site_count(const struct rig *r)
{
	return r->slot[SITE_COUNTER / 8];
}

static uint64_t nr_count(const struct rig *r, long nr)
{
	return r->slot[NR_COUNTERS / 8 + nr];
}

static const uint8_t getppid_fn[] = { 0xb8, 0x6e, 0x00, 0x00, 0x00, 0x0f, 0x05, 0xc3 };

START_TEST(fixed_number_before)
{
	struct rig r;
	fn3 fn = rig_install(&r, getppid_fn, sizeof(getppid_fn), 5, NULL, 0);

	ck_assert_int_eq(r.plan.shape, PATCH_BEFORE);
	ck_assert_int_eq(r.plan.nr, SYS_getppid);
	ck_assert_uint_eq(r.code[0], 0xe9);
	ck_assert_int_eq(fn(0, 0, 0), getppid());
	ck_assert_uint_eq(site_count(&r), 1);
	ck_assert_int_eq(fn(0, 0, 0), getppid());
	ck_assert_uint_eq(site_count(&r), 2);
	ck_assert_uint_eq(nr_count(&r, SYS_getppid), 0); /* a fixed number needs no count of its own */
	rig_free(&r);
}
END_TEST

START_TEST(fixed_number_after)
{
	static const uint8_t read_fn[] = {
		0x85, 0xff,                         /* test %edi,%edi */
		0x74, 0x00,                         /* je +0 */
		0x31, 0xc0,                         /* xor %eax,%eax */
		0x0f, 0x05,                         /* syscall */
		0x48, 0x3d, 0x00, 0xf0, 0xff, 0xff, /* cmp $-4096,%rax */
		0x77, 0x01,                         /* ja +1 */
		0xc3,                               /* ret */
		0xc3,                               /* ret */
	};
	char buf[8];
	struct rig r;
	fn3 fn = rig_install(&r, read_fn, sizeof(read_fn), 6, NULL, 0);

	ck_assert_int_eq(r.plan.shape, PATCH_AFTER);
	ck_assert_int_eq(r.plan.nr, SYS_read);
	ck_assert_int_eq(fn(-1, (long)buf, sizeof(buf)), -EBADF);
	ck_assert_uint_eq(site_count(&r), 1);
	ck_assert_int_eq(fn(-1, (long)buf, sizeof(buf)), -EBADF);
	ck_assert_uint_eq(site_count(&r), 2);
	rig_free(&r);
}
END_TEST

START_TEST(run_time_number)
{
	static const uint8_t syscall_fn[] = {
		0x48, 0x89, 0xf8, /* mov %rdi,%rax */
		0x48, 0x89, 0xf7, /* mov %rsi,%rdi */
		0x48, 0x89, 0xd6, /* mov %rdx,%rsi */
		0x0f, 0x05,       /* syscall */
		0xc3,             /* ret */
	};
	static const int slow[] = { SYS_vfork, SYS_getpid };
	struct rig r;
	fn3 fn = rig_install(&r, syscall_fn, sizeof(syscall_fn), 9, slow, 2);

	ck_assert_int_eq(r.plan.shape, PATCH_BEFORE);
	ck_assert_int_eq(r.plan.nr, -1);
	ck_assert_int_eq(fn(SYS_getppid, 0, 0), getppid());
	ck_assert_uint_eq(site_count(&r), 1);
	ck_assert_uint_eq(nr_count(&r, SYS_getppid), 1);
	ck_assert_int_eq(fn(NR_LIMIT - 1, 0, 0), -ENOSYS);
	ck_assert_uint_eq(site_count(&r), 2);
	ck_assert_uint_eq(nr_count(&r, NR_LIMIT - 1), 1);
	/* the slow path: the stub's own syscall, not counted here */
	ck_assert_int_eq(fn(SYS_getpid, 0, 0), getpid());
	ck_assert_int_eq(fn(NR_LIMIT, 0, 0), -ENOSYS);
	ck_assert_int_eq(fn(-1, 0, 0), -ENOSYS);
	ck_assert_uint_eq(site_count(&r), 2);
	ck_assert_uint_eq(nr_count(&r, SYS_getpid), 0);
	rig_free(&r);
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
	"	pushfq\n"
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

/* all status flags but direction set, then all clear (bit 1 and IF always read as set) */
static const uint64_t flag_sets[] = { 0x202 | (STATUS_FLAGS & ~0x400ul), 0x202 };

START_TEST(registers_flags_and_red_zone_are_kept)
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
	static const int slow[] = { SYS_getpid };
	struct rig fixed, before, after;
	fn3 fixed_fn = rig_install(&fixed, getppid_fn, sizeof(getppid_fn), 5, slow, 1);
	fn3 before_fn3 = rig_install(&before, before_fn, sizeof(before_fn), 6, slow, 1);
	fn3 after_fn3 = rig_install(&after, after_fn, sizeof(after_fn), 2, slow, 1);

	ck_assert_int_eq(after.plan.shape, PATCH_AFTER);
	for (size_t i = 0; i < sizeof(flag_sets) / sizeof(flag_sets[0]); i++) {
		ck_assert_int_eq(call_checking_regs(fixed_fn, 0, flag_sets[i]), getppid());
		ck_assert_int_eq(call_checking_regs(before_fn3, SYS_getppid, flag_sets[i]), getppid());
		ck_assert_int_eq(call_checking_regs(before_fn3, SYS_getpid, flag_sets[i]), getpid());
		ck_assert_int_eq(call_checking_regs(after_fn3, SYS_getppid, flag_sets[i]), getppid());
		ck_assert_int_eq(call_checking_regs(after_fn3, SYS_getpid, flag_sets[i]), getpid());
	}
	ck_assert_uint_eq(site_count(&fixed), 2);
	ck_assert_uint_eq(site_count(&before), 2);
	ck_assert_uint_eq(site_count(&after), 2);
	rig_free(&fixed);
	rig_free(&before);
	rig_free(&after);
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

static const struct stub_config some_config = { .gate = 0x7000, .slot_ptr = 0x8000, .site_counter = 8,
						.nr_counters = 128, .nr_limit = 512 };

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

Suite *stub_suite(void)
{
	return single_case_suite("stub", (const TTest *const[]){
		fixed_number_before, fixed_number_after, run_time_number, registers_flags_and_red_zone_are_kept,
		layout_and_translation, patch_is_a_jump_then_int3, stubs_that_cannot_be_built, NULL });
}
