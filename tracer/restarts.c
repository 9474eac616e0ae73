#include "restarts.h"

#include <errno.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/user.h>

#include "gate.h"
#include "procfs.h"

/* The kernel's internal restart codes (include/linux/errno.h). */
enum { ERESTARTSYS = 512, ERESTARTNOINTR = RESTART_CODE_NOINTR, ERESTARTNOHAND = 514, ERESTART_RESTARTBLOCK = 516 };

/* The site a trap at addr of t's memory stands for (as_site_of). */
static uint64_t site_of(const struct thread *t, uint64_t addr)
{
	return t->img && t->img->as ? as_site_of(t->img->as, addr) : addr;
}

bool restart_is_code(long ret)
{
	return ret == -ERESTARTSYS || ret == -ERESTARTNOINTR || ret == -ERESTARTNOHAND
	       || ret == -ERESTART_RESTARTBLOCK;
}

/* The call nr at site will be entered again (when says how sure that is). */
static void expect(struct thread *t, enum restart_state when, uint64_t site, long nr, enum restart_cause cause)
{
	t->restart = when;
	t->restart_site = site;
	t->restart_nr = nr;
	t->restart_cause = cause;
}

void restart_rule_signal(struct thread *t, long nr, long ret, uint64_t site, bool caught)
{
	/* nr is -1 outside a syscall, where ret is the program's own data */
	if (nr < 0 || !restart_is_code(ret)) {
		/* A handler that runs before a pending restart (a signal arriving right
		 * after rt_sigreturn) makes its own calls first; its frame returns to the
		 * call if the restart still stands. */
		if (t->restart == RESTART_NEXT && caught)
			t->restart = RESTART_IF_FRAME_SAYS;
		return;
	}
	/* Without a handler every restart code enters the call again; with one, it
	 * depends on the code and SA_RESTART, which the handler's frame will show. */
	expect(t, caught ? RESTART_IF_FRAME_SAYS : RESTART_NEXT, site, nr, RESTART_BY_SIGNAL);
}

void restart_rule_interrupt(struct thread *t, long nr, long ret, uint64_t site, bool at_gate, bool ours)
{
	bool same = t->restart == RESTART_NEXT && t->restart_site == site && t->restart_nr == nr;

	/* calls through the gate restart there, untraced: not seen again. One our
	 * interrupt alone makes enter its call again is no restart of the program's:
	 * its entry is the same call, not counted in `restarted`, unless a signal's
	 * restart of it is pending already (the stop that follows a group-stop's end
	 * is reported as ours). */
	if (nr >= 0 && restart_is_code(ret) && !at_gate)
		expect(t, RESTART_NEXT, site, nr, same ? t->restart_cause : ours ? RESTART_BY_INTERRUPT : RESTART_BY_SIGNAL);
}

bool restart_rule_frame(struct thread *t, long saved_rax, uint64_t rip_site, uint64_t before_rip_site)
{
	if (t->restart != RESTART_IF_FRAME_SAYS)
		return false;
	/* Back to the call: it is entered again. Back past it with EINTR: it
	 * returned. Anything else: this handler interrupted another one (two
	 * signals; the other may even be at the same site, glibc's syscall()), whose
	 * own rt_sigreturn will tell. */
	if (rip_site == t->restart_site && saved_rax == t->restart_nr) {
		t->restart = RESTART_NEXT;
	} else if (before_rip_site == t->restart_site && saved_rax == -EINTR) {
		t->restart = RESTART_NONE;
		return true;
	}
	return false;
}

void restart_note_signal(struct thread *t, struct delivery *d, const struct user_regs_struct *regs)
{
	long nr = (long)regs->orig_rax, ret = (long)regs->rax;
	/* the handler matters only to a call that may restart, or to one pending */
	bool asks = (nr >= 0 && restart_is_code(ret)) || t->restart == RESTART_NEXT;

	restart_rule_signal(t, nr, ret, site_of(t, regs->rip - 2), asks && delivery_caught(d));
}

/* Whether a signal the thread does not block is waiting for it. */
static bool signal_pending(pid_t tid)
{
	struct status_field f[3] = { { "SigPnd", 16, 0 }, { "ShdPnd", 16, 0 }, { "SigBlk", 16, 0 } };

	return !procfs_status(tid, f, 3) || ((f[0].value | f[1].value) & ~f[2].value);
}

bool restart_remakes_eintr(const struct thread *t, long ret)
{
	return ret == -EINTR && !signal_pending(t->tid);
}

void restart_note_interrupt(struct thread *t, bool ours)
{
	struct user_regs_struct regs;

	if (ptrace(PTRACE_GETREGS, t->tid, 0, &regs) < 0 || (long)regs.orig_rax < 0)
		return;
	/* Some calls do not restart after a ptrace stop: they return EINTR even with
	 * no signal at all (epoll_wait, sigtimedwait, semop, socket calls with a
	 * timeout: signal(7)). A stop systrace caused for a patch must not show: with
	 * no signal waiting, the call is made again (a timeout starts over). */
	if (ours && restart_remakes_eintr(t, (long)regs.rax)) {
		regs.rip -= 2;
		regs.rax = regs.orig_rax;
		if (ptrace(PTRACE_SETREGS, t->tid, 0, &regs) < 0)
			return;
		regs.rax = (uint64_t)-ERESTARTNOINTR; /* counted as the restart it now is */
		regs.rip += 2;
	}
	restart_rule_interrupt(t, (long)regs.orig_rax, (long)regs.rax, site_of(t, regs.rip - 2),
			       regs.rip == SYSTRACE_GATE_SYSCALL_IP || regs.rip == SYSTRACE_STACKLESS_SYSCALL_IP, ours);
}

bool restart_note_sigreturn(struct thread *t, uint64_t stack_pointer)
{
	uint64_t saved[2];
	struct iovec local[2] = { { &saved[0], 8 }, { &saved[1], 8 } };
	struct iovec remote[2] = { { (void *)(stack_pointer + SIGFRAME_RAX), 8 },
				   { (void *)(stack_pointer + SIGFRAME_RIP), 8 } };

	if (t->restart != RESTART_IF_FRAME_SAYS)
		return false;
	if (process_vm_readv(t->tid, local, 2, remote, 2, 0) != 16) {
		t->restart = RESTART_NONE;
		return false;
	}
	return restart_rule_frame(t, (long)saved[0], site_of(t, saved[1]), site_of(t, saved[1] - 2));
}

void restart_expect_reissue(struct thread *t, uint64_t site, long raw_nr)
{
	expect(t, RESTART_NEXT, site, raw_nr, RESTART_BY_REISSUE);
}

bool restart_is_repeat(struct thread *t, uint64_t site, long raw_nr, bool is_restart_syscall)
{
	if (t->restart != RESTART_NEXT)
		return false;
	t->restart = RESTART_NONE;
	t->restart_cause = RESTART_BY_SIGNAL;
	return site == t->restart_site && (raw_nr == t->restart_nr || is_restart_syscall);
}
