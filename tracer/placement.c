#include "placement.h"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "cpu_times.h"
#include "procfs.h"
#include "tid_marks.h"

/* A thread that has not stopped for this long, and is running, is computing; one
 * that has is active. */
#define COMPUTING_NS (2 * 1000 * 1000)
/* A thread found asleep is looked at again only after this long. */
#define ASLEEP_RECHECK_NS (32 * 1000 * 1000)
/* This many stops in a row, each this soon after the last, and it is stopping often. */
#define QUICK_GAP_NS (100 * 1000)
#define QUICK_STOPS 8
/* The look is due every 4 ms, taken by the event loop at a stop; a tracer with no
 * stop to serve is woken for it by a timer every 16 ms only. Each tick is a signal
 * frame and a sigreturn, and for a tracer asleep in waitpid a wakeup, as a stop's,
 * and the waitpid made again: a timer every 4 ms sent 11,183 in a libiberty build
 * (docs/benchmarks.md). */
#define CHECK_EVERY_NS (4 * 1000 * 1000)
#define TICK_US 16000

_Thread_local volatile sig_atomic_t placement_due;
/* each serving thread's: its CPU, shared with the tracees that stop often */
static _Thread_local bool active;
static _Thread_local uint64_t last_check_ns;
static _Thread_local cpu_set_t tracer_cpu;
static _Thread_local timer_t tick;
static _Thread_local bool ticking;
/* set before the other serving threads start: where they may run, and the first's CPU */
static cpu_set_t allowed;
static int first_cpu = -1;

static void on_tick(int sig)
{
	(void)sig;
	placement_due = 1;
}

/* SIGALRM every TICK_US to the calling thread alone (each serving thread waits in
 * waitpid for its own tracees). */
static void start_tick(void)
{
	struct sigevent ev = { .sigev_notify = SIGEV_THREAD_ID, .sigev_signo = SIGALRM };
	struct itimerspec every = { { 0, TICK_US * 1000 }, { 0, TICK_US * 1000 } };

	ev._sigev_un._tid = gettid(); /* (glibc 2.36 names no field for it) */
	if (timer_create(CLOCK_MONOTONIC, &ev, &tick) == 0)
		ticking = timer_settime(tick, 0, &every, NULL) == 0 || timer_delete(tick) != 0;
}

/* Pins the calling thread to cpu. */
static bool pin_to(int cpu)
{
	CPU_ZERO(&tracer_cpu);
	CPU_SET(cpu, &tracer_cpu);
	return sched_setaffinity(0, sizeof(tracer_cpu), &tracer_cpu) == 0;
}

void placement_start(bool tick_anyway)
{
	struct sigaction sa;
	int cpu = sched_getcpu();

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_tick; /* no SA_RESTART: the loop's waitpid returns to look */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL);
	active = cpu >= 0 && sched_getaffinity(0, sizeof(allowed), &allowed) == 0 && CPU_COUNT(&allowed) >= 2
		 && pin_to(cpu);
	if (active)
		first_cpu = cpu;
	if (active || tick_anyway)
		start_tick();
}

void placement_launched(struct thread *root)
{
	/* (on the CPU placement_start pinned this thread to, which it inherited) */
	root->pinned = true;
	if (active)
		tid_mark_set(root->tid, TID_PINNED);
}

void placement_thread_start(unsigned index)
{
	int n = CPU_COUNT(&allowed), k, cpu = first_cpu;

	/* the allowed CPU index places after the first thread's, round the set */
	if (first_cpu >= 0 && n >= 2) {
		for (k = (int)(index % (unsigned)n); k > 0; k--)
			do
				cpu = (cpu + 1) % CPU_SETSIZE;
			while (!CPU_ISSET(cpu, &allowed));
		active = pin_to(cpu);
	}
	start_tick();
}

/* crowded()'s look at the CPUs, once a window, and how long a thread it moved off
 * stays off */
#define CROWD_WINDOW_NS (40 * 1000 * 1000)
#define UNCROWD_NS (200 * 1000 * 1000)
static _Thread_local int stat_fd = -1;
static _Thread_local uint64_t *idle_seen; /* per CPU, at crowd_at */
static _Thread_local uint64_t crowd_at;
static _Thread_local bool was_crowded;

void placement_thread_end(void)
{
	if (ticking)
		timer_delete(tick);
	ticking = false;
	free(idle_seen);
	idle_seen = NULL;
	if (stat_fd >= 0)
		close(stat_fd);
	stat_fd = -1;
}

