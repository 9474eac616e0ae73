/* The write protocol: how a patch gets into a live memory.
 *
 * A patched call, and who writes each piece (PATCH_BEFORE shown: the covered
 * instructions end at the `syscall`, which stays; PATCH_AFTER covers the syscall
 * and what follows it, and the stub runs those after its call):
 *
 *   the object's code, in the traced process            (written by patch_write,
 *                                                         or known_sites.c in batches,
 *   start                 site    site+2                  through /proc/PID/mem)
 *   |  covered bytes       |      |
 *   +----------------------+------+----------------
 *   | e9 <rel32> cc cc ... | 0f05 | next instruction
 *   +----------------------+------+----------------
 *     | jmp rel32: the stub lies within +-2 GiB      ^
 *     v (AS_REACH; as_stub_room picks it)            | jmp back: site+2 (AFTER: end)
 *   +------------------------------------------------+-----------------------+
 *   | stub memory, 64 KiB areas near the object (addr_space.h): one below    |
 *   | the loader, in reach of the libraries it maps (early.c, at exec), one  |
 *   | below the executable when its sites are known (early.c), or one mapped |
 *   | where the executable or a dlopen'ed object is (patching.c map_area,    |
 *   | borrowing the trapped thread for an mmap)                              |
 *   |                                                                        |
 *   | the stub (patch_build.c -> patcher/stub.c; its bytes in stub.h):        |
 *   |   covered instructions, relocated                                      |
 *   |   mov %gs:c,%r11 ; lea 1(%r11),%r11 ; mov %r11,%gs:c  ---------------------> %gs: this thread's slot
 *   |   lea -128(%rsp),%rsp          (the red zone stays as it was)          |     in the region (memfd;
 *   |   movabs $gate,%r11 ; call *%r11  -----------------------------------------> shared_region.c, region.h):
 *   |   lea 128(%rsp),%rsp ; jmp after                                       |     its site counters, given
 *   |   slow: syscall   numbers that must stop (must_stop.h), restarts       |     by library.c / early.c
 *   |   after: [covered instructions after the syscall] ; jmp back           |
 *   +------------------------------------------------------------------------+
 *                          gate page at SYSTRACE_GATE_ADDR (gate_code.S, copied into
 *                          the region's page 0): `syscall ; ret`, the one syscall the
 *                          filter (filter.c) lets through without a stop
 *
 * The safe protocol (patch_write with stop_others), for a memory that other threads,
 * vfork children or CLONE_VM processes share (the unit is the memory: addr_space.h):
 *
 *   1. T, the trapped thread, is stopped at the seccomp stop of its call.
 *   2. stop_sharers: every other thread U of the memory gets PTRACE_INTERRUPT and is
 *      waited for (100 ms at most). Whatever U reports is held for the event loop
 *      (held_statuses.h), handled after the patch as if waitpid(-1) had returned it.
 *      A U that does not stop sleeps where the interrupt cannot wake it (a vfork
 *      parent): accepted only if /proc/U/syscall shows it in a syscall with its user
 *      rip outside the covered bytes; otherwise the site waits for its next trap.
 *   3. destination, for T and each stopped U, before anything is written:
 *        rip outside the covered bytes, or at their first byte   stays (MOVE_STAY)
 *        rip strictly inside, at an instruction start             that instruction's
 *                                                                 copy in the stub
 *        about to enter the site's syscall again (a restart, or   the stub's `slow`
 *        the call patching.c put back), on the syscall that       syscall: traced,
 *        becomes the jump (PATCH_AFTER)                           seen as the restart
 *        strictly inside but not at an instruction start          cannot: the patch
 *                                                                 is abandoned
 *   4. The stub is written, then the jump (as_write), then the threads are moved.
 *   5. T is resumed by the event loop, which then takes the held statuses; every
 *      thread re-enters user mode through the kernel, after the write is complete.
 *
 * single writes only when T is alone (else the site stays pending); unsafe skips
 * steps 2 and 3 for the other threads. */
#include "write_protocol.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>

#include "grow_array.h"
#include "held_statuses.h"
#include "procfs.h"
#include "results.h"
#include "tracee_wait.h"

/* How long a thread asked to stop may take before the patch waits for another trap. */
#define STOP_TIMEOUT_NS (100 * 1000 * 1000)

