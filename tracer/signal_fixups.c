#include "signal_fixups.h"

#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/user.h>

#include "call_times.h"
#include "gate.h"
#include "gate_code.h"
#include "procfs.h"
#include "region.h"
#include "restarts.h"
#include "shared_region.h"
#include "syscall_log.h"
#include "syscall_names.h"
#include "time_fixups.h"
#include "tsc_clock.h"

void fixups_on_sigreturn(struct thread *t, uint64_t stack_pointer)
{
	struct addr_space *as = t->img->as;
	uint64_t rip, to;
	struct iovec local = { &rip, 8 }, remote = { (void *)(stack_pointer + SIGFRAME_RIP), 8 };

	if (!as || !as->npatched || process_vm_readv(t->tid, &local, 1, &remote, 1, 0) != 8)
		return;
	/* a patch there whose code was unmapped, or replaced by another object's, is not
	 * followed into its stub (the tracer did not see the munmap) */
	as_drop_replaced(as, t->tid, rip, rip + 1);
	/* back to a syscall that is now the start of a jump (a restart the handler's
	 * SA_RESTART asked for): through the stub's own, traced, syscall instead, so
	 * that the tracer sees the restart and does not count it twice */
	to = as_translate(as, rip);
	for (size_t i = 0; to == rip && i < as->sites.n; i++) {
		const struct patch *p = &as->patches[i];

		if (p->state == PATCH_WRITTEN && p->plan.shape == PATCH_AFTER && p->plan.start == rip)
			to = p->stub.slow;
	}
	if (to && to != rip) {
		local.iov_base = &to;
		process_vm_writev(t->tid, &local, 1, &remote, 1, 0);
	}
}

/* The error of an in-process call that returned while its stub's count of it will
 * not run, counted in the thread's slot as the stub would have. */
static void count_stub_error(struct thread *t, const struct patch *p, long nr)
{
	struct region_slot *slot;

	if (t->slot < 0 || !patch_has_counter(p))
		return;
	slot = region_slot(t->slot);
	slot->site_errors[p->counter]++;
	if (p->plan.nr < 0 && nr >= 0 && nr < REGION_NRS)
		slot->nr_errors[nr]++;
	slot->pad[REGION_SLOT_ERRORS] = 1;
}

/* A thread in the gate (blocked in, or just back from, an in-process call) about to
 * run a handler is given the state it would have in the original syscall: the stub's
 * call and red-zone step undone (and the log routine's frame, with the flags it
 * saved), rip after the site's syscall. The handler's frame, and whatever unwinds
 * through it (pthread_cancel, a C++ exception, a backtrace), then sees the program's
 * own code, which has unwind information; on return the frame logic (rt_sigreturn)
 * sends it back through the stub where needed. */
/* to_restart: a thread with no handler to run, whose call the kernel will enter
 * again, goes to the stub's own traced syscall instead of the site's: the kernel's
 * restart (rip - 2) is then made there, where the tracer sees it as the restart it
 * is and counts it once in `restarted` (in the gate it would go unseen). */
/* (From the gate's stackless entry, a vfork's: nothing on the stack, the stub's
 * landing in the thread's slot.) */
