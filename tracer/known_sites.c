#include "known_sites.h"

#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "byte_runs.h"
#include "counting.h"
#include "objects.h"
#include "patch_build.h"
#include "proc_maps.h"
#include "procfs.h"
#include "remote_read.h"
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

static int by_start(const void *a, const void *b)
{
	const struct patch *p = *(struct patch *const *)a, *q = *(struct patch *const *)b;

	return p->plan.start < q->plan.start ? -1 : p->plan.start > q->plan.start;
}

/* Where a batch's runs of bytes go: into the memory, or to be written by the image
 * itself (early.c's set-up code). put says whether all of a run's bytes went.
 * original, if not NULL, gives the bytes that lie between two jumps, so that the
 * jumps near each other go in one write (each is a call of the image's on the VM
 * of docs/benchmarks.md: 15 of them for the loader's sites of a /bin/true image). */
struct sink {
	bool (*put)(void *ctx, const struct byte_run *r);
	void *ctx;
	const struct gap_bytes *original;
};

/* At most this far apart, two jumps share a write when the sink knows the bytes
 * between them: no page is copied for the image that a jump would not copy anyway. */
#define JUMP_JOIN_GAP 512

struct into_memory {
	struct addr_space *as;
	pid_t pid;
};

static bool put_in_memory(void *ctx, const struct byte_run *r)
{
	const struct into_memory *m = ctx;

	return as_write(m->as, m->pid, r->addr, r->bytes, r->len);
}

/* A run being gathered, and where its bytes begin in the batch: they are those of
 * the batch's patches from `first` on (each adds its bytes in turn), which a run that
 * could not be written takes down with it. */
struct gathered {
	struct byte_run run;
	size_t first;
};

/* What of a batch's patch did not go. */
enum lost { LOST_NOTHING, LOST_STUB, LOST_JUMP };

/* Writes g out (g: the batch's runs of `what`); if it cannot be, the patches up to
 * `upto` whose bytes it held lost them. */
static void gathered_flush(const struct sink *sink, struct gathered *g, size_t upto, enum lost what, enum lost *lost)
{
	if (g->run.len && !sink->put(sink->ctx, &g->run))
		for (size_t i = g->first; i < upto; i++)
			lost[i] = lost[i] == LOST_NOTHING ? what : lost[i];
	g->run.len = 0;
	g->first = upto;
}

/* Adds the bytes of the batch's patch `index` to g, writing g out first when they
 * cannot join it. */
static void gathered_add(const struct sink *sink, struct gathered *g, size_t index, uint64_t addr,
			 const uint8_t *bytes, size_t len, uint64_t gap, const struct gap_bytes *from,
			 enum lost what, enum lost *lost)
{
	if (!byte_run_add(&g->run, addr, bytes, len, gap, from)) {
		gathered_flush(sink, g, index, what, lost);
		byte_run_add(&g->run, addr, bytes, len, gap, from);
	}
}

/* Keeps in list the plans whose bytes memory still holds (read in one call, on past
 * a range unmapped since); a site whose code differs, or cannot be read, is planned
 * again at its first trap. How many are kept. */
static size_t keep_unchanged(pid_t pid, struct patch **list, size_t n, uint8_t (*now)[PATCH_MAX_COVER])
{
	struct iovec *local = calloc(n + 1, sizeof(*local)), *remote = calloc(n + 1, sizeof(*remote));
	bool *whole = calloc(n + 1, sizeof(*whole));
	size_t kept = 0;

	if (!local || !remote || !whole)
		abort();
	for (size_t i = 0; i < n; i++) {
		const struct patch_plan *plan = &list[i]->plan;

		local[i] = (struct iovec){ now[i], plan->end - plan->start };
		remote[i] = (struct iovec){ (void *)plan->start, plan->end - plan->start };
	}
	remote_read_ranges(pid, local, remote, n, whole);
	for (size_t i = 0; i < n; i++) {
		const struct patch_plan *plan = &list[i]->plan;

		if (whole[i] && memcmp(now[i], plan->original, plan->end - plan->start) == 0)
			list[kept++] = list[i];
		else
			list[i]->state = PATCH_UNPLANNED;
	}
	free(local);
	free(remote);
	free(whole);
	return kept;
}

