#include "patching.h"

#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gate.h"
#include "gate_code.h"
#include "interned.h"
#include "objects.h"
#include "proc_maps.h"
#include "procfs.h"
#include "region.h"
#include "restarts.h"
#include "syscall_log.h"

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

/* How long a thread asked to stop may take before the patch waits for another trap. */
#define STOP_TIMEOUT_NS (100 * 1000 * 1000)

static enum patch_mode mode;
static bool prepatch;
/* Calls that must stop in the tracer: they change the stack or never return to the
 * stub (a child would return into it on a stack it does not have); they may take
 * away the stack the gate call returns through (a thread that unmaps its own stack
 * and exits, as musl's pthread_exit does: munmap, then exit with no stack); or the
 * tracer needs their entry (execve: the environment; affinity: placement.c;
 * arch_prctl: a program that sets its own %gs base takes the stubs' counters away).
 * All are rare in a run but munmap, which is under 1% of a build's calls. */
static const char *const slow_names[] = {
	"rt_sigreturn", "clone", "clone3", "fork", "vfork", "execve", "execveat", "munmap",
	"exit", "sched_setaffinity", "sched_getaffinity", "arch_prctl",
};
#define NSLOW (sizeof(slow_names) / sizeof(slow_names[0]))
static int slow_nrs[NSLOW];
static const char *slow_reasons[NSLOW];

/* Statuses of threads stopped for a patch, for the event loop. */
static struct held { pid_t tid; int status; } *held;
static size_t nheld, cap_held, next_held;

void patching_setup(enum patch_mode m, bool ahead)
{
	char reason[64];

	mode = m;
	prepatch = ahead;
	for (size_t i = 0; i < NSLOW; i++) {
		slow_nrs[i] = syscall_index_of(ABI_X86_64, slow_names[i]);
		snprintf(reason, sizeof(reason), "syscall-%s", slow_names[i]);
		slow_reasons[i] = intern(reason);
	}
}

void patching_hold(pid_t tid, int status)
{
	struct thread *u = thread_find(tid);

	if (nheld == cap_held) {
		cap_held = cap_held ? 2 * cap_held : 16;
		held = realloc(held, cap_held * sizeof(*held));
		if (!held)
			abort();
	}
	held[nheld++] = (struct held){ tid, status };
	if (u)
		u->held = true;
}

bool patching_take_held(pid_t *tid, int *status)
{
	struct thread *u;

	if (next_held == nheld) {
		next_held = nheld = 0;
		return false;
	}
	*tid = held[next_held].tid;
	*status = held[next_held].status;
	next_held++;
	if ((u = thread_find(*tid)))
		u->held = false;
	return true;
}

/* The site's decision: refused for reason, or planned (reason NULL). */
static void decide(struct patch *p, const char *reason)
{
	p->state = reason ? PATCH_REFUSED : PATCH_PLANNED;
	p->reason = reason;
}

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

/* Why a site whose fixed number must stop in the tracer is not patched, else NULL. */
static const char *slow_reason(int nr)
{
	for (size_t i = 0; nr >= 0 && i < NSLOW; i++)
		if (slow_nrs[i] == syscall_index(ABI_X86_64, nr))
			return slow_reasons[i];
	return NULL;
}

/* Decides how the site could be patched; NULL, or why it cannot be. */
static const char *plan_site(struct thread *t, struct addr_space *as, struct site_record *s, struct patch *p, long nr)
{
	struct code_object code;
	const char *reason = objects_code_of(t->tid, s, &code);

	if (reason)
		return reason;
	/* refused in an earlier process: the same code, the same answer */
	if ((reason = objects_refusal(&code, s->addr)))
		return reason;
	if ((reason = plan_in(t->tid, &code, s->addr, &p->plan)) || (reason = slow_reason(p->plan.nr))) {
		/* (a process gone mid-read says nothing of the code) */
		if (strcmp(reason, "unreadable-code") != 0)
			objects_learn_refusal(&code, s->addr, reason);
		return reason;
	}
	if (as_site_overlapping(as, p->plan.start, p->plan.end))
		return "overlaps-patch";
	if (p->plan.nr >= 0 && p->plan.nr != nr)
		return "number-mismatch";
	s->syscall = p->plan.nr >= 0 ? syscall_index(ABI_X86_64, p->plan.nr) : SITE_SYSCALL_VARIES;
	objects_learn(&code, &p->plan);
	return NULL;
}