static void leave_gate(struct thread *t, struct addr_space *as, struct user_regs_struct *regs, bool to_restart)
{
	/* the gate's return address, then: from a stub whose number varies, the
	 * number it pushed; under the log routine (gate_code.S), its mark, the number,
	 * rdx, the flags, the stub's return address, the pushed counter; under the
	 * time routine, its start, the number, rdx, the stub's return address, the
	 * site's ticks, then what the stub pushed */
	uint64_t frame[7] = { 0 }, back, popped = 8 + 128, nr;
	struct iovec local = { frame, sizeof(frame) }, remote = { (void *)regs->rsp, sizeof(frame) };
	const struct patch *p;
	struct time_frame timed;
	bool stackless = regs->rip == SYSTRACE_STACKLESS_SYSCALL_IP;
	bool logged = false, is_timed = false, returned = !restart_is_code((int64_t)regs->rax);

	if (stackless) {
		if (t->slot < 0)
			return;
		back = region_slot(t->slot)->pad_end[REGION_SLOT_STACKLESS];
		popped = 0;
	} else if (process_vm_readv(t->tid, &local, 1, &remote, 1, 0) != sizeof(frame)) {
		return;
	} else {
		back = frame[0];
		logged = back == GATE_AT(gate_log_returned);
		is_timed = time_routine_frame(frame, SYSTRACE_GATE_ADDR, &timed);
	}
	if (logged) {
		back = frame[5];
		popped = sizeof(frame) + 128;
	} else if (is_timed) {
		back = timed.stub_return;
		popped = 8 * TIME_FRAME_WORDS + 128;
	}
	if (!(p = as_patch_of_stub(as, back)) || (to_restart && returned))
		return;
	if (!logged && p->plan.nr < 0)
		popped += 8;
	nr = p->plan.nr >= 0 ? (uint64_t)p->plan.nr : logged ? frame[2] : is_timed ? timed.nr : frame[1];
	/* the routine will not add the call's time: to this stop, or for a call the
	 * kernel enters again or a handler ends (EINTR), from its start on */
	if (is_timed && returned && patch_has_counter(p))
		call_times_left_gate(t, p->counter, nr, timed.start);
	else if (is_timed)
		call_times_interrupted_start(t, timed.start);
	/* the stub (or routine) will not see the result: a call that returned gets it
	 * here; one the kernel restarts goes through the stub's traced syscall, counted
	 * once; one a handler makes return EINTR, at the handler's rt_sigreturn */
	/* (not returned: a handler may make it return EINTR, whose error is the
	 * call's, not that of a restart_syscall the kernel entered in its place) */
	t->left_gate_site = returned ? 0 : p->plan.site;
	t->left_gate_index = syscall_index(ABI_X86_64, (long)nr);
	/* the log routine will not store the result: one that came now, one of a
	 * restart at the stub's traced syscall at its exit stop (syscall_log.h) */
	t->log_left_mark = logged && !returned ? frame[1] : 0;
	t->log_left_site = p->plan.site;
	if (logged && returned)
		syscall_log_set_result(t, frame[1], (int64_t)regs->rax);
	else if (returned && (int64_t)regs->rax < 0 && (int64_t)regs->rax >= -4095)
		/* the number from the stub's frame: orig_rax is -1 when an interrupt,
		 * not the syscall's return, brought the signal at this rip */
		count_stub_error(t, p, (long)nr);
	if (logged)
		regs->eflags = frame[4];
	regs->rsp += popped;
	regs->rip = to_restart ? p->stub.after : p->plan.site + 2;
	ptrace(PTRACE_SETREGS, t->tid, 0, regs);
}

static bool read_word(pid_t tid, uint64_t addr, uint64_t *word)
{
	struct iovec local = { word, 8 }, remote = { (void *)addr, 8 };

	return process_vm_readv(tid, &local, 1, &remote, 1, 0) == 8;
}

static bool read_word_of(void *ctx, uint64_t addr, uint64_t *word)
{
	return read_word(((struct thread *)ctx)->tid, addr, word);
}

/* A thread interrupted in the log routine (gate_code.S) about to run a handler, whose
 * own calls must find the buffer consistent and take entries after the routine's
 * whole: true if regs were changed. Before the call is made, the thread goes back to
 * retry (an entry it marked taken back: it is made again after the handler's);
 * once it returned, the entry gets its result (in rax) now, not after the handler's
 * drain has taken it, and a thread inside (check, checked) goes back to check. */
