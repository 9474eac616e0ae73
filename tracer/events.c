#include "events.h"

#include <errno.h>
#include <linux/audit.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "call_times.h"
#include "children.h"
#include "counting.h"
#include "early.h"
#include "gate.h"
#include "handoff.h"
#include "held_statuses.h"
#include "known_sites.h"
#include "lib_hook.h"
#include "libc_calls.h"
#include "library.h"
#include "nested_ptrace.h"
#include "own_filter.h"
#include "patching.h"
#include "placement.h"
#include "proc_maps.h"
#include "procfs.h"
#include "region.h"
#include "restarts.h"
#include "results.h"
#include "serve_times.h"
#include "shared_region.h"
#include "signal_fixups.h"
#include "sigreturn_arm.h"
#include "signals.h"
#include "site_reuse.h"
#include "stops.h"
#include "syscall_log.h"
#include "tasks.h"
#include "tracer_threads.h"
#include "tracee_wait.h"
#include "tsc_clock.h"

#ifndef __X32_SYSCALL_BIT
#define __X32_SYSCALL_BIT 0x40000000
#endif

static pid_t root_pid;
/* A job-control signal systrace received (signals.c) that the command's delivery
 * stop then showed, or one the command sent itself: its group-stop with it is the
 * job's (root_stopped_by). */
static int root_stop_expected;
static bool root_stop_own, root_stopped_own; /* sent itself: expected, and taken */
static int root_stopped_by; /* the job-control signal the command stopped with, or 0 */
static sig_atomic_t root_stop_continued; /* signals_continued when it stopped */
static struct run_result *result;
static int nr_execve[ABI_COUNT], nr_execveat[ABI_COUNT];
static int nr_clone[ABI_COUNT], nr_clone3[ABI_COUNT], nr_fork[ABI_COUNT], nr_vfork[ABI_COUNT];
static int nr_exit[ABI_COUNT], nr_exit_group[ABI_COUNT];
static int nr_munmap, nr_restart_syscall[ABI_COUNT], nr_rt_sigreturn;
static int nr_getaffinity[ABI_COUNT], nr_setaffinity[ABI_COUNT], nr_arch_prctl;

static void resume(pid_t tid, int request, int sig)
{
	struct thread *t = thread_find(tid);

	/* where the write protocol moved the thread at this stop is its call's return
	 * address only for results_resume, which took it already: at any other stop
	 * (an interrupt's, a signal's) it was a place to resume at, no return address,
	 * and kept it would send the thread's next ptraced call back there through the
	 * pad (the stub's own syscall made again, or a restart rewound twice: a crash
	 * of blocked_threads in 1 run of 50) */
	if (t)
		t->moved_to = 0;
	/* a call whose log entry waits for its result is followed to its exit stop,
	 * whatever stops (a clone's event, a restart) come before it */
	if (request == PTRACE_CONT && syscall_log_on() && t && t->log_is_waiting)
		request = PTRACE_SYSCALL;
	/* and one decided from the pad's address, whose registers go back there */
	if (request == PTRACE_CONT && t && t->recheck_return)
		request = PTRACE_SYSCALL;
	/* ESRCH: killed (SIGKILL) while stopped; its death report follows */
	ptrace(request, tid, 0, sig);
}

/* The syscalls the loop treats specially, by counter index in every ABI. */
static void learn_numbers(void)
{
	for (enum syscall_abi abi = 0; abi < ABI_COUNT; abi++) {
		nr_execve[abi] = syscall_index_of(abi, "execve");
		nr_execveat[abi] = syscall_index_of(abi, "execveat");
		nr_clone[abi] = syscall_index_of(abi, "clone");
		nr_clone3[abi] = syscall_index_of(abi, "clone3");
		nr_fork[abi] = syscall_index_of(abi, "fork");
		nr_vfork[abi] = syscall_index_of(abi, "vfork");
		nr_exit[abi] = syscall_index_of(abi, "exit");
		nr_exit_group[abi] = syscall_index_of(abi, "exit_group");
		nr_restart_syscall[abi] = syscall_index_of(abi, "restart_syscall");
		nr_getaffinity[abi] = syscall_index_of(abi, "sched_getaffinity");
		nr_setaffinity[abi] = syscall_index_of(abi, "sched_setaffinity");
	}
	nr_rt_sigreturn = syscall_index_of(ABI_X86_64, "rt_sigreturn");
	nr_munmap = syscall_index_of(ABI_X86_64, "munmap");
	nr_arch_prctl = syscall_index_of(ABI_X86_64, "arch_prctl");
}

static uint64_t read_clone3_flags(pid_t tid, uint64_t args_addr)
{
	uint64_t flags = 0;
	struct iovec local = { &flags, sizeof(flags) }, remote = { (void *)args_addr, sizeof(flags) };

	if (process_vm_readv(tid, &local, 1, &remote, 1, 0) != sizeof(flags))
		return 0;
	return flags;
}

/* A child that escaped the tracer would get ENOSYS from every syscall (the filter is
 * inherited): CLONE_UNTRACED is taken out of the call before it runs. */
static void keep_child_traced(struct thread *t, enum syscall_abi abi, bool via_struct, uint64_t args_addr)
{
	t->clone_flags &= ~(uint64_t)CLONE_UNTRACED;
	if (via_struct) {
		ptrace(PTRACE_POKEDATA, t->tid, (void *)args_addr, (void *)t->clone_flags);
	} else {
		struct user_regs_struct regs;

		if (ptrace(PTRACE_GETREGS, t->tid, 0, &regs) == 0) {
			*(abi == ABI_I386 ? &regs.rbx : &regs.rdi) = t->clone_flags;
			ptrace(PTRACE_SETREGS, t->tid, 0, &regs);
		}
	}
}

/* The ABI and counter index of a seccomp stop's call. */
static int call_index(const struct __ptrace_syscall_info *info, enum syscall_abi *abi)
{
	long nr = (long)info->seccomp.nr;
	int idx;

	*abi = ABI_X86_64;
	if (info->arch == AUDIT_ARCH_I386) {
		*abi = ABI_I386;
	} else if (nr & __X32_SYSCALL_BIT) {
		*abi = ABI_X32;
		nr &= ~(long)__X32_SYSCALL_BIT;
	}
	idx = syscall_index(*abi, nr);
	return idx >= 0 ? idx : syscall_index(*abi, SYSCALL_NR_OUT_OF_RANGE);
}

