/* A live process's mappings, looked up by address: with the PROCMAP_QUERY ioctl
 * (Linux 6.11+, one query per object instead of formatting and parsing every line),
 * else by reading and parsing /proc/<pid>/maps. */
#ifndef SYSTRACE_PROC_MAPS_H
#define SYSTRACE_PROC_MAPS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "maps.h"

struct proc_maps {
	int fd;
	struct map_entry last;         /* the last entry found (ioctl path) */
	bool have_last;
	struct map_entry *lines;       /* every executable mapping (text path) */
	size_t nlines, cap;
	bool text;                     /* the kernel has no PROCMAP_QUERY */
};

/* Opens the mappings of tid; false if the process is gone. */
bool proc_maps_open(struct proc_maps *m, pid_t tid);
/* The executable mapping containing addr, or NULL. */
const struct map_entry *proc_maps_find(struct proc_maps *m, uint64_t addr);
/* The first executable mapping that ends above addr, or NULL: to walk them all. */
const struct map_entry *proc_maps_next(struct proc_maps *m, uint64_t addr);
/* A free place of size bytes within reach of [lo, hi) in tid's memory (maps_gap_near). */
bool proc_maps_gap_near(pid_t tid, uint64_t lo, uint64_t hi, uint64_t size, uint64_t reach, uint64_t *at);
void proc_maps_close(struct proc_maps *m);

#endif