static bool log_routine_rewind(struct thread *t, struct user_regs_struct *regs)
{
	uint64_t rip = regs->rip, word, mark = regs->rcx, nr;

	if (rip > GATE_AT(gate_log_retry) && rip < GATE_AT(gate_log_committed)) {
		regs->rip = GATE_AT(gate_log_retry);
		return true;
	}
	/* at the gate's syscall not made, under the routine's frame (the mark from it:
	 * rcx is the syscall's if the kernel restarts the call), the number still in
	 * rax (not a restart_syscall the kernel put there: that call goes on) */
	if (rip == SYSTRACE_GATE_ADDR
	    && !(read_word(t->tid, regs->rsp, &word) && word == GATE_AT(gate_log_returned)
		 && read_word(t->tid, regs->rsp + 8, &mark) && read_word(t->tid, regs->rsp + 16, &nr)
		 && nr == regs->rax))
		return false;
	if (rip == GATE_AT(gate_log_committed) || rip == SYSTRACE_GATE_ADDR) {
		if (!syscall_log_unmark(t, mark))
			return false;
		regs->rsp += rip == SYSTRACE_GATE_ADDR ? 8 : 0;
		regs->rip = GATE_AT(gate_log_retry);
		return true;
	}
	if (rip < GATE_AT(gate_log_returned) || rip >= GATE_AT(gate_log_checked))
		return false;
	if (rip == GATE_AT(gate_log_returned) ? read_word(t->tid, regs->rsp, &word) : (word = regs->rcx, true))
		syscall_log_set_result(t, word, (int64_t)regs->rax);
	if (rip > GATE_AT(gate_log_check)) {
		regs->rip = GATE_AT(gate_log_check);
		return true;
	}
	return false;
}

void fixups_on_signal(struct thread *t, struct delivery *d, struct user_regs_struct *regs)
{
	struct addr_space *as = t->img->as;
	const struct patch *p;
	uint64_t back;

	if (!as->npatched)
		return;
	if (regs->rip == SYSTRACE_GATE_SYSCALL_IP || regs->rip == SYSTRACE_STACKLESS_SYSCALL_IP) {
		if (delivery_caught(d))
			leave_gate(t, as, regs, false);
		else if ((long)regs->orig_rax >= 0 && restart_is_code((int64_t)regs->rax))
			leave_gate(t, as, regs, true);
		return;
	}
	/* at the stackless entry's syscall not made: back to its stub's handoff, which
	 * stores the word again (a handler's own vfork would change it) */
	if (regs->rip == GATE_AT(gate_stackless)) {
		if (t->slot < 0 || !(p = as_patch_of_stub(as, region_slot(t->slot)->pad_end[REGION_SLOT_STACKLESS]))
		    || !p->stub.handoff)
			return;
		regs->rip = p->stub.handoff;
		ptrace(PTRACE_SETREGS, t->tid, 0, regs);
		return;
	}
	if ((p = as_patch_of_stub(as, regs->rip))) {
		/* blocked at the stub's own syscall (a call of a slow number, or one an
		 * earlier signal without a handler moved there to restart, leave_gate): a
		 * handler sees the site's own syscall, as from the gate */
		if (regs->rip == p->stub.after && delivery_caught(d)) {
			regs->rip = p->plan.site + 2;
			ptrace(PTRACE_SETREGS, t->tid, 0, regs);
			return;
		}
		back = stub_rewind(&p->stub, regs->rip);
		if (back == regs->rip)
			return;
		regs->rip = back;
	} else if (syscall_log_on() ? !log_routine_rewind(t, regs)
				    : !call_times_on() || !delivery_caught(d)
					      || !time_routine_fixup(regs, SYSTRACE_GATE_ADDR, tsc_now(), read_word_of, t)) {
		/* the time routine's windows matter only to a handler that runs */
		return;
	}
	ptrace(PTRACE_SETREGS, t->tid, 0, regs);
}

void fixups_on_group_stop(struct thread *t)
{
	struct user_regs_struct regs;
	struct addr_space *as = t->img ? t->img->as : NULL;

	if (as && as->npatched && ptrace(PTRACE_GETREGS, t->tid, 0, &regs) == 0
	    && (regs.rip == SYSTRACE_GATE_SYSCALL_IP || regs.rip == SYSTRACE_STACKLESS_SYSCALL_IP)
	    && (long)regs.orig_rax >= 0 && restart_is_code((int64_t)regs.rax))
		leave_gate(t, as, &regs, true);
}