/* How the result of a call (not execve, not rt_sigreturn) is learned. */
static enum result_kind result_kind_of(enum syscall_abi abi, int idx)
{
	if (idx == nr_clone[abi] || idx == nr_clone3[abi] || idx == nr_fork[abi] || idx == nr_vfork[abi])
		return RESULT_OF_CREATION;
	if (idx == nr_exit[abi] || idx == nr_exit_group[abi])
		return RESULT_OF_NOTHING;
	return RESULT_OF_CALL;
}

/* The clone flags of a call that may create a thread or process, for its event. */
static void note_clone_flags(struct thread *t, enum syscall_abi abi, int idx, const uint64_t *args)
{
	if (idx == nr_clone[abi] || idx == nr_clone3[abi]) {
		bool via_struct = idx == nr_clone3[abi];

		t->clone_flags = via_struct ? read_clone3_flags(t->tid, args[0]) : args[0];
		if (t->clone_flags & CLONE_UNTRACED)
			keep_child_traced(t, abi, via_struct, args[0]);
	} else if (idx == nr_fork[abi]) {
		t->clone_flags = SIGCHLD;
	} else if (idx == nr_vfork[abi]) {
		t->clone_flags = CLONE_VM | CLONE_VFORK | SIGCHLD;
	}
}

/* How to resume an affinity call: a thread kept on the tracer's CPU must not see it
 * in sched_getaffinity's result, which is rewritten at its exit stop; a successful
 * sched_setaffinity is the program's own choice, kept from then on. */
static int affinity_resume(struct thread *t, enum syscall_abi abi, int idx, const uint64_t *args)
{
	pid_t pid = (pid_t)args[0];

	if (idx == nr_setaffinity[abi]) {
		t->affinity_call = AFFINITY_SET;
		t->affinity_target = pid == 0 ? t->tid : pid;
		placement_own_affinity_begin(t->affinity_target);
		return PTRACE_SYSCALL;
	}
	if (idx == nr_getaffinity[abi] && placement_hides_mask(pid == 0 ? t->tid : pid)) {
		t->affinity_call = AFFINITY_GET;
		t->affinity_buf = args[2];
		return PTRACE_SYSCALL;
	}
	return PTRACE_CONT;
}

/* Whether a seccomp status's stop is over (got: what PTRACE_GET_SYSCALL_INFO
 * returned, its errno read at once). SIGKILL takes a thread out of any stop: killed
 * (another thread's exit_group, often while its status waited among the held ones)
 * it runs to its exit stop, whose event, reported next or held already, counts the
 * call it was entering (count_unseen_entry). A PTRACE_CONT now would let it out of
 * that exit stop before its event is seen: the call lost, its exit unseen. */
static bool seccomp_stop_gone(pid_t tid, long got, int err)
{
	siginfo_t si;

	if (got < 0)
		return err == ESRCH; /* running: not stopped any more */
	return ptrace(PTRACE_GETSIGINFO, tid, 0, &si) < 0 || si.si_code == (SIGTRAP | (PTRACE_EVENT_EXIT << 8));
}

/* At an execve's seccomp stop (one that could not go in-process: its first at the
 * site, or under --log or --time): counted when its result is known, at the exec
 * event in the image it creates, or failed, in its caller, when the pad or its exit
 * stop gives the result (a shell's try of each PATH folder stops once, not twice).
 * True if t was resumed here. */
static bool begin_exec(struct thread *t, int idx, uint64_t site, uint64_t back)
{
	t->exec_index = idx;
	t->exec_site = (struct site_record){ .addr = site, .syscall = idx };
	image_name_sites(t->img, t->tid, &t->exec_site);
	syscall_log_drain(t); /* the in-process calls of the image it may end */
	call_times_start(t);
	if (call_times_on()) { /* its time from its exit stop, not its next one */
		resume(t->tid, own_filter_recheck(t, PTRACE_SYSCALL, back), 0);
		return true;
	}
	results_expect(t, RESULT_OF_CALL, idx, site, false);
	return false;
}

