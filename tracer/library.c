#include "library.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <asm/prctl.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <unistd.h>

#include "amortization.h"
#include "call_times.h"
#include "counting.h"
#include "grow_array.h"
#include "known_sites.h"
#include "must_stop.h"
#include "region.h"
#include "region_handout.h"
#include "shared_region.h"
#include "site_reuse.h"
#include "syscall_log.h"
#include "write_protocol.h"

static enum patch_mode mode;
static uint64_t saving_ns;

bool library_setup(enum patch_mode m, unsigned region_slots, bool with_log, bool with_time, char *err, size_t errlen)
{
	mode = m;
	/* with --patch=off too: nothing is patched, but the gate page's return pad gives
	 * the calls' results without a second stop (results.c) */
	if (!region_create(region_slots, with_log, with_time)) {
		snprintf(err, errlen, "cannot create the shared region (%u slots): %s", region_slots, strerror(errno));
		goto without;
	}
	if (!handout_open(err, errlen)) {
		region_destroy();
		goto without;
	}
	return true;
without:
	/* --patch=off goes on without: its calls are followed to their exit */
	return mode == PATCH_OFF;
}

bool library_enabled(void)
{
	return mode != PATCH_OFF;
}

bool library_is_control(long nr, const uint64_t *args)
{
	return nr == SYSTRACE_CONTROL_NR && args[0] == SYSTRACE_MAGIC;
}

/* The call returns ret without reaching the kernel. */
static void answer(pid_t tid, long ret)
{
	struct user_regs_struct regs;

	if (ptrace(PTRACE_GETREGS, tid, 0, &regs) < 0)
		return;
	regs.orig_rax = (uint64_t)-1;
	regs.rax = (uint64_t)ret;
	ptrace(PTRACE_SETREGS, tid, 0, &regs);
}

static void take_counts(struct thread *t, bool again);

/* Points t's %gs at its own counter slot (taking one if it has none). */
static bool give_slot(struct thread *t)
{
	if (t->slot < 0) {
		if ((t->slot = region_slot_take()) < 0)
			return false;
		site_reuse_slot_taken(t);
	}
	/* not the thread an image began with: the libraries' hook is not its to run */
	region_slot(t->slot)->pad_end[REGION_HOOK_DONE] = 1ull << REGION_HOOK_INERT_BIT;
	/* a vfork's child leaves the gate through its own slot (patcher/stub.h) */
	region_slot(t->slot)->pad_end[REGION_SLOT_STACKLESS] = t->stackless_landing;
	t->stackless_landing = 0;
	return ptrace(PTRACE_POKEUSER, t->tid, offsetof(struct user_regs_struct, gs_base),
		      t->img->as->region_base + region_slot_offset(t->slot)) == 0;
}

bool library_up(struct thread *t, int64_t early_calls)
{
	struct image *img = t->img;

	/* (the hook ran before any other thread could be made: those count late) */
	if (img->ready || !img->as->mapped_at_exec || img->as->given_up || t->slot < 0
	    || (early_calls < 0 && !thread_alone_in_memory(t)))
		return false;
	/* what the stubs written at exec counted was early */
	img->late = early_calls >= 0;
	take_counts(t, true);
	if (early_calls >= 0)
		img->rec.early += (uint64_t)early_calls;
	img->rec.library = LIBRARY_IS_READY;
	img->ready = img->late = true;
	return true;
}

void library_on_control(struct thread *t, uint64_t site, const uint64_t *args)
{
	t->img->rec.instrument++;
	t->img->as->library_site = site;
	if (mode == PATCH_OFF)
		answer(t->tid, -EINVAL); /* no region, no log */
	else if (args[1] == CONTROL_LOG_FLUSH && syscall_log_on())
		syscall_log_flush(t);
	else
		answer(t->tid, -EINVAL);
}

void library_image_starts(struct image *img, const struct image *creator, bool shares_memory)
{
	img->rec.library = mode == PATCH_OFF ? LIBRARY_IS_OFF : LIBRARY_IS_ABSENT;
	img->owns_as = !creator || !creator->as || !shares_memory;
	if (!creator || !creator->as) {
		img->as = as_new();
		return;
	}
	img->as = shares_memory ? as_get(creator->as) : as_fork(creator->as);
	img->rec.library = creator->rec.library;
	img->ready = creator->ready;
	img->late = creator->late;
}

void library_thread_starts(struct thread *t)
{
	struct image *img = t->img;

	if (!img || !(img->ready || img->as->mapped_at_exec) || img->as->given_up || give_slot(t))
		return;
	/* no slot: the patches this thread would run go, with all the memory's threads
	 * stopped; its process stays on the ptrace path */
	patches_withdraw(t, img->as);
	img->ready = false;
	img->rec.library = LIBRARY_IS_REGION_FULL;
}

/* Moves the in-process counts of t's slot into its image, and empties the slot
 * when it stays t's (again: counting from zero after READY). */