/* Whether t is left where it is: its program chose its CPUs (a sched_setaffinity of
 * it, made by a thread that another serving thread owns, is taken from its mark
 * here), or is choosing them now. */
static bool own_choice(struct thread *t)
{
	uint8_t m = tid_marks(t->tid);

	if (m & TID_OWN_AFFINITY) {
		tid_mark_clear(t->tid, TID_OWN_AFFINITY | TID_PINNED);
		t->own_affinity = true;
		t->pinned = false;
	}
	return t->own_affinity || (m & TID_OWN_PENDING);
}

static void set_pinned(struct thread *t, bool pinned)
{
	const cpu_set_t *set = pinned ? &tracer_cpu : &allowed;

	if (own_choice(t))
		return;
	if (sched_setaffinity(t->tid, sizeof(*set), set) == 0) {
		t->pinned = pinned;
		if (pinned)
			tid_mark_set(t->tid, TID_PINNED);
		else
			tid_mark_clear(t->tid, TID_PINNED);
	}
	t->quick_stops = 0;
}

void placement_note_stop(struct thread *t, uint64_t now_ns)
{
	if (!active)
		return;
	if (now_ns - last_check_ns >= CHECK_EVERY_NS)
		placement_due = 1;
	if (own_choice(t))
		return;
	if (!t->pinned && now_ns >= t->pin_after_ns) {
		if (now_ns - t->last_stop_ns < QUICK_GAP_NS) {
			if (++t->quick_stops >= QUICK_STOPS)
				set_pinned(t, true);
		} else {
			t->quick_stops = 0;
		}
	}
	t->last_stop_ns = now_ns;
	t->next_check_ns = 0;
}

void placement_adopt(struct thread *t)
{
	if (t->pinned)
		set_pinned(t, active);
}

void placement_inherit(struct thread *child, const struct thread *creator)
{
	/* the kernel copied the creator's affinity */
	child->pinned = active && creator->pinned;
	if (child->pinned)
		tid_mark_set(child->tid, TID_PINNED);
	child->own_affinity = creator->own_affinity;
	child->last_stop_ns = creator->last_stop_ns;
	child->pin_after_ns = creator->pin_after_ns;
}

/* One periodic look at the pinned threads: which stopped lately (active: they need
 * the tracer's CPU) and which are computing (running, no stop for a while). */
struct survey {
	uint64_t now;
	unsigned active, ncomputing;
	struct thread *computing[64];
	struct thread *stopping[64]; /* pinned and active: the first `active` of them */
};

/* Whether t, running and not stopping, computes: for a thread alone in its process
 * (most of a build's), its process's CPU clock went on by more than an eighth of the
 * time since the look before (two computing threads that share a CPU get half of it
 * each, in slices of a few milliseconds: the window spans several); one call a look,
 * and the first only takes the clock. Else its state in /proc is R (an open, a read
 * the kernel formats, a close). */
#define CPU_WINDOW_NS (3ull * CHECK_EVERY_NS)

enum busy { BUSY_YES, BUSY_NO, BUSY_UNKNOWN };

static enum busy computes(struct thread *t, uint64_t now)
{
	uint64_t cpu, seen = t->cpu_seen_ns, at = t->cpu_seen_at;

	if (!t->img || t->img->live_threads != 1)
		return procfs_is_running(t->tid) ? BUSY_YES : BUSY_NO;
	if (at && now - at < CPU_WINDOW_NS)
		return BUSY_UNKNOWN;
	if (!cpu_times_total(t->img->rec.pid, &cpu))
		return BUSY_UNKNOWN;
	t->cpu_seen_ns = cpu;
	t->cpu_seen_at = now;
	if (!at || now - at > 4 * CPU_WINDOW_NS)
		return BUSY_UNKNOWN;
	return (cpu - seen) * 8 > now - at ? BUSY_YES : BUSY_NO;
}

static void survey_thread(struct thread *t, void *arg)
{
	struct survey *s = arg;

	if (!t->pinned || t->state != THREAD_RUNNING)
		return;
	if (s->now - t->last_stop_ns < COMPUTING_NS) {
		if (s->active < sizeof(s->stopping) / sizeof(s->stopping[0]))
			s->stopping[s->active] = t;
		s->active++;
	} else if (s->now >= t->next_check_ns && s->ncomputing < sizeof(s->computing) / sizeof(s->computing[0])) {
		switch (computes(t, s->now)) {
		case BUSY_YES: s->computing[s->ncomputing++] = t; break;
		case BUSY_NO: t->next_check_ns = s->now + ASLEEP_RECHECK_NS; break;
		case BUSY_UNKNOWN: break;
		}
	}
}