/* --prepatch: every site of an object that can be patched is known before it runs. */
static void learn_ahead(void *arg, const struct code_object *code, uint64_t addr)
{
	struct patch_plan plan;

	if (!plan_in(*(pid_t *)arg, code, addr, &plan) && !slow_reason(plan.nr))
		objects_learn(code, &plan);
}

/* Makes t, at the seccomp stop of a call, run mmap instead, then puts the call back
 * to be made again (rip on the syscall instruction). Returns the mapping, 0 if mmap
 * failed; false in *back when t did not come back from it (killed: held). */
static uint64_t inject_mmap(struct thread *t, uint64_t addr, uint64_t len, bool *back)
{
	struct user_regs_struct saved, regs;
	int status;

	*back = true;
	if (ptrace(PTRACE_GETREGS, t->tid, 0, &saved) < 0)
		return 0;
	regs = saved;
	regs.orig_rax = SYS_mmap;
	regs.rdi = addr;
	regs.rsi = len;
	regs.rdx = PROT_READ | PROT_EXEC;
	regs.r10 = MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE;
	regs.r8 = (uint64_t)-1;
	regs.r9 = 0;
	if (ptrace(PTRACE_SETREGS, t->tid, 0, &regs) < 0 || ptrace(PTRACE_SYSCALL, t->tid, 0, 0) < 0)
		return 0;
	for (;;) {
		pid_t got;

		/* placement.c's timer interrupts the wait: the thread still comes back */
		while ((got = waitpid(t->tid, &status, __WALL)) < 0 && errno == EINTR)
			;
		if (got != t->tid)
			return 0;
		t->img->rec.ptrace_stops++;
		/* an interrupt asked for earlier (another patch) comes on its way */
		if (!WIFSTOPPED(status) || status >> 16 != PTRACE_EVENT_STOP)
			break;
		ptrace(PTRACE_SYSCALL, t->tid, 0, 0);
	}
	if (!WIFSTOPPED(status) || WSTOPSIG(status) != (SIGTRAP | 0x80)) {
		patching_hold(t->tid, status);
		*back = false;
		return 0;
	}
	if (ptrace(PTRACE_GETREGS, t->tid, 0, &regs) < 0)
		return 0;
	saved.rip -= 2;
	saved.rax = saved.orig_rax;
	ptrace(PTRACE_SETREGS, t->tid, 0, &saved);
	return (int64_t)regs.rax < 0 && (int64_t)regs.rax >= -4095 ? 0 : regs.rax;
}

/* Threads that share t's memory, for the protocol of docs/patching.md. */
struct sharers {
	struct thread *t;
	struct addr_space *as;
	struct thread **list;
	size_t n, cap;
};

static void collect_sharer(struct thread *u, void *arg)
{
	struct sharers *sh = arg;

	if (u == sh->t || !u->img || u->img->as != sh->as || u->gone || u->exit_event_seen
	    || u->state != THREAD_RUNNING)
		return;
	if (sh->n == sh->cap) {
		sh->cap = sh->cap ? 2 * sh->cap : 16;
		sh->list = realloc(sh->list, sh->cap * sizeof(*sh->list));
		if (!sh->list)
			abort();
	}
	sh->list[sh->n++] = u;
}

/* Whether a thread that does not stop (blocked where only a fatal signal wakes it: a
 * vfork parent) is in the kernel, not running, with its user rip outside [lo, hi). */
static bool blocked_outside(pid_t tid, uint64_t lo, uint64_t hi)
{
	char path[64], text[256];
	unsigned long long pc = 0;
	FILE *f;
	int fields;

	snprintf(path, sizeof(path), "/proc/%d/syscall", (int)tid);
	if (!(f = fopen(path, "re")))
		return false;
	fields = fgets(text, sizeof(text), f) != NULL;
	fclose(f);
	/* "nr a1 a2 a3 a4 a5 a6 sp pc" inside a syscall; "running" otherwise */
	if (!fields || strncmp(text, "running", 7) == 0)
		return false;
	{
		const char *last = strrchr(text, ' ');

		if (!last || sscanf(last, " 0x%llx", &pc) != 1)
			return false;
	}
	return pc <= lo || pc >= hi;
}

