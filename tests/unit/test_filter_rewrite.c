#include <errno.h>
#include <linux/audit.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stddef.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "filter_rewrite.h"
#include "suites.h"

#define IP_GATE 0x6f5ee7000002ULL
#define IP_PAD 0x6f5ee7000100ULL
#define IP_INSTRUMENT 0x6f5ee700000aULL
#define IP_SITE 0x7f0012345678ULL
#define IP_OTHER_PAGE 0x6f5ee8000002ULL /* another high half... */
#define IP_SAME_LOW 0x7f5ee7000002ULL   /* ...and the gate's low half elsewhere */
#define NOSYS (SECCOMP_RET_ERRNO | ENOSYS)

static const struct filter_ips ips = { .decides = { IP_GATE, IP_PAD }, .ndecides = 2, .instrument = IP_INSTRUMENT };

/* Classic BPF as the kernel runs it for seccomp, the instructions these tests use. */
static uint32_t run(const struct sock_filter *p, unsigned n, int nr, uint64_t ip)
{
	struct seccomp_data d = { .nr = nr, .arch = AUDIT_ARCH_X86_64, .instruction_pointer = ip };
	uint32_t a = 0, x = 0, mem[16] = { 0 };

	for (unsigned pc = 0; pc < n; pc++) {
		const struct sock_filter *f = &p[pc];
		uint32_t src = BPF_SRC(f->code) == BPF_X ? x : f->k;

		switch (f->code) {
		case BPF_LD | BPF_W | BPF_ABS: memcpy(&a, (const char *)&d + f->k, 4); break;
		case BPF_LD | BPF_IMM: a = f->k; break;
		case BPF_LDX | BPF_IMM: x = f->k; break;
		case BPF_LD | BPF_MEM: a = mem[f->k]; break;
		case BPF_ST: mem[f->k] = a; break;
		case BPF_MISC | BPF_TAX: x = a; break;
		case BPF_MISC | BPF_TXA: a = x; break;
		case BPF_ALU | BPF_AND | BPF_K: a &= src; break;
		case BPF_ALU | BPF_OR | BPF_K: a |= src; break;
		case BPF_JMP | BPF_JA: pc += f->k; break;
		case BPF_JMP | BPF_JEQ | BPF_K: pc += a == src ? f->jt : f->jf; break;
		case BPF_JMP | BPF_JGE | BPF_K: pc += a >= src ? f->jt : f->jf; break;
		case BPF_RET | BPF_K: return f->k;
		case BPF_RET | BPF_A: return a;
		default: ck_abort_msg("instruction 0x%x not in the interpreter", f->code);
		}
	}
	ck_abort_msg("ran off the end");
	return 0;
}

/* The program's own filter: getpriority refused (EPERM), getppid traced, getpid
 * trapped (data 7), numbers from 500 killed, the rest allowed; a jump over a return
 * and a scratch word, which the copy must keep. */
static const struct sock_filter own[] = {
	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
	BPF_STMT(BPF_ST, 3),
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_getpriority, 0, 1),
	BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_getppid, 0, 1),
	BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRACE | 5),
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_getpid, 0, 1),
	BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRAP | 7),
	BPF_STMT(BPF_LD | BPF_MEM, 3),
	BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 500, 0, 1),
	BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
	BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
};
#define OWN_LEN (sizeof(own) / sizeof(own[0]))