/* The other threads of t's memory that may run its code. */
struct sharers {
	struct thread *t;
	struct addr_space *as;
	struct thread **list;   /* NULL where one needs nothing more (gone, blocked outside) */
	bool *stopped;
	size_t n, cap;
};

static void collect_sharer(struct thread *u, void *arg)
{
	struct sharers *sh = arg;

	if (u == sh->t || !u->img || u->img->as != sh->as || u->gone || u->exit_event_seen
	    || u->state != THREAD_RUNNING)
		return;
	sh->list = grow_array(sh->list, &sh->cap, sh->n, sizeof(*sh->list));
	sh->list[sh->n++] = u;
}

static void collect_sharers(struct sharers *sh, struct thread *t, struct addr_space *as)
{
	*sh = (struct sharers){ .t = t, .as = as };
	tasks_for_each_thread(collect_sharer, sh);
	sh->stopped = calloc(sh->n ? sh->n : 1, sizeof(*sh->stopped));
	if (!sh->stopped)
		abort();
}

static void free_sharers(struct sharers *sh)
{
	free(sh->list);
	free(sh->stopped);
}

/* Whether a thread that does not stop (blocked where only a fatal signal wakes it: a
 * vfork parent) is in the kernel, not running, with its user rip outside [lo, hi)
 * (for a call in the return pad, the address it returns to: results.h). */
static bool blocked_outside(const struct thread *u, uint64_t lo, uint64_t hi)
{
	pid_t tid = u->tid;
	const uint64_t *back;
	char path[64], text[256];
	unsigned long long pc = 0;
	const char *last;
	FILE *f;
	bool read;

	snprintf(path, sizeof(path), "/proc/%d/syscall", (int)tid);
	if (!(f = fopen(path, "re")))
		return false;
	read = fgets(text, sizeof(text), f) != NULL;
	fclose(f);
	/* "nr a1 a2 a3 a4 a5 a6 sp pc" inside a syscall; "running" otherwise */
	if (!read || strncmp(text, "running", 7) == 0 || !(last = strrchr(text, ' '))
	    || sscanf(last, " 0x%llx", &pc) != 1)
		return false;
	if ((back = results_pad_return(u, pc)))
		pc = *back;
	return pc <= lo || pc >= hi;
}

/* Step 2: stops every sharer, holding the status each reports. False if one could
 * not be stopped and is not safely blocked outside [lo, hi). */
static bool stop_sharers(struct sharers *sh, uint64_t lo, uint64_t hi)
{
	uint64_t deadline = monotonic_ns() + STOP_TIMEOUT_NS;
	size_t waiting = 0;
	bool ok = true;

	for (size_t i = 0; i < sh->n; i++) {
		struct thread *u = sh->list[i];

		sh->stopped[i] = u->held; /* stopped already, its status in the queue */
		if (!u->held && ptrace(PTRACE_INTERRUPT, u->tid, 0, 0) == 0) {
			u->interrupted = true;
			waiting++;
		} else if (!u->held) {
			sh->list[i] = NULL; /* gone: its death report is on its way */
		}
	}
	for (unsigned round = 0; waiting; round++) {
		struct timespec pause = { 0, 20 * 1000 };
		bool late = monotonic_ns() > deadline;

		for (size_t i = 0; i < sh->n; i++) {
			struct thread *u = sh->list[i];
			int status;

			if (!u || sh->stopped[i])
				continue;
			if (waitpid(u->tid, &status, TRACEE_WAIT_FLAGS | WNOHANG) == u->tid) {
				held_status_push(u->tid, status);
				sh->stopped[i] = true;
				waiting--;
				if (!WIFSTOPPED(status))
					sh->list[i] = NULL;
			} else if (round == 10 || late || u->in_vfork) {
				/* Not stopped after a moment, or a vfork parent at once (its
				 * child is the trapped thread, or another): asleep in the kernel
				 * where the interrupt does not wake it. It cannot run user code
				 * before the interrupt stops it; accepted if it will come back
				 * outside the bytes. */
				if (blocked_outside(u, lo, hi)) {
					sh->list[i] = NULL;
					waiting--;
				} else if (late) {
					ok = false;
				}
			}
		}
		if (late)
			break;
		if (waiting)
			nanosleep(&pause, NULL);
	}
	return ok;
}

