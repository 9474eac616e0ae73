#include "sigreturn_arm.h"

#include <sys/uio.h>

#include "gate.h"
#include "region.h"
#include "restarts.h"
#include "shared_region.h"

static bool enabled;

void sigreturn_arm_setup(bool counting_only)
{
	enabled = counting_only;
}

void sigreturn_on_stop(struct thread *t)
{
	uint64_t *word;

	if (!t->sigreturn_armed)
		return;
	word = &region_slot(t->slot)->pad[REGION_SLOT_SIGRETURN];
	/* taken: the handler returned in-process */
	if (!*word && t->handler_frames)
		t->handler_frames--;
	*word = 0;
	t->sigreturn_armed = false;
}

void sigreturn_on_call(struct thread *t)
{
	if (t->handler_frames)
		t->handler_frames--;
}

/* Whether a `syscall` at addr is a site whose bytes will not change: patched, or
 * refused for good. */
static bool site_settled(struct addr_space *as, uint64_t addr)
{
	struct site_record *s = site_table_find(&as->sites, addr);
	const struct patch *p = s ? as_patch_of(as, s) : NULL;

	return p && (p->state == PATCH_WRITTEN || p->state == PATCH_REFUSED);
}

/* Whether a return to rip runs the same code now and after any patch to come: rip
 * is not in bytes patched or to be patched (a patch covers at most PATCH_MAX_COVER
 * bytes around its syscall), nor in systrace's own code. */
static bool return_settled(pid_t tid, struct addr_space *as, uint64_t rip)
{
	uint8_t code[2 * PATCH_MAX_COVER + 2];
	uint64_t from = rip - PATCH_MAX_COVER;
	struct iovec local = { code, sizeof(code) }, remote = { (void *)from, sizeof(code) };

	if (rip - SYSTRACE_GATE_ADDR < 4096 || as_patch_of_stub(as, rip) || as_translate(as, rip) != rip
	    || process_vm_readv(tid, &local, 1, &remote, 1, 0) != (ssize_t)sizeof(code))
		return false;
	for (size_t i = 0; i + 1 < sizeof(code); i++)
		if (code[i] == 0x0f && code[i + 1] == 0x05 && !site_settled(as, from + i))
			return false;
	return true;
}

/* Nothing of t waits for a stop: no result, restart, exec, set-up or move. */
static bool nothing_awaited(const struct thread *t)
{
	return t->result_wait == RESULT_NONE && t->restart == RESTART_NONE && !t->entry_seen && t->exec_index < 0
	       && !t->setup && !t->moved_to && !t->interrupted && !t->left_gate_site
	       && t->affinity_call == AFFINITY_NONE;
}

void sigreturn_on_delivery(struct thread *t, const struct user_regs_struct *regs, struct delivery *d)
{
	struct image *img = t->img;
	bool outermost = !t->handler_frames;

	if (!enabled || t->slot < 0 || !delivery_caught(d))
		return;
	t->handler_frames++;
	if (!outermost || !img || !img->as || img->as->gs_taken || img->own_filter || !nothing_awaited(t)
	    || ((long)regs->orig_rax >= 0 && restart_is_code((long)regs->rax))
	    || !return_settled(t->tid, img->as, regs->rip))
		return;
	region_slot(t->slot)->pad[REGION_SLOT_SIGRETURN] = 1;
	t->sigreturn_armed = true;
}