static void on_seccomp(struct thread *t)
{
	struct __ptrace_syscall_info info = { 0 }; /* zeroed: valgrind does not know this request writes it */
	struct image *img = t->img;
	enum patch_result patched = PATCH_RESUME;
	enum syscall_abi abi;
	struct site_record *s;
	uint64_t site, back;
	enum restart_cause cause;
	bool repeat, reissued;
	int idx, request, err;
	long got;

	got = ptrace(PTRACE_GET_SYSCALL_INFO, t->tid, sizeof(info), &info);
	err = errno;
	if (got <= 0 || info.op != PTRACE_SYSCALL_INFO_SECCOMP) {
		count_stop(img, STOP_OTHER);
		if (!seccomp_stop_gone(t->tid, got, err))
			resume(t->tid, PTRACE_CONT, 0);
		return;
	}
	t->entry_seen = true;
	if (t->setup && early_on_seccomp(t, (long)info.seccomp.nr)) {
		resume(t->tid, PTRACE_CONT, 0);
		return;
	}
	idx = call_index(&info, &abi);
	/* a call at a stub's own syscall belongs to the site the stub stands for */
	back = results_call_ip(t, info.instruction_pointer);
	site = as_site_of(img->as, back - 2);
	if (library_is_control((long)info.seccomp.nr, info.seccomp.args)) {
		count_stop(img, STOP_OTHER); /* before READY is answered: early */
		t->entry_seen = false; /* not the program's call: none to count if killed */
		library_on_control(t, site, info.seccomp.args);
		resume(t->tid, PTRACE_CONT, 0);
		return;
	}
	/* a second entry: the kernel's restart, or the call patching.c put back after
	 * borrowing the thread (reissued), which is patched now */
	cause = t->restart_cause;
	repeat = restart_is_repeat(t, site, (long)info.seccomp.nr, idx == nr_restart_syscall[abi]);
	/* Nothing of the program's asked for a rewind onto the pad: a TIF_SIGPENDING no
	 * stop answered (write_protocol.c's PTRACE_INTERRUPT sent as the thread entered
	 * this call, whose seccomp stop cleared the trap but not the flag) or task work
	 * (io_uring's completions) */
	if (!repeat && results_pad_rewound(t, info.instruction_pointer, site)) {
		repeat = true;
		cause = RESTART_BY_INTERRUPT;
	}
	reissued = repeat && cause == RESTART_BY_REISSUE;
	/* a call patching.c put back is a stop of patching, not of the call */
	count_stop(img, stop_call_is_lifecycle(idx) && !reissued ? STOP_LIFECYCLE : STOP_OTHER);
	img->rec.restarted += repeat && cause == RESTART_BY_SIGNAL;
	if (idx == nr_execve[abi] || idx == nr_execveat[abi]) {
		if (begin_exec(t, idx, site, back))
			return;
	} else if (repeat) {
		results_expect(t, result_kind_of(abi, idx), idx, site, true);
		call_times_repeat(t); /* its time from its first start */
		if (!reissued) {
			resume(t->tid, results_resume(t, PTRACE_CONT, back, idx != nr_rt_sigreturn), 0);
			return;
		}
	} else {
		if (idx == nr_rt_sigreturn) {
			sigreturn_on_call(t);
			if (restart_note_sigreturn(t, info.stack_pointer))
				results_interrupted(t, t->restart_site, t->restart_nr);
			fixups_on_sigreturn(t, info.stack_pointer);
		} else if (idx == nr_munmap) {
			/* name sites while the code they lie in is still mapped */
			if (img->unnamed_sites)
				image_name_sites(img, t->tid, NULL);
			patching_on_munmap(t, info.seccomp.args[0], info.seccomp.args[1]);
			site_reuse_on_munmap(t, info.seccomp.args[0], info.seccomp.args[1]);
		} else if (idx == nr_arch_prctl) {
			library_on_arch_prctl(t, info.seccomp.args[0]);
		} else if (abi == ABI_X86_64) {
			own_filter_on_call(t, (long)info.seccomp.nr, info.seccomp.args);
		}
		note_clone_flags(t, abi, idx, info.seccomp.args);
		/* at its own syscall instruction, not a stub's: whose code it is now */
		if (site == back - 2)
			site_reuse_on_trap(t, site);
		s = count_ptraced(img, idx, site);
		if (idx == nr_rt_sigreturn)
			results_of_sigreturn(t, idx, site, info.stack_pointer);
		else
			results_expect(t, result_kind_of(abi, idx), idx, site, false);
		if (abi == ABI_X86_64)
			libc_calls_on_call(t, s, back);
		/* last: emptying the thread's log buffer may move the site records */
		if (syscall_log_on())
			syscall_log_enter(t, idx, site);
	}
	/* a program's own ptrace of systrace's threads, and its waits for them */
	if (abi == ABI_X86_64 && !repeat && nested_on_call(t, (long)info.seccomp.nr, info.seccomp.args))
		return;
	if (abi == ABI_X86_64)
		patched = patching_on_call(t, site, site != info.instruction_pointer - 2, (long)info.seccomp.nr);
	if (patched == PATCH_HELD)
		return;
	if (patched == PATCH_REISSUE) {
		t->moved_to = 0; /* its result comes after the entry it makes again */
		request = PTRACE_CONT;
	} else {
		request = results_resume(t, affinity_resume(t, abi, idx, info.seccomp.args), back, idx != nr_rt_sigreturn);
	}
	resume(t->tid, request, 0);
}

/* The execve the thread is in, now that its result is known: counted in the image
 * it created (or, failed, in its caller), at the site named before the old program
 * went away. */
static void count_exec(struct thread *t, int64_t ret)
{
	struct image *img = t->img;
	struct site_record *s = count_ptraced(img, t->exec_index, t->exec_site.addr);

	if (!s->named) {
		s->object = t->exec_site.object;
		s->offset = t->exec_site.offset;
		s->symbol = t->exec_site.symbol;
		s->symbol_offset = t->exec_site.symbol_offset;
		s->named = true;
		img->unnamed_sites--;
	}
	count_result(img, s, t->exec_index, ret);
	call_times_returned(t, t->exec_index, s->addr, call_times_now());
	if (syscall_log_on()) {
		syscall_log_enter(t, t->exec_index, s->addr);
		syscall_log_result(t, ret);
	}
	if (img->hidden && ret < 0)
		result->root_exec_errno = (int)-ret;
	t->exec_index = -1;
	t->exec_returned = false;
	t->result_wait = RESULT_NONE; /* (at the exec event: the pad never ran) */
	t->entry_seen = false; /* its next stop is another call's */
}

/* A failed execve whose result the pad left (results.c), now taken. */
static void take_exec_result(struct thread *t)
{
	if (t->exec_index >= 0 && t->exec_returned)
		count_exec(t, t->exec_ret);
}

/* The exit of the calls resumed with PTRACE_SYSCALL: execve, and the affinity calls. */
static void on_syscall_exit(struct thread *t, bool interrupted)
{
	struct __ptrace_syscall_info info = { 0 }; /* zeroed: valgrind does not know this request writes it */
	bool known = ptrace(PTRACE_GET_SYSCALL_INFO, t->tid, sizeof(info), &info) > 0;

	if (known && info.op == PTRACE_SYSCALL_INFO_EXIT)
		own_filter_on_exit(t); /* first: rip back after the call's site */

	/* write_protocol.c's interrupt, taken by this stop (no stop event follows): a
	 * call that gave up for it is made again, as at that event. Taken by the entry
	 * stop of a call made again while followed to its exit (--log), it is for the
	 * exit stop still: the call can give up for it all the same (EINTR) */
	if (interrupted && known && info.op == PTRACE_SYSCALL_INFO_ENTRY) {
		t->interrupted = true;
	} else if (interrupted) {
		restart_note_interrupt(t, true);
		if (t->restart == RESTART_NEXT) {
			resume(t->tid, PTRACE_CONT, 0);
			return;
		}
	} else if (known && info.op == PTRACE_SYSCALL_INFO_EXIT && restart_is_code(info.exit.rval)
		   && t->restart == RESTART_NONE) {
		/* given up with no stop of ours to answer (task work; an interrupt its entry
		 * stop took): the kernel enters it again, silently, unless a signal's
		 * delivery stop comes first and says otherwise (restart_note_signal) */
		restart_note_interrupt(t, true);
	}
	if (known && info.op == PTRACE_SYSCALL_INFO_EXIT) {
		/* a call taken out of the log routine: its entry has the result, and
		 * counts its error */
		results_on_exit(t, info.exit.rval,
				restart_is_code(info.exit.rval) || !syscall_log_answer_left(t, info.exit.rval));
		if (!restart_is_code(info.exit.rval))
			syscall_log_result(t, info.exit.rval);
		/* a failed execve (a successful one was counted at its exec event);
		 * -ERESTART* is no result: the call will be entered again */
		if (t->exec_index >= 0 && !restart_is_code(info.exit.rval))
			count_exec(t, info.exit.rval);
		else if (t->affinity_call == AFFINITY_GET && !info.exit.is_error)
			placement_rewrite_mask(t, t->affinity_buf, (long)info.exit.rval);
		else if (t->affinity_call == AFFINITY_SET)
			placement_own_affinity_end(t->affinity_target, !info.exit.is_error);
	}
	t->exec_index = -1;
	t->affinity_call = AFFINITY_NONE;
	resume(t->tid, PTRACE_CONT, 0);
}

