#include "lib_hook.h"

#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "byte_runs.h"
#include "call_times.h"
#include "known_sites.h"
#include "library.h"
#include "prologue.h"
#include "region.h"
#include "remote_read.h"
#include "shared_region.h"
#include "syscall_log.h"

_Static_assert(LAYOUT_MAX <= LIB_HOOK_MAX_OBJECTS, "a library's bits fit the DONE word");

static bool predicting = true;

void lib_hook_setup(bool enabled)
{
	predicting = enabled;
}

/* The payload: the header, then per library its record and runs (lib_hook.h). */
struct payload {
	uint8_t *bytes;
	size_t len, cap;
	size_t object_at; /* the record of the library being built */
	uint64_t nruns;
};

static void payload_grow(struct payload *p, size_t more)
{
	while (p->len + more > p->cap) {
		p->cap = p->cap ? 2 * p->cap : 4096;
		if (!(p->bytes = realloc(p->bytes, p->cap)))
			abort();
	}
}

static void payload_u64(struct payload *p, size_t at, uint64_t v)
{
	memcpy(p->bytes + at, &v, sizeof(v));
}

/* Appends len bytes, zero-padded to 8. */
static void payload_put(struct payload *p, const void *bytes, size_t len)
{
	size_t padded = (len + 7) & ~(size_t)7;

	payload_grow(p, padded);
	memcpy(p->bytes + p->len, bytes, len);
	memset(p->bytes + p->len + len, 0, padded - len);
	p->len += padded;
}

/* known_sites_build_predicted's put: a run of the library being built. */
static bool put_run(void *ctx, const struct byte_run *r)
{
	struct payload *p = ctx;
	uint64_t head[2] = { r->addr, r->len };

	payload_put(p, head, sizeof(head));
	payload_put(p, r->bytes, r->len);
	p->nruns++;
	return true;
}

/* The hook's patches of library k (all with k < 0) go back to unplanned: their
 * first trap plans them as if they had never been known here. */
static void unhook(struct addr_space *as, int k)
{
	for (size_t i = 0; i < as->sites.n; i++) {
		struct patch *p = &as->patches[i];

		if (!p->hooked || (k >= 0 && p->hooked != k + 1))
			continue;
		if (p->state == PATCH_WRITTEN)
			as->npatched--;
		p->state = PATCH_UNPLANNED;
		p->hooked = 0;
		as->sites.sites[i].named = false; /* named for where it was expected */
	}
}

void lib_hook_forget(struct addr_space *as)
{
	if (!as->hook_pending)
		return;
	unhook(as, -1);
	as->hook_pending = false;
}

/* Library k's patches, built at counters [from, to): the hook's. */
static void mark_hooked(struct addr_space *as, int from, int to, int k)
{
	for (size_t i = 0; i < as->sites.n; i++) {
		struct patch *p = &as->patches[i];

		if (p->state == PATCH_WRITTEN && p->counter >= from && p->counter < to)
			p->hooked = (uint8_t)(k + 1);
	}
}

/* Builds library `where`'s record (its build-id where it should lie, then its runs)
 * into p; false, with nothing added, if it has no known site to write. */
static bool build_object(struct thread *t, struct addr_space *as, const struct layout_entry *where, int k,
			 struct payload *p)
{
	const struct object *o = where->o;
	const uint8_t *id;
	uint64_t id_vaddr, vaddr, start = as->loader_start + (uint64_t)where->start;
	uint8_t head[LIB_HOOK_OBJ_RUNS] = { 0 };
	size_t len, at = p->len;
	int from = as->next_counter;

	if (!objects_build_id(o, &id_vaddr, &id, &len) || len > LIB_HOOK_CHECK_MAX
	    || !objects_vaddr_of_offset(o, where->file_offset, &vaddr))
		return false;
	/* its bias: where its ELF addresses will lie */
	memcpy(head + LIB_HOOK_OBJ_CHECK, &(uint64_t){ start - vaddr + id_vaddr }, 8);
	memcpy(head + LIB_HOOK_OBJ_CHECK_LEN, &(uint64_t){ len }, 8);
	memcpy(head + LIB_HOOK_OBJ_CHECK_BYTES, id, len);
	payload_put(p, head, sizeof(head));
	p->object_at = at;
	p->nruns = 0;
	known_sites_build_predicted(t, as, where, as->loader_start, put_run, p);
	if (as->next_counter == from) {
		p->len = at;
		return false;
	}
	payload_u64(p, at + LIB_HOOK_OBJ_NRUNS, p->nruns);
	mark_hooked(as, from, as->next_counter, k);
	return true;
}