/* A patch of the batch whose bytes did not all go waits for its trap, planned; a jump
 * that went in part gives way to the original bytes (a stub that did not go had its
 * jump held back: the code was not touched, its page stays shared). Its counter and
 * stub room stay taken: nothing counts there. */
static void not_written(struct addr_space *as, struct patch *p, enum lost lost, const struct sink *sink)
{
	static _Thread_local struct byte_run original;

	if (lost == LOST_JUMP) {
		original = (struct byte_run){ .addr = p->plan.start, .len = p->plan.end - p->plan.start };
		memcpy(original.bytes, p->plan.original, original.len);
		sink->put(sink->ctx, &original);
	}
	patch_decide(p, NULL);
	as->npatched--;
}

/* Which planned patches a batch takes: all, or those of one object expected where
 * it is not mapped yet (lib_hook.h), whose bytes are not read (its build-id is
 * checked by the image before they are written). At an exec event (as_mapped) the
 * memory is as the kernel mapped the files, each checked at this stop (objects.c's
 * same_file), and nothing has run: its bytes are the plans' originals and are not
 * read back either (reading them faulted the pages in for the tracer: 12 us of a
 * /bin/true image's 250 on the VM of docs/benchmarks.md). */
struct batch_of {
	const struct object *only;
	bool predicted;
	bool as_mapped;
};

/* Builds every site planned but not patched in t's memory (of `of`), which t has to
 * itself (nothing else runs the bytes being written), but one whose bytes hold
 * avoid, and gives the bytes to sink: every stub first, then the jumps to those that
 * were written. A site that cannot be, or whose bytes did not go, waits for its
 * trap. The patches built and given are marked written. */
static void build_planned(struct thread *t, struct addr_space *as, uint64_t avoid, const struct sink *sink,
			  struct batch_of of)
{
	uint64_t began = monotonic_ns(), cost;
	struct patch **list = calloc(as->sites.n + 1, sizeof(*list));
	uint8_t (*now)[PATCH_MAX_COVER] = calloc(as->sites.n + 1, PATCH_MAX_COVER);
	uint8_t (*jumps_of)[PATCH_MAX_COVER] = calloc(as->sites.n + 1, PATCH_MAX_COVER);
	enum lost *lost = calloc(as->sites.n + 1, sizeof(*lost));
	static _Thread_local struct gathered stubs, jumps;
	size_t n = 0, done = 0, written = 0;
	bool had_patches = as->npatched > 0;
	uint64_t last_end = 0;

