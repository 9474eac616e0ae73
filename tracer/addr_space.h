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

/* Where a site of one memory stands. sites.csv's state follows from it
 * (patch_site_state): written or stale is `patched`, refused `unpatchable`, the
 * rest `pending`. */
enum patch_state {
	PATCH_UNPLANNED,  /* seen, not looked at (a trap before the path was up) */
	PATCH_PLANNED,    /* plan says how; not written yet: it waits for a trap or a batch */
	PATCH_WRITTEN,    /* its stub and jump are in memory, its counter taken */
	PATCH_STALE,      /* written, and its bytes replaced since (dlclose, a rewrite, the
	                     patches withdrawn): the stub stays, a thread may still run it */
	PATCH_REFUSED,    /* it cannot be patched: reason */
};

/* How a written patch came to be in this memory (what it cost it). */
enum patch_origin {
	PATCH_AT_TRAP,    /* written at a trap of the site, alone */
	PATCH_IN_BATCH,   /* written with others known from earlier processes */
	PATCH_INHERITED,  /* came with a fork's copy of the memory: cost nothing */
};

struct object;

/* A site's patch; parallel to the address space's site records. */
struct patch {
	enum patch_state state;
	const struct object *object; /* planned, written or stale: the object whose known
	                                site it is (objects.h), or NULL; and its index */
	uint32_t known;
	bool from_known;           /* its plan was known when this memory met it (another
	                              process learned it): it could have been written at
	                              the start */
	const char *reason;        /* PATCH_REFUSED: a short word ("branch-target") */
	enum patch_origin origin;  /* written or stale */
	struct patch_plan plan;    /* planned, written or stale */
	struct stub_layout stub;   /* written or stale */
	int counter;               /* written or stale: its counter's index in the slot */
	uint64_t cost_ns;          /* what writing it cost this memory */
	uint64_t patched_ns;       /* when it was written (CLOCK_MONOTONIC) */
	bool unmapped;             /* a munmap the tracer saw covered it: its next trap
	                              asks which object is there (site_reuse.h) */
	uint64_t maps_epoch;       /* its memory's maps_epoch when the object at the site
	                              was last known (site_reuse.h) */
	bool ran_by_sharer;        /* a process sharing the memory (a vfork child) ran it
	                              (known_sites.c) */
	uint8_t hooked;            /* written by the image's libraries' hook (lib_hook.h),
	                              for its library hooked - 1, once the hook says so;
	                              0: not the hook's */
};

/* Written or stale: a stub with a counter exists (in-process calls were counted). */
static inline bool patch_has_counter(const struct patch *p)
{
	return p->state == PATCH_WRITTEN || p->state == PATCH_STALE;
}

/* Decides p: refused for reason, or planned (reason NULL). */
void patch_decide(struct patch *p, const char *reason);
/* sites.csv's state of a site whose patch is p. */
enum site_state patch_site_state(const struct patch *p);

/* Stub memory is mapped this much at a time, near the code it serves. */
#define PATCH_AREA_SIZE (64 * 1024)

/* How far a stub may lie from the code that jumps to it (a jmp rel32 reaches
 * +-2 GiB from the next instruction; this keeps well inside). */
#define AS_REACH ((1ULL << 31) - (1ULL << 20))

/* A counter slot of one of the memory's threads, and the munmaps its stubs counted
 * there when last read (site_reuse.h). */
struct as_slot {
	int slot;
	uint64_t unmaps_seen;
};

/* Memory mapped near code for stubs (a jmp rel32 reaches +-2 GiB). */
struct stub_area {
	uint64_t addr, size, used;
};

struct addr_space {
	int refs;
	int mem_fd;                /* /proc/<pid>/mem, for writing code; -1 until needed */
	struct site_table sites;   /* every site seen: name and syscall (its state is
	                              its patch's, not the record's) */
	struct patch *patches;     /* patches[i] belongs to sites.sites[i] */
	size_t cap_patches;
	struct stub_area *areas;
	size_t nareas;
	uint64_t maps_epoch;       /* moves when an object may have gone unseen: munmaps
	                              made in-process (site_reuse.h) */
	struct as_slot *slots;     /* its threads' slots, where they count those */
	size_t nslots, cap_slots;
	int next_counter;
	unsigned npatched;
	uint64_t region_base;      /* where early.c's set-up mapped the region */
	bool mapped_at_exec;       /* early.c mapped gate and region at the first instruction */
	bool gs_taken;             /* the program set its own %gs base: no counting here */
	bool waits_stop;           /* its waits must reach the tracer (must_stop_waits) */
	bool given_up;             /* the in-process path was withdrawn here (the region
	                              full, %gs taken): nothing is patched again */
	bool walked_known;         /* the known sites of every object mapped were planned */
	bool hook_pending;         /* the libraries' hook was written at exec and has not
	                              been settled (lib_hook.h); its thread's slot, and
	                              the function its jump lies over, as it was: */
	int hook_slot;
	uint64_t hook_entry;
	uint8_t hook_original[8];
	uint64_t loader_start, loader_end; /* the program interpreter's code (ld.so) */
	uint64_t library_site;     /* the library's own syscall instruction */
	struct addr_space *forked_from; /* the memory it is a fork's copy of, or NULL: kept
	                                   while this copy is (fork_holds), even once no
	                                   image has it (refs 0) */
	int fork_holds;
	bool taught;               /* a fork child planned sites here that its parent
	                              may write at its next fork (patching.c) */
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
/* The site a trap at addr stands for: the original site when addr is a stub's own
 * syscall (a call that must stop, or a restart), else addr itself. */
uint64_t as_site_of(struct addr_space *as, uint64_t addr);
/* The patch whose stub holds addr, or NULL (a stale one's too: a thread may still
 * be running its stub). Only addresses in a stub area are looked at. */
struct patch *as_patch_of_stub(struct addr_space *as, uint64_t addr);
/* The patched site whose rewritten bytes [start, end) overlap [lo, hi), or NULL. */
struct site_record *as_site_overlapping(struct addr_space *as, uint64_t lo, uint64_t hi);
/* Where a thread at rip continues if rip lies strictly inside patched bytes: its
 * place in the stub; rip itself otherwise; 0 if it cannot continue (not at an
 * instruction start). */
uint64_t as_translate(struct addr_space *as, uint64_t rip);

/* The written patches whose bytes overlap [lo, hi) and no longer hold their jump in
 * pid's memory become PATCH_STALE; how many. The tracer does not see most unmaps
 * (munmap runs in-process), so a dlclose, and another object mapped at the same
 * address, leave patches written on the books over code that is not theirs: this is
 * asked before one is acted on (a frame or thread translated into its stub, its
 * original bytes written back, a new patch refused for overlapping it). One read
 * for all, none when no written patch overlaps. */
size_t as_drop_replaced(struct addr_space *as, pid_t pid, uint64_t lo, uint64_t hi);
/* as_site_overlapping, of the patches that still hold their jump in pid's memory. */
struct site_record *as_site_overlapping_in(struct addr_space *as, pid_t pid, uint64_t lo, uint64_t hi);

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