/* The flags of a creation made in-process (a plain fork through its stub, a vfork
 * through its stackless stub: no seccomp stop noted them), from the creator's
 * registers in the gate; else those its seccomp stop noted. A vfork's also gives
 * where its stub goes on: the child's way out of the gate (*landing, else 0). */
static uint64_t creation_flags(struct thread *t, uint64_t *landing)
{
	struct user_regs_struct regs;

	*landing = 0;
	if (ptrace(PTRACE_GETREGS, t->tid, 0, &regs) < 0)
		return t->clone_flags;
	if (regs.rip == SYSTRACE_STACKLESS_SYSCALL_IP && t->slot >= 0) {
		*landing = region_slot(t->slot)->pad_end[REGION_SLOT_STACKLESS];
		return CLONE_VM | CLONE_VFORK | SIGCHLD;
	}
	if (regs.rip != SYSTRACE_GATE_SYSCALL_IP)
		return t->clone_flags;
	return (long)regs.orig_rax == SYS_clone ? regs.rdi : SIGCHLD;
}

static void on_clone_event(struct thread *t, int event)
{
	uint64_t landing, flags = creation_flags(t, &landing);

	t->clone_flags = 0;
	t->in_vfork = event == PTRACE_EVENT_VFORK; /* until its next stop */
	/* a creator killed since it stopped here is not written to */
	if (children_on_creator_event(t, event, flags, landing) && (event != PTRACE_EVENT_CLONE || !(flags & CLONE_THREAD)))
		patching_on_fork(t);
	resume(t->tid, PTRACE_CONT, 0);
}

static void on_death(struct thread *t, int status);

/* Where an image handed to this thread came to (handoff.h), or one that stayed:
 * true when it is to be set up and resumed here, false when a status of it came on
 * the way (held for the loop, as at its exec event, without the set-up) or it was
 * killed while parked (ended so). */
static bool handed(struct thread *t, enum handoff_result r)
{
	if (r != HANDOFF_NONE)
		nested_handoff_taken();
	if (r == HANDOFF_NONE || r == HANDOFF_TAKEN)
		return true;
	if (r == HANDOFF_GONE) {
		/* (its pid may be another process's by now: nothing read from /proc) */
		on_death(t, SIGKILL);
		return false;
	}
	return false;
}

/* The new image at its exec event: set up, and on its way. */
static void set_up_image(struct thread *t)
{
	early_on_exec(t);
	if (!t->img->rec.exe)
		t->img->rec.exe = procfs_exe(t->tid);
	resume(t->tid, PTRACE_CONT, 0); /* counted: its exit stop is not needed */
}

/* t's new image handed to serving thread `to` (tracer_threads.h), this one under
 * the test mode with one thread: false when it is not to be set up here. */
static bool hand_off(struct thread *t, unsigned to)
{
	struct inbox_item item = { .kind = INBOX_IMAGE };
	enum handoff_result r;

	/* named now: killed while parked, it is gone before the receiver could */
	t->img->rec.exe = procfs_exe(t->tid);
	r = handoff_park(t, &item.handoff);

	if (r == HANDOFF_PARKED && to != tracer_threads_me()) {
		thread_give(t);
		item.handoff.thread = t;
		tracer_threads_post(to, &item);
		return false;
	}
	if (r == HANDOFF_PARKED)
		r = handoff_take(&item.handoff);
	return handed(t, r);
}

static void pass_on_here(int sig, pid_t from, uint64_t at_ns);

/* What another serving thread posted to this one. */
static void take_posted(struct inbox_item *item)
{
	struct thread *t = item->handoff.thread;

	if (item->kind == INBOX_SIGNAL) {
		pass_on_here(item->sig, item->from, item->at_ns);
		return;
	}
	if (item->kind == INBOX_NESTED) {
		nested_on_message(&item->nested);
		return;
	}
	thread_take(t);
	placement_adopt(t);
	if (handed(t, handoff_take(&item->handoff)))
		set_up_image(t);
}

static void on_exec_event(struct thread *t)
{
	int to;
	uint64_t exec_at;
	unsigned long former;
	struct image *old = t->img, *img;
	pid_t tgid = t->tid;

	/* The leader alive and alone executed itself: no need to ask (two ptrace calls
	 * an image). Killed since it stopped here, the message is its exit status: taken
	 * as the leader's own exec (its death is on its way). */
	if ((old->live_threads == 1 && !t->exit_event_seen)
	    || !tracee_event_message(tgid, PTRACE_EVENT_EXEC, &former))
		former = (unsigned long)tgid;
	if ((pid_t)former != tgid) {
		/* a non-leader thread executed: it takes the leader's tid, and the old
		 * leader is gone without a death report of its own */
		struct thread *leader = t, *execer = thread_find((pid_t)former);

		if (execer) {
			/* the stop was the leader's: the execer's last call before its
			 * execve, answered at the pad, is taken now, in the old image
			 * (taken at its next stop, it was counted in the new one, at a
			 * site of the old memory) */
			results_on_stop(execer, PTRACE_EVENT_EXEC);
			if (!leader->exit_event_seen)
				leader->img->live_threads--;
			thread_remove(leader);
			/* what it ptrace-attached ends under the tid it attached with
			 * (an exec ends it: nested_ptrace.h) */
			nested_thread_leaves(execer);
			thread_rekey(execer, tgid);
			t = execer;
			old = t->img;
		}
	}
	image_take_times(old, tgid);
	t->recheck_return = 0; /* the new program's registers */
	t->handler_frames = 0; /* and no handler of the old one's */
	t->sigreturn_armed = false;
	img = image_new(tgid, old->rec.image + 1, old->rec.ppid, NULL); /* its path: early_on_exec */
	img->own_filter = old->own_filter; /* the kernel keeps filters across exec */
	library_image_starts(img, NULL, false);
	img->rec.started_by_exec = true;
	img->user_ns0 = old->rec.user_ns + old->user_ns0;
	img->sys_ns0 = old->rec.sys_ns + old->sys_ns0;
	img->perf = old->perf;
	for (int i = 0; i < PERF_COUNTERS; i++)
		old->perf.fd[i] = -1;
	if (old->hidden) {
		/* systrace's child became the command: image 1 of the root pid; what the
		 * child did before (a failed execve before /bin/sh runs a script without
		 * #!) was systrace's own doing */
		img->rec.ptrace_stops += old->rec.ptrace_stops;
		img->rec.stops_lifecycle += old->rec.stops_lifecycle;
		img->rec.stops_early += old->rec.stops_early;
		img->rec.stops_late += old->rec.stops_late;
		img->rec.instrument += image_syscalls(&old->rec);
		img->rec.start_ns = old->rec.start_ns;
		perf_counters_open(&img->perf, tgid);
		result->root_started = true;
	}
	/* the execing thread moves to the new image, whose first call is this execve;
	 * the old one ends */
	old->live_threads--;
	thread_detach(t);
	thread_attach(t, img);
	if (t->exec_index >= 0) {
		exec_at = t->exec_site.addr;
		count_exec(t, 0);
	} else {
		/* made in-process: its stub counted it in the old image, whose sites
		 * can be named only as planned now (its memory is gone) */
		image_name_sites_as_planned(old);
		exec_at = count_move_exec(old, img, (const int[]){ nr_execve[ABI_X86_64], nr_execveat[ABI_X86_64] }, 2);
	}
	known_sites_note_ran(old, exec_at);
	image_end(old, IMAGE_EXECED, 0);
	proc_maps_forget(tgid); /* its mappings are the new memory's */
	if (handoff_possible(t, root_pid) && (to = tracer_threads_pick()) >= 0 && !hand_off(t, (unsigned)to))
		return;
	set_up_image(t);
}

