#include "site_reuse.h"

#include "grow_array.h"
#include "objects.h"
#include "shared_region.h"

/* Whether the object mapped at s's address in tid's memory is another than the one
 * s was named from (anonymous code against anonymous code: the same). */
static bool replaced(pid_t tid, const struct site_record *s)
{
	const struct object *o;
	const char *now;

	if (!objects_at(tid, s->addr, &o))
		return false; /* gone: nothing to say */
	now = o ? objects_path(o) : NULL;
	if (!now && (!s->object || s->object[0] != '/'))
		return false;
	/* (the path is the object's own string: one pointer per object read) */
	return now != s->object;
}

void site_reuse_slot_taken(struct thread *t)
{
	struct addr_space *as = t->img->as;

	as->slots = grow_array(as->slots, &as->cap_slots, as->nslots, sizeof(*as->slots));
	as->slots[as->nslots++] = (struct as_slot){ t->slot, 0 };
}

/* Moves the memory's maps_epoch when the thread of s made munmaps in-process since
 * s was last read. */
static void fold_unmaps(struct addr_space *as, struct as_slot *s)
{
	uint64_t now = region_slot(s->slot)->pad[REGION_SLOT_UNMAPS];

	if (now != s->unmaps_seen) {
		s->unmaps_seen = now;
		as->maps_epoch++;
	}
}

void site_reuse_slot_left(struct thread *t, bool emptied)
{
	struct addr_space *as = t->img->as;

	for (size_t i = 0; i < as->nslots; i++) {
		struct as_slot *s = &as->slots[i];

		if (s->slot != t->slot)
			continue;
		fold_unmaps(as, s);
		if (emptied)
			s->unmaps_seen = 0;
		else
			*s = as->slots[--as->nslots];
		return;
	}
}

/* Whether an object may have gone from under p's site since it was last known there
 * (then it is known now: the caller asks). One load per thread of the memory. */
static bool maps_moved(struct addr_space *as, struct patch *p)
{
	bool moved;

	for (size_t i = 0; i < as->nslots; i++)
		fold_unmaps(as, &as->slots[i]);
	moved = p->maps_epoch != as->maps_epoch;
	p->maps_epoch = as->maps_epoch;
	return moved;
}

void site_reuse_on_trap(struct thread *t, uint64_t site)
{
	struct addr_space *as = t->img->as;
	struct site_record *s = as ? site_table_find(&as->sites, site) : NULL;
	struct patch *p, *fresh;

	if (!s || !s->named)
		return;
	p = as_patch_of(as, s);
	/* (a site whose calls all stop: not worth a look at the mappings at each) */
	if (!patch_has_counter(p) && !p->unmapped && !maps_moved(as, p))
		return;
	if (!replaced(t->tid, s)) {
		p->unmapped = false; /* the same object again */
		return;
	}
	/* its jump is gone with its object: the stub stays, and its counter */
	if (p->state == PATCH_WRITTEN)
		p->state = PATCH_STALE;
	p->unmapped = false;
	site_table_retire(s);
	as_site(as, site, &fresh);
}

void site_reuse_on_munmap(struct thread *t, uint64_t addr, uint64_t len)
{
	struct image *img = t->img;
	struct addr_space *as = img->as;

	if (!as)
		return;
	for (size_t i = 0; i < img->sites.n; i++) {
		const struct site_record is = img->sites.sites[i];
		struct site_record *s;
		struct patch *p;

		if (is.addr < addr || is.addr - addr >= len || !is.named)
			continue;
		s = as_site(as, is.addr, &p);
		if (s->gen != is.gen)
			continue; /* an older object's record */
		if (!s->named) {
			/* (a memory with no record of it: --patch=off) */
			s->object = is.object;
			s->offset = is.offset;
			s->symbol = is.symbol;
			s->symbol_offset = is.symbol_offset;
			s->named = true;
		}
		p->unmapped = true;
	}
}
