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
