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

/* Whether sig, stopping t, was raised by the kernel (a step's trap, a fault), not
 * sent by a process. */
static bool from_kernel(pid_t tid)
{
	siginfo_t si;

	return ptrace(PTRACE_GETSIGINFO, tid, 0, &si) == 0 && si.si_code > 0;
}

static bool is_fault(int sig)
{
	return sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGFPE || sig == SIGTRAP;
}

/* Resumes t (at a seccomp stop) to the exit of the call it is in, its registers
 * then in regs: PTRACE_SYSCALL raises no signal, so the program's SIGTRAP
 * disposition is left alone. */
static bool run_to_exit(struct borrowed *b, struct user_regs_struct *regs)
{
	struct thread *t = b->t;
	int status, sig, event;

	for (;;) {
		if (ptrace(PTRACE_SYSCALL, t->tid, 0, 0) < 0 || !tracee_wait(t->tid, &status))
			return false;
		count_stop(t->img, STOP_OTHER);
		event = status >> 16;
		if (!WIFSTOPPED(status) || event == PTRACE_EVENT_EXIT) {
			held_status_push(t->tid, status);
			b->gone = true;
			return false;
		}
		if (event == PTRACE_EVENT_STOP) {
			t->interrupted = false; /* an interrupt asked for earlier: taken */
			continue;
		}
		sig = WSTOPSIG(status);
		if (!event && sig == (SIGTRAP | 0x80))
			return ptrace(PTRACE_GETREGS, t->tid, 0, regs) == 0;
		if (event)
			continue;
		if (is_fault(sig) && from_kernel(t->tid)) {
			b->faulted = true; /* the borrowed code broke: its caller puts things back */
			return false;
		}
		if (b->nsignals < sizeof(b->signals) / sizeof(b->signals[0]))
			b->signals[b->nsignals++] = sig;
	}
}

bool borrow_call_instead(struct borrowed *b, long nr, const uint64_t args[6], uint64_t *ret)
{
	struct user_regs_struct regs = b->saved;

	regs.orig_rax = (uint64_t)nr;
	regs.rdi = args[0];
	regs.rsi = args[1];
	regs.rdx = args[2];
	regs.r10 = args[3];
	regs.r8 = args[4];
	regs.r9 = args[5];
	if (ptrace(PTRACE_SETREGS, b->t->tid, 0, &regs) < 0 || !run_to_exit(b, &regs))
		return false;
	*ret = regs.rax;
	return regs.rax < (uint64_t)-4095;
}

bool borrow_end(struct borrowed *b)
{
	if (!b->gone)
		ptrace(PTRACE_SETREGS, b->t->tid, 0, &b->saved);
	for (unsigned i = 0; i < b->nsignals; i++)
		syscall(SYS_tgkill, b->t->img->rec.pid, b->t->tid, b->signals[i]);
	return !b->gone;
}
