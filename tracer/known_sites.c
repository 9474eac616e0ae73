#include "known_sites.h"

#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "byte_runs.h"
#include "objects.h"
#include "patch_build.h"
#include "proc_maps.h"
#include "procfs.h"
#include "site_history.h"
#include "site_plan.h"

static bool prepatch;

void known_sites_setup(bool ahead)
{
	prepatch = ahead;
}

/* Where known sites go: an image's memory, and whether to ask history_wants. */
struct known_into {
	struct addr_space *as;
	const struct image *img;
	bool all; /* every known site (at exec: the loader's run in every image) */
};

/* objects_want_fn: whether the image is likely to run the site (site_history.h). */
static bool wants(void *arg, const struct object *o, uint32_t index)
{
	const struct known_into *into = arg;

	return into->all || history_wants(into->img->exe_object, o, index);
}

/* objects_known_fn: the site planned in arg's memory, unless decided there. */
static void add_known(void *arg, const struct site_record *named, const struct patch_plan *plan,
		      const struct object *o, uint32_t index)
{
	const struct known_into *into = arg;
	struct patch *p;
	struct site_record *s = as_site(into->as, named->addr, &p);

	if (p->state != PATCH_UNPLANNED)
		return;
	s->object = named->object;
	s->offset = named->offset;
	s->symbol = named->symbol;
	s->symbol_offset = named->symbol_offset;
	s->named = true;
	s->syscall = plan->nr >= 0 ? syscall_index(ABI_X86_64, plan->nr) : SITE_SYSCALL_VARIES;
	p->plan = *plan;
	p->state = PATCH_PLANNED;
	p->object = o;
	p->known = index;
	p->from_known = objects_known_since(o, index) < into->img->serial;
}

/* The sites out of reach of the library's stub room (the executable's). */
struct far_range {
	uint64_t lo, hi;
};

/* The range of the sites planned and not written that lie out of reach of room
 * (the executable's, far from the shared libraries), as far as one area can serve. */
static struct far_range far_sites(const struct addr_space *as, uint64_t room)
{
	struct far_range far = { 0, 0 };

	for (size_t i = 0; i < as->sites.n; i++) {
		const struct patch_plan *plan = &as->patches[i].plan;

		if (as->patches[i].state != PATCH_PLANNED
		    || (as_within_reach(room, plan->start) && as_within_reach(room, plan->end)))
			continue;
		if (!far.hi) {
			far = (struct far_range){ plan->start, plan->end };
		} else if (as_within_reach(far.lo, plan->end) && as_within_reach(far.hi, plan->start)) {
			far.lo = plan->start < far.lo ? plan->start : far.lo;
			far.hi = plan->end > far.hi ? plan->end : far.hi;
		}
	}
	return far;
}

uint64_t known_sites_prepare(struct thread *t, uint64_t library_code)
{
	struct far_range far;
	uint64_t at;

	struct known_into into = { t->img->as, t->img, prepatch };

	if (!t->img->exe_object && t->img->rec.started_by_exec)
		t->img->exe_object = objects_exe_of(t->tid);
	if (prepatch)
		site_plan_ahead(t->tid);
	if (!objects_for_each_known(t->tid, &(struct known_visit){ wants, add_known, &into }))
		return 0;
	far = far_sites(t->img->as, library_code);
	if (!far.hi)
		return 0;
	return proc_maps_gap_near(t->tid, far.lo, far.hi, PATCH_AREA_SIZE, AS_REACH, &at) ? at : 0;
}

static int by_start(const void *a, const void *b)
{
	const struct patch *p = *(struct patch *const *)a, *q = *(struct patch *const *)b;

	return p->plan.start < q->plan.start ? -1 : p->plan.start > q->plan.start;
}

/* Where a batch's runs of bytes go: into the memory, or to be written by the image
 * itself (early.c's set-up code). */
struct sink {
	void (*put)(void *ctx, const struct byte_run *r);
	void *ctx;
};

struct into_memory {
	struct addr_space *as;
	pid_t pid;
};

static void put_in_memory(void *ctx, const struct byte_run *r)
{
	const struct into_memory *m = ctx;

	as_write(m->as, m->pid, r->addr, r->bytes, r->len);
}

static void run_flush(const struct sink *sink, struct byte_run *r)
{
	if (r->len)
		sink->put(sink->ctx, r);
	r->len = 0;
}

static void run_add(const struct sink *sink, struct byte_run *r, uint64_t addr, const uint8_t *bytes, size_t len,
		    uint64_t gap)
{
	if (!byte_run_add(r, addr, bytes, len, gap)) {
		run_flush(sink, r);
		byte_run_add(r, addr, bytes, len, gap);
	}
}

/* Keeps in list the plans whose bytes memory still holds (read in one call); a site
 * whose code differs is planned again at its first trap. How many are kept. */
static size_t keep_unchanged(pid_t pid, struct patch **list, size_t n, uint8_t (*now)[PATCH_MAX_COVER])
{
	struct iovec local[64], remote[64];
	size_t kept = 0;

	for (size_t at = 0; at < n; at += 64) {
		size_t k = n - at < 64 ? n - at : 64;

		for (size_t i = 0; i < k; i++) {
			const struct patch_plan *plan = &list[at + i]->plan;

			local[i] = (struct iovec){ now[at + i], plan->end - plan->start };
			remote[i] = (struct iovec){ (void *)plan->start, plan->end - plan->start };
		}
		if (process_vm_readv(pid, local, k, remote, k, 0) < 0)
			memset(now[at], 0, k * PATCH_MAX_COVER);
	}
	for (size_t i = 0; i < n; i++) {
		const struct patch_plan *plan = &list[i]->plan;

		if (memcmp(now[i], plan->original, plan->end - plan->start) == 0)
			list[kept++] = list[i];
		else
			list[i]->state = PATCH_UNPLANNED;
	}
	return kept;
}

