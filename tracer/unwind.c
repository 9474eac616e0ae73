#include "unwind.h"

#include <libunwind-ptrace.h>
#include <stdlib.h>

/* The threads of one image whose accessor state is kept: each holds the object it
 * last read unwind information from (mapped), so a thread that stops again unwinds
 * without reading the maps or the file again. Past this many, the oldest goes. */
#define UNWIND_THREADS 8

struct unwinder {
	unw_addr_space_t as;
	struct { pid_t tid; void *upt; } threads[UNWIND_THREADS];
	unsigned next;  /* the entry replaced next */
};

/* The local copy of the walk under way (the tracer walks one stack at a time). */
static _Thread_local unwind_local_read *walk_local;
static _Thread_local void *walk_local_arg;

/* _UPT_access_mem makes one ptrace call a word: the local copy first */
static int access_mem(unw_addr_space_t as, unw_word_t addr, unw_word_t *val, int write, void *upt)
{
	if (!write && walk_local && walk_local(walk_local_arg, addr, val, sizeof(*val)))
		return 0;
	return _UPT_access_mem(as, addr, val, write, upt);
}

struct unwinder *unwinder_new(void)
{
	unw_accessors_t accessors = _UPT_accessors;
	struct unwinder *u = calloc(1, sizeof(*u));

	if (!u)
		abort();
	accessors.access_mem = access_mem;
	/* (libunwind keeps a copy of the accessors) */
	u->as = unw_create_addr_space(&accessors, 0);
	/* its own cache of what each instruction address's frame looks like (per
	 * thread, libunwind would share one among every image's addresses) */
	if (u->as)
		unw_set_caching_policy(u->as, UNW_CACHE_GLOBAL);
	return u;
}

void unwinder_free(struct unwinder *u)
{
	if (!u)
		return;
	for (unsigned i = 0; i < UNWIND_THREADS; i++)
		if (u->threads[i].upt)
			_UPT_destroy(u->threads[i].upt);
	if (u->as)
		unw_destroy_addr_space(u->as);
	free(u);
}

/* The accessor state of tid (it names the thread ptrace reads). */
static void *upt_of(struct unwinder *u, pid_t tid)
{
	unsigned i;

	for (i = 0; i < UNWIND_THREADS; i++)
		if (u->threads[i].upt && u->threads[i].tid == tid)
			return u->threads[i].upt;
	i = u->next;
	u->next = (u->next + 1) % UNWIND_THREADS;
	if (u->threads[i].upt)
		_UPT_destroy(u->threads[i].upt);
	u->threads[i].tid = tid;
	u->threads[i].upt = _UPT_create(tid);
	return u->threads[i].upt;
}

static enum unwind_end walk(unw_cursor_t *cursor, uint64_t lo, uint64_t hi, struct unwind_walk *w)
{
	for (unsigned depth = 0; depth < UNWIND_MAX_FRAMES; depth++) {
		unw_word_t ip;
		int stepped;

		if (unw_get_reg(cursor, UNW_REG_IP, &ip) < 0)
			return UNWIND_FAILED;
		if (ip < lo || ip >= hi) {
			w->outside_ip = ip;
			return depth > 0 ? UNWIND_LEFT : UNWIND_FAILED;
		}
		w->inside_ip = ip;
		stepped = unw_step(cursor);
		if (stepped == 0)
			return UNWIND_BOTTOM;
		if (stepped < 0)
			return UNWIND_FAILED;
	}
	return UNWIND_FAILED;
}

enum unwind_end unwind_within(struct unwinder *u, pid_t tid, uint64_t lo, uint64_t hi,
			      unwind_local_read *local, void *arg, struct unwind_walk *w)
{
	unw_cursor_t cursor;
	enum unwind_end end = UNWIND_FAILED;
	void *upt;

	walk_local = local;
	walk_local_arg = arg;
	if (u->as && (upt = upt_of(u, tid)) && unw_init_remote(&cursor, u->as, upt) >= 0)
		end = walk(&cursor, lo, hi, w);
	walk_local = NULL;
	return end;
}
