/* The results of ptraced calls, for their errors, without a second stop per call.
 *
 * A ptraced call stops once, at its seccomp stop, where the tracer counts it. Its
 * result comes later, and a PTRACE_SYSCALL exit stop to read it would double the
 * stops. Instead the call is made to return through the gate page:
 *
 *   the program          the kernel              the tracer (results_resume)
 *   site:  syscall  ---> seccomp stop  --------> slot[RETURN] = where the call
 *                                                  returns (site + 2)
 *                                                slot[RESULT] = REGION_RESULT_NONE
 *                                                rip = gate_pad (PTRACE_POKEUSER)
 *                        the call runs, and returns to rip:
 *   gate page (tracer/gate_code.S, in every process at SYSTRACE_GATE_ADDR)
 *     gate_pad_syscall: syscall                  (a restart no stop saw: traced)
 *     gate_pad:  mov %rax,%gs:slot[RESULT]
 *                jmp *%gs:slot[RETURN]  -------> site + 2, as without systrace
 *                                                at the thread's next stop, of any
 *                                                kind: slot[RESULT] is the result
 *                                                (results_on_stop)
 *
 * slot is the thread's counter slot in the region (%gs, preload/region.h). The
 * kernel returns through iret when rip was changed, restoring the rcx it saved
 * (site + 2) and r11 (the flags): the program sees what the syscall leaves.
 * What must not show of the pad, and where it is put right:
 *  - a handler's frame would hold a pad address: the tracer sees every signal
 *    first, and puts the thread where the call leaves it (results_leave_pad from
 *    events.c's on_signal): rip = slot[RETURN], its result taken from rax, or for a
 *    call the kernel will enter again (a restart code), left to that entry at its
 *    own site, where restarts.h finds it as any restart. A call that a handler
 *    makes return EINTR is told by the handler's frame (results_interrupted);
 *  - the same at group and interrupt stops, after which the kernel restarts calls;
 *  - the write protocol moves threads out of the bytes it patches: a thread in the
 *    pad is moved by its slot[RETURN] (results_pad_return);
 *  - the seccomp filter, run again after the stop, sees the pad's address as the
 *    call's; to systrace's filter it is one more traced address, and a program's
 *    own filters decide the call there (own_filter.h), which is why a call that
 *    the pad does not serve, in an image with such filters, is resumed from the
 *    pad's address all the same, to its exit stop.
 * Where the pad cannot serve (no slot or gate in the image, a program that took
 * %gs, an i386 or x32 call, --log, which follows calls to their exit anyway), the
 * call is followed to its exit stop (so is an execve under --time). An execve comes
 * back through the pad only when it failed (a successful one ends at its exec
 * event): its result is handed to events.c, which counts the call and its error
 * together in the caller. Calls with no result to learn here: exit and exit_group
 * (they do not return), rt_sigreturn (its result is the rax its frame restores),
 * and the clone family, whose child would return through the pad too: a creation
 * succeeded when its event came before the caller's next stop. */
#include "results.h"

#include <errno.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <stddef.h>

#include "call_times.h"
#include "counting.h"
#include "gate_code.h"
#include "own_filter.h"
#include "region.h"
#include "restarts.h"
#include "shared_region.h"
#include "syscall_log.h"
#include "tsc_clock.h"

/* The call's result, and under --time its end (a TSC; 0: not known). */
static void resolve(struct thread *t, int64_t ret, uint64_t end, bool count)
{
	if (t->exec_index >= 0) {
		/* a failed execve: events.c counts it in full, call and result */
		t->exec_returned = true;
		t->exec_ret = ret;
		t->result_wait = RESULT_NONE;
		return;
	}
	/* (a call restarted after a stop took it out of the gate has no record of its
	 * site yet when it was made in-process: its call comes at the slot's reading) */
	if (count)
		count_result(t->img, image_site(t->img, t->result_site, true), t->result_index, ret);
	call_times_returned(t, t->result_index, t->result_site, end);
	t->result_wait = RESULT_NONE;
	t->entry_seen = false;
}

/* Under --time, when the call that came back through the pad returned: the pad's
 * stamp once whole (its high half, written last, is not 0 but in a machine's first
 * second), else now. */
static uint64_t pad_end(const struct thread *t)
{
	uint64_t stamp;

	if (!call_times_on())
		return 0;
	stamp = region_slot(t->slot)->pad[REGION_SLOT_PAD_END];
	return stamp >> 32 ? stamp : tsc_now();
}

