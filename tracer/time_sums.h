/* --time's sums per syscall index, as the gate's time routine keeps them per number
 * (preload/region.h, struct region_time): the ticks in all, the longest call, and
 * the bitwise NOT of the shortest (so that 0, memory never written, is no call).
 * Merged and turned into nanoseconds here, with the conversion passed in: pure, for
 * the unit tests. */
#ifndef SYSTRACE_TIME_SUMS_H
#define SYSTRACE_TIME_SUMS_H

#include <stdint.h>

#include "syscall_names.h"

struct time_sums {
	uint64_t ticks[SYSCALL_INDEX_COUNT];   /* first: the block's address (tasks.c frees it) */
	uint64_t max[SYSCALL_INDEX_COUNT];
	uint64_t min_not[SYSCALL_INDEX_COUNT];
};

/* ticks to nanoseconds, rounded down or up */
typedef uint64_t time_conv(uint64_t ticks);

/* One call of idx that took ticks. */
void time_sums_add(struct time_sums *s, int idx, uint64_t ticks);
/* Calls of idx summed elsewhere (a slot's): their ticks, longest and NOT of the
 * shortest (0: none, and nothing is merged). */
void time_sums_merge(struct time_sums *s, int idx, uint64_t ticks, uint64_t max, uint64_t min_not);
/* The share of ticks, added to the running *sum, in ns: down(sum after) -
 * down(sum before), so that the rows of a file add up to the conversion of their
 * total, exactly. */
uint64_t time_share_ns(uint64_t *sum, uint64_t ticks, time_conv *down);
/* In place, to nanoseconds: ticks[] as shares of one running sum, max[] rounded
 * up and min_not[] (then the shortest) down, so that for each index
 * calls * min <= ticks <= calls * max holds in ns as in ticks; UINT64_MAX for the
 * shortest of none. */
void time_sums_to_ns(struct time_sums *s, time_conv *down, time_conv *up);

#endif
