/* A map from strings to indexes (the caller's array), open addressing; the keys are
 * copied. Used to group rows of the CSV files by name. */
#ifndef SYSTRACE_STRING_MAP_H
#define SYSTRACE_STRING_MAP_H

#include <stddef.h>

struct string_map {
	char **keys;
	size_t *values;
	size_t n, nslots;  /* nslots: a power of two, or 0 */
};

/* The value of key, or (size_t)-1. */
size_t string_map_find(const struct string_map *m, const char *key);
/* Gives key the value (a new key, or the existing one's value replaced). */
void string_map_put(struct string_map *m, const char *key, size_t value);
void string_map_free(struct string_map *m);

#endif
