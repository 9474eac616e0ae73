/* Everything the kernel keeps across a syscall must survive a patched site too: every
 * general register but rax, rcx and r11, rflags (CF PF AF ZF SF DF OF), %rsp, MXCSR,
 * xmm0-xmm15 and, when the CPU and kernel have AVX, the upper halves of ymm0-ymm15,
 * and with AVX-512 all of zmm0-zmm31 and the opmask registers k1-k7 (glibc's string
 * functions use ymm16-31 and k registers on such CPUs, so a hook that calls memcpy
 * could clobber them).
 * Two sites in assembly load all of them from regs_in (fresh values each call,
 * flags alternately all set and all clear, DF included), make the syscall, and store
 * them into regs_out, which C compares:
 *  - regs_fixed:   `mov $110,%eax; syscall` (getppid, a fixed number);
 *  - regs_runtime: `mov %rcx,%r11; mov %r11,%rax; syscall`, the number known only at
 *    run time (glibc's syscall() does `mov %rdi,%rax`): getppid, getpid and gettid
 *    in turn.
 * N calls of each (argv[1], default 10000); argv[2] caps the vector level checked
 * (0 SSE, 1 AVX, 2 AVX-512; default: what the CPU has).
 * Counts: getppid N + ceil(N/3) + 1, getpid floor((N+1)/3) + 1, gettid floor(N/3) + 1
 * (the +1: the expected values, read once through glibc). */
#define _GNU_SOURCE
#include <cpuid.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

struct regset {
	uint64_t gpr[12];       /*   0: rbx rdx rsi rdi rbp r8 r9 r10 r12 r13 r14 r15 */
	uint64_t flags;         /*  96 */
	uint64_t rsp;           /* 104: regs_in: before the syscall; regs_out: after */
	uint64_t rax;           /* 112: regs_in: the number (regs_runtime); regs_out: result */
	uint32_t mxcsr;         /* 120 */
	uint32_t pad;
	uint8_t xmm[16][16];    /* 128 */
	uint8_t ymmh[16][16];   /* 384: upper halves of ymm0-15 */
	uint8_t zmm[32][64];    /* 640: zmm0-31 whole (AVX-512 only; then xmm, ymmh unused) */
	uint16_t k[8];          /* 2688: opmask registers k1-k7 (k[0] unused) */
};
_Static_assert(offsetof(struct regset, flags) == 96, "layout");
_Static_assert(offsetof(struct regset, mxcsr) == 120, "layout");
_Static_assert(offsetof(struct regset, xmm) == 128, "layout");
_Static_assert(offsetof(struct regset, ymmh) == 384, "layout");
_Static_assert(offsetof(struct regset, zmm) == 640, "layout");
_Static_assert(offsetof(struct regset, k) == 2688, "layout");

__attribute__((visibility("hidden"))) struct regset regs_in, regs_out;
/* 0: SSE only, 1: AVX (ymm), 2: AVX-512 (zmm0-31, k1-k7) */
__attribute__((visibility("hidden"))) uint8_t regs_avx;
__attribute__((visibility("hidden"))) const uint32_t regs_default_mxcsr = 0x1f80;

static const char *const gpr_names[12] = {
	"rbx", "rdx", "rsi", "rdi", "rbp", "r8", "r9", "r10", "r12", "r13", "r14", "r15",
};

long regs_fixed(void);
long regs_runtime(void);

#define XMM_LOAD(i) "movdqu regs_in+128+16*" #i "(%rip),%xmm" #i "\n"
#define YMM_LOAD(i) "vinsertf128 $1,regs_in+384+16*" #i "(%rip),%ymm" #i ",%ymm" #i "\n"
#define XMM_STORE(i) "movdqu %xmm" #i ",regs_out+128+16*" #i "(%rip)\n"
#define YMM_STORE(i) "vextractf128 $1,%ymm" #i ",regs_out+384+16*" #i "(%rip)\n"
#define ZMM_LOAD(i) "vmovdqu64 regs_in+640+64*" #i "(%rip),%zmm" #i "\n"
#define ZMM_STORE(i) "vmovdqu64 %zmm" #i ",regs_out+640+64*" #i "(%rip)\n"
#define K_LOAD(i) "kmovw regs_in+2688+2*" #i "(%rip),%k" #i "\n"
#define K_STORE(i) "kmovw %k" #i ",regs_out+2688+2*" #i "(%rip)\n"
#define ALL16(M) M(0) M(1) M(2) M(3) M(4) M(5) M(6) M(7) M(8) M(9) M(10) M(11) M(12) M(13) M(14) M(15)
#define UPPER16(M) M(16) M(17) M(18) M(19) M(20) M(21) M(22) M(23) M(24) M(25) M(26) M(27) M(28) M(29) M(30) M(31)
#define K7(M) M(1) M(2) M(3) M(4) M(5) M(6) M(7)

