#include "string_map.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* FNV-1a */
static uint64_t hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return h;
}

static size_t slot_of(const struct string_map *m, const char *key)
{
	size_t i = hash(key) & (m->nslots - 1);

	while (m->keys[i] && strcmp(m->keys[i], key))
		i = (i + 1) & (m->nslots - 1);
	return i;
}

size_t string_map_find(const struct string_map *m, const char *key)
{
	size_t i;

	if (!m->nslots)
		return (size_t)-1;
	i = slot_of(m, key);
	return m->keys[i] ? m->values[i] : (size_t)-1;
}

static void grow(struct string_map *m)
{
	struct string_map bigger = { 0 };

	bigger.nslots = m->nslots ? m->nslots * 2 : 64;
	bigger.keys = calloc(bigger.nslots, sizeof(*bigger.keys));
	bigger.values = calloc(bigger.nslots, sizeof(*bigger.values));
	if (!bigger.keys || !bigger.values)
		abort();
	for (size_t i = 0; i < m->nslots; i++) {
		if (m->keys[i]) {
			size_t j = slot_of(&bigger, m->keys[i]);

			bigger.keys[j] = m->keys[i];
			bigger.values[j] = m->values[i];
		}
	}
	bigger.n = m->n;
	free(m->keys);
	free(m->values);
	*m = bigger;
}

void string_map_put(struct string_map *m, const char *key, size_t value)
{
	size_t i;

	/* at most half full, so that probes stay short */
	if (2 * (m->n + 1) > m->nslots)
		grow(m);
	i = slot_of(m, key);
	if (!m->keys[i]) {
		m->keys[i] = strdup(key);
		if (!m->keys[i])
			abort();
		m->n++;
	}
	m->values[i] = value;
}

void string_map_free(struct string_map *m)
{
	for (size_t i = 0; i < m->nslots; i++)
		free(m->keys[i]);
	free(m->keys);
	free(m->values);
	memset(m, 0, sizeof(*m));
}