	if (!list || !now || !jumps_of || !lost)
		abort();
	for (size_t i = 0; i < as->sites.n; i++)
		if (as->patches[i].state == PATCH_PLANNED && (!of.only || as->patches[i].object == of.only))
			list[n++] = &as->patches[i];
	qsort(list, n, sizeof(*list), by_start);
	if (!of.predicted && !of.as_mapped)
		n = keep_unchanged(t->tid, list, n, now);
	stubs.first = jumps.first = 0;
	for (size_t i = 0; i < n; i++) {
		struct patch *p = list[i];
		uint8_t stub[STUB_MAX_LEN];
		uint64_t at = as_stub_room(as, p->plan.start, p->plan.end, STUB_MAX_LEN);
		size_t len;

		/* sorted: a site of the batch can only overlap the one before it */
		if (!at || p->plan.start < last_end || (avoid > p->plan.start && avoid < p->plan.end)
		    || (had_patches && of.predicted && as_site_overlapping(as, p->plan.start, p->plan.end))
		    || (had_patches && !of.predicted && as_site_overlapping_in(as, t->tid, p->plan.start, p->plan.end))
		    || !patch_build(as, p, at, stub, &len, jumps_of[done])) {
			patch_decide(p, NULL); /* it waits for its trap */
			continue;
		}
		last_end = p->plan.end;
		gathered_add(sink, &stubs, done, at, stub, len, 16, NULL, LOST_STUB, lost);
		patch_mark_written(as, p, len, PATCH_IN_BATCH, 0);
		list[done++] = p;
	}
	gathered_flush(sink, &stubs, done, LOST_STUB, lost);
	/* no jump to a stub that is not there */
	for (size_t i = 0; i < done; i++)
		if (lost[i] == LOST_NOTHING)
			gathered_add(sink, &jumps, i, list[i]->plan.start, jumps_of[i],
				     list[i]->plan.end - list[i]->plan.start, sink->original ? JUMP_JOIN_GAP : 0,
				     sink->original, LOST_JUMP, lost);
	gathered_flush(sink, &jumps, done, LOST_JUMP, lost);
	for (size_t i = 0; i < done; i++) {
		if (lost[i] != LOST_NOTHING)
			not_written(as, list[i], lost[i], sink);
		else
			list[written++] = list[i];
	}
	cost = written ? (monotonic_ns() - began) / written : 0;
	for (size_t i = 0; i < written; i++)
		list[i]->cost_ns = cost;
	history_note_batch(cost * written, written);
	free(list);
	free(now);
	free(jumps_of);
	free(lost);
}

void known_sites_write_planned(struct thread *t, struct addr_space *as, uint64_t avoid)
{
	struct into_memory m = { as, t->tid };

	build_planned(t, as, avoid, &(struct sink){ put_in_memory, &m, NULL }, (struct batch_of){ 0 });
}

void known_sites_build_for(struct thread *t, struct addr_space *as, bool (*put)(void *, const struct byte_run *),
			   void *ctx, const struct gap_bytes *original)
{
	build_planned(t, as, 0, &(struct sink){ put, ctx, original }, (struct batch_of){ .as_mapped = true });
}

void known_sites_build_predicted(struct thread *t, struct addr_space *as, const struct layout_entry *where,
				 uint64_t anchor, bool (*put)(void *, const struct byte_run *), void *ctx)
{
	struct known_into into = { as, t->img, false };

	objects_for_each_known_predicted(where->o, anchor + (uint64_t)where->start, anchor + (uint64_t)where->end,
					 where->file_offset, &(struct known_visit){ wants, add_known, &into, NULL });
	build_planned(t, as, 0, &(struct sink){ put, ctx, NULL }, (struct batch_of){ .only = where->o, .predicted = true });
}

size_t known_sites_plan_at(struct thread *t, uint64_t addr)
{
	struct known_into into = { t->img->as, t->img, prepatch };
	size_t before = into.as->sites.n;

	if (prepatch)
		site_plan_ahead(t->tid);
	objects_for_each_known_at(t->tid, addr, &(struct known_visit){ wants, add_known, &into, NULL });
	return into.as->sites.n - before;
}

/* The libraries' layout seen at an image's first call outside its loader, for the
 * next images of its executable (lib_hook.h): every file mapped executable but the
 * loader and the executable, with a build-id the image can check, relative to the
 * loader's code. */
struct layout_seen {
	const struct addr_space *as;
	const struct object *exe, *loader;
	struct layout_entry e[LAYOUT_MAX];
	size_t n;
	bool overflow;
};

static void note_mapped(void *arg, struct object *o, uint64_t start, uint64_t end, uint64_t file_offset)
{
	struct layout_seen *l = arg;
	const uint8_t *id;
	uint64_t vaddr;
	size_t len;

	if (start == l->as->loader_start) {
		l->loader = o;
		return;
	}
	if (!o || o == l->exe || !objects_build_id(o, &vaddr, &id, &len))
		return;
	if (l->n == LAYOUT_MAX) {
		l->overflow = true;
		return;
	}
	l->e[l->n++] = (struct layout_entry){ o, (int64_t)(start - l->as->loader_start),
					      (int64_t)(end - l->as->loader_start), file_offset };
}

