/* An address space: what the tracer has patched in one process's memory. Threads
 * share it, and so do vfork children and CLONE_VM processes, which is why patching
 * is decided here and not per process; a fork child gets a copy, as the kernel gives
 * it a copy of the memory. */
#ifndef SYSTRACE_ADDR_SPACE_H
#define SYSTRACE_ADDR_SPACE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "site_table.h"
#include "stub.h"

/* How a site was patched; parallel to the address space's site records. */
struct patch {
	struct patch_plan plan;
	struct stub_layout stub;
	int counter;               /* index of its counter in the slot; -1 until patched */
	uint64_t cost_ns;          /* what writing it cost this memory (0: inherited) */
	uint64_t patched_ns;       /* when it was written (CLOCK_MONOTONIC) */
	bool known;                /* written in a batch, known from another process */
	bool planned;              /* plan holds the decision (the site may still wait) */
	bool stale;                /* its bytes were replaced since (dlclose, a rewrite) */
};

/* How far a stub may lie from the code that jumps to it (a jmp rel32 reaches
 * +-2 GiB from the next instruction; this keeps well inside). */
#define AS_REACH ((1ULL << 31) - (1ULL << 20))

/* Memory mapped near code for stubs (a jmp rel32 reaches +-2 GiB). */
struct stub_area {
	uint64_t addr, size, used;
};

struct addr_space {
	int refs;
	int mem_fd;                /* /proc/<pid>/mem, for writing code; -1 until needed */
	struct site_table sites;   /* every site seen: name, syscall, state (NULL: pending) */
	struct patch *patches;     /* patches[i] belongs to sites.sites[i] */
	size_t cap_patches;
	struct stub_area *areas;
	size_t nareas;
	int next_counter;
	unsigned npatched;
	uint64_t region_base;      /* where the library (or early.c) mapped the region */
	bool mapped_at_exec;       /* early.c mapped gate and region at the first instruction */
	bool gs_taken;             /* the program set its own %gs base: no counting here */
	bool walked_known;         /* the known sites of every object mapped were planned */
	uint64_t loader_start, loader_end; /* the program interpreter's code (ld.so) */
	uint64_t library_site;     /* the library's own syscall instruction */
	int *site_of_counter;      /* counter -> index in sites, for --log; built on demand */
	int counters_mapped;
};

struct addr_space *as_new(void);
/* The copy a fork child starts with (its memory holds the same patches and stubs). */
struct addr_space *as_fork(const struct addr_space *parent);
struct addr_space *as_get(struct addr_space *as);
void as_put(struct addr_space *as);

/* The site's record, added (pending) if new, and its patch. */
struct site_record *as_site(struct addr_space *as, uint64_t addr, struct patch **patch);
struct patch *as_patch_of(struct addr_space *as, const struct site_record *s);
/* The patch whose stub holds addr, or NULL (a stale one's too: a thread may still
 * be running its stub). Only addresses in a stub area are looked at. */
struct patch *as_patch_of_stub(struct addr_space *as, uint64_t addr);
/* The patched site whose rewritten bytes [start, end) overlap [lo, hi), or NULL. */
struct site_record *as_site_overlapping(struct addr_space *as, uint64_t lo, uint64_t hi);
/* Where a thread at rip continues if rip lies strictly inside patched bytes: its
 * place in the stub; rip itself otherwise; 0 if it cannot continue (not at an
 * instruction start). */
uint64_t as_translate(struct addr_space *as, uint64_t rip);

/* The site whose in-process calls counter counts, or NULL. */
struct site_record *as_site_of_counter(struct addr_space *as, int counter);

/* Whether a jmp rel32 at a reaches b (with margin). */
bool as_within_reach(uint64_t a, uint64_t b);
/* Room for a stub of len bytes within reach of every byte of [lo, hi); 0 if none. */
uint64_t as_stub_room(struct addr_space *as, uint64_t lo, uint64_t hi, size_t len);
void as_add_area(struct addr_space *as, uint64_t addr, uint64_t size);
/* Marks len bytes at addr (from as_stub_room) as used. */
void as_stub_taken(struct addr_space *as, uint64_t addr, size_t len);

/* Writes len bytes at addr in the memory of pid (whatever the page protection). */
bool as_write(struct addr_space *as, pid_t pid, uint64_t addr, const void *bytes, size_t len);

#endif
