#include "site_reuse.h"

#include "objects.h"

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

void site_reuse_on_trap(struct thread *t, uint64_t site)
{
	struct addr_space *as = t->img->as;
	struct site_record *s = as ? site_table_find(&as->sites, site) : NULL;
	struct patch *p, *fresh;

	if (!s || !s->named)
		return;
	p = as_patch_of(as, s);
	if (!patch_has_counter(p) && !p->unmapped)
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
