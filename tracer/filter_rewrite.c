/* The rewriting of a program's own seccomp filter (own_filter.c installs it in the
 * program's place, at the program's seccomp or prctl(PR_SET_SECCOMP) call).
 *
 * The kernel runs every filter of a thread on every call and applies the strictest
 * action (KILL_PROCESS > KILL_THREAD > TRAP > ERRNO > USER_NOTIF > TRACE > LOG >
 * ALLOW), so a program's ERRNO, TRAP or KILL would beat systrace's TRACE: its
 * refused calls would never stop, and a strict filter would refuse systrace's own
 * calls. After a TRACE stop the kernel runs the filters again on the registers
 * the tracer left (a TRACE then means allow), so the rewritten program decides by
 * the instruction pointer:
 *
 *   ld ip_hi; jeq gate page's high half, else -> ret TRACE
 *   ld ip_lo; jeq instrument -> ret ALLOW       systrace's own calls (exec_blob.S)
 *             jeq decides[i] -> program         the gate (an in-process call) and
 *                                               the return pads (a ptraced call,
 *                                               run again after its stop: results.c)
 *   ret TRACE                                   anywhere else: the first pass of a
 *                                               ptraced call, which stops
 *   program: ld #0 (A as the kernel starts it; X is untouched: 0)
 *            the program's instructions, with
 *              ret K, K's action TRACE  -> ret ERRNO(ENOSYS)
 *              ret A                    -> ja epilogue
 *   epilogue: tax; and #action; jeq TRACE, else -> txa; ret A
 *             ret ERRNO(ENOSYS)
 *
 * A program alone that returns TRACE has no tracer of its own to stop in: the
 * kernel returns ENOSYS; under systrace the thread has one, so the rewritten
 * program says ENOSYS itself. Jumps are relative and the copy is contiguous, so
 * every jump of the program keeps its offset; only the returns change. */
#include "filter_rewrite.h"

#include <errno.h>
#include <linux/seccomp.h>
#include <stddef.h>

#define LOAD_IP(half) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, instruction_pointer) + 4 * (half))
#define NOSYS (SECCOMP_RET_ERRNO | ENOSYS)

static unsigned dispatch_len(const struct filter_ips *ips)
{
	return 6 + ips->ndecides; /* two loads, the high half's jump, instrument's, two returns */
}

unsigned filter_rewrite_extra(const struct filter_ips *ips)
{
	return dispatch_len(ips) + 1 + 6;
}

static int returns_a(const struct sock_filter *in, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (in[i].code == (BPF_RET | BPF_A))
			return 1;
	return 0;
}

unsigned filter_rewrite(const struct sock_filter *in, unsigned n, const struct filter_ips *ips, struct sock_filter *out)
{
	const unsigned d = dispatch_len(ips), epilogue = d + 1 + n;
	const unsigned len = epilogue + (returns_a(in, n) ? 6 : 0);
	const unsigned trace = d - 2, allow = d - 1;
	unsigned k = 0;

	if (len > BPF_MAXINSNS)
		return 0;
	out[k++] = (struct sock_filter)LOAD_IP(1);
	out[k] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)(ips->instrument >> 32), 0,
					      (uint8_t)(trace - k - 1));
	k++;
	out[k++] = (struct sock_filter)LOAD_IP(0);
	out[k] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)ips->instrument,
					      (uint8_t)(allow - k - 1), 0);
	k++;
	for (unsigned i = 0; i < ips->ndecides; i++, k++)
		out[k] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)ips->decides[i],
						      (uint8_t)(d - k - 1), 0);
	out[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRACE);
	out[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	out[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_IMM, 0);
	for (unsigned i = 0; i < n; i++, k++) {
		out[k] = in[i];
		if (in[i].code == (BPF_RET | BPF_K) && (in[i].k & SECCOMP_RET_ACTION_FULL) == SECCOMP_RET_TRACE)
			out[k].k = NOSYS;
		else if (in[i].code == (BPF_RET | BPF_A))
			out[k] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JA, epilogue - k - 1, 0, 0);
	}
	if (len == epilogue)
		return len;
	out[k++] = (struct sock_filter)BPF_STMT(BPF_MISC | BPF_TAX, 0);
	out[k++] = (struct sock_filter)BPF_STMT(BPF_ALU | BPF_AND | BPF_K, SECCOMP_RET_ACTION_FULL);
	out[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SECCOMP_RET_TRACE, 2, 0);
	out[k++] = (struct sock_filter)BPF_STMT(BPF_MISC | BPF_TXA, 0);
	out[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_A, 0);
	out[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, NOSYS);
	return k;
}
