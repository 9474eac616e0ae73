/* A program's own seccomp filters, and how each of its calls is decided under them.
 *
 * The kernel keeps a thread's filters (inherited across fork, clone and exec, and
 * given to every thread of the process with TSYNC) and runs them all on each call,
 * newest first, applying the strictest action. systrace's filter, the oldest, says
 * TRACE for any address but the gate's; a program's ERRNO, TRAP or KILL would beat
 * it. So each of the program's filters is installed rewritten (filter_rewrite.c):
 * TRACE at ordinary addresses, the program's own verdict at the gate's (both its
 * entries) and the return pads' (and at the instrument gate, systrace's own calls,
 * ALLOW):
 *
 *   the program           the kernel                      the tracer
 *   seccomp(prog)  -----> seccomp stop (every filter's   own_filter_on_call: reads
 *   (or prctl)            TRACE)                          prog, writes the rewriting
 *                                                         below the red zone, points
 *                                                         rdx there; the call goes
 *                                                         on like the others, below,
 *                                                         and to its exit stop, where
 *                                                         rdx is put back
 *   site: syscall  -----> first pass: TRACE (the          counts the call; resumes it
 *                         rewritten filters, ours)        with rip at the return pad
 *                                                         (results.c), or, where the
 *                                                         pad does not serve, at the
 *                                                         pad's address all the same,
 *                                                         to its exit stop
 *                                                         (own_filter_recheck)
 *                         run again after the stop at the pad's address: ours
 *                         TRACE (allow, after a stop), the program's filters their
 *                         own verdict, the strictest applied as without systrace:
 *                         ALLOW/LOG: the call runs; ERRNO e: -e; KILL_*: SIGSYS
 *                         death; TRAP: SIGSYS to its handler; USER_NOTIF: its
 *                         supervisor answers
 *                                                         the result through the pad,
 *                                                         or at the exit stop, where
 *                                                         rip goes back after the
 *                                                         site (own_filter_on_exit);
 *                                                         a TRAP's SIGSYS names the
 *                                                         site (own_filter_on_signal)
 *   stub: call gate -----> the program's filters decide at once; ours allows
 *
 * A thread that a creation call decided at the pad's address makes starts there:
 * it continues after its creator's syscall (rcx), as natively
 * (own_filter_child_starts). An image's threads are all taken to have a filter of
 * the program's once one of them installs one (a superset of the kernel's: for a
 * thread that has none, the pad's address only decides ALLOW). */
#include "own_filter.h"

#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>

#include "call_times.h"
#include "filter_rewrite.h"
#include "gate_code.h"
#include "must_stop.h"
#include "region.h"
#include "shared_region.h"

#ifndef SYS_SECCOMP
#define SYS_SECCOMP 1
#endif

/* The program's struct sock_fprog as the kernel reads it. */
struct user_fprog {
	uint16_t len;
	uint64_t filter;
};

static bool is_install(long nr, const uint64_t *args)
{
	return (nr == SYS_seccomp && args[0] == SECCOMP_SET_MODE_FILTER)
	       || (nr == SYS_prctl && args[0] == PR_SET_SECCOMP && args[1] == SECCOMP_MODE_FILTER);
}

static bool read_tracee(pid_t tid, uint64_t at, void *to, size_t len)
{
	struct iovec local = { to, len }, remote = { (void *)at, len };

	return process_vm_readv(tid, &local, 1, &remote, 1, 0) == (ssize_t)len;
}

/* The rewritten program and its sock_fprog, written below t's red zone (the kernel
 * copies it during the call, before anything else can use that stack); its
 * address, or 0. */
static uint64_t write_rewritten(pid_t tid, uint64_t rsp, const struct sock_filter *prog, unsigned len)
{
	size_t bytes = sizeof(struct user_fprog) + len * sizeof(*prog);
	uint64_t at = (rsp - 128 - bytes) & ~(uint64_t)15;
	struct user_fprog fprog = { .len = (uint16_t)len, .filter = at + sizeof(struct user_fprog) };
	struct iovec local[2] = { { &fprog, sizeof(fprog) }, { (void *)prog, len * sizeof(*prog) } };
	struct iovec remote = { (void *)at, bytes };

	return process_vm_writev(tid, local, 2, &remote, 1, 0) == (ssize_t)bytes ? at : 0;
}

/* A program's own filter, rewritten and put on its stack for the call to install.
 * Not inlined: its 64 KiB of frame only for an install, not for every call. */
