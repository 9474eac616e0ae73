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

#include "borrow.h"
#include "gate.h"
#include "known_sites.h"
#include "library.h"
#include "proc_maps.h"
#include "procfs.h"
#include "region.h"
#include "shared_region.h"

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

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
 * made by the borrowed thread at the loader's `syscall` at site, then at the gate's;
 * the region's base, or 0. The path is written below the stack pointer (past the
 * red zone; nothing of the program is there yet). */
static uint64_t map_for(struct borrowed *b, uint64_t site, uint64_t *area)
{
	char path[64];
	uint64_t at = (b->saved.rsp - 1024) & ~(uint64_t)15, fd, gate, region = 0, ret;
	struct iovec local = { path, 0 }, remote = { (void *)at, 0 };

	local.iov_len = remote.iov_len = (size_t)snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)getpid(), region_fd()) + 1;
	if (process_vm_writev(b->t->tid, &local, 1, &remote, 1, 0) != (ssize_t)local.iov_len
	    || !borrow_call(b, site, SYS_open, (uint64_t[6]){ at, O_RDWR | O_CLOEXEC }, &fd))
		return 0;
	if (!borrow_call(b, site, SYS_mmap,
			 (uint64_t[6]){ SYSTRACE_GATE_ADDR, REGION_GATE_SIZE, PROT_READ | PROT_EXEC,
					MAP_SHARED | MAP_FIXED_NOREPLACE, fd, 0 }, &gate) || gate != SYSTRACE_GATE_ADDR) {
		if (!b->gone)
			borrow_call(b, site, SYS_close, (uint64_t[6]){ fd }, &ret);
		return 0;
	}
	/* from here on at the gate: one stop each */
	if (!borrow_call(b, SYSTRACE_GATE_ADDR, SYS_mmap,
			 (uint64_t[6]){ 0, region_size(), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0 }, &region))
		region = 0;
	if (!b->gone)
		borrow_call(b, SYSTRACE_GATE_ADDR, SYS_close, (uint64_t[6]){ fd }, &ret);
	/* no region (an address-space limit): the gate goes too, for the library to
	 * find the address free and say why it cannot come up */
	if (!b->gone && !region)
		borrow_call(b, SYSTRACE_GATE_ADDR, SYS_munmap, (uint64_t[6]){ SYSTRACE_GATE_ADDR, REGION_GATE_SIZE }, &ret);
	if (!b->gone && region
	    && !borrow_call(b, SYSTRACE_GATE_ADDR, SYS_mmap,
			    (uint64_t[6]){ 0, PATCH_AREA_SIZE, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS,
					   (uint64_t)-1, 0 }, area))
		*area = 0;
	return b->gone ? 0 : region;
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

bool early_on_exec(struct thread *t)
{
	struct addr_space *as = t->img->as;
	struct borrowed b;
	uint64_t site, region, area = 0, blocked;

	if (!library_enabled() || !borrow_begin(&b, t) || !find_loader(t, b.saved.rip)
	    || !known_sites_plan_at(t, b.saved.rip) || !(site = loader_syscall(t)) || !trap_untouched(t->tid, &blocked))
		return true;
	/* the exec event comes inside execve: a first step only returns from it */
	if (!borrow_step(&b) || (t->slot = region_slot_take()) < 0)
		return borrow_end(&b);
	region = map_for(&b, site, &area);
	if (b.gone)
		return borrow_end(&b); /* the event loop has t's death now */
	/* with gate and region there, the library must not map them again, even when
	 * the stub memory is out of the loader's reach (its sites then wait) */
	if (region) {
		as->region_base = region;
		as->mapped_at_exec = true;
		if (area && as_within_reach(area, as->loader_start) && as_within_reach(area, as->loader_end))
			as_add_area(as, area, PATCH_AREA_SIZE);
		b.saved.gs_base = region + region_slot_offset(t->slot);
	} else {
		region_slot_release(t->slot);
		t->slot = -1;
	}
	borrow_end(&b);
	ptrace(PTRACE_SETSIGMASK, t->tid, sizeof(blocked), &blocked);
	if (as->mapped_at_exec)
		known_sites_write_planned(t, as, 0);
	return true;
}