static void take_counts(struct thread *t, bool again)
{
	struct image *img = t->img;
	struct addr_space *as = img->as;
	struct region_slot *slot = region_slot(t->slot);

	bool errors = slot->pad[REGION_SLOT_ERRORS];

	site_reuse_slot_left(t, again);
	for (size_t i = 0; i < as->sites.n; i++) {
		const struct patch *p = &as->patches[i];
		const struct site_record *from = &as->sites.sites[i];

		/* (an error with no call: the call was counted before the in-process
		 * path came up and emptied the slot, library_up, its error
		 * after) */
		if (!patch_has_counter(p) || !(slot->site_calls[p->counter] || (errors && slot->site_errors[p->counter])))
			continue;
		count_inprocess(img, from, slot->site_calls[p->counter], from->syscall);
		if (errors && slot->site_errors[p->counter])
			count_errors(img, image_site_of(img, from, true), from->syscall,
				     slot->site_errors[p->counter]);
	}
	/* the sites whose number varies: their calls per number */
	for (int nr = 0; nr < REGION_NRS; nr++) {
		int idx = syscall_index(ABI_X86_64, nr);

		if (!slot->nr_calls[nr] && !(errors && slot->nr_errors[nr]))
			continue;
		image_record_counts(&img->rec, idx);
		img->rec.calls[idx] += slot->nr_calls[nr];
		if (errors)
			img->rec.errors[idx] += slot->nr_errors[nr];
	}
	call_times_take_slot(t); /* under --time, after the calls: their sites have records */
	syscall_log_drain(t); /* under --log, the in-process counts are the log's */
	if (again)
		region_slot_clear(t->slot, as->next_counter);
}

static bool is_wait(const struct patch *p)
{
	return must_stop_waits(p->plan.nr);
}

void library_waits_stop(struct thread *t)
{
	struct addr_space *as = t->img->as;

	if (as->waits_stop)
		return;
	if (as->npatched)
		patches_withdraw_if(t, as, is_wait);
	as->waits_stop = true;
}

void library_on_arch_prctl(struct thread *t, uint64_t code)
{
	struct image *img = t->img;

	/* the kernel takes the code as an int: the upper half does not matter */
	if ((int)code != ARCH_SET_GS || !(img->ready || img->as->mapped_at_exec))
		return;
	/* the program takes %gs for itself: the stubs go before the call is made */
	patches_withdraw(t, img->as);
	img->as->gs_taken = true;
	img->ready = false;
	img->rec.library = LIBRARY_IS_PROGRAM_SETS_GS;
}

void library_thread_ends(struct thread *t)
{
	if (t->slot < 0)
		return;
	take_counts(t, false);
	region_slot_release(t->slot, t->img->as->next_counter);
	t->slot = -1;
	t->nlog_unanswered = 0; /* their results would have come in this slot */
}

void library_set_saving(uint64_t ns)
{
	saving_ns = ns;
}

/* Why the sites of img that its memory never decided cannot be patched; NULL when
 * they could still be (pending). */
static const char *undecided_reason(const struct image *img)
{
	static const char *const reasons[IMAGE_LIBRARY_COUNT] = {
		[LIBRARY_IS_OFF] = "patching-off",
		[LIBRARY_IS_ABSENT] = "library-absent",
		[LIBRARY_IS_REGION_UNREACHABLE] = "library-region-unreachable",
		[LIBRARY_IS_GATE_TAKEN] = "library-gate-address-taken",
		[LIBRARY_IS_REGION_FULL] = "library-region-full",
		[LIBRARY_IS_PROGRAM_SETS_GS] = "library-program-sets-gs",
	};

	if (mode == PATCH_OFF)
		return reasons[LIBRARY_IS_OFF];
	return img->ready ? NULL : reasons[img->rec.library];
}

/* The patches the image wrote, and whether each paid for itself in it. */
static void account_patches(struct image *img, const struct addr_space *as)
{
	for (size_t i = 0; i < as->sites.n; i++) {
		const struct patch *p = &as->patches[i];
		struct site_record *s = image_site_of(img, &as->sites.sites[i], false);

		if (!patch_has_counter(p) || p->origin == PATCH_INHERITED)
			continue;
		img->rec.patches_written++;
		img->rec.patches_known += p->origin == PATCH_IN_BATCH;
		img->rec.patch_ns += p->cost_ns;
		if (s) {
			s->patch_ns = p->cost_ns;
			s->patched_ns = p->patched_ns;
		}
		if (!amortization_paid_off(p->cost_ns, saving_ns, s ? s->inprocess : 0))
			img->rec.patches_not_amortized++;
	}
}

void library_image_complete(struct image *img)
{
	struct addr_space *as = img->as;

	if (as && img->owns_as)
		account_patches(img, as);
	known_sites_note_image(img);

	/* the state of every site the image trapped at */
	for (size_t i = 0; i < img->sites.n; i++) {
		struct site_record *s = &img->sites.sites[i];
		const struct site_record *in_as = as ? site_table_find_gen(&as->sites, s->addr, s->gen) : NULL;
		const struct patch *p = in_as ? &as->patches[in_as - as->sites.sites] : NULL;

		/* an image whose path never came up: only what was patched at exec
		 * (tracer/early.c) says otherwise than why */
		if (p && (img->late || patch_has_counter(p))) {
			s->state = patch_site_state(p);
			s->reason = p->reason;
		} else {
			s->reason = undecided_reason(img);
			s->state = s->reason ? SITE_UNPATCHABLE : SITE_PENDING;
		}
	}
}