/* Loads everything but rax, rcx, r11 and the flags. */
#define PROLOGUE                                                                   \
	"push %rbx\npush %rbp\npush %r12\npush %r13\npush %r14\npush %r15\n"       \
	"cmpb $2,regs_avx(%rip)\n"                                                 \
	"je 3f\n"                                                                  \
	ALL16(XMM_LOAD)                                                            \
	"cmpb $0,regs_avx(%rip)\n"                                                 \
	"je 1f\n"                                                                  \
	ALL16(YMM_LOAD)                                                            \
	"jmp 1f\n"                                                                 \
	"3:\n"                                                                     \
	ALL16(ZMM_LOAD) UPPER16(ZMM_LOAD) K7(K_LOAD)                               \
	"1:\n"                                                                     \
	"ldmxcsr regs_in+120(%rip)\n"                                              \
	"mov regs_in+0(%rip),%rbx\n"                                               \
	"mov regs_in+8(%rip),%rdx\n"                                               \
	"mov regs_in+16(%rip),%rsi\n"                                              \
	"mov regs_in+24(%rip),%rdi\n"                                              \
	"mov regs_in+32(%rip),%rbp\n"                                              \
	"mov regs_in+40(%rip),%r8\n"                                               \
	"mov regs_in+48(%rip),%r9\n"                                               \
	"mov regs_in+56(%rip),%r10\n"                                              \
	"mov regs_in+64(%rip),%r12\n"                                              \
	"mov regs_in+72(%rip),%r13\n"                                              \
	"mov regs_in+80(%rip),%r14\n"                                              \
	"mov regs_in+88(%rip),%r15\n"                                              \
	"mov %rsp,regs_in+104(%rip)\n"                                             \
	"pushq regs_in+96(%rip)\n"                                                 \
	"popfq\n"

/* Stores everything right after the syscall (flags first), then restores the C
 * environment: DF clear, default MXCSR, callee-saved registers. */
#define EPILOGUE                                                                   \
	"pushfq\n"                                                                 \
	"popq regs_out+96(%rip)\n"                                                 \
	"cld\n"                                                                    \
	"mov %rax,regs_out+112(%rip)\n"                                            \
	"mov %rsp,regs_out+104(%rip)\n"                                            \
	"mov %rbx,regs_out+0(%rip)\n"                                              \
	"mov %rdx,regs_out+8(%rip)\n"                                              \
	"mov %rsi,regs_out+16(%rip)\n"                                             \
	"mov %rdi,regs_out+24(%rip)\n"                                             \
	"mov %rbp,regs_out+32(%rip)\n"                                             \
	"mov %r8,regs_out+40(%rip)\n"                                              \
	"mov %r9,regs_out+48(%rip)\n"                                              \
	"mov %r10,regs_out+56(%rip)\n"                                             \
	"mov %r12,regs_out+64(%rip)\n"                                             \
	"mov %r13,regs_out+72(%rip)\n"                                             \
	"mov %r14,regs_out+80(%rip)\n"                                             \
	"mov %r15,regs_out+88(%rip)\n"                                             \
	"stmxcsr regs_out+120(%rip)\n"                                             \
	"cmpb $2,regs_avx(%rip)\n"                                                 \
	"je 3f\n"                                                                  \
	ALL16(XMM_STORE)                                                           \
	"cmpb $0,regs_avx(%rip)\n"                                                 \
	"je 2f\n"                                                                  \
	ALL16(YMM_STORE)                                                           \
	"vzeroupper\n"                                                             \
	"jmp 2f\n"                                                                 \
	"3:\n"                                                                     \
	ALL16(ZMM_STORE) UPPER16(ZMM_STORE) K7(K_STORE)                            \
	"vzeroupper\n"                                                             \
	"2:\n"                                                                     \
	"ldmxcsr regs_default_mxcsr(%rip)\n"                                       \
	"mov regs_out+112(%rip),%rax\n"                                            \
	"pop %r15\npop %r14\npop %r13\npop %r12\npop %rbp\npop %rbx\n"             \
	"ret\n"

__asm__(".text\n"
	".globl regs_fixed\n"
	".type regs_fixed,@function\n"
	"regs_fixed:\n"
	PROLOGUE
	"mov $110,%eax\n"
	"syscall\n"
	EPILOGUE
	".size regs_fixed,.-regs_fixed\n"

	".globl regs_runtime\n"
	".type regs_runtime,@function\n"
	"regs_runtime:\n"
	PROLOGUE
	"mov regs_in+112(%rip),%rcx\n"
	"mov %rcx,%r11\n"
	"mov %r11,%rax\n"
	"syscall\n"
	EPILOGUE
	".size regs_runtime,.-regs_runtime\n");

static uint64_t rng = 0x243f6a8885a308d3ULL;

