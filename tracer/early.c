#include "early.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
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
#include "lib_hook.h"
#include "library.h"
#include "objects.h"
#include "proc_maps.h"
#include "procfs.h"
#include "region.h"
#include "region_handout.h"
#include "shared_region.h"
#include "site_reuse.h"
#include "stops.h"

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

/* The code segment of 64-bit user code on x86-64 (__USER_CS); an i386 program's is
 * 0x23. */
#define USER_CS_64 0x33

/* The set-up code and its data, as written at the loader's entry (exec_blob.h), and
 * what it writes, staged in the region (the slot's stage). */
struct blob {
	uint8_t bytes[4096];
	size_t len;
	uint8_t *stage;
	size_t staged;
	struct exec_blob_write writes[96];
	size_t nwrites;
	bool full;
};

static uint8_t *blob_data(struct blob *b)
{
	return b->bytes + (exec_blob_data - exec_blob);
}

/* Stages len bytes; their offset in the stage (0 if full). */
static uint32_t blob_append(struct blob *b, const void *bytes, size_t len)
{
	uint32_t at = (uint32_t)b->staged;

	if (b->full || len > REGION_STAGE_SIZE - b->staged) {
		b->full = true;
		return 0;
	}
	memcpy(b->stage + b->staged, bytes, len);
	b->staged += len;
	return at;
}

/* len bytes for the image to write at addr itself (a blob that is full is not
 * written at all: start_setup undoes the build). */
static bool blob_put(struct blob *b, uint64_t addr, const uint8_t *bytes, size_t len)
{
	uint32_t at = blob_append(b, bytes, len);

	if (b->nwrites == sizeof(b->writes) / sizeof(b->writes[0]))
		b->full = true;
	if (!b->full)
		b->writes[b->nwrites++] = (struct exec_blob_write){ addr, (uint32_t)len, at };
	return !b->full;
}

/* known_sites_build_for's put: a run of bytes. */
static bool blob_write(void *ctx, const struct byte_run *r)
{
	return blob_put(ctx, r->addr, r->bytes, r->len);
}

/* Its gap bytes: the loader's code as the exec mapped it (known_sites.h). */
static bool loader_bytes(const void *ctx, uint64_t addr, void *buf, size_t len)
{
	return objects_exec_loader_bytes(ctx, addr, buf, len);
}

static void blob_u64(struct blob *b, size_t off, uint64_t v)
{
	memcpy(blob_data(b) + off, &v, sizeof(v));
}

_Static_assert(sizeof(struct sockaddr_un) <= EXEC_BLOB_SOCKET_MAX && 8 + EXEC_BLOB_SOCKET_MAX <= EXEC_BLOB_SOCKET_SIZE
		       && HANDOUT_NAMES == EXEC_BLOB_NSOCKETS, "the socket's addresses fit the blob");

/* The code and its fixed data: the region, the gate's code, the stub areas; nothing
 * staged yet in the slot's stage. */