/* Stops every other thread of the address space (PTRACE_INTERRUPT), holding the
 * status each reports for the event loop. False if one could not be stopped and is
 * not safely blocked outside the bytes to patch. */
static bool stop_sharers(struct sharers *sh, const struct patch_plan *plan, bool *stopped)
{
	uint64_t deadline = monotonic_ns() + STOP_TIMEOUT_NS;
	size_t waiting = 0;
	bool ok = true;

	for (size_t i = 0; i < sh->n; i++) {
		struct thread *u = sh->list[i];

		stopped[i] = u->held;
		if (!u->held && ptrace(PTRACE_INTERRUPT, u->tid, 0, 0) == 0) {
			u->interrupted = true;
			waiting++;
		}
		else if (!u->held)
			sh->list[i] = NULL; /* gone: its death report is on its way */
	}
	for (unsigned round = 0; waiting; round++) {
		struct timespec pause = { 0, 20 * 1000 };
		bool late = monotonic_ns() > deadline;

		for (size_t i = 0; i < sh->n; i++) {
			struct thread *u = sh->list[i];
			int status;

			if (!u || stopped[i])
				continue;
			if (waitpid(u->tid, &status, __WALL | WNOHANG) == u->tid) {
				patching_hold(u->tid, status);
				stopped[i] = true;
				waiting--;
				if (!WIFSTOPPED(status))
					sh->list[i] = NULL;
			} else if (round == 10 || late) {
				/* Not stopped after a moment: asleep in the kernel where the
				 * interrupt does not wake it (a vfork parent). It cannot run
				 * user code before the interrupt stops it; accepted if it will
				 * come back outside the bytes. */
				if (blocked_outside(u->tid, plan->start, plan->end)) {
					sh->list[i] = NULL;
					waiting--;
				} else if (late) {
					ok = false;
				}
			}
		}
		if (late)
			break;
		if (waiting)
			nanosleep(&pause, NULL);
	}
	return ok;
}

/* Where a stopped thread must go so as not to run the bytes being patched: its rip,
 * or its place in the stub; 0 if it cannot go anywhere (or is gone: 1). A thread
 * about to enter this site's syscall again (a restart, or the call put back after
 * an mmap for stub room), standing on the syscall that becomes the jump, enters it
 * through the stub's own traced syscall: it was counted once already. */
static uint64_t destination(const struct thread *u, const struct patch *p, struct user_regs_struct *regs)
{
	if (ptrace(PTRACE_GETREGS, u->tid, 0, regs) < 0)
		return 1;
	if (p->plan.shape == PATCH_AFTER && regs->rip == p->plan.start && u->restart == RESTART_NEXT
	    && u->restart_site == p->plan.site)
		return p->stub.slow;
	return stub_translate(&p->plan, &p->stub, regs->rip);
}

static bool can_move(const struct thread *u, const struct patch *p)
{
	struct user_regs_struct regs;

	return destination(u, p, &regs) != 0;
}

static void move_out(const struct thread *u, const struct patch *p)
{
	struct user_regs_struct regs;
	uint64_t to = destination(u, p, &regs);

	if (to > 1 && to != regs.rip) {
		regs.rip = to;
		ptrace(PTRACE_SETREGS, u->tid, 0, &regs);
	}
}

bool patching_alone(const struct thread *t)
{
	/* another image in the memory (a vfork child, its parent) counts as another */
	return t->img->live_threads <= 1 && t->img->as->refs <= 1;
}

/* Writes the stub and the jump: in safe mode with every other thread of the memory
 * stopped, and each thread that stands in the bytes being replaced moved to its
 * place in the stub. False if the site must wait for a later trap. */
static bool write_patch(struct thread *t, struct addr_space *as, struct patch *p, const uint8_t *stub, size_t len,
			const uint8_t *jump)
{
	struct sharers sh = { .t = t, .as = as };
	bool ok = true, *stopped = NULL;

	if (mode == PATCH_SAFE && !patching_alone(t)) {
		tasks_for_each_thread(collect_sharer, &sh);
		stopped = calloc(sh.n ? sh.n : 1, sizeof(*stopped));
		if (!stopped)
			abort();
		ok = stop_sharers(&sh, &p->plan, stopped);
	}
	for (size_t i = 0; ok && i < sh.n && stopped; i++)
		if (sh.list[i] && stopped[i])
			ok = can_move(sh.list[i], p);
	ok = ok && can_move(t, p)
	     /* the stub before the jump to it, and only then threads into it */
	     && as_write(as, t->tid, p->stub.addr, stub, len)
	     && as_write(as, t->tid, p->plan.start, jump, p->plan.end - p->plan.start);
	if (ok) {
		for (size_t i = 0; i < sh.n && stopped; i++)
			if (sh.list[i] && stopped[i])
				move_out(sh.list[i], p);
		move_out(t, p);
	}
	free(sh.list);
	free(stopped);
	return ok;
}