enum move {
	MOVE_STAY,       /* outside the covered bytes, or at their first: nothing to do */
	MOVE_TO,         /* to its place in the stub */
	MOVE_IMPOSSIBLE, /* inside, not at an instruction start: the patch must wait */
	MOVE_GONE,       /* its registers cannot be read: it is dying */
};

/* Step 3: where a stopped thread must go so as not to run the bytes being patched
 * (*to, for MOVE_TO; *back: the return pad's word it goes through, when its rip is
 * there, which is then what moves: results.h). A thread about to enter this site's
 * syscall again (a restart, or the call put back after an mmap for stub room),
 * standing on the syscall that becomes the jump, enters it through the stub's own
 * traced syscall: it was counted once already. */
static enum move destination(const struct thread *u, const struct patch *p, struct user_regs_struct *regs,
			     uint64_t *to, uint64_t **back)
{
	uint64_t rip;

	if (ptrace(PTRACE_GETREGS, u->tid, 0, regs) < 0)
		return MOVE_GONE;
	*back = results_pad_return(u, regs->rip);
	rip = *back ? **back : regs->rip;
	if (p->plan.shape == PATCH_AFTER && rip == p->plan.start && u->restart == RESTART_NEXT
	    && u->restart_site == p->plan.site)
		*to = p->stub.slow;
	else
		*to = stub_translate(&p->plan, &p->stub, rip);
	if (!*to)
		return MOVE_IMPOSSIBLE;
	return *to == rip ? MOVE_STAY : MOVE_TO;
}

static bool can_move(const struct thread *u, const struct patch *p)
{
	struct user_regs_struct regs;
	uint64_t to, *back;

	return destination(u, p, &regs, &to, &back) != MOVE_IMPOSSIBLE;
}

static void move_out(struct thread *u, const struct patch *p)
{
	struct user_regs_struct regs;
	uint64_t to, *back;

	if (destination(u, p, &regs, &to, &back) != MOVE_TO)
		return;
	if (back) {
		*back = to;
		return;
	}
	regs.rip = to;
	if (ptrace(PTRACE_SETREGS, u->tid, 0, &regs) == 0)
		u->moved_to = to; /* for the return pad, if u is sent there next */
}

bool patch_write(struct thread *t, struct addr_space *as, const struct patch *p, const uint8_t *stub, size_t len,
		 const uint8_t *jump, bool stop_others)
{
	struct sharers sh = { .n = 0 };
	bool ok = true;

	if (stop_others && !thread_alone_in_memory(t)) {
		collect_sharers(&sh, t, as);
		ok = stop_sharers(&sh, p->plan.start, p->plan.end);
	}
	for (size_t i = 0; ok && i < sh.n; i++)
		if (sh.list[i] && sh.stopped[i])
			ok = can_move(sh.list[i], p);
	ok = ok && can_move(t, p)
	     /* step 4: the stub before the jump to it, and only then threads into it */
	     && as_write(as, t->tid, p->stub.addr, stub, len)
	     && as_write(as, t->tid, p->plan.start, jump, p->plan.end - p->plan.start);
	if (ok) {
		for (size_t i = 0; i < sh.n; i++)
			if (sh.list[i] && sh.stopped[i])
				move_out(sh.list[i], p);
		move_out(t, p);
	}
	free_sharers(&sh);
	return ok;
}

void patches_withdraw(struct thread *t, struct addr_space *as)
{
	patches_withdraw_if(t, as, NULL);
}

void patches_withdraw_if(struct thread *t, struct addr_space *as, bool (*which)(const struct patch *p))
{
	struct sharers sh;

	as->given_up = true;
	collect_sharers(&sh, t, as);
	/* threads inside a stub finish it (stubs stay); none can be inside a jump */
	stop_sharers(&sh, 0, 0);
	/* the original bytes go back only where the jump still is: not over the code of
	 * an object mapped since at the same address */
	as_drop_replaced(as, t->tid, 0, UINT64_MAX);
	for (size_t i = 0; i < as->sites.n; i++) {
		struct patch *p = &as->patches[i];

		if (which && (p->state == PATCH_UNPLANNED || !which(p)))
			continue;
		if (p->state == PATCH_WRITTEN)
			as_write(as, t->tid, p->plan.start, p->plan.original, p->plan.end - p->plan.start);
		if (patch_has_counter(p))
			p->state = PATCH_STALE;
		else
			patch_decide(p, "patches-withdrawn");
	}
	free_sharers(&sh);
}