static void blob_begin(struct blob *b, const struct addr_space *as, int slot)
{
	size_t code = (size_t)(exec_blob_data - exec_blob), gate = (size_t)(gate_code_end - gate_code);
	const struct region_reach *reach = handout_reach();

	b->len = code + EXEC_BLOB_HEADER;
	if (b->len + gate > sizeof(b->bytes))
		abort(); /* (fixed sizes: the build's, not the run's) */
	b->stage = region_stage(slot);
	b->staged = 0;
	b->nwrites = 0;
	b->full = false;
	memset(b->bytes, 0, b->len);
	memcpy(b->bytes, exec_blob, code);
	blob_u64(b, EXEC_BLOB_REGION_SIZE, region_size());
	snprintf((char *)blob_data(b) + EXEC_BLOB_PATH, EXEC_BLOB_PATH_MAX, "%s", reach->path);
	blob_u64(b, EXEC_BLOB_REGION_DEV, reach->dev);
	blob_u64(b, EXEC_BLOB_REGION_INO, reach->ino);
	for (int k = 0; k < HANDOUT_NAMES; k++) {
		blob_u64(b, EXEC_BLOB_SOCKETS + EXEC_BLOB_SOCKET_SIZE * k, reach->addr_len[k]);
		memcpy(blob_data(b) + EXEC_BLOB_SOCKETS + EXEC_BLOB_SOCKET_SIZE * k + 8, &reach->addr[k],
		       reach->addr_len[k]);
	}
	blob_u64(b, EXEC_BLOB_GATE_LEN, gate);
	blob_u64(b, EXEC_BLOB_GATE_AT, EXEC_BLOB_HEADER);
	memcpy(b->bytes + b->len, gate_code, gate);
	b->len += gate;
	blob_u64(b, EXEC_BLOB_STAGE, region_stage_offset(slot));
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

/* Whether no patch of the memory, nor any of b's writes (which may carry the bytes
 * between two jumps too), touches [from, to). */
static bool untouched(const struct addr_space *as, const struct blob *b, uint64_t from, uint64_t to)
{
	for (size_t i = 0; i < b->nwrites; i++)
		if (b->writes[i].addr + b->writes[i].len > from && b->writes[i].addr < to)
			return false;
	for (size_t i = 0; i < as->sites.n; i++) {
		const struct patch *p = &as->patches[i];

		if (p->state != PATCH_UNPLANNED && p->state != PATCH_REFUSED && p->plan.end > from
		    && p->plan.start < to)
			return false;
	}
	return true;
}

#define PAGE 4096ull

/* Where in the loader's code the set-up runs, 0 if nowhere: first the last whole
 * pages that no patch and none of b's writes touch (the set-up drops them when it is
 * done, and ends without a stop: *drop), else its last bytes or the first place
 * below them that none touch (the set-up writes the patches while it runs; its bytes
 * are put back at its last stop); nor the libraries' hook's jump at keep (0: none). */
static uint64_t blob_place(const struct addr_space *as, const struct blob *b, uint64_t keep, bool *drop)
{
	size_t len = b->len;
	uint64_t pages = (len + PAGE - 1) & ~(PAGE - 1);

	*drop = true;
	for (uint64_t at = (as->loader_end - pages) & ~(PAGE - 1); at >= as->loader_start && at < as->loader_end;
	     at -= PAGE)
		if (untouched(as, b, at, at + pages) && (keep + 8 <= at || keep >= at + pages))
			return at;
	*drop = false;
	for (uint64_t at = (as->loader_end - len) & ~(uint64_t)15; at >= as->loader_start && at < as->loader_end;
	     at = (at - len) & ~(uint64_t)15)
		if (untouched(as, b, at, at + len) && (keep + 8 <= at || keep >= at + len))
			return at;
	return 0;
}

/* Where the set-up maps the region: right after the gate (exec_blob.S). */
#define SETUP_REGION (SYSTRACE_GATE_ADDR + REGION_GATE_SIZE)

static bool is_address(uint64_t v)
{
	return v && v < (uint64_t)-4095;
}

/* An image's set-up while it runs: from its exec event to the set-up's last stop,
 * the thread served by the event loop like any other meanwhile. */
struct exec_setup {
	struct user_regs_struct entry; /* its registers at the exec event */
	uint64_t at;                   /* where the code is written */
	int counters;                  /* the memory's bookkeeping before the build */
	size_t areas;
	bool asked;                    /* it asked the tracer for the region (a stop) */
	bool drop;                     /* it ends without a stop (gate_exec_tail) */
	size_t hook_writes;            /* the libraries' hook's writes, the blob's last
	                                  (lib_hook.h); 0: none */
	uint64_t hook_entry;           /* where its jump goes */
	struct blob blob;              /* as written: for writes it could not make */
	uint8_t original[sizeof(((struct blob *)0)->bytes)];
};

/* What the set-up code left at its last stop (r12: the region; r15: how far it got):
 * the region's base, or 0 with the gate unmapped again (the program's memory as it
 * would be without systrace). Writes the code did not make the tracer makes; what
 * the set-up could not map is undone. */
static uint64_t take_results(struct borrowed *b, const struct user_regs_struct *at_end, struct exec_setup *e)
{
	struct addr_space *as = b->t->img->as;
	struct blob *blob = &e->blob;
	uint64_t ret;

	/* (not the hook's: it could not open /proc/self/mem either; its jump, if it
	 * went in part, gives way to the function's bytes) */
	if (at_end->r15 == EXEC_BLOB_NO_WRITE) {
		if (e->hook_writes)
			as_write(as, b->t->tid, as->hook_entry, as->hook_original, 5);
		lib_hook_forget(as);
		for (size_t i = 0; i < blob->nwrites - e->hook_writes; i++)
			as_write(as, b->t->tid, blob->writes[i].addr, blob->stage + blob->writes[i].offset,
				 blob->writes[i].len);
	}
	if (at_end->r15 == EXEC_BLOB_DONE || at_end->r15 == EXEC_BLOB_NO_WRITE)
		return at_end->r12;
	lib_hook_forget(as);
	undo_build(as, e->counters, e->areas);
	if (at_end->r15 == EXEC_BLOB_NO_AREA && is_address(at_end->r12))
		return at_end->r12;
	if (at_end->r15 == EXEC_BLOB_NO_REGION) {
		borrow_call_instead(b, SYS_munmap, (uint64_t[6]){ SYSTRACE_GATE_ADDR, REGION_GATE_SIZE }, &ret);
		borrow_end(b);
	}
	return 0;
}


/* The libraries' hook, when their layout is known (lib_hook.h): its code and payload
 * into stub memory, and its jump, written last by the set-up. If they do not fit,
 * the blob is as it was without them. */
static void add_hook(struct thread *t, struct exec_setup *e, const struct exec_code *code)
{
	struct blob *b = &e->blob;
	size_t staged = b->staged, nwrites = b->nwrites;
	struct lib_hook_writes w;

	e->hook_writes = 0;
	if (b->full || !lib_hook_build(t, code, &w))
		return;
	if (blob_put(b, w.at, w.code_and_data, w.len) && blob_put(b, w.entry, w.jump, sizeof(w.jump))) {
		e->hook_writes = 2;
		e->hook_entry = w.entry;
	} else {
		lib_hook_forget(t->img->as);
		b->staged = staged;
		b->nwrites = nwrites;
		b->full = false; /* (it was not before) */
	}
	free(w.code_and_data);
}

/* What a build puts in the set-up, from the most to the least: the known sites'
 * bytes with the loader's jumps joined (fewer writes, up to ~2 KB more staged), the
 * same with each jump apart, none. */
enum blob_content { SITES_JOINED, SITES_APART, NO_SITES };

/* The code for t's memory, and where it goes: with the known sites' bytes if they
 * fit, else without (those sites are written at the first call outside the loader,
 * or at their traps). False if it fits nowhere. */
static bool build(struct thread *t, struct exec_setup *e, const struct exec_code *code)
{
	struct addr_space *as = t->img->as;
	const struct gap_bytes loader = { loader_bytes, code };

	for (enum blob_content c = SITES_JOINED; c <= NO_SITES; c++) {
		/* --patch=off: no stub areas, nothing written */
		if (library_enabled())
			choose_areas(t, as, code->loader_base, code->exe_start);
		blob_begin(&e->blob, as, t->slot);
		e->hook_writes = 0;
		e->hook_entry = 0;
		if (c != NO_SITES && library_enabled()) {
			known_sites_build_for(t, as, blob_write, &e->blob, c == SITES_JOINED ? &loader : NULL);
			add_hook(t, e, code);
		}
		if (blob_end(&e->blob) && (e->at = blob_place(as, &e->blob, e->hook_entry, &e->drop)))
			return true;
		lib_hook_forget(as);
		undo_build(as, e->counters, e->areas);
	}
	return false;
}

/* The registers the set-up's tail can give back (gate_exec_tail): those of every
 * exec on x86-64, all zero but rsp, rip and rflags (rax: execve's -ENOSYS until it
 * returns 0). */
static bool zero_but_stack(const struct user_regs_struct *r)
{
	return !(r->r15 | r->r14 | r->r13 | r->r12 | r->rbp | r->rbx | r->r11 | r->r10 | r->r9 | r->r8 | r->rcx
		 | r->rdx | r->rsi | r->rdi | r->fs_base | r->gs_base);
}

/* early_on_exec, with the mappings open for all its lookups (one /proc/PID/maps for
 * the loader, its known sites and the executable's). An image without a loader (a
 * static program) stays on the slow path: library `absent`. */
static void start_setup(struct thread *t, const struct user_regs_struct *regs_at_exec)
{
	struct addr_space *as = t->img->as;
	struct user_regs_struct regs = *regs_at_exec;
	struct exec_setup *e;
	struct iovec local, remote;
	struct exec_code code;
	bool has_loader = objects_at_exec(t->tid, regs.rip, procfs_exe, &code);

	/* (image_new had none; a hand-off named it already: events.c) */
	if (!t->img->rec.exe)
		t->img->rec.exe = code.exe_path;
	else
		free(code.exe_path);
	if (!has_loader)
		return;
	as->loader_start = code.loader_start;
	as->loader_end = code.loader_end;
	t->img->exe_object = code.exe;
	if ((t->slot = region_slot_take()) < 0) {
		if (library_enabled())
			t->img->rec.library = LIBRARY_IS_REGION_FULL;
		return;
	}
	site_reuse_slot_taken(t);
	/* the image's first thread: the libraries' hook is its to run */
	memset(region_slot(t->slot)->pad_end, 0, sizeof(region_slot(t->slot)->pad_end));
	if (!(e = malloc(sizeof(*e))))
		abort();
	/* set up even with nothing known of the loader (a run's first image), and
	 * with --patch=off (the gate, region and slot only): the gate is there for the
	 * return pad from the first call (results.c) */
	if (library_enabled())
		known_sites_plan_at(t, regs.rip);
	*e = (struct exec_setup){ .entry = regs, .counters = as->next_counter, .areas = as->nareas };
	if (!build(t, e, &code))
		goto undo;
	if (e->drop && zero_but_stack(&regs)) {
		blob_u64(&e->blob, EXEC_BLOB_TAIL, GATE_AT(gate_exec_tail));
		blob_u64(&e->blob, EXEC_BLOB_DROP_START, e->at);
		blob_u64(&e->blob, EXEC_BLOB_DROP_LEN, (e->blob.len + PAGE - 1) & ~(PAGE - 1));
		blob_u64(&e->blob, EXEC_BLOB_ENTRY, regs.rip);
		blob_u64(&e->blob, EXEC_BLOB_RFLAGS, regs.eflags);
		blob_u64(&e->blob, EXEC_BLOB_GS, SETUP_REGION + region_slot_offset(t->slot));
	}
	/* the loader's bytes there, put back when the set-up is done */
	local = (struct iovec){ e->original, e->blob.len };
	remote = (struct iovec){ (void *)e->at, e->blob.len };
	regs.rip = e->at;
	if (!(objects_exec_loader_bytes(&code, e->at, e->original, e->blob.len)
	      || process_vm_readv(t->tid, &local, 1, &remote, 1, 0) == (ssize_t)e->blob.len)
	    || !as_write(as, t->tid, e->at, e->blob.bytes, e->blob.len) || ptrace(PTRACE_SETREGS, t->tid, 0, &regs) < 0)
		goto undo;
	/* the thread goes: its first stop is the gate's mmap, its last the getpid at
	 * the end (and one between if it asks the tracer for the region) */
	t->setup = e;
	return;
undo:
	lib_hook_forget(as);
	undo_build(as, e->counters, e->areas);
	site_reuse_slot_left(t, false);
	region_slot_release(t->slot, 0);
	t->slot = -1;
	free(e);
}

void early_on_exec(struct thread *t)
{
	struct user_regs_struct regs;

	/* (--patch=off goes without a region when it could not be made; an i386 program,
	 * whose code segment is not the 64-bit one, cannot run the set-up's code: it
	 * stays on the slow path, as a static program does) */
	if (region_fd() < 0 || ptrace(PTRACE_GETREGS, t->tid, 0, &regs) < 0 || regs.cs != USER_CS_64
	    || !objects_begin(t->tid))
		return;
	start_setup(t, &regs);
	objects_end();
}

/* The set-up is over (at its last stop, or it broke): the loader's bytes back, and
 * the thread as at its exec event, the stop's call skipped, execve returning 0 and
 * %gs at its slot when the region is there. */
static void finish(struct thread *t, uint64_t region)
{
	struct exec_setup *e = t->setup;
	struct addr_space *as = t->img->as;

	as_write(as, t->tid, e->at, e->original, e->blob.len);
	if (region) {
		as->region_base = region;
		as->mapped_at_exec = true;
		e->entry.gs_base = region + region_slot_offset(t->slot);
	} else {
		site_reuse_slot_left(t, false);
		region_slot_release(t->slot, 0);
		t->slot = -1;
	}
	e->entry.orig_rax = (uint64_t)-1;
	e->entry.rax = 0;
	ptrace(PTRACE_SETREGS, t->tid, 0, &e->entry);
	t->setup = NULL;
	free(e);
}

bool early_on_seccomp(struct thread *t, long nr)
{
	struct exec_setup *e = t->setup;
	struct user_regs_struct regs;
	struct borrowed b;
	uint64_t region;

	if (!e || ptrace(PTRACE_GETREGS, t->tid, 0, &regs) < 0 || regs.rip < e->at || regs.rip >= e->at + e->blob.len)
		return false;
	count_stop(t->img, STOP_OTHER);
	if (nr == SYS_mmap)
		return true; /* the gate's mapping: the code goes on through the gate */
	if (nr == SYS_getpid && regs.r15 == EXEC_BLOB_ASKS) {
		e->asked = true;
		handout_serve();
		return true;
	}
	/* its calls: the gate's mapping, those through the gate, the one that asked */
	t->img->rec.instrument += 1 + regs.r13 + e->asked;
	borrow_begin(&b, t);
	if (!(region = take_results(&b, &regs, e)) && library_enabled())
		t->img->rec.library = regs.r15 == EXEC_BLOB_NO_GATE ? LIBRARY_IS_GATE_TAKEN : LIBRARY_IS_REGION_UNREACHABLE;
	finish(t, region);
	return true;
}

void early_on_stop(struct thread *t)
{
	struct exec_setup *e = t->setup;
	uint64_t *word, calls;

	if (!e || !e->drop || t->slot < 0)
		return;
	word = &region_slot(t->slot)->pad[REGION_SLOT_SETUP];
	if (!(calls = __atomic_load_n(word, __ATOMIC_ACQUIRE)))
		return; /* still running it, or at its last stop */
	*word = 0;
	t->img->rec.instrument += calls + e->asked;
	t->img->as->region_base = SETUP_REGION;
	t->img->as->mapped_at_exec = true;
	t->setup = NULL;
	free(e);
}

bool early_on_fault(struct thread *t, int sig)
{
	siginfo_t si;

	/* the set-up code broke (a fault the kernel raised there): undone, and the image
	 * starts without it */
	if (!t->setup || ptrace(PTRACE_GETSIGINFO, t->tid, 0, &si) < 0 || si.si_code <= 0
	    || (sig != SIGSEGV && sig != SIGBUS && sig != SIGILL && sig != SIGFPE && sig != SIGTRAP))
		return false;
	lib_hook_forget(t->img->as);
	undo_build(t->img->as, t->setup->counters, t->setup->areas);
	finish(t, 0);
	return true;
}
