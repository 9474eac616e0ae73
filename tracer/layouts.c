#include "layouts.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* The places of a page-aligned loader within a 2 MB page. */
#define PLACES 512
#define PLACE(loader_start) ((size_t)((loader_start) >> 12) % PLACES)

struct layout {
	size_t place, n;
	struct layout_entry e[];
};

struct layouts {
	struct layout *last; /* the last seen */
	/* once two places gave the same mappings at two distances from the loader:
	 * each place's, owning them (last is one); before, NULL, and last is owned
	 * alone */
	struct layout **at;
	size_t nplaces;
};

static struct layout *layout_new(size_t place, const struct layout_entry *e, size_t n)
{
	struct layout *l = malloc(sizeof(*l) + n * sizeof(*e));

	if (!l)
		abort();
	l->place = place;
	l->n = n;
	if (n)
		memcpy(l->e, e, n * sizeof(*e));
	return l;
}

/* Whether l holds the mappings e, each of one size, wherever they lie. */
static bool same_mappings(const struct layout *l, const struct layout_entry *e, size_t n)
{
	if (l->n != n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (l->e[i].o != e[i].o || l->e[i].file_offset != e[i].file_offset
		    || l->e[i].end - l->e[i].start != e[i].end - e[i].start)
			return false;
	return true;
}

/* And at the same places. */
static bool same(const struct layout *l, const struct layout_entry *e, size_t n)
{
	if (!same_mappings(l, e, n))
		return false;
	for (size_t i = 0; i < n; i++)
		if (l->e[i].start != e[i].start)
			return false;
	return true;
}

static void drop_table(struct layouts *l)
{
	for (size_t i = 0; i < PLACES; i++)
		if (l->at[i] != l->last)
			free(l->at[i]);
	free(l->at);
	l->at = NULL;
	l->nplaces = 0;
}

/* The maps walk gives the mappings by address, and which comes first changes with
 * the place (a small library above the large one or below it): kept in one order,
 * by object and offset, so that the same mappings compare index by index. */
static int by_mapping(const void *a, const void *b)
{
	const struct layout_entry *x = a, *y = b;

	if (x->o != y->o)
		return (uintptr_t)x->o < (uintptr_t)y->o ? -1 : 1;
	return x->file_offset < y->file_offset ? -1 : x->file_offset > y->file_offset;
}

void layouts_keep(struct layouts **lp, uint64_t loader_start, const struct layout_entry *seen, size_t n)
{
	struct layouts *l = *lp;
	size_t place = PLACE(loader_start);
	struct layout_entry e[LAYOUT_MAX];

	if (n > LAYOUT_MAX)
		return; /* (the maps walk keeps none then: known_sites.c) */
	if (n)
		memcpy(e, seen, n * sizeof(*e));
	qsort(e, n, sizeof(*e), by_mapping);

	if (!l) {
		if (!(l = *lp = calloc(1, sizeof(*l))))
			abort();
	}
	/* other mappings (a preloaded library, another library path): what the places
	 * taught is of another set, and the old way holds again: this layout for all */
	if (l->at && !same_mappings(l->last, e, n))
		drop_table(l);
	if (!l->at) {
		if (l->last && same(l->last, e, n))
			return;
		if (!l->last || l->last->place == place || !same_mappings(l->last, e, n)) {
			free(l->last);
			l->last = layout_new(place, e, n);
			return;
		}
		/* the same mappings elsewhere for another place: from now on, one per place */
		if (!(l->at = calloc(PLACES, sizeof(*l->at))))
			abort();
		l->at[l->last->place] = l->last;
		l->nplaces = 1;
	}
	if (l->at[place] && same(l->at[place], e, n)) {
		l->last = l->at[place];
		return;
	}
	if (l->at[place])
		free(l->at[place]);
	else
		l->nplaces++;
	l->last = l->at[place] = layout_new(place, e, n);
}

/* The nearest place with a layout of its own from place, going down (step -1) or
 * up (+1) round the 2 MB page, and how far. */
static const struct layout *nearest(const struct layouts *l, size_t place, int step, size_t *dist)
{
	for (size_t d = 1; d < PLACES; d++) {
		const struct layout *x = l->at[(place + (step < 0 ? PLACES - d : d)) % PLACES];

		if (x) {
			*dist = d;
			return x;
		}
	}
	return NULL;
}

/* A mapping at a place between two seen ones, d places above `below` and span below
 * `above`: where both saw it at one distance from the loader, there (it went with
 * the loader); where it kept its address while the loader moved, at that address
 * (it went with a 2 MB boundary that did not move between them); else where the
 * nearer saw it. */
static struct layout_entry between(const struct layout_entry *b, const struct layout_entry *a, size_t d, size_t span,
				   const struct layout_entry *nearer)
{
	int64_t moved = (int64_t)span * 4096, shift = (int64_t)d * 4096;

	if (a->start == b->start)
		return *b;
	if (a->start == b->start - moved)
		return (struct layout_entry){ b->o, b->start - shift, b->end - shift, b->file_offset };
	return *nearer;
}

const struct layout_entry *layouts_for(const struct layouts *l, uint64_t loader_start,
				       struct layout_entry guess[LAYOUT_MAX], size_t *n)
{
	const struct layout *found, *below, *above;
	size_t place = PLACE(loader_start), db = 0, da = 0;

	if (!l)
		return NULL;
	found = l->at ? l->at[place] : l->last;
	if (!found) {
		/* (two places at least have one: nearest finds both) */
		below = nearest(l, place, -1, &db);
		above = nearest(l, place, 1, &da);
		found = db <= da ? below : above;
		if (found->n && found->n <= LAYOUT_MAX && same_mappings(below, above->e, above->n)) {
			for (size_t i = 0; i < found->n; i++)
				guess[i] = between(&below->e[i], &above->e[i], db, db + da, &found->e[i]);
			*n = found->n;
			return guess;
		}
	}
	if (!found->n)
		return NULL;
	*n = found->n;
	return found->e;
}

size_t layouts_places(const struct layouts *l)
{
	return l ? l->nplaces : 0;
}

void layouts_free(struct layouts *l)
{
	if (!l)
		return;
	if (l->at) {
		for (size_t i = 0; i < PLACES; i++)
			free(l->at[i]);
		free(l->at);
	} else {
		free(l->last);
	}
	free(l);
}
