#include "serving_end.h"

#include "held_statuses.h"
#include "placement.h"
#include "proc_maps.h"
#include "tasks.h"

static _Thread_local struct serving_load began;

void serving_begin(void)
{
	began = serving_load_now();
}

struct object **serving_end(struct serving_sums *s)
{
	struct serving_load now;

	tasks_flush_all();
	now = serving_load_now();
	s->load = serving_load_since(&began, &now);
	history_sums_get(&s->history);
	serve_times_get(&s->serves);
	call_times_get_stats(&s->call_times);
	handoff_get_stats(&s->handoffs);
	history_free();
	proc_maps_free();
	held_statuses_free();
	placement_thread_end();
	return objects_release();
}

void serving_sums_add(struct serving_sums *sum, const struct serving_sums *s)
{
	history_sums_add(&sum->history, &s->history);
	serve_sums_add(&sum->serves, &s->serves);
	call_times_stats_add(&sum->call_times, &s->call_times);
	sum->handoffs.count += s->handoffs.count;
	sum->handoffs.ns += s->handoffs.ns;
	sum->load.cpu_ns += s->load.cpu_ns;
	sum->load.run_delay_ns += s->load.run_delay_ns;
	sum->load.run_delay_known = (sum->threads == 0 || sum->load.run_delay_known) && s->load.run_delay_known;
	sum->threads++;
}