void results_expect(struct thread *t, enum result_kind kind, int idx, uint64_t site, bool again)
{
	if (again && t->result_wait != RESULT_NONE) {
		/* the first entry's: restart_syscall's result is the interrupted call's */
		if (t->result_wait != RESULT_BY_EVENT)
			t->result_wait = RESULT_EXPECTED;
		return;
	}
	/* restart_syscall entered at the stub's traced syscall for an in-process call
	 * a stop left (signal_fixups.c, leave_gate): the call's, as its count is */
	if (again && idx == syscall_index(ABI_X86_64, SYS_restart_syscall) && t->left_gate_site == site) {
		idx = t->left_gate_index;
		t->left_gate_site = 0;
	}
	t->result_index = idx;
	t->result_site = site;
	call_times_forget(t);
	t->result_wait = kind == RESULT_OF_CALL ? RESULT_EXPECTED : kind == RESULT_OF_CREATION ? RESULT_BY_EVENT
											: RESULT_NONE;
}

void results_of_sigreturn(struct thread *t, int idx, uint64_t site, uint64_t stack_pointer)
{
	int64_t rax;
	struct iovec local = { &rax, 8 }, remote = { (void *)(stack_pointer + SIGFRAME_RAX), 8 };

	/* a call the handler interrupted is no longer waited for: the frame has said
	 * whether it returned EINTR (results_interrupted) or is entered again */
	t->result_wait = RESULT_NONE;
	t->entry_seen = false; /* back in the program's code, without a stop */
	if (process_vm_readv(t->tid, &local, 1, &remote, 1, 0) == 8)
		count_result(t->img, image_site(t->img, site, false), idx, rax);
}

void results_interrupted(struct thread *t, uint64_t site, long raw_nr)
{
	int idx = syscall_index(ABI_X86_64, raw_nr);
	bool ptraced = (t->result_wait == RESULT_AT_PAD || t->result_wait == RESULT_AT_EXIT) && t->result_site == site;
	uint64_t mark = t->log_left_site == site ? t->log_left_mark : 0;
	bool logged;

	/* restart_syscall, which the kernel enters in place of a call a stop left
	 * (a sleep, a futex wait with a timeout), stands for that call: the error is
	 * the call's, as its one count is */
	if (idx == syscall_index(ABI_X86_64, SYS_restart_syscall))
		idx = ptraced ? t->result_index : t->left_gate_site == site ? t->left_gate_index : -1;
	t->left_gate_site = 0;
	if (ptraced)
		t->result_wait = RESULT_NONE;
	/* a call taken out of the log routine: its entry gets EINTR, and counts it
	 * (no restart will answer it: syscall_log_answer_left) */
	t->log_left_mark = 0;
	logged = mark && !ptraced && syscall_log_set_result(t, mark, -EINTR);
	/* an in-process call's site may have no record yet: its calls come at the
	 * slot's reading */
	if (idx >= 0 && !logged)
		count_errors(t->img, image_site(t->img, site, true), idx, 1);
	call_times_interrupted(t, idx, site);
}

static bool pad_serves(const struct thread *t)
{
	const struct image *img = t->img;

	return t->slot >= 0 && !t->setup && img->as && (img->ready || img->as->mapped_at_exec) && !img->as->gs_taken
	       && t->result_index / SYSCALL_NR_SPAN == ABI_X86_64 && !syscall_log_on() && !own_filter_needs_exit(t);
}

int results_resume(struct thread *t, int request, uint64_t rip, bool decided_again)
{
	struct region_slot *slot;

	if (t->moved_to)
		rip = t->moved_to;
	t->moved_to = 0;
	if (t->result_wait != RESULT_EXPECTED) {
		if (t->result_wait == RESULT_BY_EVENT)
			call_times_resumed(t); /* to its event */
		return decided_again ? own_filter_recheck(t, request, rip) : request;
	}
	if (request != PTRACE_CONT || !pad_serves(t)) {
		t->result_wait = RESULT_AT_EXIT;
		call_times_resumed(t);
		return own_filter_recheck(t, PTRACE_SYSCALL, rip);
	}
	slot = region_slot(t->slot);
	slot->pad[REGION_SLOT_RETURN] = rip;
	slot->pad[REGION_SLOT_RESULT] = REGION_RESULT_NONE;
	slot->pad[REGION_SLOT_PAD_END] = 0;
	t->result_wait = ptrace(PTRACE_POKEUSER, t->tid, offsetof(struct user_regs_struct, rip),
				GATE_AT(call_times_on() ? gate_time_pad : gate_pad)) == 0
				 ? RESULT_AT_PAD
				 : RESULT_NONE; /* killed meanwhile */
	call_times_resumed(t); /* last: just before the caller resumes it */
	return request;
}