static uint64_t next(void)
{
	/* splitmix64 */
	uint64_t z = (rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

#define FLAGS_CHECKED 0xcd5ULL /* CF PF AF ZF SF DF OF */

static void fill(long i, uint64_t nr)
{
	for (int r = 0; r < 12; r++)
		regs_in.gpr[r] = next();
	regs_in.flags = 0x202 | (i & 1 ? FLAGS_CHECKED : 0);
	regs_in.rax = nr;
	/* a rounding mode (bits 13-14) and flush-to-zero (bit 15) that change with i,
	 * exception masks all set */
	regs_in.mxcsr = 0x1f80 | (uint32_t)((i & 7) << 13);
	for (int r = 0; r < 16; r++)
		for (int b = 0; b < 16; b += 8) {
			uint64_t v = next();

			memcpy(&regs_in.xmm[r][b], &v, 8);
			v = next();
			memcpy(&regs_in.ymmh[r][b], &v, 8);
		}
	for (int r = 0; r < 32; r++)
		for (int b = 0; b < 64; b += 8) {
			uint64_t v = next();

			memcpy(&regs_in.zmm[r][b], &v, 8);
		}
	for (int r = 1; r < 8; r++)
		regs_in.k[r] = (uint16_t)next();
	memset(&regs_out, 0, sizeof regs_out);
}

static int compare(const char *site, long i, long expect)
{
	int bad = 0;

	if ((long)regs_out.rax != expect) {
		fprintf(stderr, "regs: %s call %ld (nr %lu): returned %ld, expected %ld\n", site, i,
			(unsigned long)regs_in.rax, (long)regs_out.rax, expect);
		bad = 1;
	}
	for (int r = 0; r < 12; r++)
		if (regs_out.gpr[r] != regs_in.gpr[r]) {
			fprintf(stderr, "regs: %s call %ld: %%%s %#llx became %#llx\n", site, i, gpr_names[r],
				(unsigned long long)regs_in.gpr[r], (unsigned long long)regs_out.gpr[r]);
			bad = 1;
		}
	if ((regs_out.flags & FLAGS_CHECKED) != (regs_in.flags & FLAGS_CHECKED)) {
		fprintf(stderr, "regs: %s call %ld: rflags %#llx became %#llx (checked bits %#llx)\n", site, i,
			(unsigned long long)regs_in.flags, (unsigned long long)regs_out.flags, FLAGS_CHECKED);
		bad = 1;
	}
	if (regs_out.rsp != regs_in.rsp) {
		fprintf(stderr, "regs: %s call %ld: %%rsp %#llx became %#llx\n", site, i,
			(unsigned long long)regs_in.rsp, (unsigned long long)regs_out.rsp);
		bad = 1;
	}
	if (regs_out.mxcsr != regs_in.mxcsr) {
		fprintf(stderr, "regs: %s call %ld: MXCSR %#x became %#x\n", site, i, regs_in.mxcsr, regs_out.mxcsr);
		bad = 1;
	}
	if (regs_avx == 2) {
		for (int r = 0; r < 32; r++)
			for (int q = 0; q < 4; q++)
				if (memcmp(regs_out.zmm[r] + 16 * q, regs_in.zmm[r] + 16 * q, 16) != 0) {
					fprintf(stderr, "regs: %s call %ld: bits %d-%d of %%zmm%d changed\n", site, i,
						128 * q, 128 * q + 127, r);
					bad = 1;
				}
		for (int r = 1; r < 8; r++)
			if (regs_out.k[r] != regs_in.k[r]) {
				fprintf(stderr, "regs: %s call %ld: %%k%d %#x became %#x\n", site, i, r, regs_in.k[r],
					regs_out.k[r]);
				bad = 1;
			}
		return bad;
	}
	for (int r = 0; r < 16; r++) {
		if (memcmp(regs_out.xmm[r], regs_in.xmm[r], 16) != 0) {
			fprintf(stderr, "regs: %s call %ld: %%xmm%d changed\n", site, i, r);
			bad = 1;
		}
		if (regs_avx && memcmp(regs_out.ymmh[r], regs_in.ymmh[r], 16) != 0) {
			fprintf(stderr, "regs: %s call %ld: the upper half of %%ymm%d changed\n", site, i, r);
			bad = 1;
		}
	}
	return bad;
}

static int have_avx(void)
{
	unsigned a, b, c, d;

	if (!__get_cpuid(1, &a, &b, &c, &d))
		return 0;
	if (!(c & bit_OSXSAVE) || !(c & bit_AVX))
		return 0;
	unsigned lo, hi;
	__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	if ((lo & 6) != 6) /* the OS saves SSE and AVX state */
		return 0;
	if (__get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & bit_AVX512F) && (lo & 0xe0) == 0xe0)
		return 2; /* and opmask, ZMM_Hi256, Hi16_ZMM */
	return 1;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 10000;
	long ppid = getppid();
	long pid = getpid();
	long tid = syscall(SYS_gettid);
	const uint64_t nrs[3] = { SYS_getppid, SYS_getpid, SYS_gettid };
	const long expect[3] = { ppid, pid, tid };

	regs_avx = (uint8_t)have_avx();
	if (argc > 2) /* a lower level, to test the other paths: 0 SSE, 1 AVX */
		regs_avx = (uint8_t)(atoi(argv[2]) < regs_avx ? atoi(argv[2]) : regs_avx);
	for (long i = 0; i < n; i++) {
		fill(i, 0);
		regs_fixed();
		if (compare("regs_fixed", i, ppid))
			return 1;
		fill(i, nrs[i % 3]);
		regs_runtime();
		if (compare("regs_runtime", i, expect[i % 3]))
			return 1;
	}
	return 0;
}
