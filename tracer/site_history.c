#include "site_history.h"

#include <stdlib.h>
#include <string.h>

#include "grow_array.h"

/* Until measured: a batch write ~2 us a patch, a stop ~5 us, a patch at a trap
 * ~20 us (docs/benchmarks.md). */
#define DEFAULT_BATCH_NS 2000
#define DEFAULT_STOP_NS 5000
#define DEFAULT_TRAP_PATCH_NS 20000

/* What the images of one executable (or of all: exe NULL) ran of one object's known
 * sites. */
struct history {
	const struct object *exe, *o;
	uint64_t images, last_serial;
	uint32_t *ran;          /* per known index: images in which it ran */
	size_t nran;
};

static _Thread_local struct history *table;   /* open addressing; o NULL: empty */
static _Thread_local size_t nslots, nused;
static _Thread_local struct history_sums sums;
static uint64_t stop_ns = DEFAULT_STOP_NS; /* set at start-up */

static size_t hash(const struct object *exe, const struct object *o)
{
	uint64_t h = (uint64_t)(uintptr_t)exe * 0x9e3779b97f4a7c15ull ^ (uint64_t)(uintptr_t)o * 0xc2b2ae3d27d4eb4full;

	return (size_t)(h ^ h >> 29);
}

static struct history *slot(const struct object *exe, const struct object *o)
{
	size_t i = hash(exe, o) & (nslots - 1);

	while (table[i].o && (table[i].o != o || table[i].exe != exe))
		i = (i + 1) & (nslots - 1);
	return &table[i];
}

static struct history *find(const struct object *exe, const struct object *o)
{
	struct history *h;

	if (!nslots)
		return NULL;
	h = slot(exe, o);
	return h->o ? h : NULL;
}

static struct history *get(const struct object *exe, const struct object *o)
{
	struct history *h;

	if (2 * (nused + 1) > nslots) {
		struct history *old = table;
		size_t n = nslots;

		nslots = nslots ? 2 * nslots : 256;
		if (!(table = calloc(nslots, sizeof(*table))))
			abort();
		for (size_t i = 0; i < n; i++)
			if (old[i].o)
				*slot(old[i].exe, old[i].o) = old[i];
		free(old);
	}
	h = slot(exe, o);
	if (!h->o) {
		*h = (struct history){ .exe = exe, .o = o };
		nused++;
	}
	return h;
}

static void note(struct history *h, uint64_t serial, uint32_t known, bool ran)
{
	if (h->last_serial != serial) {
		h->last_serial = serial;
		h->images++;
	}
	if (!ran)
		return;
	if (known >= h->nran) {
		size_t had = h->nran;

		h->ran = grow_array_to(h->ran, &h->nran, (size_t)known + 1, sizeof(*h->ran));
		memset(h->ran + had, 0, (h->nran - had) * sizeof(*h->ran));
	}
	h->ran[known]++;
}

void history_note(uint64_t serial, const struct object *exe, const struct object *o, uint32_t known, bool ran)
{
	note(get(NULL, o), serial, known, ran);
	if (exe)
		note(get(exe, o), serial, known, ran);
}

void history_sums_get(struct history_sums *s)
{
	*s = sums;
}

void history_sums_add(struct history_sums *sum, const struct history_sums *s)
{
	sum->batch_ns += s->batch_ns;
	sum->batch_patches += s->batch_patches;
	sum->trap_ns += s->trap_ns;
	sum->traps += s->traps;
}

void history_costs(const struct history_sums *s, uint64_t *p_ns, uint64_t *m_ns)
{
	*p_ns = s->batch_patches ? s->batch_ns / s->batch_patches : DEFAULT_BATCH_NS;
	*m_ns = stop_ns + (s->traps ? s->trap_ns / s->traps : DEFAULT_TRAP_PATCH_NS);
}

unsigned history_threshold_permille(const struct history_sums *s)
{
	uint64_t p, m, t;

	history_costs(s, &p, &m);
	t = m ? 1000 * p / m : 1000;

	return t < 10 ? 10 : t > 1000 ? 1000 : (unsigned)t;
}

bool history_wants(const struct object *exe, const struct object *o, uint32_t known)
{
	const struct history *h = exe ? find(exe, o) : NULL;
	uint64_t ran;

	if (!h && !(h = find(NULL, o)))
		return true; /* nothing known of the object's use yet */
	ran = known < h->nran ? h->ran[known] : 0;
	/* ran / images >= P / M */
	return 1000 * ran >= (uint64_t)history_threshold_permille(&sums) * h->images;
}

void history_note_batch(uint64_t ns, uint64_t patches)
{
	sums.batch_ns += ns;
	sums.batch_patches += patches;
}

void history_note_trap_patch(uint64_t ns)
{
	sums.trap_ns += ns;
	sums.traps++;
}

void history_set_stop_cost(uint64_t ns)
{
	stop_ns = ns;
}

void history_free(void)
{
	for (size_t i = 0; i < nslots; i++)
		free(table[i].ran);
	free(table);
	table = NULL;
	nslots = nused = 0;
	sums = (struct history_sums){ 0 };
}