/* objects_mapped_fn for known_sites_write_all: the layout, then known_into's wants */
struct write_all {
	struct known_into into;
	struct layout_seen layout;
};

static bool wants_all(void *arg, const struct object *o, uint32_t index)
{
	return wants(&((struct write_all *)arg)->into, o, index);
}

static void add_known_all(void *arg, const struct site_record *named, const struct patch_plan *plan,
			  const struct object *o, uint32_t index)
{
	add_known(&((struct write_all *)arg)->into, named, plan, o, index);
}

static void mapped_all(void *arg, struct object *o, uint64_t start, uint64_t end, uint64_t file_offset)
{
	note_mapped(&((struct write_all *)arg)->layout, o, start, end, file_offset);
}

void known_sites_write_all(struct thread *t, struct addr_space *as, uint64_t site)
{
	struct write_all all = { { as, t->img, prepatch }, { .as = as } };

	if (!thread_alone_in_memory(t))
		return;
	if (!t->img->exe_object && t->img->rec.started_by_exec)
		t->img->exe_object = objects_exe_of(t->tid);
	all.layout.exe = t->img->exe_object;
	if (prepatch)
		site_plan_ahead(t->tid);
	objects_for_each_known(t->tid, &(struct known_visit){ wants_all, add_known_all, &all, mapped_all });
	if (all.layout.exe && all.layout.loader && t->img->rec.started_by_exec && !all.layout.overflow)
		objects_set_layout((struct object *)all.layout.exe, all.layout.loader, as->loader_start, all.layout.e,
				   all.layout.n);
	known_sites_write_planned(t, as, site + 2);
}

void known_sites_write_object(struct thread *t, struct addr_space *as, uint64_t site)
{
	struct known_into into = { as, t->img, prepatch };
	size_t before = as->sites.n;

	if (!thread_alone_in_memory(t))
		return;
	objects_for_each_known_at(t->tid, site, &(struct known_visit){ wants, add_known, &into, NULL });
	if (as->sites.n > before)
		known_sites_write_planned(t, as, site + 2);
}

void known_sites_note_ran(struct image *img, uint64_t site)
{
	struct patch *p;

	if (site && img->as && !img->owns_as && site_table_find(&img->as->sites, site)) {
		as_site(img->as, site, &p);
		p->ran_by_sharer |= p->object != NULL;
	}
}

/* Whether img ran the site of its memory's record i. */
static bool image_ran(struct image *img, const struct addr_space *as, size_t i)
{
	const struct site_record *s = image_site_of(img, &as->sites.sites[i], false);

	return s && s->ptraced + s->inprocess > 0;
}

void known_sites_note_image(struct image *img)
{
	struct addr_space *as = img->as;

	if (!as)
		return;
	/* a vfork child's calls (a shell's execve) are its memory's: its owner's
	 * image ran them, as far as what to write at its start goes */
	if (!img->owns_as) {
		for (size_t i = 0; i < img->sites.n; i++)
			if (img->sites.sites[i].ptraced + img->sites.sites[i].inprocess)
				known_sites_note_ran(img, img->sites.sites[i].addr);
		return;
	}
	/* the images whose start the policy decided: an exec's, with its own memory */
	if (!img->rec.started_by_exec || !img->late)
		return;
	for (size_t i = 0; i < as->sites.n; i++) {
		const struct patch *p = &as->patches[i];
		bool ran, batch;

		if (!p->object)
			continue;
		ran = image_ran(img, as, i);
		/* what the memory ran, its vfork children's calls too, teaches the
		 * policy; the image's own figures are of its own calls (processes.csv:
		 * what was written and ran is among the sites that ran) */
		history_note(img->serial, img->exe_object, p->object, p->known, ran || p->ran_by_sharer);
		batch = patch_has_counter(p) && p->origin == PATCH_IN_BATCH;
		img->rec.known_unused += batch && !ran;
		img->rec.known_missed += p->from_known && !batch && ran;
	}
}