/* A thread killed (another thread's exit_group, a fatal signal) while in a seccomp
 * stop that the tracer had not read yet: the kernel drops that stop, but the exit
 * event still shows the call it was entering (orig_rax, rax -ENOSYS, rip after its
 * syscall). Such a call is counted here, at its entry, as every call a process is
 * killed inside is: a thread's exit behind a barrier was lost so in 1 run of 2.
 * Not a call already seen (entry_seen), awaited (its exit stop, its creation event),
 * made in-process or through the return pad (the gate's page), or an execve; nor
 * one that returned -ENOSYS, seen to end at a stop on its way back (its exit stop,
 * a signal's that took it out of the pad), which results.c took the number of. */
static void count_unseen_entry(struct thread *t, const struct user_regs_struct *regs)
{
	uint8_t insn[2];
	struct iovec local = { insn, 2 }, remote;
	int idx;

	if (t->entry_seen || t->exec_index >= 0 || t->result_wait == RESULT_AT_EXIT || t->result_wait == RESULT_BY_EVENT
	    || (long)regs->orig_rax < 0 || (long)regs->rax != -ENOSYS
	    || regs->rip - 2 - SYSTRACE_GATE_ADDR < 4096) /* the gate's page */
		return;
	/* a restart of a call already counted (its kernel re-entry dropped so) */
	if (syscall_index(ABI_X86_64, (long)regs->orig_rax) == nr_restart_syscall[ABI_X86_64]
	    || (t->restart != RESTART_NONE && t->restart_site == as_site_of(t->img->as, regs->rip - 2)))
		return;
	remote = (struct iovec){ (void *)(regs->rip - 2), 2 };
	if (process_vm_readv(t->tid, &local, 1, &remote, 1, 0) != 2 || insn[0] != 0x0f || insn[1] != 0x05)
		return; /* (only the syscall instruction: an int 0x80's number is another ABI's) */
	idx = syscall_index(ABI_X86_64, (long)regs->orig_rax);
	if (idx < 0)
		idx = syscall_index(ABI_X86_64, SYSCALL_NR_OUT_OF_RANGE);
	count_ptraced(t->img, idx, as_site_of(t->img->as, regs->rip - 2));
	if (syscall_log_on())
		syscall_log_enter(t, idx, as_site_of(t->img->as, regs->rip - 2));
}

/* Whether a thread at its exit event leaves by its own exit(2), the others going
 * on, rather than with its whole process (exit_group, a fatal signal, another
 * thread's exec): orig_rax is the call it was in. 1 is i386's exit, and also
 * x86-64's write, which the call's ABI tells apart. */
static bool exits_alone(pid_t tid, const struct user_regs_struct *regs)
{
	struct __ptrace_syscall_info info;

	if (regs->orig_rax == SYS_exit || regs->orig_rax == (SYS_exit | __X32_SYSCALL_BIT))
		return true;
	return regs->orig_rax == 1 && ptrace(PTRACE_GET_SYSCALL_INFO, tid, sizeof(info), &info) > 0
	       && info.arch == AUDIT_ARCH_I386;
}

static void on_exit_event(struct thread *t)
{
	struct image *img = t->img;
	struct user_regs_struct regs;
	bool regs_read = ptrace(PTRACE_GETREGS, t->tid, 0, &regs) == 0;

	if (regs_read)
		count_unseen_entry(t, &regs);
	t->exit_event_seen = true;
	/* The last stop at which the process's memory and times can be read: its last
	 * thread's exit event, or, when the process ends as a whole, the first exit
	 * event of it: a thread killed so (SIGKILL, from the group exit) as the tracer
	 * handles a stop of its dies without its own (killed_after_pad in 1 run of 6,
	 * its sites left without names and its times unknown). Read there, again at
	 * a later one that counted a call at a site not named yet (a thread killed
	 * entering it), and at the last: a thread killed alone (seccomp's
	 * KILL_THREAD) looks the same. */
	if (--img->live_threads == 0
	    || ((!img->read_at_group_exit || img->unnamed_sites) && regs_read && !exits_alone(t->tid, &regs))) {
		img->read_at_group_exit = true;
		image_name_sites(img, t->tid, NULL);
		image_take_times(img, img->rec.pid);
	}
	resume(t->tid, PTRACE_CONT, 0);
}

/* The signal forward_signal is passing on, and its sender, while it takes the stops
 * that have come. */
static _Thread_local int passing_sig;
static _Thread_local pid_t passing_from;

#define SIG_BIT(sig) (1ull << ((sig) - 1))