/* Builds every site planned but not patched in t's memory, which t has to itself
 * (nothing else runs the bytes being written), but one whose bytes hold avoid, and
 * gives the bytes to sink; a site that cannot be waits for its trap. The patches
 * built are marked written. */
static void build_planned(struct thread *t, struct addr_space *as, uint64_t avoid, const struct sink *sink)
{
	uint64_t began = monotonic_ns(), cost;
	struct patch **list = malloc((as->sites.n + 1) * sizeof(*list));
	uint8_t (*now)[PATCH_MAX_COVER] = malloc((as->sites.n + 1) * PATCH_MAX_COVER);
	static struct byte_run stubs, jumps;
	size_t n = 0, done = 0;
	bool had_patches = as->npatched > 0;
	uint64_t last_end = 0;

	if (!list || !now)
		abort();
	for (size_t i = 0; i < as->sites.n; i++)
		if (as->patches[i].state == PATCH_PLANNED)
			list[n++] = &as->patches[i];
	qsort(list, n, sizeof(*list), by_start);
	n = keep_unchanged(t->tid, list, n, now);
	for (size_t i = 0; i < n; i++) {
		struct patch *p = list[i];
		uint8_t stub[STUB_MAX_LEN], jump[PATCH_MAX_COVER];
		uint64_t at = as_stub_room(as, p->plan.start, p->plan.end, STUB_MAX_LEN);
		size_t len;

		/* sorted: a site of the batch can only overlap the one before it */
		if (!at || p->plan.start < last_end || (avoid > p->plan.start && avoid < p->plan.end)
		    || (had_patches && as_site_overlapping_in(as, t->tid, p->plan.start, p->plan.end))
		    || !patch_build(as, p, at, stub, &len, jump)) {
			patch_decide(p, NULL); /* it waits for its trap */
			continue;
		}
		last_end = p->plan.end;
		run_add(sink, &stubs, at, stub, len, 16);
		run_add(sink, &jumps, p->plan.start, jump, p->plan.end - p->plan.start, 0);
		patch_mark_written(as, p, len, PATCH_IN_BATCH, 0);
		list[done++] = p;
	}
	run_flush(sink, &stubs);
	run_flush(sink, &jumps);
	cost = done ? (monotonic_ns() - began) / done : 0;
	for (size_t i = 0; i < done; i++)
		list[i]->cost_ns = cost;
	history_note_batch(cost * done, done);
	free(list);
	free(now);
}

void known_sites_write_planned(struct thread *t, struct addr_space *as, uint64_t avoid)
{
	struct into_memory m = { as, t->tid };

	build_planned(t, as, avoid, &(struct sink){ put_in_memory, &m });
}

void known_sites_build_for(struct thread *t, struct addr_space *as, void (*put)(void *, const struct byte_run *),
			   void *ctx)
{
	build_planned(t, as, 0, &(struct sink){ put, ctx });
}

void known_sites_write_at_ready(struct thread *t, uint64_t room, uint64_t room_size, uint64_t area)
{
	struct addr_space *as = t->img->as;

	if (room)
		as_add_area(as, room, room_size);
	if (area)
		as_add_area(as, area, PATCH_AREA_SIZE);
	known_sites_write_planned(t, as, 0);
}

size_t known_sites_plan_at(struct thread *t, uint64_t addr)
{
	struct known_into into = { t->img->as, t->img, prepatch };
	size_t before = into.as->sites.n;

	objects_for_each_known_at(t->tid, addr, &(struct known_visit){ wants, add_known, &into });
	return into.as->sites.n - before;
}

void known_sites_write_all(struct thread *t, struct addr_space *as, uint64_t site)
{
	struct known_into into = { as, t->img, prepatch };

	if (!thread_alone_in_memory(t))
		return;
	objects_for_each_known(t->tid, &(struct known_visit){ wants, add_known, &into });
	known_sites_write_planned(t, as, site + 2);
}

void known_sites_write_object(struct thread *t, struct addr_space *as, uint64_t site)
{
	struct known_into into = { as, t->img, prepatch };
	size_t before = as->sites.n;

	if (!thread_alone_in_memory(t))
		return;
	objects_for_each_known_at(t->tid, site, &(struct known_visit){ wants, add_known, &into });
	if (as->sites.n > before)
		known_sites_write_planned(t, as, site + 2);
}

void known_sites_note_image(struct image *img)
{
	const struct addr_space *as = img->as;

	/* the images whose start the policy decided: an exec's, with its own memory */
	if (!as || !img->owns_as || !img->rec.started_by_exec || !img->late)
		return;
	for (size_t i = 0; i < as->sites.n; i++) {
		const struct patch *p = &as->patches[i];
		const struct site_record *s;
		bool ran, batch;

		if (!p->object)
			continue;
		s = site_table_find(&img->sites, as->sites.sites[i].addr);
		ran = s && s->ptraced + s->inprocess > 0;
		history_note(img->serial, img->exe_object, p->object, p->known, ran);
		batch = patch_has_counter(p) && p->origin == PATCH_IN_BATCH;
		img->rec.known_unused += batch && !ran;
		img->rec.known_missed += p->from_known && !batch && ran;
	}
}