/* Maps stub memory near the site by making t call mmap; t then makes its own call
 * again. False when t is gone. */
static bool map_area(struct thread *t, struct addr_space *as, struct patch *p)
{
	uint64_t at, got = 0;
	bool back = true;

	if (proc_maps_gap_near(t->tid, p->plan.start, p->plan.end, PATCH_AREA_SIZE, AS_REACH, &at))
		got = inject_mmap(t, at, PATCH_AREA_SIZE, &back);
	if (got == at && got)
		as_add_area(as, at, PATCH_AREA_SIZE);
	else
		decide(p, "no-room-for-stub");
	return back;
}

/* Builds p's stub for room at and the jump to it; false with p refused when it
 * cannot be (a counter is taken only once the patch is written). */
static bool build_patch(struct addr_space *as, struct patch *p, uint64_t at,
			uint8_t *stub, size_t *len, uint8_t *jump)
{
	const struct stub_config cfg = {
		.gate = SYSTRACE_GATE_ADDR,
		.site_counter = (int32_t)(offsetof(struct region_slot, site_calls) + 8 * (size_t)as->next_counter),
		.nr_counters = (int32_t)offsetof(struct region_slot, nr_calls),
		.nr_limit = REGION_NRS,
		.slow_nrs = slow_nrs,
		.nslow = NSLOW,
		.log_call = syscall_log_on() ? GATE_AT(gate_log_call) : 0,
	};

	if (as->next_counter >= REGION_SLOT_SITES) {
		decide(p, "counters-full");
		return false;
	}
	*len = stub_build(&p->plan, &cfg, at, stub, STUB_MAX_LEN, &p->stub);
	if (!*len || !patch_bytes(&p->plan, at, jump)) {
		decide(p, "stub-out-of-reach");
		return false;
	}
	return true;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + (uint64_t)ts.tv_nsec;
}

static void mark_patched(struct addr_space *as, struct patch *p, size_t len, enum patch_origin origin, uint64_t cost_ns)
{
	as_stub_taken(as, p->stub.addr, len);
	p->state = PATCH_WRITTEN;
	p->origin = origin;
	p->counter = as->next_counter++;
	p->cost_ns = cost_ns;
	p->patched_ns = now_ns();
	as->npatched++;
}

static enum patch_result apply(struct thread *t, struct addr_space *as, struct patch *p, long nr, uint64_t began)
{
	uint8_t stub[STUB_MAX_LEN], jump[PATCH_MAX_COVER];
	uint64_t at = as_stub_room(as, p->plan.start, p->plan.end, STUB_MAX_LEN);
	size_t len;

	/* single: the site waits while other threads run, at no more cost than a trap */
	if (mode == PATCH_SINGLE && !patching_alone(t))
		return PATCH_RESUME;
	if (!at) {
		if (!map_area(t, as, p))
			return PATCH_HELD;
		restart_expect_reissue(t, p->plan.site, nr);
		return PATCH_REISSUE;
	}
	if (!build_patch(as, p, at, stub, &len, jump))
		return PATCH_RESUME;
	if (!write_patch(t, as, p, stub, len, jump))
		return PATCH_RESUME; /* pending: a later trap tries again */
	mark_patched(as, p, len, PATCH_AT_TRAP, now_ns() - began);
	return PATCH_RESUME;
}

/* The sites known from earlier processes, added planned to a new image's memory. */
/* The sites out of reach of the library's stub room (the executable's). */
struct far_range {
	uint64_t lo, hi;
};

