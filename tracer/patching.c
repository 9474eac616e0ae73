#include "patching.h"

#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>

#include "borrow.h"
#include "call_times.h"
#include "known_sites.h"
#include "lib_hook.h"
#include "library.h"
#include "must_stop.h"
#include "patch_build.h"
#include "proc_maps.h"
#include "procfs.h"
#include "restarts.h"
#include "sigreturn_arm.h"
#include "site_history.h"
#include "site_plan.h"
#include "syscall_log.h"
#include "write_protocol.h"

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

static enum patch_mode mode;

void patching_setup(enum patch_mode m, bool ahead)
{
	mode = m;
	bool counting_only = !syscall_log_on() && !call_times_on();

	must_stop_setup(counting_only);
	sigreturn_arm_setup(counting_only);
	known_sites_setup(ahead);
	lib_hook_setup(m != PATCH_OFF && counting_only && !ahead);
}

/* Maps stub memory near p's site by borrowing t (at the seccomp stop of its call)
 * for an mmap; t is then put back to make its own call again. False when t did not
 * come back; p is refused when no memory could be had. */
static bool map_area(struct thread *t, struct addr_space *as, struct patch *p)
{
	struct borrowed b;
	uint64_t at, got = 0;
	bool back = true;

	if (proc_maps_gap_near(t->tid, p->plan.start, p->plan.end, PATCH_AREA_SIZE, AS_REACH, &at)
	    && borrow_begin(&b, t)) {
		const uint64_t args[6] = { at, PATCH_AREA_SIZE, PROT_READ | PROT_EXEC,
					   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, (uint64_t)-1, 0 };

		if (!borrow_call_instead(&b, SYS_mmap, args, &got))
			got = 0;
		/* back on its own syscall instruction, to make it again */
		b.saved.rip -= 2;
		b.saved.rax = b.saved.orig_rax;
		back = borrow_end(&b);
	}
	if (got == at && got)
		as_add_area(as, at, PATCH_AREA_SIZE);
	else
		patch_decide(p, "no-room-for-stub");
	return back;
}

/* A fork child ran a site its parent has not decided (glibc's _Fork runs some
 * only in the child): the parent plans it too, to write at its next fork, so that
 * its later children inherit the patch instead of each trapping there. */
static void teach_parent(struct addr_space *as, const struct site_record *s, const struct patch *p)
{
	struct addr_space *parent = as->forked_from;
	struct site_record *ps;
	struct patch *pp;

	if (!parent || parent->refs == 0)
		return; /* the parent is gone */
	ps = as_site(parent, s->addr, &pp);
	if (pp->state != PATCH_UNPLANNED)
		return;
	ps->object = s->object;
	ps->offset = s->offset;
	ps->symbol = s->symbol;
	ps->symbol_offset = s->symbol_offset;
	ps->named = s->named;
	ps->syscall = s->syscall;
	pp->plan = p->plan;
	pp->object = p->object;
	pp->known = p->known;
	pp->from_known = false; /* (the parent never runs it: not a miss of its start) */
	pp->state = PATCH_PLANNED;
	parent->taught = true;
}

void patching_on_fork(struct thread *t)
{
	struct addr_space *as = t->img->as;
	struct user_regs_struct regs;

	if (mode == PATCH_OFF || !as->taught || !t->img->ready || !thread_alone_in_memory(t)
	    || ptrace(PTRACE_GETREGS, t->tid, 0, &regs) < 0)
		return;
	as->taught = false;
	known_sites_write_planned(t, as, regs.rip);
}

/* Writes planned p at t's trap; began: when the trap's patching began. */
static enum patch_result apply(struct thread *t, struct addr_space *as, struct patch *p, long nr, uint64_t began)
{
	uint8_t stub[STUB_MAX_LEN], jump[PATCH_MAX_COVER];
	uint64_t at = as_stub_room(as, p->plan.start, p->plan.end, STUB_MAX_LEN);
	size_t len;

