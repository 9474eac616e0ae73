#include "site_table.h"

#include "grow_array.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static size_t slot_of(uint64_t addr, size_t nslots)
{
	return (size_t)((addr * 0x9e3779b97f4a7c15ULL) >> 32) & (nslots - 1);
}

static void rehash(struct site_table *t, size_t nslots)
{
	free(t->slots);
	t->slots = calloc(nslots, sizeof(*t->slots));
	if (!t->slots)
		abort();
	t->nslots = nslots;
	for (size_t i = 0; i < t->n; i++) {
		size_t s = slot_of(t->sites[i].addr, nslots);

		while (t->slots[s])
			s = (s + 1) & (nslots - 1);
		t->slots[s] = (uint32_t)(i + 1);
	}
}

/* The slot holding addr's record of gen (any when any), or the empty slot where it
 * goes; *next: the generation after the retired ones met. */
static size_t probe(const struct site_table *t, uint64_t addr, uint32_t gen, bool any, uint32_t *next)
{
	size_t s;

	*next = 0;
	for (s = slot_of(addr, t->nslots); t->slots[s]; s = (s + 1) & (t->nslots - 1)) {
		const struct site_record *r = &t->sites[t->slots[s] - 1];

		if (r->addr != addr)
			continue;
		if (any ? !r->retired : r->gen == gen)
			break;
		if (r->gen >= *next)
			*next = r->gen + 1;
	}
	return s;
}

static struct site_record *find(const struct site_table *t, uint64_t addr, uint32_t gen, bool any)
{
	uint32_t next;
	size_t s;

	if (t->nslots == 0)
		return NULL;
	s = probe(t, addr, gen, any, &next);
	return t->slots[s] ? &t->sites[t->slots[s] - 1] : NULL;
}

static struct site_record *get(struct site_table *t, uint64_t addr, uint32_t gen, bool any)
{
	uint32_t next;
	size_t s;

	if (t->nslots == 0)
		rehash(t, 16);
	s = probe(t, addr, gen, any, &next);
	if (t->slots[s])
		return &t->sites[t->slots[s] - 1];
	t->sites = grow_array(t->sites, &t->cap, t->n, sizeof(*t->sites));
	t->sites[t->n] = (struct site_record){
		.addr = addr, .gen = any ? next : gen, .syscall = SITE_SYSCALL_UNSET, .offset = addr
	};
	t->slots[s] = (uint32_t)++t->n;
	if (2 * t->n > t->nslots)
		rehash(t, 2 * t->nslots);
	return &t->sites[t->n - 1];
}

struct site_record *site_table_find(const struct site_table *t, uint64_t addr)
{
	return find(t, addr, 0, true);
}

struct site_record *site_table_get(struct site_table *t, uint64_t addr)
{
	return get(t, addr, 0, true);
}

struct site_record *site_table_find_gen(const struct site_table *t, uint64_t addr, uint32_t gen)
{
	return find(t, addr, gen, false);
}

struct site_record *site_table_get_gen(struct site_table *t, uint64_t addr, uint32_t gen)
{
	return get(t, addr, gen, false);
}

void site_table_retire(struct site_record *s)
{
	s->retired = true;
}

void site_table_copy(struct site_table *to, const struct site_table *from)
{
	*to = (struct site_table){ .n = from->n, .cap = from->n, .nslots = from->nslots };
	if (!from->nslots)
		return;
	to->sites = malloc((from->n ? from->n : 1) * sizeof(*to->sites));
	to->slots = malloc(from->nslots * sizeof(*to->slots));
	if (!to->sites || !to->slots)
		abort();
	memcpy(to->sites, from->sites, from->n * sizeof(*to->sites));
	memcpy(to->slots, from->slots, from->nslots * sizeof(*to->slots));
}

void site_note_syscall(struct site_record *s, int idx)
{
	if (s->syscall == SITE_SYSCALL_UNSET)
		s->syscall = idx;
	else if (s->syscall != idx)
		s->syscall = SITE_SYSCALL_VARIES;
}

void site_table_free(struct site_table *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->sites[i].libc_entries);
	free(t->sites);
	free(t->slots);
	memset(t, 0, sizeof(*t));
}
