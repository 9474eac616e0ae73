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
	/* once two places gave two layouts: each place's, owning them (last is one);
	 * before, NULL, and last is owned alone */
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

static bool same(const struct layout *l, const struct layout_entry *e, size_t n)
{
	if (l->n != n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (l->e[i].o != e[i].o || l->e[i].start != e[i].start || l->e[i].end != e[i].end
		    || l->e[i].file_offset != e[i].file_offset)
			return false;
	return true;
}

void layouts_keep(struct layouts **lp, uint64_t loader_start, const struct layout_entry *e, size_t n)
{
	struct layouts *l = *lp;
	size_t place = PLACE(loader_start);

	if (!l) {
		if (!(l = *lp = calloc(1, sizeof(*l))))
			abort();
	}
	if (!l->at) {
		if (l->last && same(l->last, e, n))
			return;
		if (!l->last || l->last->place == place) {
			free(l->last);
			l->last = layout_new(place, e, n);
			return;
		}
		/* a second place, another layout: from now on, one per place */
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

/* Whether two places saw the same mappings, each of one size (if not, the place
 * between goes by the nearer alone). */
static bool same_mappings(const struct layout *b, const struct layout *a)
{
	if (b->n != a->n)
		return false;
	for (size_t i = 0; i < b->n; i++)
		if (b->e[i].o != a->e[i].o || b->e[i].file_offset != a->e[i].file_offset
		    || b->e[i].end - b->e[i].start != a->e[i].end - a->e[i].start)
			return false;
	return true;
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
		if (found->n && found->n <= LAYOUT_MAX && same_mappings(below, above)) {
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
