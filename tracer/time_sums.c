#include "time_sums.h"

void time_sums_add(struct time_sums *s, int idx, uint64_t ticks)
{
	time_sums_merge(s, idx, ticks, ticks, ~ticks);
}

void time_sums_merge(struct time_sums *s, int idx, uint64_t ticks, uint64_t max, uint64_t min_not)
{
	if (!min_not)
		return; /* no call returned (a slot's number never timed) */
	s->ticks[idx] += ticks;
	if (max > s->max[idx])
		s->max[idx] = max;
	if (min_not > s->min_not[idx])
		s->min_not[idx] = min_not;
}

uint64_t time_share_ns(uint64_t *sum, uint64_t ticks, time_conv *down)
{
	uint64_t before = down(*sum);

	*sum += ticks;
	return down(*sum) - before;
}

void time_sums_to_ns(struct time_sums *s, time_conv *down, time_conv *up)
{
	uint64_t sum = 0;

	for (int i = 0; i < SYSCALL_INDEX_COUNT; i++) {
		s->ticks[i] = time_share_ns(&sum, s->ticks[i], down);
		s->max[i] = up(s->max[i]);
		s->min_not[i] = s->min_not[i] ? down(~s->min_not[i]) : UINT64_MAX;
	}
}
