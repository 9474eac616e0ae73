/* What systrace knows of one process image (a row of processes.csv) and of its
 * syscall sites, in plain data: the tracer fills it, stats/ writes it out. */
#ifndef SYSTRACE_IMAGE_RECORD_H
#define SYSTRACE_IMAGE_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>

#include "syscall_names.h"

/* The syscall index of a site whose number is not fixed (it saw more than one). */
#define SITE_SYSCALL_VARIES (-1)

/* A libc entry point that led to a site (--libc-calls), and the calls it made there. */
struct libc_entry {
	const char *name;
	uint64_t calls;
};

/* What became of a site in an image: sites.csv's state column (`patched`,
 * `pending`, `unpatchable:<reason>`). */
enum site_state {
	SITE_PENDING,      /* not decided: it ran only before the in-process path was up, or its
	                      patch waits for a later trap */
	SITE_PATCHED,
	SITE_UNPATCHABLE,  /* why: site_record.reason */
};

struct site_record {
	uint64_t addr;          /* of the syscall instruction */
	/* The code at an address can be replaced (a dlclose, another object mapped
	 * there): each object's site there is a record of its own, gen 0, 1, ... in the
	 * order they ran; a memory's record of an object no longer there is retired
	 * (found by address no more, kept for the counts its stub still holds) */
	uint32_t gen;
	bool retired;
	int syscall;            /* counter index, or SITE_SYSCALL_VARIES */
	uint64_t ptraced, inprocess;
	uint64_t errors;        /* of its calls, those that returned -4095..-1 */
	const char *object;     /* mapped file path, "[vdso]", "[anon]"; NULL: unknown */
	uint64_t offset;        /* as addr2line -e takes it; the address itself if unknown */
	const char *symbol;     /* nearest symbol, or NULL */
	uint64_t symbol_offset;
	enum site_state state;
	const char *reason;     /* SITE_UNPATCHABLE: a short word ("branch-target") */
	uint64_t patch_ns;      /* what patching it cost this image; 0 if it did not */
	uint64_t patched_ns;    /* CLOCK_MONOTONIC when this image patched it; 0 if it did not */
	/* --libc-calls: the libc entry points its ptraced calls came through, in
	 * first-seen order; and the one to show: of the most calls (ties: first seen),
	 * or for a site that saw none, the one learned at the same site of the object
	 * in other processes; NULL: none */
	struct libc_entry *libc_entries;
	unsigned nlibc_entries;
	const char *libc_function;
	bool named;             /* object, offset and symbol have been looked up */
	uint32_t log_site;      /* --log: its row of the log's sites file; 0 until named there */
	uint64_t time_ticks;    /* --time: the TSC ticks of its calls, summed while the image
	                           runs (tracer/call_times.c) */
	uint64_t time_ns;       /* and their nanoseconds, once the image is complete */
};

enum image_end { IMAGE_RUNNING, IMAGE_EXITED, IMAGE_SIGNALED, IMAGE_EXECED };

/* An image's in-process path: processes.csv's library column, `ready` or why not
 * (docs/output.md). */
enum image_library {
	LIBRARY_IS_OFF,             /* --patch=off */
	LIBRARY_IS_ABSENT,          /* never set up: a static program (no loader) */
	LIBRARY_IS_READY,
	LIBRARY_IS_REGION_UNREACHABLE, /* the image could not open or map the region */
	LIBRARY_IS_GATE_TAKEN,      /* something else is mapped at the gate address */
	LIBRARY_IS_REGION_FULL,     /* no counter slot was free */
	LIBRARY_IS_PROGRAM_SETS_GS, /* the program took %gs for itself */
	IMAGE_LIBRARY_COUNT
};

/* Its name in processes.csv ("gate-address-taken"). */
const char *image_library_name(enum image_library l);

struct image_record {
	pid_t pid, ppid;
	unsigned image;         /* 0 when created by fork, +1 at each execve */
	const char *exe;
	enum image_library library;
	uint64_t start_ns, end_ns;           /* CLOCK_MONOTONIC */
	bool times_known;
	uint64_t user_ns, sys_ns;
	int64_t instructions, cycles;        /* -1 where the hardware has no counter */