/* Whom a signal sent to systrace is passed on to: the command, or once it has
 * exited, every process it left behind (their leaders). */
static bool image_is_target(const struct image *img)
{
	return img->rec.pid == root_pid || result->root_status_known;
}

static bool forward_target(const struct thread *t)
{
	return t->img && t->tid == t->img->rec.pid && image_is_target(t->img);
}

static void note_own_copy_pending(struct thread *t, void *arg)
{
	uint64_t pending;

	(void)arg;
	if (forward_target(t) && procfs_status_u64(t->tid, "ShdPnd", 16, &pending)) {
		t->img->own_copies |= pending & SIG_BIT(passing_sig);
		t->img->copies_to_come |= pending & SIG_BIT(passing_sig);
	}
}

/* A delivery stop of a signal that systrace is to pass on, from the same sender:
 * seen while forward_signal waits, or before it ran (waitpid gave the stop, and the
 * handler ran on the way back from it); or one that systrace has not been sent yet,
 * kept (took): a group's kill queues the command's copy first, and the tracer, at
 * nice -20, may serve its delivery stop before the sender's kill reaches systrace's
 * own copy (a SIGTSTP passed on twice in 1 run of 40 to 6 of 50 of
 * test_group_signals beside the e2e suite). */
static void note_own_copy_taken(struct thread *t, int sig)
{
	siginfo_t si;

	/* (a shell's SIGCHLD, the most frequent, is never passed on: no read) */
	if (!signals_passed_on(sig) || !t->img || !image_is_target(t->img)
	    || ptrace(PTRACE_GETSIGINFO, t->tid, 0, &si) < 0 || si.si_code != SI_USER)
		return;
	if (t->img->copies_to_come & SIG_BIT(sig))
		t->img->copies_to_come &= ~SIG_BIT(sig); /* seen pending, and counted then */
	else if ((sig == passing_sig && si.si_pid == passing_from) || signals_forward_pending(sig, si.si_pid))
		t->img->own_copies |= SIG_BIT(sig);
	else
		t->img->took = (struct took){ sig, si.si_pid, monotonic_ns() };
}

/* A kill(2) of sig from `from` that reached systrace at at_ns: whether img took its
 * own copy of the same kill just before (then it is forgotten). The window allows
 * for the sender's preemption between its two queueings; a kill of the command
 * alone followed that soon by one of systrace alone, same signal, same sender,
 * would be taken for one. */
#define TOOK_WINDOW_NS (50 * 1000 * 1000)
static bool took_just_before(struct image *img, int sig, pid_t from, uint64_t at_ns)
{
	bool same = from >= 0 && img->took.sig == sig && img->took.from == from && at_ns >= img->took.at_ns
		    && at_ns - img->took.at_ns <= TOOK_WINDOW_NS;

	if (same)
		img->took.sig = 0;
	return same;
}

static bool is_stop_signal(int sig)
{
	return sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU;
}

static void note_other_process(struct thread *t, void *found)
{
	if (t->img && t->img->rec.pid != root_pid)
		*(bool *)found = true;
}

/* The command stopping itself (kill -STOP $$, raise(SIGTSTP)): natively its shell
 * shows the job stopped, so systrace stops with it. Only while it is the only
 * process traced, by any serving thread: a stopped systrace serves no stops, and any
 * other process would be held at its next one, where natively it runs on. */
static bool stops_itself(pid_t tid, int sig)
{
	siginfo_t si;
	bool others = false;

	if (!is_stop_signal(sig) || ptrace(PTRACE_GETSIGINFO, tid, 0, &si) != 0
	    || (si.si_code != SI_USER && si.si_code != SI_TKILL) || si.si_pid != root_pid)
		return false;
	tasks_for_each_thread(note_other_process, &others);
	return !others && !tasks_traced_elsewhere();
}

/* After the command's exit, the processes it left are no job: natively the shell has
 * the command's status and the terminal back, and no Ctrl-Z reaches them. Here
 * their group is still the terminal's (the shell waits for systrace), and its stop
 * would leave them stopped with nobody to continue them: systrace would wait for
 * them for ever. */
static bool terminal_stop_after_root(pid_t tid, int sig)
{
	siginfo_t si;

	return sig == SIGTSTP && result->root_status_known && ptrace(PTRACE_GETSIGINFO, tid, 0, &si) == 0
	       && si.si_code == SI_KERNEL;
}

static void on_signal(struct thread *t, int sig)
{
	struct delivery d = { t->tid, sig, -1 };
	struct user_regs_struct regs;

	if (t->setup && early_on_fault(t, sig)) {
		resume(t->tid, PTRACE_CONT, 0);
		return;
	}
	if (terminal_stop_after_root(t->tid, sig)) {
		sig = 0;
		d.caught = 0; /* as a signal ignored: no handler runs */
	}
	note_own_copy_taken(t, sig);
	if (t->img && t->img->rec.pid == root_pid && sig == signals_job_stop) {
		root_stop_expected = sig;
		signals_job_stop = 0;
	} else if (t->img && t->img->rec.pid == root_pid && stops_itself(t->tid, sig)) {
		root_stop_expected = sig;
		root_stop_own = true;
	}
	if (t->img && ptrace(PTRACE_GETREGS, t->tid, 0, &regs) == 0) {
		/* first: a thread in the return pad or taken out of the gate restarts
		 * at its own site */
		call_times_on_signal(t, &regs); /* as the signal found it */
		if (results_leave_pad(t, &regs))
			ptrace(PTRACE_SETREGS, t->tid, 0, &regs);
		take_exec_result(t);
		fixups_on_signal(t, &d, &regs);
		own_filter_on_signal(t, sig, &regs);
		restart_note_signal(t, &d, &regs);
		sigreturn_on_delivery(t, &regs, &d);
	}
	resume(t->tid, PTRACE_CONT, sig);
}

/* A group or interrupt stop of a thread whose call's result is to come: out of the
 * pad, so that a call the kernel enters again does so at its own site. At an
 * interrupt of ours, an EINTR that only the stop caused is no result: the call is
 * made again (restart_note_interrupt), and its result (its error, its time) is
 * the call's made again. */
