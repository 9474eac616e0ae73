#include "maps.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/sysmacros.h>

bool maps_parse_line(const char *line, struct map_entry *e)
{
	char perms[5];
	unsigned major, minor;
	uint64_t ino;
	int path_at = 0;

	if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %4s %" SCNx64 " %x:%x %" SCNu64 " %n",
		   &e->start, &e->end, perms, &e->file_offset, &major, &minor, &ino, &path_at) < 7
	    || path_at == 0 || e->end <= e->start || strlen(perms) != 4)
		return false;
	e->dev = makedev(major, minor);
	e->ino = (ino_t)ino;
	e->executable = perms[2] == 'x';
	snprintf(e->path, sizeof(e->path), "%.*s", (int)strcspn(line + path_at, "\n"), line + path_at);
	return true;
}

const struct map_entry *maps_find(const struct map_entry *entries, size_t n, uint64_t addr)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (addr < entries[mid].start)
			hi = mid;
		else if (addr >= entries[mid].end)
			lo = mid + 1;
		else
			return &entries[mid];
	}
	return NULL;
}

static uint64_t distance(uint64_t a, uint64_t b)
{
	return a > b ? a - b : b - a;
}

bool maps_gap_near(const struct map_entry *entries, size_t n, uint64_t lo, uint64_t hi, uint64_t size,
		   uint64_t reach, uint64_t *at)
{
	/* the lowest address mmap takes, and the end of user space */
	const uint64_t floor = 0x10000, ceiling = 0x7ffffffff000ULL;
	bool below = false, above = false;
	uint64_t below_at = 0, above_at = 0;

	for (size_t i = 0; i <= n; i++) {
		uint64_t gap_lo = i ? entries[i - 1].end : floor;
		uint64_t gap_hi = i < n ? entries[i].start : ceiling;

		if (gap_hi <= gap_lo || gap_hi - gap_lo < size)
			continue;
		if (gap_hi <= lo && distance(gap_hi - size, hi) < reach) {
			below_at = gap_hi - size; /* ascending: the last one is the nearest */
			below = true;
		} else if (gap_lo >= hi && !above && distance(gap_lo + size, lo) < reach) {
			above_at = gap_lo;
			above = true;
		}
	}
	*at = below ? below_at : above_at;
	return below || above;
}
