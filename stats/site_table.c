#include "site_table.h"

#include "grow_array.h"

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

struct site_record *site_table_find(const struct site_table *t, uint64_t addr)
{
	if (t->nslots == 0)
		return NULL;
	for (size_t s = slot_of(addr, t->nslots); t->slots[s]; s = (s + 1) & (t->nslots - 1))
		if (t->sites[t->slots[s] - 1].addr == addr)
			return &t->sites[t->slots[s] - 1];
	return NULL;
}

struct site_record *site_table_get(struct site_table *t, uint64_t addr)
{
	size_t s;

	if (t->nslots == 0)
		rehash(t, 16);
	for (s = slot_of(addr, t->nslots); t->slots[s]; s = (s + 1) & (t->nslots - 1))
		if (t->sites[t->slots[s] - 1].addr == addr)
			return &t->sites[t->slots[s] - 1];
	t->sites = grow_array(t->sites, &t->cap, t->n, sizeof(*t->sites));
	t->sites[t->n] = (struct site_record){ .addr = addr, .syscall = SITE_SYSCALL_UNSET, .offset = addr };
	t->slots[s] = (uint32_t)++t->n;
	if (2 * t->n > t->nslots)
		rehash(t, 2 * t->nslots);
	return &t->sites[t->n - 1];
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