static void leave_pad_at_stop(struct thread *t, bool ours)
{
	struct user_regs_struct regs;
	uint64_t ret;
	bool remade;

	if ((t->result_wait != RESULT_AT_PAD && t->result_wait != RESULT_BY_EVENT)
	    || ptrace(PTRACE_GETREGS, t->tid, 0, &regs) != 0)
		return;
	ret = regs.rax;
	remade = ours && (long)regs.orig_rax >= 0 && restart_remakes_eintr(t, (long)ret);
	if (remade)
		regs.rax = (uint64_t)-RESTART_CODE_NOINTR; /* for results_leave_pad: not returned */
	if (results_leave_pad(t, &regs)) {
		regs.rax = ret;
		ptrace(PTRACE_SETREGS, t->tid, 0, &regs);
	}
	take_exec_result(t);
}

static void on_stop_event(struct thread *t, int sig)
{
	if (t->state != THREAD_AWAIT_INITIAL_STOP)
		leave_pad_at_stop(t, !is_stop_signal(sig));
	if (t->state == THREAD_AWAIT_INITIAL_STOP) {
		t->state = THREAD_RUNNING;
		own_filter_child_starts(t);
		library_thread_starts(t);
		resume(t->tid, PTRACE_CONT, 0);
	} else if (is_stop_signal(sig)) {
		/* group-stop: stay stopped until SIGCONT, as without a tracer; the
		 * command's own stop is its job's, which systrace then takes too */
		/* (any thread of the command's process: one that does not block the
		 * signal takes it, and the group stops with it) */
		if (t->img && t->img->rec.pid == root_pid) {
			if (sig == root_stop_expected) {
				root_stopped_by = sig;
				root_stop_continued = signals_continued;
				root_stopped_own = root_stop_own;
			}
			root_stop_expected = 0;
			root_stop_own = false;
		}
		fixups_on_group_stop(t);
		restart_note_interrupt(t, false);
		resume(t->tid, PTRACE_LISTEN, 0);
	} else {
		/* an interrupt (write_protocol.c stops threads so): a blocking call restarts */
		restart_note_interrupt(t, true);
		resume(t->tid, PTRACE_CONT, 0);
	}
}

static void on_death(struct thread *t, int status)
{
	struct image *img = t->img;

	if (img) {
		early_on_stop(t);
		lib_hook_settle(t, true);
		results_on_stop(t, PTRACE_EVENT_EXIT); /* a result the pad left since its last stop */
		if (!t->exit_event_seen && --img->live_threads == 0 && !img->rec.times_known)
			img->rec.end_ns = monotonic_ns();
		if (t->tid == img->rec.pid) {
			/* the leader is reported last: the process is gone (the first death of
			 * the root pid is the command's: the pid cannot be reused before it) */
			if (t->tid == root_pid && !img->hidden && !result->root_status_known) {
				result->root_status = status;
				result->root_status_known = true;
			}
			image_end_by_status(img, status);
		}
	}
	if (t->creator_event_pending) {
		/* kept, without its image, until its creator's event comes */
		thread_detach(t);
		t->gone = true;
	} else {
		thread_remove(t);
	}
}

static void dispatch(pid_t tid, int status)
{
	struct thread *t = thread_find(tid);
	int event = (unsigned)status >> 16, sig;
	bool interrupted;

	if (t && t->gone) {
		/* its tid was reused before its creator's event came */
		thread_remove(t);
		t = NULL;
	}
	if (WIFEXITED(status) || WIFSIGNALED(status)) {
		if (t)
			on_death(t, status);
		else
			children_on_unknown_death(tid, status);
		return;
	}
	if (!WIFSTOPPED(status))
		return;
	if (!t)
		t = children_on_unknown_stop(tid);
	if (nested_holds(t, status))
		return; /* stopped for the program that ptrace-attached it */
	placement_note_stop(t, monotonic_ns());
	sig = WSTOPSIG(status);
	interrupted = t->interrupted;
	/* kept by a seccomp stop for a stop that answers it: one sent while the thread
	 * was in this stop is answered later (an interrupt stop, an exit stop); one sent
	 * as it entered was taken by the seccomp stop itself, and its call may still
	 * give up for it with no stop after (on_seccomp: the pad's own syscall) */
	t->interrupted = event == PTRACE_EVENT_SECCOMP && interrupted;
	if (!t->img) {
		/* a thread that vanished before it could be placed: let it go its way */
		resume(tid, PTRACE_CONT, event == 0 && sig != (SIGTRAP | 0x80) ? sig : 0);
		return;
	}
	early_on_stop(t);
	lib_hook_settle(t, false);
	sigreturn_on_stop(t);
	t->in_vfork = false;
	if (event != PTRACE_EVENT_SECCOMP)
		count_stop(t->img, stop_kind_of(event, sig, t->state == THREAD_AWAIT_INITIAL_STOP, t->exec_index >= 0));
	results_on_stop(t, event);
	take_exec_result(t);
	switch (event) {
	case PTRACE_EVENT_SECCOMP: on_seccomp(t); break;
	case PTRACE_EVENT_FORK:
	case PTRACE_EVENT_VFORK:
	case PTRACE_EVENT_CLONE: on_clone_event(t, event); break;
	case PTRACE_EVENT_EXEC: on_exec_event(t); break;
	case PTRACE_EVENT_EXIT: on_exit_event(t); break;
	case PTRACE_EVENT_STOP: on_stop_event(t, sig); break;
	default:
		if (sig == (SIGTRAP | 0x80))
			on_syscall_exit(t, interrupted);
		else /* a signal on its way: deliver it as it would be without us */
			on_signal(t, sig);
	}
}

/* A status answered, and the time it took from its arrival (serve_times.h). */
static void serve(pid_t tid, int status, uint64_t arrived)
{
	struct serve_sample sample;

	serve_times_begin(&sample);
	dispatch(tid, status);
	serve_times_add(serve_kind_of(status), tsc_now() - arrived, &sample);
}

/* A signal systrace was sent, passed on. */
struct passing {
	int sig;
	pid_t from;
	uint64_t at_ns;
};

static void pass_on(struct thread *t, void *arg)
{
	const struct passing *p = arg;

	if (!forward_target(t))
		return;
	if (!(t->img->own_copies & SIG_BIT(p->sig)) && !took_just_before(t->img, p->sig, p->from, p->at_ns))
		kill(t->tid, p->sig);
	t->img->own_copies &= ~SIG_BIT(p->sig);
}

