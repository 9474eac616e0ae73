#include "time_fixups.h"

#include "gate_code.h"

/* label's address with the gate page at gate */
#define AT(gate, label) ((gate) + (uint64_t)((label) - gate_code))

bool time_routine_fixup(struct user_regs_struct *regs, uint64_t gate, uint64_t now, time_word_reader *read,
			void *ctx)
{
	uint64_t rip = regs->rip, word, nr;

	/* the start taken, the call not made: take it again after the handler */
	if (rip > AT(gate, gate_time_start) && rip <= AT(gate, gate_time_timed)) {
		regs->rip = AT(gate, gate_time_start);
		return true;
	}
	/* at the gate's syscall not made yet, under this routine's frame, the number
	 * still in rax (not a restart_syscall the kernel put there, which must go on) */
	if (rip == gate) {
		if (!read(ctx, regs->rsp, &word) || word != AT(gate, gate_time_returned)
		    || !read(ctx, regs->rsp + 16, &nr) || nr != regs->rax)
			return false;
		regs->rsp += 8; /* the gate's return address */
		regs->rip = AT(gate, gate_time_start);
		return true;
	}
	/* returned, its end not read yet: read now, before the handler runs */
	if (rip >= AT(gate, gate_time_returned) && rip < AT(gate, gate_time_took)) {
		regs->rcx = regs->rax; /* the result, as the first instruction keeps it */
		regs->rax = (uint32_t)now;
		regs->rdx = now >> 32;
		regs->rip = AT(gate, gate_time_took);
		return true;
	}
	/* between a compare and its store: compare again with what the handler stored */
	if (rip > AT(gate, gate_time_max) && rip < AT(gate, gate_time_max_done)) {
		regs->rip = AT(gate, gate_time_max);
		return true;
	}
	if (rip > AT(gate, gate_time_min) && rip < AT(gate, gate_time_min_done)) {
		regs->rip = AT(gate, gate_time_min);
		return true;
	}
	return false;
}

bool time_routine_frame(const uint64_t *words, uint64_t gate, struct time_frame *f)
{
	if (words[0] != AT(gate, gate_time_returned))
		return false;
	*f = (struct time_frame){ .start = words[1], .nr = words[2], .stub_return = words[4] };
	return true;
}

void time_counters_add(struct region_time *rt, size_t site, uint64_t nr, uint64_t ticks)
{
	if (nr >= REGION_NRS || site >= REGION_SLOT_SITES)
		return;
	rt->site_ticks[site] += ticks;
	rt->nr_ticks[nr] += ticks;
	if (ticks > rt->nr_max[nr])
		rt->nr_max[nr] = ticks;
	if (~ticks > rt->nr_min_not[nr])
		rt->nr_min_not[nr] = ~ticks;
}