/* objects_known_fn: the site planned in the address space arg, unless decided. */
static void add_known(void *arg, const struct site_record *named, const struct patch_plan *plan)
{
	struct patch *p;
	struct site_record *s = as_site(arg, named->addr, &p);

	if (p->state != PATCH_UNPLANNED)
		return;
	s->object = named->object;
	s->offset = named->offset;
	s->symbol = named->symbol;
	s->symbol_offset = named->symbol_offset;
	s->named = true;
	s->syscall = plan->nr >= 0 ? syscall_index(ABI_X86_64, plan->nr) : SITE_SYSCALL_VARIES;
	p->plan = *plan;
	p->state = PATCH_PLANNED;
}

/* The range of the sites planned and not written that lie out of reach of room
 * (the executable's, far from the shared libraries), as far as one area can serve. */
static struct far_range far_sites(const struct addr_space *as, uint64_t room)
{
	struct far_range far = { 0, 0 };

	for (size_t i = 0; i < as->sites.n; i++) {
		const struct patch_plan *plan = &as->patches[i].plan;

		if (as->patches[i].state != PATCH_PLANNED
		    || (as_within_reach(room, plan->start) && as_within_reach(room, plan->end)))
			continue;
		if (!far.hi) {
			far = (struct far_range){ plan->start, plan->end };
		} else if (as_within_reach(far.lo, plan->end) && as_within_reach(far.hi, plan->start)) {
			far.lo = plan->start < far.lo ? plan->start : far.lo;
			far.hi = plan->end > far.hi ? plan->end : far.hi;
		}
	}
	return far;
}

uint64_t patching_start_prepare(struct thread *t, uint64_t library_code)
{
	struct far_range far;
	uint64_t at;

	if (mode == PATCH_OFF)
		return 0;
	if (prepatch)
		objects_for_each_new_syscall(t->tid, learn_ahead, &t->tid);
	if (!objects_for_each_known(t->tid, add_known, t->img->as))
		return 0;
	far = far_sites(t->img->as, library_code);
	if (!far.hi)
		return 0;
	return proc_maps_gap_near(t->tid, far.lo, far.hi, PATCH_AREA_SIZE, AS_REACH, &at) ? at : 0;
}

static int by_start(const void *a, const void *b)
{
	const struct patch *p = *(struct patch *const *)a, *q = *(struct patch *const *)b;

	return p->plan.start < q->plan.start ? -1 : p->plan.start > q->plan.start;
}

/* Bytes to write at consecutive addresses, gathered into one pwrite. */
struct run {
	uint64_t addr;
	size_t len;
	uint8_t bytes[4096];
};

static void run_flush(struct addr_space *as, pid_t pid, struct run *r)
{
	if (r->len)
		as_write(as, pid, r->addr, r->bytes, r->len);
	r->len = 0;
}

/* Adds len bytes at addr, in the same write as the bytes before when they end at
 * most gap bytes before it (a gap is filled with int3: only for stub room). */
static void run_add(struct addr_space *as, pid_t pid, struct run *r, uint64_t addr, const uint8_t *bytes, size_t len,
		    uint64_t gap)
{
	uint64_t end = r->addr + r->len;

	if (r->len && (addr < end || addr - end > gap || addr + len - r->addr > sizeof(r->bytes)))
		run_flush(as, pid, r);
	if (!r->len)
		r->addr = end = addr;
	memset(r->bytes + r->len, 0xcc, addr - end);
	memcpy(r->bytes + (addr - r->addr), bytes, len);
	r->len = addr + len - r->addr;
}

/* Whether memory still holds the bytes each plan replaces (read in one call); a
 * site whose code differs is planned again at its first trap. */
static size_t keep_unchanged(pid_t pid, struct patch **list, size_t n, uint8_t (*now)[PATCH_MAX_COVER])
{
	struct iovec local[64], remote[64];
	size_t kept = 0;

	for (size_t at = 0; at < n; at += 64) {
		size_t k = n - at < 64 ? n - at : 64;

		for (size_t i = 0; i < k; i++) {
			const struct patch_plan *plan = &list[at + i]->plan;

			local[i] = (struct iovec){ now[at + i], plan->end - plan->start };
			remote[i] = (struct iovec){ (void *)plan->start, plan->end - plan->start };
		}
		if (process_vm_readv(pid, local, k, remote, k, 0) < 0)
			memset(now[at], 0, k * PATCH_MAX_COVER);
	}
	for (size_t i = 0; i < n; i++) {
		const struct patch_plan *plan = &list[i]->plan;

		if (memcmp(now[i], plan->original, plan->end - plan->start) == 0)
			list[kept++] = list[i];
		else
			list[i]->state = PATCH_UNPLANNED;
	}
	return kept;
}

