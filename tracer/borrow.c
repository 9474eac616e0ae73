#include "borrow.h"

#include <signal.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "held_statuses.h"
#include "stops.h"
#include "tracee_wait.h"

bool borrow_begin(struct borrowed *b, struct thread *t)
{
	*b = (struct borrowed){ .t = t };
	return ptrace(PTRACE_GETREGS, t->tid, 0, &b->saved) == 0;
}

/* Whether t's SIGTRAP is the step's (the kernel's), not one sent to it. */
static bool from_kernel(pid_t tid)
{
	siginfo_t si;

	return ptrace(PTRACE_GETSIGINFO, tid, 0, &si) == 0 && si.si_code > 0;
}

/* Single-steps t until the step's trap, with its registers then in regs. */
static bool step(struct borrowed *b, struct user_regs_struct *regs)
{
	struct thread *t = b->t;
	int status, sig;

	for (;;) {
		if (ptrace(PTRACE_SINGLESTEP, t->tid, 0, 0) < 0 || !tracee_wait(t->tid, &status))
			return false;
		count_stop(t->img, STOP_OTHER);
		if (!WIFSTOPPED(status) || status >> 16 == PTRACE_EVENT_EXIT) {
			held_status_push(t->tid, status);
			b->gone = true;
			return false;
		}
		if (status >> 16 == PTRACE_EVENT_STOP) {
			t->interrupted = false; /* an interrupt asked for earlier: taken */
			continue;
		}
		sig = WSTOPSIG(status);
		if (status >> 16 == 0 && sig == SIGTRAP && from_kernel(t->tid))
			return ptrace(PTRACE_GETREGS, t->tid, 0, regs) == 0;
		if (status >> 16 == 0 && b->nsignals < sizeof(b->signals) / sizeof(b->signals[0]))
			b->signals[b->nsignals++] = sig;
	}
}

bool borrow_step(struct borrowed *b)
{
	return step(b, &b->saved);
}

static void set_args(struct user_regs_struct *regs, const uint64_t args[6])
{
	regs->rdi = args[0];
	regs->rsi = args[1];
	regs->rdx = args[2];
	regs->r10 = args[3];
	regs->r8 = args[4];
	regs->r9 = args[5];
}

/* Runs t from regs to the trap after its call; the result in *ret. */
static bool run_call(struct borrowed *b, struct user_regs_struct *regs, uint64_t *ret)
{
	if (ptrace(PTRACE_SETREGS, b->t->tid, 0, regs) < 0 || !step(b, regs))
		return false;
	*ret = regs->rax;
	return regs->rax < (uint64_t)-4095;
}

bool borrow_call(struct borrowed *b, uint64_t at, long nr, const uint64_t args[6], uint64_t *ret)
{
	struct user_regs_struct regs = b->saved;

	regs.rip = at;
	regs.rax = (uint64_t)nr;
	set_args(&regs, args);
	return run_call(b, &regs, ret);
}

bool borrow_call_instead(struct borrowed *b, long nr, const uint64_t args[6], uint64_t *ret)
{
	struct user_regs_struct regs = b->saved;

	regs.orig_rax = (uint64_t)nr;
	set_args(&regs, args);
	return run_call(b, &regs, ret);
}

bool borrow_end(struct borrowed *b)
{
	if (!b->gone)
		ptrace(PTRACE_SETREGS, b->t->tid, 0, &b->saved);
	for (unsigned i = 0; i < b->nsignals; i++)
		syscall(SYS_tgkill, b->t->img->rec.pid, b->t->tid, b->signals[i]);
	return !b->gone;
}
