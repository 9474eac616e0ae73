/* Branches that land inside the bytes a patch would cover (rr #2842: a jump landed
 * inside a patched range). A patch replaces whole instructions next to the syscall by
 * a 5-byte jump, so a branch to any instruction strictly inside the covered bytes
 * would land in the middle of that jump. Four functions in assembly, each called N
 * times (argv[1], default 2000) with the branch taken and N times with it not taken,
 * alternately; every result is checked:
 *  - ba_after:  `mov %esi,%eax` after a branch, then `syscall`; another branch skips
 *    the syscall and lands on the instruction right after it (`add $1,%rax`). The
 *    bytes before cannot be covered (a branch), the bytes after hold a target: the
 *    site must stay unpatched. Returns getppid()+1, or 110+1 when skipped;
 *  - ba_after_fixed: the same with the number fixed by `mov $110,%eax` before the
 *    branch (a fixed number the patcher may see; still no room either side);
 *  - bb_before: the number is chosen by a branch that lands on `mov %ecx,%eax`, the
 *    instruction right before the syscall (too short to be covered alone): the
 *    BEFORE shape would cover the target, the AFTER shape (`cmp $-4096,%rax`) fits.
 *    Returns getpid() or getppid();
 *  - bd_target_is_site: the branch lands on the syscall itself, skipping
 *    `mov $39,%eax` that is the natural BEFORE cover: the same site is reached with
 *    getppid (taken) and getpid (not taken), so a stub that trusted the `mov` for the
 *    number would count the wrong one.
 * Counts: getppid 4N + 1 (ba_after 1N, ba_after_fixed 1N, bb_before 1N,
 * bd_target_is_site 1N, plus one glibc call for the expected value), getpid 2N + 1. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

long ba_after(long take, long nr);
long ba_after_fixed(long take);
long bb_before(long take);
long bd_target_is_site(long take);

__asm__(".text\n"
	".globl ba_after\n"
	".type ba_after,@function\n"
	"ba_after:\n"
	"mov $110,%eax\n"
	"test %rdi,%rdi\n"
	"jnz 1f\n"                  /* taken: skip the syscall, land right after it */
	"mov %esi,%eax\n"
	"syscall\n"
	"1: add $1,%rax\n"
	"ret\n"
	".size ba_after,.-ba_after\n"

	".globl ba_after_fixed\n"
	".type ba_after_fixed,@function\n"
	"ba_after_fixed:\n"
	"mov $110,%eax\n"
	"test %rdi,%rdi\n"
	"jnz 1f\n"
	"syscall\n"
	"1: add $1,%rax\n"
	"ret\n"
	".size ba_after_fixed,.-ba_after_fixed\n"

	".globl bb_before\n"
	".type bb_before,@function\n"
	"bb_before:\n"
	"mov $110,%ecx\n"
	"test %rdi,%rdi\n"
	"jz 2f\n"
	"mov $39,%ecx\n"
	"2: mov %ecx,%eax\n"        /* a target right before the syscall */
	"syscall\n"
	"cmp $-4096,%rax\n"
	"ja 3f\n"
	"ret\n"
	"3: mov $-1,%rax\n"
	"ret\n"
	".size bb_before,.-bb_before\n"

	".globl bd_target_is_site\n"
	".type bd_target_is_site,@function\n"
	"bd_target_is_site:\n"
	"mov $110,%eax\n"
	"test %rdi,%rdi\n"
	"jnz 4f\n"                  /* taken: getppid, at the syscall itself */
	"mov $39,%eax\n"
	"4: syscall\n"
	"cmp $-4096,%rax\n"
	"ja 5f\n"
	"ret\n"
	"5: mov $-1,%rax\n"
	"ret\n"
	".size bd_target_is_site,.-bd_target_is_site\n");

static int check(const char *what, long i, long take, long got, long expect)
{
	if (got == expect)
		return 0;
	fprintf(stderr, "branch_into: %s call %ld (branch %s): got %ld, expected %ld\n", what, i,
		take ? "taken" : "not taken", got, expect);
	return 1;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 2000;
	long ppid = getppid(), pid = getpid();

	for (long i = 0; i < 2 * n; i++) {
		long take = i & 1;

		if (check("ba_after", i, take, ba_after(take, 110), take ? 111 : ppid + 1) ||
		    check("ba_after_fixed", i, take, ba_after_fixed(take), take ? 111 : ppid + 1) ||
		    check("bb_before", i, take, bb_before(take), take ? pid : ppid) ||
		    check("bd_target_is_site", i, take, bd_target_is_site(take), take ? ppid : pid))
			return 1;
	}
	return 0;
}