/* Writes every site planned but not patched in t's memory, which t has to itself
 * (nothing else runs the bytes being written), but one whose bytes hold t's rip:
 * `avoid`, or 0; a site that cannot be waits for its trap, as a new site would. */
void patching_apply_planned(struct thread *t, struct addr_space *as, uint64_t avoid)
{
	uint64_t began = now_ns(), cost;
	struct patch **list = malloc((as->sites.n + 1) * sizeof(*list));
	uint8_t (*now)[PATCH_MAX_COVER] = malloc((as->sites.n + 1) * PATCH_MAX_COVER);
	static struct run stubs, jumps;
	size_t n = 0, done = 0;
	bool had_patches = as->npatched > 0;
	uint64_t last_end = 0;

	if (!list || !now)
		abort();
	for (size_t i = 0; i < as->sites.n; i++)
		if (as->patches[i].state == PATCH_PLANNED)
			list[n++] = &as->patches[i];
	qsort(list, n, sizeof(*list), by_start);
	n = keep_unchanged(t->tid, list, n, now);
	for (size_t i = 0; i < n; i++) {
		struct patch *p = list[i];
		uint8_t stub[STUB_MAX_LEN], jump[PATCH_MAX_COVER];
		uint64_t at = as_stub_room(as, p->plan.start, p->plan.end, STUB_MAX_LEN);
		size_t len;

		/* sorted: a site of the batch can only overlap the one before it */
		if (!at || p->plan.start < last_end || (avoid > p->plan.start && avoid < p->plan.end)
		    || (had_patches && as_site_overlapping(as, p->plan.start, p->plan.end))
		    || !build_patch(as, p, at, stub, &len, jump)) {
			decide(p, NULL); /* it waits for its trap */
			continue;
		}
		last_end = p->plan.end;
		run_add(as, t->tid, &stubs, at, stub, len, 16);
		run_add(as, t->tid, &jumps, p->plan.start, jump, p->plan.end - p->plan.start, 0);
		mark_patched(as, p, len, PATCH_IN_BATCH, 0);
		list[done++] = p;
	}
	run_flush(as, t->tid, &stubs);
	run_flush(as, t->tid, &jumps);
	cost = done ? (now_ns() - began) / done : 0;
	for (size_t i = 0; i < done; i++)
		list[i]->cost_ns = cost;
	free(list);
	free(now);
}

void patching_start_apply(struct thread *t, uint64_t room, uint64_t room_size, uint64_t area)
{
	struct addr_space *as = t->img->as;

	if (room)
		as_add_area(as, room, room_size);
	if (area)
		as_add_area(as, area, PATCH_AREA_SIZE);
	patching_apply_planned(t, as, 0);
}

size_t patching_plan_known_at(struct thread *t, uint64_t addr)
{
	struct addr_space *as = t->img->as;
	size_t before = as->sites.n;

	objects_for_each_known_at(t->tid, addr, add_known, as);
	return as->sites.n - before;
}

/* A trap in the loader before the library is ready: the site is planned and kept
 * for the next images, which get it patched from their first instruction
 * (tracer/early.c). Nothing is written now: the gate may not be there. */
static void learn_early(struct thread *t, struct addr_space *as, uint64_t site, long nr)
{
	struct patch *p;
	struct site_record *s = as_site(as, site, &p);

	if (p->state == PATCH_UNPLANNED)
		decide(p, plan_site(t, as, s, p, nr));
}

/* At the first trap in an object (loaded by dlopen, or whose sites other processes
 * patched since; or libc's before the library is ready, when the gate was mapped at
 * exec): everything known of it at once, when t is alone in its memory. t stands
 * right after the syscall at site. */
static void apply_known_at(struct thread *t, struct addr_space *as, uint64_t site)
{
	size_t before = as->sites.n;

	if (!patching_alone(t))
		return;
	objects_for_each_known_at(t->tid, site, add_known, as);
	if (as->sites.n > before)
		patching_apply_planned(t, as, site + 2);
}

/* A trap before the library is ready. Its site is planned for the images to come
 * (the loader's; and any, once this image has the gate from exec). With the gate
 * there, and t alone: at the first such trap, every site known in the objects mapped
 * by then (libc: the loader has done its work when its first call stops, at
 * arch_prctl), and later the known sites of the object trapped in. */