	/* The indexes counted in (image_record_counts), so that an image's end walks
	 * the few it used, not all 3,072 of its arrays (a tenth of the rows' cost) */
	uint64_t used[SYSCALL_INDEX_COUNT / 64];
	uint64_t calls[SYSCALL_INDEX_COUNT]; /* per syscall, both paths */
	uint64_t ptraced_calls[SYSCALL_INDEX_COUNT]; /* per syscall, of them those that stopped */
	uint64_t errors[SYSCALL_INDEX_COUNT]; /* per syscall, the calls that returned
						  -4095..-1, as strace -c counts them */
	uint64_t *time_ns;                   /* per syscall, the time spent in the calls;
						NULL when times are not measured (--time) */
	uint64_t *time_min_ns, *time_max_ns; /* per syscall, its shortest and longest call
						with a time (UINT64_MAX, 0: none); NULL as
						time_ns */
	uint64_t ptraced, inprocess, early, instrument, ptrace_stops;
	/* ptrace_stops split: process creation, exec and exit; the others before the
	 * in-process path was up; the rest (tracer/stops.h) */
	uint64_t stops_lifecycle, stops_early, stops_late;
	uint64_t restarted;                  /* kernel restarts after a signal, not counted as calls */

	unsigned threads, forks, vforks;     /* created by this image */
	/* patches this image wrote (those of its parent came with a fork's memory), of
	 * them known from other processes and written in a batch, and those whose sites
	 * made fewer in-process calls than their break-even (stats/amortization.h) */
	unsigned patches_written, patches_known, patches_not_amortized;
	/* of the sites known at its start (an exec'd image): written then and never run,
	 * and left out and run (patched at their trap): the two ways the choice of
	 * tracer/site_history.h can be wrong */
	unsigned known_unused, known_missed;
	uint64_t patch_ns;
	bool started_by_exec;
	enum image_end end;
	int end_code;                        /* exit status or signal number */

	struct site_record *sites;
	size_t nsites;
};

static inline uint64_t image_syscalls(const struct image_record *r)
{
	return r->ptraced + r->inprocess;
}

/* Index i is counted in: calls, ptraced_calls and errors hold its counts from now
 * (zeroed here, at its first count: nothing else zeroes them). */
static inline void image_record_counts(struct image_record *r, int i)
{
	uint64_t bit = 1ull << (i % 64);

	if (!(r->used[i / 64] & bit)) {
		r->used[i / 64] |= bit;
		r->calls[i] = r->ptraced_calls[i] = r->errors[i] = 0;
	}
}

/* Whether index i was counted in (its counts are valid). */
static inline bool image_record_counted(const struct image_record *r, int i)
{
	return r->used[i / 64] >> (i % 64) & 1;
}

_Static_assert(offsetof(struct image_record, ptraced_calls)
		       == offsetof(struct image_record, calls) + sizeof(((struct image_record *)0)->calls)
	       && offsetof(struct image_record, errors)
		       == offsetof(struct image_record, ptraced_calls) + sizeof(((struct image_record *)0)->calls)
	       && offsetof(struct image_record, time_ns)
		       == offsetof(struct image_record, errors) + sizeof(((struct image_record *)0)->calls),
	       "the counter arrays lie together, from calls to time_ns");

/* r zeroed but for its counter arrays (72 KB of an image's 75: an image counts a
 * few dozen indexes; zeroing them all at each image's start was its costliest
 * store once the memory came back from the writer thread's CPU, tracer/offload.h). */
static inline void image_record_clear(struct image_record *r)
{
	memset(r, 0, offsetof(struct image_record, calls));
	memset(&r->time_ns, 0, sizeof(*r) - offsetof(struct image_record, time_ns));
}

/* The first index from i on that image_record_counts marked; SYSCALL_INDEX_COUNT
 * past the last. */
static inline int image_next_used(const struct image_record *r, int i)
{
	while (i < SYSCALL_INDEX_COUNT) {
		uint64_t left = r->used[i / 64] >> (i % 64);

		if (left)
			return i + __builtin_ctzll(left);
		i = (i / 64 + 1) * 64;
	}
	return SYSCALL_INDEX_COUNT;
}

static inline uint64_t image_errors(const struct image_record *r)
{
	uint64_t n = 0;

	for (int i = image_next_used(r, 0); i < SYSCALL_INDEX_COUNT; i = image_next_used(r, i + 1))
		n += r->errors[i];
	return n;
}

#endif
