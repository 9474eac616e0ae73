#include "early.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gate.h"
#include "library.h"
#include "patching.h"
#include "procfs.h"
#include "proc_maps.h"
#include "region.h"
#include "shared_region.h"
#include "stops.h"

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

/* Signals that came while t was made to call for the tracer: held back, and sent
 * again once t is back at its first instruction (the event loop then sees them). */
struct held_back {
	int sig[8];
	unsigned n;
};

/* Whether t's SIGTRAP is the step's (the kernel's), not one sent to it. */
static bool from_kernel(pid_t tid)
{
	siginfo_t si;

	return ptrace(PTRACE_GETSIGINFO, tid, 0, &si) == 0 && si.si_code > 0;
}

/* Single-steps t until its trap, counting the stops on the way (a seccomp stop when
 * it makes a traced call, a signal, which is held back). False if t died meanwhile:
 * its status waits in patching's queue. */
static bool step(struct thread *t, struct user_regs_struct *regs, struct held_back *sigs, bool *gone)
{
	int status, sig = 0;
	pid_t got;

	for (;;) {
		if (ptrace(PTRACE_SINGLESTEP, t->tid, 0, 0) < 0)
			return false;
		/* placement.c's timer interrupts the wait: the thread still comes back */
		while ((got = waitpid(t->tid, &status, __WALL)) < 0 && errno == EINTR)
			;
		if (got != t->tid)
			return false;
		count_stop(t->img, STOP_OTHER);
		if (!WIFSTOPPED(status) || status >> 16 == PTRACE_EVENT_EXIT) {
			patching_hold(t->tid, status);
			*gone = true;
			return false;
		}
		sig = WSTOPSIG(status);
		if (status >> 16 == 0 && sig == SIGTRAP && from_kernel(t->tid))
			return ptrace(PTRACE_GETREGS, t->tid, 0, regs) == 0;
		if (status >> 16 == 0 && sigs->n < sizeof(sigs->sig) / sizeof(sigs->sig[0]))
			sigs->sig[sigs->n++] = sig;
	}
}

/* Makes t run the syscall instruction at `at` with nr and args, stepping over it
 * (a call at the gate stops once, one elsewhere twice: its seccomp stop first). */
static bool call_in(struct thread *t, const struct user_regs_struct *saved, uint64_t at, long nr,
		    const uint64_t args[6], uint64_t *ret, struct held_back *sigs, bool *gone)
{
	struct user_regs_struct regs = *saved;

	regs.rip = at;
	regs.rax = (uint64_t)nr;
	regs.rdi = args[0];
	regs.rsi = args[1];
	regs.rdx = args[2];
	regs.r10 = args[3];
	regs.r8 = args[4];
	regs.r9 = args[5];
	if (ptrace(PTRACE_SETREGS, t->tid, 0, &regs) < 0 || !step(t, &regs, sigs, gone))
		return false;
	*ret = regs.rax;
	return regs.rax < (uint64_t)-4095;
}

/* The loader's code: the executable mapping at the first instruction, when it is
 * not the executable itself (a static program has no loader to patch). */
static bool find_loader(struct thread *t, uint64_t rip)
{
	struct proc_maps maps = { .fd = -1 };
	const struct map_entry *e;
	bool found = false;

	if (!proc_maps_open(&maps, t->tid))
		return false;
	e = proc_maps_find(&maps, rip);
	if (e && e->path[0] == '/' && (!t->img->rec.exe || strcmp(e->path, t->img->rec.exe) != 0)) {
		t->img->as->loader_start = e->start;
		t->img->as->loader_end = e->end;
		found = true;
	}
	proc_maps_close(&maps);
	return found;
}

/* A syscall instruction of the loader to make the first calls at (before the gate
 * is there): one of the sites just planned, checked to still be one. */
static uint64_t loader_syscall(struct thread *t)
{
	const struct addr_space *as = t->img->as;

	for (size_t i = 0; i < as->sites.n; i++) {
		uint64_t at = as->patches[i].plan.site;
		uint8_t bytes[2];
		struct iovec local = { bytes, 2 }, remote = { (void *)at, 2 };

		if (as->patches[i].state != PATCH_PLANNED || at < as->loader_start || at >= as->loader_end)
			continue;
		if (process_vm_readv(t->tid, &local, 1, &remote, 1, 0) == 2 && bytes[0] == 0x0f && bytes[1] == 0x05)
			return at;
	}
	return 0;
}

/* open, mmap the gate and the region, close, and mmap stub memory near the loader,
 * made by t; the region's base, or 0. The path is written below the stack pointer
 * (past the red zone; nothing of the program is there yet). */
static uint64_t map_for(struct thread *t, const struct user_regs_struct *saved, uint64_t site, uint64_t *area,
			struct held_back *sigs, bool *gone)
{
	char path[64];
	uint64_t at = (saved->rsp - 1024) & ~(uint64_t)15, fd, gate, region = 0, ret;
	struct iovec local = { path, 0 }, remote = { (void *)at, 0 };

