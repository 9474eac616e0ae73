#include "addr_space.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fd_limit.h"
#include "grow_array.h"
#include "offload.h"
#include "remote_read.h"

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);

	if (!p)
		abort();
	return p;
}

struct addr_space *as_new(void)
{
	struct addr_space *as = xcalloc(1, sizeof(*as));

	as->refs = 1;
	as->mem_fd = -1;
	return as;
}

struct addr_space *as_fork(const struct addr_space *parent)
{
	struct addr_space *as = as_new();
	size_t n = parent->sites.n;

	/* in one copy each: a shell forks with hundreds of sites, and often */
	site_table_copy(&as->sites, &parent->sites);
	if (n) {
		as->patches = xcalloc(n, sizeof(*as->patches));
		memcpy(as->patches, parent->patches, n * sizeof(*as->patches));
		as->cap_patches = n;
	}
	for (size_t i = 0; i < n; i++) {
		struct patch *p = &as->patches[i];

		if (patch_has_counter(p)) {
			p->origin = PATCH_INHERITED; /* the child paid nothing for it */
			p->cost_ns = 0;
		}
	}
	if (parent->nareas) {
		as->areas = xcalloc(parent->nareas, sizeof(*as->areas));
		memcpy(as->areas, parent->areas, parent->nareas * sizeof(*as->areas));
		as->nareas = parent->nareas;
	}
	/* moved: munmaps the parent's other threads made and the tracer has not read
	 * came with the copy */
	as->maps_epoch = parent->maps_epoch + 1;
	as->next_counter = parent->next_counter;
	as->npatched = parent->npatched;
	as->region_base = parent->region_base;
	as->mapped_at_exec = parent->mapped_at_exec;
	as->gs_taken = parent->gs_taken;
	as->waits_stop = parent->waits_stop;
	as->given_up = parent->given_up;
	as->walked_known = parent->walked_known;
	as->loader_start = parent->loader_start;
	as->loader_end = parent->loader_end;
	as->library_site = parent->library_site;
	as->forked_from = (struct addr_space *)parent;
	as->forked_from->fork_holds++;
	return as;
}

struct addr_space *as_get(struct addr_space *as)
{
	as->refs++;
	return as;
}

/* Frees as once no image shares it and no fork's copy names it as its parent. */
static void free_unused(struct addr_space *as)
{
	struct addr_space *parent;

	if (as->refs > 0 || as->fork_holds > 0)
		return;
	if ((parent = as->forked_from)) {
		parent->fork_holds--;
		free_unused(parent);
	}
	site_table_free(&as->sites);
	free(as->patches);
	free(as->areas);
	free(as->slots);
	free(as->site_of_counter);
	free(as);
}

void as_put(struct addr_space *as)
{
	if (!as || --as->refs > 0)
		return;
	offload_close(as->mem_fd); /* (maybe the last hold on the process's mm_struct) */
	as->mem_fd = -1;
	free_unused(as);
}

struct site_record *as_site_of_counter(struct addr_space *as, int counter)
{
	if (as->counters_mapped != as->next_counter) {
		free(as->site_of_counter);
		as->site_of_counter = xcalloc((size_t)as->next_counter, sizeof(int));
		for (size_t i = 0; i < as->sites.n; i++)
			if (patch_has_counter(&as->patches[i]))
				as->site_of_counter[as->patches[i].counter] = (int)i;
		as->counters_mapped = as->next_counter;
	}
	if (counter < 0 || counter >= as->counters_mapped)
		return NULL;
	return &as->sites.sites[as->site_of_counter[counter]];
}

struct patch *as_patch_of(struct addr_space *as, const struct site_record *s)
{
	size_t i = (size_t)(s - as->sites.sites);

	if (as->sites.n > as->cap_patches) {
		size_t had = as->cap_patches;

		as->patches = grow_array_to(as->patches, &as->cap_patches, as->sites.n, sizeof(*as->patches));
		/* a new site's patch starts unplanned, its object known now */
		memset(as->patches + had, 0, (as->cap_patches - had) * sizeof(*as->patches));
		for (size_t k = had; k < as->cap_patches; k++)
			as->patches[k].maps_epoch = as->maps_epoch;
	}
	return &as->patches[i];
}

struct site_record *as_site(struct addr_space *as, uint64_t addr, struct patch **patch)
{
	struct site_record *s = site_table_get(&as->sites, addr);

	*patch = as_patch_of(as, s);
	return s;
}

void patch_decide(struct patch *p, const char *reason)
{
	p->state = reason ? PATCH_REFUSED : PATCH_PLANNED;
	p->reason = reason;
}

enum site_state patch_site_state(const struct patch *p)
{
	switch (p->state) {
	case PATCH_WRITTEN:
	case PATCH_STALE: return SITE_PATCHED;
	case PATCH_REFUSED: return SITE_UNPATCHABLE;
	case PATCH_UNPLANNED:
	case PATCH_PLANNED: break;
	}
	return SITE_PENDING;
}

static bool is_patched(const struct addr_space *as, size_t i)
{
	return as->patches[i].state == PATCH_WRITTEN;
}

