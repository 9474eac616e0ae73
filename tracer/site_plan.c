#include "site_plan.h"

#include <string.h>
#include <sys/uio.h>

#include "must_stop.h"
#include "objects.h"

/* Plans the site at addr in code (tid's memory); NULL, or why it cannot be patched. */
static const char *plan_in(pid_t tid, const struct code_object *code, uint64_t addr, struct patch_plan *plan)
{
	uint8_t window[2 * PATCH_MAX_COVER + 2];
	uint64_t lo = addr - PATCH_MAX_COVER > code->map_start ? addr - PATCH_MAX_COVER : code->map_start;
	uint64_t hi = addr + 2 + PATCH_MAX_COVER < code->map_end ? addr + 2 + PATCH_MAX_COVER : code->map_end;
	struct iovec local = { window, hi - lo }, remote = { (void *)lo, hi - lo };
	const char *reason;

	if (process_vm_readv(tid, &local, 1, &remote, 1, 0) != (ssize_t)(hi - lo))
		return "unreadable-code";
	if ((reason = patch_plan_make(code->scan, window, hi - lo, lo - code->bias, addr - code->bias, plan)))
		return reason;
	plan->site += code->bias;
	plan->start += code->bias;
	plan->end += code->bias;
	return NULL;
}

/* The plan an earlier process learned for the site, if memory still holds the bytes
 * it replaces: no decoding again. */
static bool plan_known(pid_t tid, const struct code_object *code, uint64_t addr, struct patch_plan *plan,
		       uint32_t *index)
{
	uint8_t now[PATCH_MAX_COVER];
	struct iovec local = { now, 0 }, remote = { NULL, 0 };

	if (!objects_known_plan(code, addr, plan, index))
		return false;
	local.iov_len = remote.iov_len = plan->end - plan->start;
	remote.iov_base = (void *)plan->start;
	return process_vm_readv(tid, &local, 1, &remote, 1, 0) == (ssize_t)local.iov_len
	       && memcmp(now, plan->original, local.iov_len) == 0;
}

/* NULL, or why the site cannot be patched. */
static const char *plan_site(struct thread *t, struct addr_space *as, struct site_record *s, struct patch *p, long nr)
{
	struct code_object code;
	const char *reason = objects_code_of(t->tid, s, &code);

	if (reason)
		return reason;
	/* refused in an earlier process: the same code, the same answer */
	if ((reason = objects_refusal(&code, s->addr)))
		return reason;
	if (plan_known(t->tid, &code, s->addr, &p->plan, &p->known)) {
		p->object = code.object;
		/* known when the image began, or learned since (by a process beside it) */
		p->from_known = objects_known_since(code.object, p->known) < t->img->serial;
	} else if ((reason = plan_in(t->tid, &code, s->addr, &p->plan)) || (reason = must_stop_reason(p->plan.nr))) {
		/* (a process gone mid-read says nothing of the code) */
		if (strcmp(reason, "unreadable-code") != 0)
			objects_learn_refusal(&code, s->addr, reason);
		return reason;
	}
	if (as_site_overlapping_in(as, t->tid, p->plan.start, p->plan.end))
		return "overlaps-patch";
	if (p->plan.nr >= 0 && p->plan.nr != nr)
		return "number-mismatch";
	s->syscall = p->plan.nr >= 0 ? syscall_index(ABI_X86_64, p->plan.nr) : SITE_SYSCALL_VARIES;
	p->known = objects_learn(&code, &p->plan, tasks_last_serial());
	p->object = code.object;
	return NULL;
}

void site_plan(struct thread *t, struct addr_space *as, struct site_record *s, struct patch *p, long nr)
{
	patch_decide(p, plan_site(t, as, s, p, nr));
}

static void learn_ahead(void *arg, const struct code_object *code, uint64_t addr)
{
	struct patch_plan plan;

	if (!plan_in(*(pid_t *)arg, code, addr, &plan) && !must_stop_reason(plan.nr))
		objects_learn(code, &plan, 0);
}

void site_plan_ahead(pid_t tid)
{
	objects_for_each_new_syscall(tid, learn_ahead, &tid);
}