	local.iov_len = remote.iov_len = (size_t)snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)getpid(), region_fd()) + 1;
	if (process_vm_writev(t->tid, &local, 1, &remote, 1, 0) != (ssize_t)local.iov_len
	    || !call_in(t, saved, site, SYS_open, (uint64_t[6]){ at, O_RDWR | O_CLOEXEC }, &fd, sigs, gone))
		return 0;
	if (!call_in(t, saved, site, SYS_mmap,
		     (uint64_t[6]){ SYSTRACE_GATE_ADDR, REGION_GATE_SIZE, PROT_READ | PROT_EXEC,
				    MAP_SHARED | MAP_FIXED_NOREPLACE, fd, 0 }, &gate, sigs, gone) || gate != SYSTRACE_GATE_ADDR) {
		if (!*gone)
			call_in(t, saved, site, SYS_close, (uint64_t[6]){ fd }, &ret, sigs, gone);
		return 0;
	}
	/* from here on at the gate: one stop each */
	if (!call_in(t, saved, SYSTRACE_GATE_ADDR, SYS_mmap,
		     (uint64_t[6]){ 0, region_size(), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0 }, &region, sigs, gone))
		region = 0;
	if (!*gone)
		call_in(t, saved, SYSTRACE_GATE_ADDR, SYS_close, (uint64_t[6]){ fd }, &ret, sigs, gone);
	/* no region (an address-space limit): the gate goes too, for the library to
	 * find the address free and say why it cannot come up */
	if (!*gone && !region)
		call_in(t, saved, SYSTRACE_GATE_ADDR, SYS_munmap, (uint64_t[6]){ SYSTRACE_GATE_ADDR, REGION_GATE_SIZE },
			&ret, sigs, gone);
	if (!*gone && region
	    && !call_in(t, saved, SYSTRACE_GATE_ADDR, SYS_mmap,
			(uint64_t[6]){ 0, PATCH_AREA_SIZE, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS,
				       (uint64_t)-1, 0 }, area, sigs, gone))
		*area = 0;
	return *gone ? 0 : region;
}

/* Each step ends in a SIGTRAP the kernel forces, which would reset an ignored
 * SIGTRAP to its default and unblock a blocked one (both survive exec): with it
 * ignored the image goes without (rare); its blocked mask is kept to be put back. */
static bool trap_untouched(pid_t tid, uint64_t *blocked)
{
	uint64_t ignored;

	return procfs_status_u64(tid, "SigIgn", 16, &ignored) && !((ignored >> (SIGTRAP - 1)) & 1)
	       && ptrace(PTRACE_GETSIGMASK, tid, sizeof(*blocked), blocked) == 0;
}

/* Sends the held-back signals again; whether t is to be resumed. */
static bool resend(const struct thread *t, const struct held_back *sigs, bool gone)
{
	for (unsigned i = 0; i < sigs->n; i++)
		syscall(SYS_tgkill, t->img->rec.pid, t->tid, sigs->sig[i]);
	return !gone;
}

bool early_on_exec(struct thread *t)
{
	struct addr_space *as = t->img->as;
	struct user_regs_struct saved;
	uint64_t site, region, area = 0;
	struct held_back sigs = { .n = 0 };
	bool gone = false;
	uint64_t blocked;

	if (!library_enabled() || ptrace(PTRACE_GETREGS, t->tid, 0, &saved) < 0 || !find_loader(t, saved.rip)
	    || !patching_plan_known_at(t, saved.rip) || !(site = loader_syscall(t)) || !trap_untouched(t->tid, &blocked))
		return true;
	/* the exec event comes inside execve: a first step only returns from it */
	if (!step(t, &saved, &sigs, &gone))
		return resend(t, &sigs, gone);
	if ((t->slot = region_slot_take()) < 0)
		return resend(t, &sigs, gone);
	region = map_for(t, &saved, site, &area, &sigs, &gone);
	if (gone)
		return false; /* the event loop has t's death now */
	/* with gate and region there, the library must not map them again, even when
	 * the stub memory is out of the loader's reach (its sites then wait) */
	if (region) {
		as->region_base = region;
		as->mapped_at_exec = true;
		if (area && as_within_reach(area, as->loader_start) && as_within_reach(area, as->loader_end))
			as_add_area(as, area, PATCH_AREA_SIZE);
		saved.gs_base = region + region_slot_offset(t->slot);
	} else {
		region_slot_release(t->slot);
		t->slot = -1;
	}
	ptrace(PTRACE_SETREGS, t->tid, 0, &saved);
	ptrace(PTRACE_SETSIGMASK, t->tid, sizeof(blocked), &blocked);
	if (as->mapped_at_exec)
		patching_apply_planned(t, as, 0);
	return resend(t, &sigs, gone);
}