/* A termination or job-control request sent to systrace goes to the command (or the
 * processes it left), unless the sender's kill(2) gave it a copy of its own: sent to
 * the process group they share (a shell's `kill %1`), natively it has the signal
 * once, not twice. siginfo does not tell a kill of the group from a kill of
 * systrace, but the command's copy shows: a kill of a group queues the signal to
 * its newest processes first, so when systrace's handler has run the command's copy
 * is still pending (ShdPnd, read before the waits), or its delivery stop is waiting
 * (waitpid reports it from its dequeue on) or held, or was seen already
 * (note_own_copy_taken), with the same sender; or it was served before systrace's
 * copy was queued, just before (took_just_before). */
static void pass_on_here(int sig, pid_t from, uint64_t at_ns)
{
	struct passing p = { sig, from, at_ns };
	int status;
	pid_t tid;

	passing_sig = sig;
	passing_from = from;
	if (from >= 0) {
		tasks_for_each_thread(note_own_copy_pending, NULL);
		while ((tid = waitpid(-1, &status, TRACEE_WAIT_FLAGS | WNOHANG)) > 0)
			held_status_push(tid, status);
		while (held_status_pop(&tid, &status))
			serve(tid, status, tsc_now());
	}
	passing_sig = 0;
	tasks_for_each_thread(pass_on, &p);
}

/* (in the first serving thread: each other passes it on to its own tracees) */
static void forward_signal(int sig, pid_t from, uint64_t at_ns)
{
	/* no job is left to stop (terminal_stop_after_root) */
	if (result->root_status_known && is_stop_signal(sig))
		return;
	if (tracer_threads_count() > 1)
		tracer_threads_post_all(&(struct inbox_item){ .kind = INBOX_SIGNAL, .sig = sig, .from = from,
							      .at_ns = at_ns });
	pass_on_here(sig, from, at_ns);
}

/* The command stopped (Ctrl-Z, a background job's SIGTTIN or SIGTTOU, a SIGSTOP):
 * handles what has already arrived, then stops systrace too, with the same signal,
 * so that its shell sees the job stopped as without systrace; the other tracees take
 * their stops first, so none is left half-stopped. */
static void stop_when_tracees_have(int sig)
{
	struct timespec pause = { 0, 5 * 1000 * 1000 };

	for (int quiet_rounds = 0; quiet_rounds < 4;) {
		int status;
		pid_t tid = held_status_pop(&tid, &status) ? tid : waitpid(-1, &status, TRACEE_WAIT_FLAGS | WNOHANG);

		if (tid > 0) {
			serve(tid, status, tsc_now());
			quiet_rounds = 0;
		} else {
			if (tid < 0 && errno == ECHILD)
				break;
			nanosleep(&pause, NULL);
			quiet_rounds++;
		}
	}
	/* a SIGCONT since the command stopped (fg right after Ctrl-Z, while the
	 * others took their stops) continued the job already */
	signals_stop_self(sig, root_stop_continued);
	root_stopped_by = 0; /* its stop, seen again while systrace stopped */
	/* continued itself (kill -CONT of systrace, which was sent the stop alone, or
	 * which stopped for the command's own stop): the command too; fg and bg
	 * continue the whole group anyway */
	if (signals_job_stop_forwarded || root_stopped_own)
		kill(root_pid, SIGCONT);
	root_stopped_own = false;
}

/* After a wait that found one stop, the others that came meanwhile, kept to be
 * served in turn: waitpid(-1) reports tracees in the kernel's order, not the order
 * they stopped in, so serving one at a time lets the newest (a build's short jobs)
 * go first again and again while the oldest (make) waits (docs/scaling.md). */
#define BATCH_MAX 64
/* A collection that finds nothing costs a waitpid per stop: after one, the next few
 * waits go without (the oldest tracee waits that many stops more at most). */
#define COLLECT_SKIP 3

static _Thread_local unsigned collect_skip;

static void collect_pending(void)
{
	int status, n = 0;
	pid_t tid;

	while (n < BATCH_MAX && (tid = waitpid(-1, &status, TRACEE_WAIT_FLAGS | WNOHANG)) > 0) {
		held_status_push(tid, status);
		n++;
	}
	collect_skip = n ? 0 : COLLECT_SKIP;
}

/* After a wait that found tid: the others that came meanwhile, when it is time to
 * look. A new child's first stop often comes before its creator's event (waitpid
 * reports the newest tracee first): it goes after a creation event that waits, so
 * that it is known when it is served and needs no /proc read to be placed. False
 * if tid's status was kept for later. */
static bool after_wait(pid_t tid, int status)
{
	bool unknown = !thread_find(tid);

	if (collect_skip && !unknown) {
		collect_skip--;
		return true;
	}
	collect_pending();
	if (unknown && WIFSTOPPED(status) && held_status_creation_waits()) {
		held_status_push(tid, status);
		return false;
	}
	return true;
}

static void serve_waited(pid_t tid, int status, uint64_t arrived)
{
	if (after_wait(tid, status))
		serve(tid, status, arrived);
}

void events_setup(void)
{
	learn_numbers();
	stops_setup();
	nested_setup(resume);
}

void events_begin(pid_t root, struct run_result *res)
{
	struct image *launcher;

	root_pid = root;
	result = res;
	launcher = image_new(root, 0, getpid(), NULL);
	library_image_starts(launcher, NULL, false);
	launcher->hidden = true;
	placement_launched(thread_add(root, launcher, THREAD_RUNNING));
}

void events_run(void)
{
	bool first = tracer_threads_me() == 0;

	for (;;) {
		struct inbox_item item;
		int status;
		pid_t tid, from;
		uint64_t at;

		if (signals_give_up)
			break;
		/* first: what forward_signal serves may be the command's stop (the
		 * signals sent to systrace are the first thread's) */
		for (int sig; first && ((sig = signals_take_forward(&from, &at))
					       || (sig = signals_take_stop_forward(&from, &at)));)
			forward_signal(sig, from, at);
		if (root_stopped_by) {
			int sig = root_stopped_by;

			root_stopped_by = 0;
			stop_when_tracees_have(sig);
		}
		if (placement_due)
			placement_check();
		nested_look_again();
		/* what another serving thread posted, then the statuses held (threads
		 * stopped for a patch, a batch) */
		if (tracer_threads_take(&item))
			take_posted(&item);
		else if (held_status_pop(&tid, &status))
			serve(tid, status, tsc_now());
		else if ((tid = waitpid(-1, &status, TRACEE_WAIT_FLAGS)) > 0)
			serve_waited(tid, status, tsc_now());
		else if (tid < 0 && errno == ECHILD && !tracer_threads_idle())
			break;
	}
	if (signals_give_up && first)
		tracer_threads_stop_all();
}