START_TEST(decides_by_the_instruction_pointer)
{
	static struct sock_filter out[BPF_MAXINSNS];
	unsigned n = filter_rewrite(own, OWN_LEN, &ips, out);
	const int nrs[] = { SYS_getpriority, SYS_getppid, SYS_getpid, 600, SYS_read };
	const uint32_t native[] = { SECCOMP_RET_ERRNO | EPERM, NOSYS, SECCOMP_RET_TRAP | 7, SECCOMP_RET_KILL_PROCESS,
				    SECCOMP_RET_ALLOW };

	ck_assert_uint_gt(n, OWN_LEN);
	ck_assert_uint_le(n, OWN_LEN + filter_rewrite_extra(&ips));
	for (size_t i = 0; i < sizeof(nrs) / sizeof(nrs[0]); i++) {
		/* the program's verdict where it decides, TRACE stands for no tracer */
		ck_assert_uint_eq(run(out, n, nrs[i], IP_GATE), native[i]);
		ck_assert_uint_eq(run(out, n, nrs[i], IP_PAD), native[i]);
		/* systrace's own calls: allowed; anywhere else: a stop */
		ck_assert_uint_eq(run(out, n, nrs[i], IP_INSTRUMENT), SECCOMP_RET_ALLOW);
		ck_assert_uint_eq(run(out, n, nrs[i], IP_SITE), SECCOMP_RET_TRACE);
		ck_assert_uint_eq(run(out, n, nrs[i], IP_OTHER_PAGE), SECCOMP_RET_TRACE);
		ck_assert_uint_eq(run(out, n, nrs[i], IP_SAME_LOW), SECCOMP_RET_TRACE);
	}
}
END_TEST

/* A return of the accumulator: its TRACE too stands for ENOSYS, anything else is
 * returned as computed. */
START_TEST(returned_accumulator)
{
	static const struct sock_filter acc[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_getppid, 0, 2),
		BPF_STMT(BPF_LD | BPF_IMM, SECCOMP_RET_TRACE | 9),
		BPF_STMT(BPF_RET | BPF_A, 0),
		BPF_STMT(BPF_ALU | BPF_OR | BPF_K, SECCOMP_RET_ERRNO),
		BPF_STMT(BPF_RET | BPF_A, 0),
	};
	static struct sock_filter out[BPF_MAXINSNS];
	unsigned n = filter_rewrite(acc, 6, &ips, out);

	ck_assert_uint_eq(run(out, n, SYS_getppid, IP_GATE), NOSYS);
	ck_assert_uint_eq(run(out, n, SYS_read, IP_PAD), SECCOMP_RET_ERRNO | SYS_read);
	ck_assert_uint_eq(run(out, n, SYS_read, IP_SITE), SECCOMP_RET_TRACE);
}
END_TEST

/* What does not fit in BPF_MAXINSNS is refused (0); what just fits is not. */
START_TEST(refuses_what_does_not_fit)
{
	static struct sock_filter big[BPF_MAXINSNS], out[BPF_MAXINSNS];
	unsigned room = BPF_MAXINSNS - filter_rewrite_extra(&ips);

	for (unsigned i = 0; i < BPF_MAXINSNS; i++)
		big[i] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_A, 0);
	ck_assert_uint_eq(filter_rewrite(big, BPF_MAXINSNS, &ips, out), 0);
	ck_assert_uint_eq(filter_rewrite(big, room + 1, &ips, out), 0);
	ck_assert_uint_eq(filter_rewrite(big, room, &ips, out), BPF_MAXINSNS);
	ck_assert_uint_eq(run(out, BPF_MAXINSNS, SYS_read, IP_GATE), 0);
}
END_TEST

/* The kernel takes the rewriting: in a child without a tracer, a call at an
 * ordinary address gets ENOSYS (the TRACE of no tracer), whatever the program's
 * filter says of it. Its exit_group fails so too: it says it passed by dying of an
 * undefined instruction (ud2), and failed by any other end. */
START_TEST(the_kernel_takes_it)
{
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		static struct sock_filter out[BPF_MAXINSNS];
		struct sock_fprog prog = { .len = (unsigned short)filter_rewrite(own, OWN_LEN, &ips, out), .filter = out };

		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) != 0)
			_exit(1);
		if (syscall(SYS_getpriority, 0, 0) == -1 && errno == ENOSYS)
			__builtin_trap();
		_exit(2);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFSIGNALED(status));
	ck_assert_int_eq(WTERMSIG(status), SIGILL);
}
END_TEST

Suite *filter_rewrite_suite(void)
{
	return single_case_suite("filter_rewrite", (const TTest *const[]){ decides_by_the_instruction_pointer,
		returned_accumulator, refuses_what_does_not_fit, the_kernel_takes_it, NULL });
}
