/* Parsing of /proc/<pid>/maps lines: which object a code address belongs to. */
#ifndef SYSTRACE_MAPS_H
#define SYSTRACE_MAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct map_entry {
	uint64_t start, end, file_offset;
	dev_t dev;
	ino_t ino;
	bool executable;
	char path[256]; /* "" for anonymous memory; "[vdso]", "[heap]", ... as the kernel says */
};

/* Parses one line of a maps file (with or without its newline); false if malformed. */
bool maps_parse_line(const char *line, struct map_entry *e);

/* The entry containing addr in a sorted array, or NULL. */
const struct map_entry *maps_find(const struct map_entry *entries, size_t n, uint64_t addr);

/* Where to map size bytes (page-aligned) in a gap of a sorted array of every
 * mapping so that the whole of it lies within reach of every byte of [lo, hi):
 * preferably just below lo (the gap above an executable is where its heap grows).
 * False if no gap is near enough. */
bool maps_gap_near(const struct map_entry *entries, size_t n, uint64_t lo, uint64_t hi, uint64_t size,
		   uint64_t reach, uint64_t *at);

#endif