bool lib_hook_build(struct thread *t, const struct exec_code *code, struct lib_hook_writes *w)
{
	struct addr_space *as = t->img->as;
	const struct layout_entry *layout;
	struct layout_entry guess[LAYOUT_MAX];
	uint64_t hook_vaddr, loader_vaddr, entry, tramp, nobjects = 0;
	uint8_t original[16];
	struct iovec local = { original, sizeof(original) }, remote;
	struct payload p = { 0 };
	size_t n, cover, code_len = (size_t)(lib_hook_data - lib_hook);
	int counters = as->next_counter;
	bool whole;

	if (!predicting || syscall_log_on() || call_times_on() || !code->loader
	    || !(layout = objects_layout(t->img->exe_object, code->loader, as->loader_start, guess, &n))
	    || !objects_loader_hook(code->loader, &hook_vaddr)
	    || !objects_vaddr_of_offset(code->loader, 0, &loader_vaddr))
		return false;
	entry = code->loader_base - loader_vaddr + hook_vaddr;
	remote = (struct iovec){ (void *)entry, sizeof(original) };
	if (!(whole = objects_exec_loader_bytes(code, entry, original, sizeof(original))))
		remote_read_ranges(t->tid, &local, &remote, 1, &whole);
	cover = prologue_cover(original, sizeof(original), 5);
	/* (a loader's site patched there would be torn by the jump and its restoring) */
	if (!whole || !cover || cover > LIB_HOOK_TRAMPOLINE_MAX - 5 || as_site_overlapping(as, entry, entry + cover))
		return false;
	payload_grow(&p, LIB_HOOK_OBJECTS);
	p.len = LIB_HOOK_OBJECTS;
	memset(p.bytes, 0, p.len);
	payload_u64(&p, LIB_HOOK_ENTRY, entry);
	memcpy(p.bytes + LIB_HOOK_ORIGINAL, original, 8);
	payload_u64(&p, LIB_HOOK_COUNTERS, (uint64_t)counters);
	for (size_t k = 0; k < n; k++)
		nobjects += build_object(t, as, &layout[k], (int)nobjects, &p);
	payload_u64(&p, LIB_HOOK_NOBJECTS, nobjects);
	as->hook_pending = true; /* (lib_hook_forget's to undo from here) */
	w->len = code_len + p.len;
	if (!nobjects || !(w->at = as_stub_room(as, entry, entry + 5, w->len))) {
		lib_hook_forget(as);
		free(p.bytes);
		return false;
	}
	as_stub_taken(as, w->at, w->len);
	/* the function's first instructions, then on to the rest of it */
	tramp = w->at + code_len + LIB_HOOK_TRAMPOLINE;
	memcpy(p.bytes + LIB_HOOK_TRAMPOLINE, original, cover);
	p.bytes[LIB_HOOK_TRAMPOLINE + cover] = 0xe9;
	memcpy(p.bytes + LIB_HOOK_TRAMPOLINE + cover + 1, &(int32_t){ (int32_t)(entry + cover - (tramp + cover + 5)) },
	       4);
	if (!(w->code_and_data = malloc(w->len)))
		abort();
	memcpy(w->code_and_data, lib_hook, code_len);
	memcpy(w->code_and_data + code_len, p.bytes, p.len);
	free(p.bytes);
	w->entry = entry;
	w->jump[0] = 0xe9;
	memcpy(w->jump + 1, &(int32_t){ (int32_t)(w->at - (entry + 5)) }, 4);
	as->hook_slot = t->slot;
	as->hook_entry = entry;
	memcpy(as->hook_original, original, sizeof(as->hook_original));
	return true;
}

/* Library k, which the hook says it wrote in part: each of its patches whose jump
 * is in memory is kept (and one that cannot be read: its calls may count there),
 * the others go, a jump written in part giving way to the original bytes. */
static void keep_written(struct thread *t, struct addr_space *as, int k)
{
	for (size_t i = 0; i < as->sites.n; i++) {
		struct patch *p = &as->patches[i];
		uint8_t now[PATCH_MAX_COVER], jump[PATCH_MAX_COVER];
		size_t len = p->plan.end - p->plan.start;
		struct iovec local = { now, len }, remote = { (void *)p->plan.start, len };
		bool whole;

		if (p->hooked != k + 1)
			continue;
		remote_read_ranges(t->tid, &local, &remote, 1, &whole);
		if (!whole || (patch_bytes(&p->plan, p->stub.addr, jump) && memcmp(now, jump, len) == 0))
			p->hooked = 0;
		else if (memcmp(now, p->plan.original, len) != 0)
			as_write(as, t->tid, p->plan.start, p->plan.original, len);
	}
	unhook(as, k);
}

void lib_hook_settle(struct thread *t, bool gone)
{
	struct image *img = t->img;
	struct addr_space *as = img ? img->as : NULL;
	struct region_slot *slot;
	uint64_t done, written = 0;

	/* (only the hook's thread runs it; any other of the memory is made after) */
	if (!as || !as->hook_pending || t->slot != as->hook_slot)
		return;
	slot = region_slot(as->hook_slot);
	done = __atomic_load_n(&slot->pad_end[REGION_HOOK_DONE], __ATOMIC_ACQUIRE);
	if (!(done >> REGION_HOOK_DONE_BIT & 1)) {
		if (gone)
			lib_hook_forget(as);
		return;
	}
	as->hook_pending = false;
	img->rec.instrument += slot->pad_end[REGION_HOOK_CALLS];
	/* its jump left (no /proc/self/mem): the function as it was, so that no later
	 * call enters the hook (a thread's %gs may be the program's then) */
	if (!(done >> REGION_HOOK_RESTORED_BIT & 1))
		as_write(as, t->tid, as->hook_entry, as->hook_original, 5);
	for (int k = 0; k < LIB_HOOK_MAX_OBJECTS; k++) {
		if (done >> k & 1)
			written |= 1ull << k;
		else if (done >> (REGION_HOOK_PART_SHIFT + k) & 1)
			keep_written(t, as, k);
		else
			unhook(as, k);
	}
	for (size_t i = 0; i < as->sites.n; i++)
		as->patches[i].hooked = 0;
	if (written)
		library_up(t, (int64_t)slot->pad_end[REGION_HOOK_EARLY]);
}
