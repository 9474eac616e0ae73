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
#include "exec_blob.h"
#include "gate.h"
#include "gate_code.h"
#include "known_sites.h"
#include "library.h"
#include "objects.h"
#include "proc_maps.h"
#include "procfs.h"
#include "region.h"
#include "shared_region.h"

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

/* Where stub memory near the executable at exe_start may go (just below it: the
 * heap and the libraries are above), when sites of it are known; else 0. */
static uint64_t exe_area_hint(struct thread *t, uint64_t exe_start)
{
	if (!exe_start || exe_start < 2 * PATCH_AREA_SIZE + (1 << 20) || !known_sites_plan_at(t, exe_start))
		return 0;
	return exe_start - PATCH_AREA_SIZE - (1 << 20);
}

/* The set-up code, its data and the gate's code, as written at the loader's entry;
 * its length, 0 if it does not fit. exe_hint: where to map stub memory near the
 * executable, or 0. */
static size_t blob_bytes(uint8_t *out, size_t cap, uint64_t exe_hint)
{
	size_t code = (size_t)(exec_blob_data - exec_blob), gate = (size_t)(gate_code_end - gate_code);
	size_t len = code + EXEC_BLOB_GATE_COPY + gate;
	uint8_t *data = out + code;
	uint64_t size = region_size(), gate_len = gate;

	if (len > cap)
		return 0;
	memset(out, 0, len);
	memcpy(out, exec_blob, code);
	memcpy(data + EXEC_BLOB_REGION_SIZE, &size, 8);
	memcpy(data + EXEC_BLOB_EXE_HINT, &exe_hint, 8);
	memcpy(data + EXEC_BLOB_GATE_LEN, &gate_len, 8);
	snprintf((char *)data + EXEC_BLOB_PATH, EXEC_BLOB_PATH_MAX, "/proc/%d/fd/%d", (int)getpid(), region_fd());
	memcpy(data + EXEC_BLOB_GATE_COPY, gate_code, gate);
	return len;
}

static bool is_address(uint64_t v)
{
	return v && v < (uint64_t)-4095;
}

/* What the set-up code left at its last stop (exec_blob.S): the region, the stub
 * memory; false if it could not have the region, with the gate unmapped again (so
 * that the library finds the address free and says why it cannot come up). */
static bool take_results(struct borrowed *b, const struct user_regs_struct *at_end, uint64_t *region,
			 uint64_t *area, uint64_t *exe_area)
{
	uint64_t ret;

	*region = at_end->r12;
	*area = is_address(at_end->r13) ? at_end->r13 : 0;
	*exe_area = is_address(at_end->r14) ? at_end->r14 : 0;
	if (at_end->r15 == 0 && is_address(*region))
		return true;
	/* (r15 2: the gate is mapped but there is no region) */
	if (at_end->r15 == 2)
		borrow_call_instead(b, SYS_munmap, (uint64_t[6]){ SYSTRACE_GATE_ADDR, REGION_GATE_SIZE }, &ret);
	return false;
}

bool early_on_exec(struct thread *t)
{
	struct addr_space *as = t->img->as;
	struct user_regs_struct regs;
	struct borrowed b;
	uint8_t blob[1024], original[1024];
	struct iovec local = { original, 0 }, remote = { NULL, 0 };
	uint64_t region, area, exe_area;
	struct exec_code code;
	size_t len;
	bool ok;

	if (!library_enabled() || !borrow_begin(&b, t) || !objects_at_exec(t->tid, b.saved.rip, t->img->rec.exe, &code))
		return true;
	as->loader_start = code.loader_start;
	as->loader_end = code.loader_end;
	t->img->exe_object = code.exe;
	if (!known_sites_plan_at(t, b.saved.rip) || !(len = blob_bytes(blob, sizeof(blob), exe_area_hint(t, code.exe_start)))
	    || b.saved.rip + len > as->loader_end)
		return true;
	/* the loader's first bytes, put back when the set-up is done */
	local.iov_len = remote.iov_len = len;
	remote.iov_base = (void *)b.saved.rip;
	if (process_vm_readv(t->tid, &local, 1, &remote, 1, 0) != (ssize_t)len
	    || !as_write(as, t->tid, b.saved.rip, blob, len))
		return true;
	/* the gate's mmap (stop 1), then the set-up's last call (stop 2) */
	ok = borrow_run_to_seccomp(&b, &regs) && borrow_run_to_seccomp(&b, &regs);
	if (!b.gone)
		as_write(as, t->tid, b.saved.rip, original, len);
	if (ok && (t->slot = region_slot_take()) >= 0 && take_results(&b, &regs, &region, &area, &exe_area)) {
		/* with gate and region there, the library must not map them again, even
		 * when the stub memory is out of the loader's reach (its sites then wait) */
		as->region_base = region;
		as->mapped_at_exec = true;
		if (area && as_within_reach(area, as->loader_start) && as_within_reach(area, as->loader_end))
			as_add_area(as, area, PATCH_AREA_SIZE);
		if (exe_area)
			as_add_area(as, exe_area, PATCH_AREA_SIZE);
		b.saved.gs_base = region + region_slot_offset(t->slot);
	} else if (t->slot >= 0) {
		region_slot_release(t->slot, 0);
		t->slot = -1;
	}
	/* back at the entry as at the exec event, the set-up's last call skipped, execve
	 * returning 0 */
	b.saved.orig_rax = (uint64_t)-1;
	b.saved.rax = 0;
	if (!borrow_end(&b))
		return false; /* the event loop has t's death now */
	if (as->mapped_at_exec)
		known_sites_write_planned(t, as, 0);
	return true;
}
