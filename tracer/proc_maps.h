/* A live process's mappings, looked up by address: with the PROCMAP_QUERY ioctl
 * (Linux 6.11+, one query per object instead of formatting and parsing every line),
 * else by reading and parsing /proc/<pid>/maps. The descriptor is kept open per
 * thread from one lookup to the next (an open and a close at each of an image's
 * stops were a tenth of the tracer's calls); it holds the memory it was opened on,
 * so it is forgotten when the thread's memory is replaced (exec) or the thread
 * goes. */
#ifndef SYSTRACE_PROC_MAPS_H
#define SYSTRACE_PROC_MAPS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "maps.h"

#define PROC_MAPS_KEPT 4

struct proc_maps {
	int fd;                        /* the thread's kept descriptor */
	struct map_entry found[PROC_MAPS_KEPT]; /* the last entries found (ioctl path): an
	                                  exec's lookups go back and forth between the
	                                  loader and the executable */
	unsigned nfound, next_found;
	struct map_entry *lines;       /* every executable mapping (text path) */
	size_t nlines, cap;
	bool text;                     /* the kernel has no PROCMAP_QUERY */
};

/* At start-up: the kept descriptors' release when descriptors run short
 * (fd_limit.h). */
void proc_maps_setup(void);
/* Opens the mappings of tid (or takes its kept descriptor); false if the process
 * is gone. */
bool proc_maps_open(struct proc_maps *m, pid_t tid);
/* The executable mapping containing addr, or NULL (valid until the next lookup
 * that is not found among the entries kept, or the next walk step). */
const struct map_entry *proc_maps_find(struct proc_maps *m, uint64_t addr);
/* The first executable mapping that ends above addr, or NULL: to walk them all. */
const struct map_entry *proc_maps_next(struct proc_maps *m, uint64_t addr);
/* A free place of size bytes within reach of [lo, hi) in tid's memory (maps_gap_near). */
bool proc_maps_gap_near(pid_t tid, uint64_t lo, uint64_t hi, uint64_t size, uint64_t reach, uint64_t *at);
/* Done with m (its descriptor stays kept for tid). */
void proc_maps_close(struct proc_maps *m);
/* tid's memory was replaced (its exec event), or tid is gone: its kept descriptor
 * is closed. */
void proc_maps_forget(pid_t tid);
/* The calling thread's kept descriptors closed and its table freed (its end). */
void proc_maps_free(void);

#endif