void results_on_stop(struct thread *t, int event)
{
	uint64_t ret;

	switch (t->result_wait) {
	case RESULT_AT_PAD:
		ret = region_slot(t->slot)->pad[REGION_SLOT_RESULT];
		if (ret != REGION_RESULT_NONE)
			resolve(t, (int64_t)ret, pad_end(t), true);
		break;
	case RESULT_BY_EVENT:
		if (event == PTRACE_EVENT_FORK || event == PTRACE_EVENT_VFORK || event == PTRACE_EVENT_CLONE) {
			call_times_returned(t, t->result_index, t->result_site, call_times_now());
			t->result_wait = RESULT_NONE;
			t->entry_seen = false; /* it returns from the call without a stop */
		} else if (event == PTRACE_EVENT_SECCOMP) {
			/* no child: the call failed, and the thread went on, for how long
			 * is not known */
			resolve(t, -1, 0, true);
		}
		else if (event == PTRACE_EVENT_EXIT)
			t->result_wait = RESULT_NONE; /* killed inside: no result */
		break;
	default:
		break;
	}
}

/* A call whose end is known at a stop on its way back, its thread still in it (its
 * exit stop, a signal's or an interrupt's): a death on that way out, with -ENOSYS
 * returned and its number in orig_rax, would look like a call killed at its entry
 * whose stop was never seen, which events.c counts (count_unseen_entry). The kernel
 * needs the number only to restart a call, which this one is not: it goes. True if
 * regs changed. */
static bool forget_number(struct user_regs_struct *regs)
{
	if ((long)regs->rax != -ENOSYS)
		return false;
	regs->orig_rax = (uint64_t)-1;
	return true;
}

void results_on_exit(struct thread *t, int64_t ret, bool count)
{
	if ((t->result_wait != RESULT_AT_EXIT && t->result_wait != RESULT_BY_EVENT) || restart_is_code(ret))
		return;
	resolve(t, ret, call_times_now(), count);
	if (ret == -ENOSYS) /* forget_number, with no registers read here */
		ptrace(PTRACE_POKEUSER, t->tid, offsetof(struct user_regs_struct, orig_rax), (uint64_t)-1);
}

uint64_t *results_pad_return(const struct thread *t, uint64_t rip)
{
	if (t->slot < 0 || rip < GATE_AT(gate_pad_syscall) || rip >= GATE_AT(gate_pad_end))
		return NULL;
	return &region_slot(t->slot)->pad[REGION_SLOT_RETURN];
}

/* A thread inside the timed pad has the result and rdx in its slot, once saved
 * there (rdtsc takes rax and rdx): they go back where the call leaves them. */
static void pad_registers(const struct thread *t, struct user_regs_struct *regs)
{
	const struct region_slot *slot = region_slot(t->slot);

	if (regs->rip >= GATE_AT(gate_time_pad_saved))
		regs->rax = slot->pad[REGION_SLOT_RESULT];
	if (regs->rip >= GATE_AT(gate_time_pad_rdx_saved))
		regs->rdx = slot->pad[REGION_SLOT_PAD_RDX];
}

bool results_leave_pad(struct thread *t, struct user_regs_struct *regs)
{
	uint64_t *back = results_pad_return(t, regs->rip);
	bool returned, changed = false;

	if (back)
		pad_registers(t, regs);
	returned = !restart_is_code((long)regs->rax);
	/* a creation that stopped without its event: failed, unless it is entered again;
	 * then its result comes with that entry (results_expect), and the calls made
	 * before it (a handler's) are not taken for its failure */
	if (t->result_wait == RESULT_BY_EVENT && returned && (long)regs->orig_rax >= 0) {
		resolve(t, (int64_t)regs->rax, call_times_now(), true);
		changed = forget_number(regs);
	} else if (t->result_wait == RESULT_BY_EVENT && (long)regs->orig_rax >= 0) {
		t->result_wait = RESULT_NONE;
	}
	if (!back)
		return changed;
	if (regs->rip == GATE_AT(gate_pad_syscall) || regs->rip == GATE_AT(gate_time_pad_syscall)) {
		/* the kernel moved it back to enter the call again: at its own site */
		regs->rip = *back - 2;
		return true;
	}
	if (t->result_wait == RESULT_AT_PAD && returned) {
		resolve(t, (int64_t)regs->rax, regs->rip >= GATE_AT(gate_time_pad_stamped) ? pad_end(t) : call_times_now(), true);
		forget_number(regs);
	}
	regs->rip = *back;
	return true;
}

static bool at_pad(uint64_t ip)
{
	return ip == GATE_AT(gate_pad) || ip == GATE_AT(gate_time_pad);
}

uint64_t results_call_ip(const struct thread *t, uint64_t ip)
{
	return at_pad(ip) && t->slot >= 0 ? region_slot(t->slot)->pad[REGION_SLOT_RETURN] : ip;
}

bool results_pad_rewound(const struct thread *t, uint64_t ip, uint64_t site)
{
	return at_pad(ip) && t->result_wait == RESULT_AT_PAD && t->result_site == site;
}