	/* single: the site waits while other threads run, at no more cost than a trap */
	if (mode == PATCH_SINGLE && !thread_alone_in_memory(t))
		return PATCH_RESUME;
	if (!at) {
		if (!map_area(t, as, p))
			return PATCH_HELD;
		restart_expect_reissue(t, p->plan.site, nr);
		return PATCH_REISSUE;
	}
	if (!patch_build(as, p, at, stub, &len, jump))
		return PATCH_RESUME;
	if (!patch_write(t, as, p, stub, len, jump, mode == PATCH_SAFE))
		return PATCH_RESUME; /* pending: a later trap tries again */
	patch_mark_written(as, p, len, PATCH_AT_TRAP, monotonic_ns() - began);
	history_note_trap_patch(p->cost_ns);
	return PATCH_RESUME;
}

/* A trap before the image's in-process path is up. Its site is planned for the
 * images to come (the loader's; and any, once this image has the gate from exec):
 * they get it patched from their first instruction (tracer/early.c). With the gate
 * there (set up at exec) and t alone, the first trap outside the loader comes once
 * the loader has mapped every library and before any has run (libc's first call, a
 * getrlimit in its start-up): every site known in the objects mapped is written
 * then, and the image's in-process path is up; a later early trap (one the image
 * could not come up at) writes the known sites of the object trapped in. */
static void on_early_call(struct thread *t, struct addr_space *as, uint64_t site, long nr)
{
	bool in_loader = site >= as->loader_start && site < as->loader_end;
	struct patch *p;
	struct site_record *s = as_site(as, site, &p);

	if ((in_loader || as->mapped_at_exec) && p->state == PATCH_UNPLANNED)
		site_plan(t, as, s, p, nr);
	/* nothing written for a thread that has no slot of its own to count in (its %gs
	 * is its creator's), nor again in a memory whose patches were withdrawn */
	if (!as->mapped_at_exec || as->given_up || in_loader || t->slot < 0 || !thread_alone_in_memory(t))
		return;
	if (!as->walked_known) {
		as->walked_known = true;
		known_sites_write_all(t, as, site);
		library_up(t, -1);
	} else {
		known_sites_write_object(t, as, site);
	}
}

enum patch_result patching_on_call(struct thread *t, uint64_t site, bool at_stub, long nr)
{
	struct addr_space *as = t->img->as;
	enum patch_result result;
	struct site_record *s;
	struct patch *p;
	uint64_t began;

	if (mode == PATCH_OFF || site == as->library_site)
		return PATCH_RESUME;
	if (!t->img->ready) {
		on_early_call(t, as, site, nr);
		return PATCH_RESUME;
	}
	s = as_site(as, site, &p);
	/* a trap at a patched site: a thread that was already past the jump, or the
	 * code was replaced (dlclose, a rewrite), when the jump is gone */
	if (p->state == PATCH_WRITTEN && p->plan.shape == PATCH_AFTER && !at_stub)
		p->state = PATCH_STALE;
	if (p->state != PATCH_UNPLANNED && p->state != PATCH_PLANNED)
		return PATCH_RESUME;
	began = monotonic_ns();
	if (p->state == PATCH_PLANNED)
		return apply(t, as, p, nr, began);
	site_plan(t, as, s, p, nr);
	if (p->state == PATCH_REFUSED)
		return PATCH_RESUME;
	teach_parent(as, s, p);
	/* a site new to this memory: what is known of its object comes too (one loaded
	 * by dlopen, or whose sites other processes patched since) */
	result = apply(t, as, p, nr, began);
	if (result == PATCH_RESUME && p->state != PATCH_PLANNED)
		known_sites_write_object(t, as, site);
	return result;
}

void patching_on_munmap(struct thread *t, uint64_t addr, uint64_t len)
{
	struct addr_space *as = t->img->as;

	/* the code goes (dlclose): what comes next at those addresses is not patched,
	 * and a frame or thread there must not be sent to the old stub */
	for (size_t i = 0; i < as->sites.n; i++) {
		struct patch *p = &as->patches[i];

		if (p->state == PATCH_WRITTEN && p->plan.start < addr + len && addr < p->plan.end)
			p->state = PATCH_STALE;
	}
}