static void on_early_call(struct thread *t, struct addr_space *as, uint64_t site, long nr)
{
	bool in_loader = site >= as->loader_start && site < as->loader_end;

	if (in_loader || as->mapped_at_exec)
		learn_early(t, as, site, nr);
	if (!as->mapped_at_exec || as->gs_taken || !patching_alone(t))
		return;
	if (!as->walked_known) {
		as->walked_known = true;
		objects_for_each_known(t->tid, add_known, as);
		patching_apply_planned(t, as, site + 2);
	} else if (!in_loader) {
		apply_known_at(t, as, site);
	}
}

enum patch_result patching_on_call(struct thread *t, uint64_t site, bool at_stub, long nr)
{
	struct addr_space *as = t->img->as;
	struct site_record *s;
	struct patch *p;
	enum patch_result result;
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
	began = now_ns();
	if (p->state == PATCH_PLANNED)
		return apply(t, as, p, nr, began);
	decide(p, plan_site(t, as, s, p, nr));
	if (p->state == PATCH_REFUSED)
		return PATCH_RESUME;
	result = apply(t, as, p, nr, began);
	if (result == PATCH_RESUME && p->state != PATCH_PLANNED)
		apply_known_at(t, as, site);
	return result;
}

uint64_t patching_site_of(struct thread *t, uint64_t site)
{
	const struct patch *p = t->img && t->img->as ? as_patch_of_stub(t->img->as, site) : NULL;

	return p && p->stub.slow == site ? p->plan.site : site;
}

void patching_on_sigreturn(struct thread *t, uint64_t stack_pointer)
{
	struct addr_space *as = t->img->as;
	uint64_t rip, to;
	struct iovec local = { &rip, 8 }, remote = { (void *)(stack_pointer + SIGFRAME_RIP), 8 };

	if (!as || !as->npatched || process_vm_readv(t->tid, &local, 1, &remote, 1, 0) != 8)
		return;
	/* back to a syscall that is now the start of a jump (a restart the handler's
	 * SA_RESTART asked for): through the stub's own, traced, syscall instead, so
	 * that the tracer sees the restart and does not count it twice */
	to = as_translate(as, rip);
	for (size_t i = 0; to == rip && i < as->sites.n; i++) {
		const struct patch *p = &as->patches[i];

		if (p->state == PATCH_WRITTEN && p->plan.shape == PATCH_AFTER && p->plan.start == rip)
			to = p->stub.slow;
	}
	if (to && to != rip) {
		local.iov_base = &to;
		process_vm_writev(t->tid, &local, 1, &remote, 1, 0);
	}
}

