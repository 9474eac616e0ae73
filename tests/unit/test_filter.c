#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "exec_blob.h"
#include "filter.h"
#include "gate.h"
#include "park.h"
#include "suites.h"

/* Code for the gate page: syscall; ret. */
static const unsigned char gate_code[] = { 0x0f, 0x05, 0xc3 };

/* A one-argument syscall made by the `syscall; ret` at the gate page's offset. */
static long gate_syscall_at(unsigned offset, long nr, long arg)
{
	long ret;

	/* step over the red zone before the call pushes its return address */
	__asm__ volatile("sub $128, %%rsp\n\tcall *%[gate]\n\tadd $128, %%rsp"
			 : "=a"(ret)
			 : "a"(nr), "D"(arg), [gate] "r"((void *)(SYSTRACE_GATE_ADDR + offset))
			 : "rcx", "r11", "memory");
	return ret;
}

static long gate_syscall(long nr, long arg)
{
	return gate_syscall_at(0, nr, arg);
}

/* In a child with the filter and no tracer, a traced call fails with ENOSYS while
 * the gate's calls go through (even its exit has to), and so do those of the
 * instrument and stackless gates, the set-up's mapping of the gate and the parking
 * call of a hand-off, but not those of another `syscall` in the page. Exit code: 0 on success, else
 * which check failed. */
static int child_checks(void)
{
	void *page = mmap((void *)SYSTRACE_GATE_ADDR, 4096, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	pid_t parent = getppid();
	struct timespec no_wait = { 0, 0 };

	if (page != (void *)SYSTRACE_GATE_ADDR)
		return 10;
	memcpy(page, gate_code, sizeof(gate_code));
	memcpy((char *)page + SYSTRACE_INSTRUMENT_OFFSET, gate_code, sizeof(gate_code));
	memcpy((char *)page + SYSTRACE_STACKLESS_OFFSET, gate_code, sizeof(gate_code));
	memcpy((char *)page + 64, gate_code, sizeof(gate_code));
	if (mprotect(page, 4096, PROT_READ | PROT_EXEC) < 0)
		return 11;
	if (filter_install(SYSTRACE_GATE_SYSCALL_IP, SYSTRACE_INSTRUMENT_SYSCALL_IP, SYSTRACE_STACKLESS_SYSCALL_IP) < 0)
		return 12;
	if (syscall(SYS_getppid) != -1 || errno != ENOSYS)
		return 1;
	if (gate_syscall(SYS_getppid, 0) != parent)
		return 2;
	if (gate_syscall_at(SYSTRACE_INSTRUMENT_OFFSET, SYS_getppid, 0) != parent)
		return 4;
	if (gate_syscall_at(SYSTRACE_STACKLESS_OFFSET, SYS_getppid, 0) != parent)
		return 9;
	if (gate_syscall_at(64, SYS_getppid, 0) != -ENOSYS)
		return 5;
	/* the set-up's mapping of the gate goes through from anywhere (the kernel says
	 * the page is there), another mapping of it does not */
	if (mmap(page, 4096, EXEC_BLOB_GATE_PROT, EXEC_BLOB_GATE_FLAGS, -1, 0) != MAP_FAILED || errno != EEXIST)
		return 6;
	if (mmap(page, 4096, PROT_READ, EXEC_BLOB_GATE_FLAGS, -1, 0) != MAP_FAILED || errno != ENOSYS)
		return 7;
	if (mmap((char *)page + 4096, 4096, EXEC_BLOB_GATE_PROT, EXEC_BLOB_GATE_FLAGS, -1, 0) != MAP_FAILED || errno != ENOSYS)
		return 8;
	/* the parking ppoll goes through from anywhere (here with a timeout of 0: no
	 * wait), one with either marking argument changed in either half does not */
	if (syscall(SYS_ppoll, PARK_FDS, 0, &no_wait, NULL, PARK_SIGSETSIZE) != 0)
		return 13;
	if (syscall(SYS_ppoll, PARK_FDS + 8, 0, &no_wait, NULL, PARK_SIGSETSIZE) != -1 || errno != ENOSYS)
		return 14;
	if (syscall(SYS_ppoll, PARK_FDS + (1ULL << 32), 0, &no_wait, NULL, PARK_SIGSETSIZE) != -1 || errno != ENOSYS)
		return 15;
	if (syscall(SYS_ppoll, PARK_FDS, 0, &no_wait, NULL, PARK_SIGSETSIZE + 1) != -1 || errno != ENOSYS)
		return 16;
	if (syscall(SYS_ppoll, PARK_FDS, 0, &no_wait, NULL, PARK_SIGSETSIZE + (1ULL << 32)) != -1 || errno != ENOSYS)
		return 17;
	/* nor another call with its arguments */
	if (syscall(SYS_poll, PARK_FDS, 0, 0, 0, PARK_SIGSETSIZE) != -1 || errno != ENOSYS)
		return 18;
	gate_syscall(SYS_exit_group, 0);
	return 3;
}

START_TEST(only_the_gate_passes_untraced)
{
	int status;
	pid_t pid = fork();

	if (pid == 0)
		_exit(child_checks());
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status));
	ck_assert_int_eq(WEXITSTATUS(status), 0);
}
END_TEST

START_TEST(filter_checks_arch_x32_and_both_halves_of_the_ip)
{
	struct sock_filter prog[FILTER_MAX_LEN];
	unsigned n = filter_build(prog, 0x123456789aULL, 0x123456780aULL, 0x12345678aaULL);
	int saw_lo = 0, saw_hi = 0;

	ck_assert_uint_le(n, FILTER_MAX_LEN);
	for (unsigned i = 0; i < n; i++) {
		saw_lo |= prog[i].k == 0x3456789a;
		saw_hi |= prog[i].k == 0x12;
	}
	ck_assert(saw_lo && saw_hi);
	/* every path ends in a return: the last instruction is one */
	ck_assert_uint_eq(BPF_CLASS(prog[n - 1].code), BPF_RET);
}
END_TEST

Suite *filter_suite(void)
{
	return single_case_suite("filter", (const TTest *const[]){
		only_the_gate_passes_untraced, filter_checks_arch_x32_and_both_halves_of_the_ip, NULL });
}