static __attribute__((noinline)) void install_rewritten(struct thread *t, const uint64_t *args)
{
	struct sock_filter in[BPF_MAXINSNS], out[BPF_MAXINSNS];
	/* the gate, the return pad (own_filter_recheck's, and results.c's but under
	 * --time), and the third that the run uses: --time's pad, or the gate's
	 * stackless entry where vfork goes in-process (not with --time); the fewer, the
	 * longer a program of its own the rewriting leaves room for */
	const bool third = call_times_on() || !must_stop_reason(SYS_vfork);
	const struct filter_ips ips = {
		.decides = { SYSTRACE_GATE_SYSCALL_IP, GATE_AT(gate_pad),
			     call_times_on() ? GATE_AT(gate_time_pad) : SYSTRACE_STACKLESS_SYSCALL_IP },
		.ndecides = third ? 3 : 2,
		.instrument = SYSTRACE_INSTRUMENT_SYSCALL_IP,
	};
	struct user_regs_struct regs;
	struct user_fprog fprog;
	unsigned len;
	uint64_t at;

	t->img->own_filter = true;
	/* what the kernel would refuse (EFAULT, EINVAL) is left for it to refuse */
	if (!read_tracee(t->tid, args[2], &fprog, sizeof(fprog)) || fprog.len == 0 || fprog.len > BPF_MAXINSNS
	    || !read_tracee(t->tid, fprog.filter, in, fprog.len * sizeof(in[0]))
	    || ptrace(PTRACE_GETREGS, t->tid, 0, &regs) != 0)
		return;
	len = filter_rewrite(in, fprog.len, &ips, out);
	if (!len)
		fprintf(stderr,
			"systrace: pid %d: its seccomp filter of %u instructions leaves no room for the %u "
			"that systrace adds (at most %u in all): the call fails with EINVAL\n",
			t->tid, fprog.len, filter_rewrite_extra(&ips), BPF_MAXINSNS);
	at = write_rewritten(t->tid, regs.rsp, out, len);
	if (!at)
		fprintf(stderr, "systrace: pid %d: cannot write its rewritten seccomp filter on its stack (%s): "
				"the call fails with EFAULT\n", t->tid, strerror(errno));
	t->filter_arg = regs.rdx;
	t->filter_arg_moved = true;
	regs.rdx = at;
	ptrace(PTRACE_SETREGS, t->tid, 0, &regs);
}

void own_filter_on_call(struct thread *t, long nr, const uint64_t *args)
{
	if (is_install(nr, args))
		install_rewritten(t, args);
}

bool own_filter_needs_exit(const struct thread *t)
{
	return t->filter_arg_moved;
}

int own_filter_recheck(struct thread *t, int request, uint64_t rip)
{
	if (!t->img->own_filter || ptrace(PTRACE_POKEUSER, t->tid, offsetof(struct user_regs_struct, rip),
					  GATE_AT(gate_pad)) != 0)
		return request;
	/* the write protocol moves a thread at the pad by this word (results.h) */
	if (t->slot >= 0)
		region_slot(t->slot)->pad[REGION_SLOT_RETURN] = rip;
	t->recheck_return = rip;
	return PTRACE_SYSCALL;
}

void own_filter_on_exit(struct thread *t)
{
	struct user_regs_struct regs;

	if ((!t->recheck_return && !t->filter_arg_moved) || ptrace(PTRACE_GETREGS, t->tid, 0, &regs) != 0)
		return;
	if (t->recheck_return)
		regs.rip = t->slot >= 0 ? region_slot(t->slot)->pad[REGION_SLOT_RETURN] : t->recheck_return;
	if (t->filter_arg_moved)
		regs.rdx = t->filter_arg;
	ptrace(PTRACE_SETREGS, t->tid, 0, &regs);
	t->recheck_return = 0;
	t->filter_arg_moved = false;
}

void own_filter_child_starts(struct thread *t)
{
	struct user_regs_struct regs;

	if (!t->img || !t->img->own_filter || ptrace(PTRACE_GETREGS, t->tid, 0, &regs) != 0
	    || regs.rip != GATE_AT(gate_pad))
		return;
	regs.rip = regs.rcx; /* where `syscall` returns: rcx holds it */
	ptrace(PTRACE_SETREGS, t->tid, 0, &regs);
}

void own_filter_on_signal(struct thread *t, int sig, const struct user_regs_struct *regs)
{
	siginfo_t si;

	if (sig != SIGSYS || !t->img || !t->img->own_filter || ptrace(PTRACE_GETSIGINFO, t->tid, 0, &si) != 0
	    || si.si_code != SYS_SECCOMP || (uint64_t)(uintptr_t)si.si_call_addr - SYSTRACE_GATE_ADDR >= 4096)
		return;
	si.si_call_addr = (void *)(uintptr_t)regs->rip;
	ptrace(PTRACE_SETSIGINFO, t->tid, 0, &si);
}
