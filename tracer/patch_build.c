#include "patch_build.h"

#include <sys/syscall.h>

#include "call_times.h"
#include "gate.h"
#include "gate_code.h"
#include "must_stop.h"
#include "procfs.h"
#include "region.h"
#include "syscall_log.h"

bool patch_build(struct addr_space *as, struct patch *p, uint64_t at, uint8_t stub[STUB_MAX_LEN], size_t *len,
		 uint8_t jump[PATCH_MAX_COVER])
{
	struct stub_config cfg = {
		.gate = SYSTRACE_GATE_ADDR,
		.site_counter = (int32_t)(offsetof(struct region_slot, site_calls) + 8 * (size_t)as->next_counter),
		.nr_counters = (int32_t)offsetof(struct region_slot, nr_calls),
		.site_errors = (int32_t)(offsetof(struct region_slot, site_errors) + 8 * (size_t)as->next_counter),
		.nr_errors = (int32_t)offsetof(struct region_slot, nr_errors),
		.errors_seen = REGION_SLOT_ERRORS_AT,
		.unmaps = REGION_SLOT_UNMAPS_AT,
		.flag_free_errors = __builtin_cpu_supports("bmi2"),
		.nr_limit = REGION_NRS,
		.log_call = syscall_log_on() ? GATE_AT(gate_log_call) : 0,
		.time_call = call_times_on() ? GATE_AT(gate_time_call) : 0,
		.site_time = (int32_t)(REGION_TIME_SITE_TICKS + 8 * (size_t)as->next_counter),
		.sigreturns_in_process = !must_stop_reason(SYS_rt_sigreturn), /* its own stub */
		.sigreturn_armed = REGION_SLOT_SIGRETURN_AT,
		.stackless_gate = must_stop_reason(SYS_vfork) ? 0 : SYSTRACE_GATE_ADDR + SYSTRACE_STACKLESS_OFFSET,
		.stackless_return = REGION_SLOT_STACKLESS_AT,
	};

	cfg.slow_nrs = must_stop_indexes(&cfg.nslow);
	cfg.guards = must_stop_guards(&cfg.nguards);
	if (as->next_counter >= REGION_SLOT_SITES) {
		patch_decide(p, "counters-full");
		return false;
	}
	/* a memory that ptraces threads: its waits must stop (planned elsewhere, or
	 * before, such a site is built nowhere else) */
	if (as->waits_stop && must_stop_waits(p->plan.nr)) {
		patch_decide(p, "waits-of-a-ptracer");
		return false;
	}
	*len = stub_build(&p->plan, &cfg, at, stub, STUB_MAX_LEN, &p->stub);
	if (!*len || !patch_bytes(&p->plan, at, jump)) {
		patch_decide(p, "stub-out-of-reach");
		return false;
	}
	return true;
}

void patch_mark_written(struct addr_space *as, struct patch *p, size_t len, enum patch_origin origin,
			uint64_t cost_ns)
{
	as_stub_taken(as, p->stub.addr, len);
	p->state = PATCH_WRITTEN;
	p->origin = origin;
	p->counter = as->next_counter++;
	p->cost_ns = cost_ns;
	p->patched_ns = monotonic_ns();
	as->npatched++;
}