/* Whether the tracer's CPU was busy through the last window while another it may
 * use was idle half of it or more: the threads pinned to it crowd it (8 spawn loops
 * in parallel, each stopping often, all pinned: 2.07 s against 1.20 s unpinned on 2
 * CPUs, where one loop runs 0.43 s pinned against 0.53 s). /proc/stat counts in
 * ticks of 10 ms: the window is several. */
static bool crowded(uint64_t now)
{
	char buf[16384], *line;
	ssize_t n;
	long tick = sysconf(_SC_CLK_TCK);
	uint64_t window_ticks, own = 0, other = 0;
	bool ok = false;

	if (now - crowd_at < CROWD_WINDOW_NS)
		return was_crowded;
	if (stat_fd < 0 && (stat_fd = open("/proc/stat", O_RDONLY | O_CLOEXEC)) < 0)
		return false;
	if (!idle_seen && !(idle_seen = calloc(CPU_SETSIZE, sizeof(*idle_seen))))
		return false;
	if ((n = pread(stat_fd, buf, sizeof(buf) - 1, 0)) <= 0)
		return false;
	buf[n] = 0;
	window_ticks = crowd_at && tick > 0 ? (now - crowd_at) * (uint64_t)tick / 1000000000u : 0;
	for (line = strstr(buf, "\ncpu"); line; line = strstr(line + 1, "\ncpu")) {
		unsigned long long f[5];
		int cpu;

		if (sscanf(line + 1, "cpu%d %llu %llu %llu %llu %llu", &cpu, &f[0], &f[1], &f[2], &f[3], &f[4]) != 6
		    || cpu < 0 || cpu >= CPU_SETSIZE || !CPU_ISSET(cpu, &allowed))
			continue;
		if (window_ticks && idle_seen[cpu]) {
			uint64_t idle = f[3] + f[4] - idle_seen[cpu];

			if (CPU_ISSET(cpu, &tracer_cpu))
				own = idle, ok = true;
			else if (idle > other)
				other = idle;
		}
		idle_seen[cpu] = f[3] + f[4];
	}
	crowd_at = now;
	was_crowded = ok && own * 10 <= window_ticks && other * 2 >= window_ticks;
	return was_crowded;
}

void placement_check(void)
{
	struct survey s = { .now = monotonic_ns() };

	placement_due = 0;
	if (!active)
		return;
	last_check_ns = s.now;
	tasks_for_each_thread(survey_thread, &s);
	/* One computing thread alone keeps the tracer's CPU (a serial configure runs best
	 * there); the others move off it, and it too when active threads need the CPU. */
	for (unsigned i = s.active == 0; i < s.ncomputing; i++)
		set_pinned(s.computing[i], false);
	/* Threads that stop often, too many for one CPU: all but the first go, and are
	 * not pinned again for a while (nor are their children) */
	if (s.active > 1 && crowded(s.now)) {
		for (unsigned i = 1; i < s.active && i < sizeof(s.stopping) / sizeof(s.stopping[0]); i++) {
			set_pinned(s.stopping[i], false);
			s.stopping[i]->pin_after_ns = s.now + UNCROWD_NS;
		}
	}
}

bool placement_hides_mask(pid_t tid)
{
	const struct thread *target = thread_find(tid);

	/* (another serving thread's: its marks) */
	if (!target)
		return (tid_marks(tid) & (TID_PINNED | TID_OWN_AFFINITY)) == TID_PINNED;
	return active && target->pinned;
}

void placement_own_affinity_begin(pid_t tid)
{
	if (!thread_find(tid))
		tid_mark_set(tid, TID_OWN_PENDING);
}

void placement_own_affinity_end(pid_t tid, bool done)
{
	struct thread *target = thread_find(tid);

	if (target && done) {
		target->own_affinity = true;
		target->pinned = false;
		tid_mark_clear(tid, TID_PINNED);
	} else if (!target) {
		/* (its owner takes it at its next look: own_choice) */
		if (done)
			tid_mark_set(tid, TID_OWN_AFFINITY);
		tid_mark_clear(tid, TID_OWN_PENDING);
	}
}

void placement_rewrite_mask(struct thread *caller, uint64_t buf, long len)
{
	struct iovec local = { &allowed, (size_t)len }, remote = { (void *)buf, (size_t)len };

	if (len > 0 && (size_t)len <= sizeof(allowed))
		process_vm_writev(caller->tid, &local, 1, &remote, 1, 0);
}