struct patch *as_patch_of_stub(struct addr_space *as, uint64_t addr)
{
	for (size_t a = 0; a < as->nareas; a++) {
		if (addr < as->areas[a].addr || addr >= as->areas[a].addr + as->areas[a].size)
			continue;
		for (size_t i = 0; i < as->sites.n; i++) {
			struct patch *p = &as->patches[i];

			if (patch_has_counter(p) && addr >= p->stub.addr && addr < p->stub.addr + p->stub.len)
				return p;
		}
	}
	return NULL;
}

uint64_t as_site_of(struct addr_space *as, uint64_t addr)
{
	const struct patch *p = as_patch_of_stub(as, addr);

	return p && p->stub.slow == addr ? p->plan.site : addr;
}

struct site_record *as_site_overlapping(struct addr_space *as, uint64_t lo, uint64_t hi)
{
	for (size_t i = 0; i < as->sites.n; i++) {
		const struct patch_plan *p = &as->patches[i].plan;

		if (is_patched(as, i) && p->start < hi && lo < p->end)
			return &as->sites.sites[i];
	}
	return NULL;
}

uint64_t as_translate(struct addr_space *as, uint64_t rip)
{
	for (size_t i = 0; i < as->sites.n; i++) {
		const struct patch *p = &as->patches[i];

		if (is_patched(as, i) && rip > p->plan.start && rip < p->plan.end)
			return stub_translate(&p->plan, &p->stub, rip);
	}
	return rip;
}

size_t as_drop_replaced(struct addr_space *as, pid_t pid, uint64_t lo, uint64_t hi)
{
	size_t n = 0, dropped = 0;
	size_t *which;
	struct iovec *local, *remote;
	uint8_t (*now)[PATCH_MAX_COVER];
	bool *whole;

	for (size_t i = 0; i < as->sites.n; i++)
		n += is_patched(as, i) && as->patches[i].plan.start < hi && lo < as->patches[i].plan.end;
	if (!n)
		return 0;
	which = xcalloc(n, sizeof(*which));
	local = xcalloc(n, sizeof(*local));
	remote = xcalloc(n, sizeof(*remote));
	now = xcalloc(n, sizeof(*now));
	whole = xcalloc(n, sizeof(*whole));
	n = 0;
	for (size_t i = 0; i < as->sites.n; i++) {
		const struct patch_plan *plan = &as->patches[i].plan;

		if (!is_patched(as, i) || plan->start >= hi || lo >= plan->end)
			continue;
		which[n] = i;
		local[n] = (struct iovec){ now[n], plan->end - plan->start };
		remote[n] = (struct iovec){ (void *)plan->start, plan->end - plan->start };
		n++;
	}
	remote_read_ranges(pid, local, remote, n, whole);
	for (size_t k = 0; k < n; k++) {
		struct patch *p = &as->patches[which[k]];
		uint8_t jump[PATCH_MAX_COVER];

		/* unmapped, or other bytes: not this patch's code any more */
		if (!patch_bytes(&p->plan, p->stub.addr, jump) || !whole[k]
		    || memcmp(now[k], jump, p->plan.end - p->plan.start) != 0) {
			p->state = PATCH_STALE;
			dropped++;
		}
	}
	free(which);
	free(local);
	free(remote);
	free(now);
	free(whole);
	return dropped;
}

struct site_record *as_site_overlapping_in(struct addr_space *as, pid_t pid, uint64_t lo, uint64_t hi)
{
	if (!as_site_overlapping(as, lo, hi))
		return NULL;
	as_drop_replaced(as, pid, lo, hi);
	return as_site_overlapping(as, lo, hi);
}

bool as_within_reach(uint64_t a, uint64_t b)
{
	return (a > b ? a - b : b - a) < AS_REACH;
}

uint64_t as_stub_room(struct addr_space *as, uint64_t lo, uint64_t hi, size_t len)
{
	for (size_t i = 0; i < as->nareas; i++) {
		struct stub_area *a = &as->areas[i];
		uint64_t at = a->addr + a->used;

		if (a->size - a->used >= len && as_within_reach(at, lo) && as_within_reach(at + len, hi))
			return at;
	}
	return 0;
}

void as_add_area(struct addr_space *as, uint64_t addr, uint64_t size)
{
	as->areas = realloc(as->areas, (as->nareas + 1) * sizeof(*as->areas));
	if (!as->areas)
		abort();
	as->areas[as->nareas++] = (struct stub_area){ addr, size, 0 };
}

void as_stub_taken(struct addr_space *as, uint64_t addr, size_t len)
{
	for (size_t i = 0; i < as->nareas; i++) {
		struct stub_area *a = &as->areas[i];

		if (addr >= a->addr && addr < a->addr + a->size)
			a->used = (addr + len - a->addr + 15) & ~(uint64_t)15;
	}
}

bool as_write(struct addr_space *as, pid_t pid, uint64_t addr, const void *bytes, size_t len)
{
	if (as->mem_fd < 0) {
		char path[64];

		snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
		/* the descriptor holds the memory itself: it stays valid whichever of the
		 * address space's threads it was opened through exits */
		as->mem_fd = fd_open(path, O_RDWR | O_CLOEXEC);
		if (as->mem_fd < 0)
			return false;
	}
	return pwrite(as->mem_fd, bytes, len, (off_t)addr) == (ssize_t)len;
}
