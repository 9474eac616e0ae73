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

/* The set-up code and its data, as written at the loader's entry (exec_blob.h). */
struct blob {
	uint8_t bytes[8192];
	size_t len;
	struct exec_blob_write writes[96];
	size_t nwrites;
	bool full;
};

static uint8_t *blob_data(struct blob *b)
{
	return b->bytes + (exec_blob_data - exec_blob);
}

/* Appends len bytes to the payload; their offset from the data, or 0 if full. */
static uint32_t blob_append(struct blob *b, const void *bytes, size_t len)
{
	uint32_t at = (uint32_t)(b->len - (size_t)(exec_blob_data - exec_blob));

	if (b->full || len > sizeof(b->bytes) - b->len) {
		b->full = true;
		return 0;
	}
	memcpy(b->bytes + b->len, bytes, len);
	b->len += len;
	return at;
}

/* known_sites_build_for's put: a run of bytes for the image to write itself. */
static void blob_write(void *ctx, const struct byte_run *r)
{
	struct blob *b = ctx;
	uint32_t at = blob_append(b, r->bytes, r->len);

	if (b->nwrites == sizeof(b->writes) / sizeof(b->writes[0]))
		b->full = true;
	if (!b->full)
		b->writes[b->nwrites++] = (struct exec_blob_write){ r->addr, (uint32_t)r->len, at };
}

static void blob_u64(struct blob *b, size_t off, uint64_t v)
{
	memcpy(blob_data(b) + off, &v, sizeof(v));
}

/* The code and its fixed data: the region, the gate's code, the stub areas. */
static void blob_begin(struct blob *b, const struct addr_space *as)
{
	size_t code = (size_t)(exec_blob_data - exec_blob);

	b->len = code + EXEC_BLOB_HEADER;
	b->nwrites = 0;
	b->full = false;
	memset(b->bytes, 0, b->len);
	memcpy(b->bytes, exec_blob, code);
	blob_u64(b, EXEC_BLOB_REGION_SIZE, region_size());
	snprintf((char *)blob_data(b) + EXEC_BLOB_PATH, EXEC_BLOB_PATH_MAX, "/proc/%d/fd/%d", (int)getpid(), region_fd());
	blob_u64(b, EXEC_BLOB_GATE_LEN, (uint64_t)(gate_code_end - gate_code));
	blob_u64(b, EXEC_BLOB_GATE_AT, blob_append(b, gate_code, (size_t)(gate_code_end - gate_code)));
	blob_u64(b, EXEC_BLOB_NAREAS, as->nareas);
	for (size_t i = 0; i < as->nareas && i < EXEC_BLOB_MAX_AREAS; i++) {
		blob_u64(b, EXEC_BLOB_AREAS + 16 * i, as->areas[i].addr);
		blob_u64(b, EXEC_BLOB_AREAS + 16 * i + 8, as->areas[i].size);
	}
}

/* The write records after the payload. False if it does not fit. */
static bool blob_end(struct blob *b)
{
	blob_u64(b, EXEC_BLOB_NWRITES, b->nwrites);
	blob_u64(b, EXEC_BLOB_WRITES_AT, blob_append(b, b->writes, b->nwrites * sizeof(b->writes[0])));
	return !b->full;
}

/* What lies just below the loader at exec (the vDSO and its data pages: some tens of
 * KiB) and the stub memory the set-up maps there. */
#define BELOW_LOADER (1 << 20)

/* Stub memory at exec, where nothing is mapped yet: a little below the loader's
 * lowest mapping, past the vDSO (what the loader maps next goes below that, within
 * reach), and just below the executable when sites of it are known (the heap and
 * the libraries are above it). */
static void choose_areas(struct thread *t, struct addr_space *as, uint64_t loader_base, uint64_t exe_start)
{
	if (loader_base > 2 * BELOW_LOADER)
		as_add_area(as, loader_base - BELOW_LOADER, PATCH_AREA_SIZE);
	if (exe_start > 2 * PATCH_AREA_SIZE + (1 << 20) && known_sites_plan_at(t, exe_start))
		as_add_area(as, exe_start - PATCH_AREA_SIZE - (1 << 20), PATCH_AREA_SIZE);
}

/* What the build marked written: the patches with a counter from `counters` on. */
static void undo_build(struct addr_space *as, int counters, size_t areas)
{
	for (size_t i = 0; i < as->sites.n; i++) {
		struct patch *p = &as->patches[i];

		if (p->state == PATCH_WRITTEN && p->counter >= counters) {
			patch_decide(p, NULL);
			as->npatched--;
		}
	}
	as->next_counter = counters;
	as->nareas = areas;
}

/* Where in the loader's code the set-up runs: its last bytes, or the first place
 * below them that no patch of the memory touches (the set-up writes the patches
 * while it runs, and its bytes are put back after); 0 if none. */