void patching_undo_all(struct thread *t, struct addr_space *as)
{
	struct sharers sh = { .t = t, .as = as };
	bool *stopped;

	tasks_for_each_thread(collect_sharer, &sh);
	stopped = calloc(sh.n ? sh.n : 1, sizeof(*stopped));
	if (!stopped)
		abort();
	/* threads inside a stub finish it (stubs stay); none can be inside a jump */
	stop_sharers(&sh, &(struct patch_plan){ 0 }, stopped);
	for (size_t i = 0; i < as->sites.n; i++) {
		struct patch *p = &as->patches[i];

		if (p->state == PATCH_WRITTEN)
			as_write(as, t->tid, p->plan.start, p->plan.original, p->plan.end - p->plan.start);
		if (patch_has_counter(p))
			p->state = PATCH_STALE;
		else
			decide(p, "patches-withdrawn");
	}
	free(sh.list);
	free(stopped);
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

/* A thread in the gate (blocked in, or just back from, an in-process call) about to
 * run a handler is given the state it would have in the original syscall: the stub's
 * call and red-zone step undone (and the log routine's frame, with the flags it
 * saved), rip after the site's syscall. The handler's frame, and whatever unwinds
 * through it (pthread_cancel, a C++ exception, a backtrace), then sees the program's
 * own code, which has unwind information; on return the frame logic (rt_sigreturn)
 * sends it back through the stub where needed. */
static void leave_gate(struct thread *t, struct addr_space *as, struct user_regs_struct *regs)
{
	/* the gate's return address; under the log routine (gate_code.S): its mark, the
	 * number, rdx, the flags, the stub's return address, the pushed counter */
	uint64_t frame[7], back, popped = 8;
	struct iovec local = { frame, sizeof(frame) }, remote = { (void *)regs->rsp, sizeof(frame) };
	const struct patch *p;

	if (process_vm_readv(t->tid, &local, 1, &remote, 1, 0) != sizeof(frame))
		return;
	back = frame[0];
	if (back == GATE_AT(gate_log_returned)) {
		back = frame[5];
		popped = sizeof(frame);
	}
	if (!(p = as_patch_of_stub(as, back)))
		return;
	/* the routine will not store the result: a call that returned gets it here; one
	 * the kernel restarts goes through the stub's traced syscall, counted once */
	if (popped == sizeof(frame) && !restart_is_code((int64_t)regs->rax))
		syscall_log_set_result(t, frame[1], (int64_t)regs->rax);
	if (popped == sizeof(frame))
		regs->eflags = frame[4];
	regs->rsp += popped + 128;
	regs->rip = p->plan.site + 2;
	ptrace(PTRACE_SETREGS, t->tid, 0, regs);
}

static bool read_word(pid_t tid, uint64_t addr, uint64_t *word)
{
	struct iovec local = { word, 8 }, remote = { (void *)addr, 8 };

	return process_vm_readv(tid, &local, 1, &remote, 1, 0) == 8;
}

/* A thread interrupted in the log routine (gate_code.S) about to run a handler, whose
 * own calls must find the buffer consistent and take entries after the routine's
 * whole: true if regs were changed. Before the call is made, the thread goes back to
 * retry (an entry it marked taken back: it is made again after the handler's);
 * once it returned, the entry gets its result (in rax) now, not after the handler's
 * drain has taken it, and a thread inside (check, checked) goes back to check. */
static bool log_routine_rewind(struct thread *t, struct user_regs_struct *regs)
{
	uint64_t rip = regs->rip, word, mark = regs->rcx, nr;

	if (rip > GATE_AT(gate_log_retry) && rip < GATE_AT(gate_log_committed)) {
		regs->rip = GATE_AT(gate_log_retry);
		return true;
	}
	/* at the gate's syscall not made, under the routine's frame (the mark from it:
	 * rcx is the syscall's if the kernel restarts the call), the number still in
	 * rax (not a restart_syscall the kernel put there: that call goes on) */
	if (rip == SYSTRACE_GATE_ADDR
	    && !(read_word(t->tid, regs->rsp, &word) && word == GATE_AT(gate_log_returned)
		 && read_word(t->tid, regs->rsp + 8, &mark) && read_word(t->tid, regs->rsp + 16, &nr)
		 && nr == regs->rax))
		return false;
	if (rip == GATE_AT(gate_log_committed) || rip == SYSTRACE_GATE_ADDR) {
		if (!syscall_log_unmark(t, mark))
			return false;
		regs->rsp += rip == SYSTRACE_GATE_ADDR ? 8 : 0;
		regs->rip = GATE_AT(gate_log_retry);
		return true;
	}
	if (rip < GATE_AT(gate_log_returned) || rip >= GATE_AT(gate_log_checked))
		return false;
	if (rip == GATE_AT(gate_log_returned) ? read_word(t->tid, regs->rsp, &word) : (word = regs->rcx, true))
		syscall_log_set_result(t, word, (int64_t)regs->rax);
	if (rip > GATE_AT(gate_log_check)) {
		regs->rip = GATE_AT(gate_log_check);
		return true;
	}
	return false;
}

void patching_on_signal(struct thread *t, int sig)
{
	struct addr_space *as = t->img->as;
	struct user_regs_struct regs;
	const struct patch *p;
	uint64_t back;

	if (!as->npatched || ptrace(PTRACE_GETREGS, t->tid, 0, &regs) < 0)
		return;
	if (regs.rip == SYSTRACE_GATE_SYSCALL_IP) {
		if (procfs_signal_caught(t->tid, sig))
			leave_gate(t, as, &regs);
		return;
	}
	if ((p = as_patch_of_stub(as, regs.rip))) {
		back = stub_rewind(&p->stub, regs.rip);
		if (back == regs.rip)
			return;
		regs.rip = back;
	} else if (!syscall_log_on() || !log_routine_rewind(t, &regs)) {
		return;
	}
	ptrace(PTRACE_SETREGS, t->tid, 0, &regs);
}