static uint64_t blob_place(const struct addr_space *as, size_t len)
{
	for (uint64_t at = (as->loader_end - len) & ~(uint64_t)15; at >= as->loader_start && at < as->loader_end;
	     at = (at - len) & ~(uint64_t)15) {
		bool clear = true;

		for (size_t i = 0; clear && i < as->sites.n; i++) {
			const struct patch *p = &as->patches[i];

			clear = p->state == PATCH_UNPLANNED || p->state == PATCH_REFUSED || p->plan.end <= at
				|| p->plan.start >= at + len;
		}
		if (clear)
			return at;
	}
	return 0;
}

static bool is_address(uint64_t v)
{
	return v && v < (uint64_t)-4095;
}

/* What the set-up code left at its last stop (r12: the region; r15: how far it got):
 * the region's base, or 0 with the gate unmapped again (so that the library finds
 * the address free and says why it cannot come up). Writes the code did not make
 * the tracer makes; what the set-up could not map is undone. */
static uint64_t take_results(struct borrowed *b, const struct user_regs_struct *at_end, const struct blob *blob,
			     int counters, size_t areas)
{
	struct addr_space *as = b->t->img->as;
	uint64_t ret;

	if (at_end->r15 == EXEC_BLOB_NO_WRITE)
		for (size_t i = 0; i < blob->nwrites; i++)
			as_write(as, b->t->tid, blob->writes[i].addr,
				 blob_data((struct blob *)blob) + blob->writes[i].offset, blob->writes[i].len);
	if (at_end->r15 == EXEC_BLOB_DONE || at_end->r15 == EXEC_BLOB_NO_WRITE)
		return at_end->r12;
	undo_build(as, counters, areas);
	if (at_end->r15 == EXEC_BLOB_NO_AREA && is_address(at_end->r12))
		return at_end->r12;
	if (at_end->r15 == EXEC_BLOB_NO_REGION)
		borrow_call_instead(b, SYS_munmap, (uint64_t[6]){ SYSTRACE_GATE_ADDR, REGION_GATE_SIZE }, &ret);
	return 0;
}

bool early_on_exec(struct thread *t)
{
	struct addr_space *as = t->img->as;
	struct user_regs_struct regs;
	struct borrowed b;
	static struct blob blob;
	static uint8_t original[sizeof(blob.bytes)];
	struct iovec local = { original, 0 }, remote = { NULL, 0 };
	uint64_t region = 0;
	struct exec_code code;
	size_t areas = as->nareas;
	int counters = as->next_counter;
	uint64_t at = 0;
	bool ok;

	if (!library_enabled() || !borrow_begin(&b, t) || !objects_at_exec(t->tid, b.saved.rip, t->img->rec.exe, &code))
		return true;
	as->loader_start = code.loader_start;
	as->loader_end = code.loader_end;
	t->img->exe_object = code.exe;
	if (!known_sites_plan_at(t, b.saved.rip) || (t->slot = region_slot_take()) < 0)
		return true;
	choose_areas(t, as, code.loader_base, code.exe_start);
	blob_begin(&blob, as);
	known_sites_build_for(t, as, blob_write, &blob);
	ok = blob_end(&blob) && (at = blob_place(as, blob.len));
	/* the loader's bytes there, put back when the set-up is done */
	local.iov_len = remote.iov_len = blob.len;
	remote.iov_base = (void *)at;
	regs = b.saved;
	regs.rip = at;
	if (!ok || process_vm_readv(t->tid, &local, 1, &remote, 1, 0) != (ssize_t)blob.len
	    || !as_write(as, t->tid, at, blob.bytes, blob.len) || ptrace(PTRACE_SETREGS, t->tid, 0, &regs) < 0) {
		undo_build(as, counters, areas);
		region_slot_release(t->slot, 0);
		t->slot = -1;
		return true;
	}
	/* the gate's mmap (stop 1), then the set-up's last call (stop 2) */
	ok = borrow_run_to_seccomp(&b, &regs) && borrow_run_to_seccomp(&b, &regs);
	if (!b.gone)
		as_write(as, t->tid, at, original, blob.len);
	if (ok && (region = take_results(&b, &regs, &blob, counters, areas))) {
		/* with gate and region there, the library must not map them again */
		as->region_base = region;
		as->mapped_at_exec = true;
		b.saved.gs_base = region + region_slot_offset(t->slot);
	} else {
		if (!ok)
			undo_build(as, counters, areas);
		region_slot_release(t->slot, 0);
		t->slot = -1;
	}
	/* back at the entry as at the exec event, the set-up's last call skipped, execve
	 * returning 0 */
	b.saved.orig_rax = (uint64_t)-1;
	b.saved.rax = 0;
	return borrow_end(&b); /* false: the event loop has t's death now */
}
