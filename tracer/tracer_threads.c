#include "tracer_threads.h"

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cpu_times.h"
#include "placement.h"
#include "procfs.h"
#include "region_handout.h"
#include "signals.h"

/* How often a thread looks at how busy every thread was, and the rule for handing
 * an image off (docs/scaling.md, "When to hand off"), in thousandths of the time. */
#define LOAD_WINDOW_NS (4 * 1000 * 1000)
#define BUSY_PERMILLE 700
#define BELOW_PERMILLE 200

struct server {
	pthread_t thread;
	pid_t tid;
	clockid_t cpu_clock;
	struct inbox_item *first, *last; /* under lock */
	bool idle;                       /* under lock */
	bool done;                       /* under lock: it serves no more */
	struct serving_sums sums;        /* its end's: read after the join */
	struct object **objects;
};

static struct server servers[TRACER_THREADS_MAX];
static unsigned nservers = 1;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static unsigned nidle, in_flight, nstarted; /* under lock */
static bool going, ended;                   /* under lock */
static void (*serve_fn)(void);

static _Thread_local unsigned me;
/* this thread's view of everyone's load: their CPU clocks at its last look */
static _Thread_local uint64_t seen_cpu[TRACER_THREADS_MAX], seen_at;
static _Thread_local unsigned load[TRACER_THREADS_MAX];

static void *server_main(void *arg)
{
	struct server *s = arg;

	me = (unsigned)(s - servers);
	placement_thread_start(me);
	handout_open_thread();
	pthread_mutex_lock(&lock);
	s->tid = gettid();
	nstarted++;
	pthread_cond_broadcast(&changed);
	/* every thread made before any serves: nservers is final */
	while (!going)
		pthread_cond_wait(&changed, &lock);
	pthread_mutex_unlock(&lock);
	serving_begin();
	serve_fn();
	s->objects = serving_end(&s->sums);
	pthread_mutex_lock(&lock);
	s->done = true;
	pthread_mutex_unlock(&lock);
	return NULL;
}

void tracer_threads_start(unsigned n, void (*serve)(void))
{
	sigset_t theirs, before;
	unsigned made;

	servers[0].tid = gettid();
	pthread_getcpuclockid(pthread_self(), &servers[0].cpu_clock);
	if (n <= 1)
		return;
	serve_fn = serve;
	/* the signals sent to systrace are the first thread's (signals.h), which
	 * passes them on to the others */
	signals_taken(&theirs);
	pthread_sigmask(SIG_BLOCK, &theirs, &before);
	for (made = 1; made < n; made++) {
		struct server *s = &servers[made];

		if (pthread_create(&s->thread, NULL, server_main, s) != 0)
			break;
		pthread_getcpuclockid(s->thread, &s->cpu_clock);
	}
	pthread_sigmask(SIG_SETMASK, &before, NULL);
	pthread_mutex_lock(&lock);
	nservers = made;
	while (nstarted < nservers - 1)
		pthread_cond_wait(&changed, &lock);
	going = true;
	pthread_cond_broadcast(&changed);
	pthread_mutex_unlock(&lock);
}

unsigned tracer_threads_count(void)
{
	return nservers;
}

unsigned tracer_threads_me(void)
{
	return me;
}

int tracer_threads_server_of(pid_t tid)
{
	for (unsigned i = 0; i < nservers; i++)
		if (servers[i].tid == tid)
			return (int)i;
	return -1;
}

/* Every thread's share of the last window busy, looked at once a window. */
static void look_at_loads(void)
{
	uint64_t now = monotonic_ns();

	if (now - seen_at < LOAD_WINDOW_NS)
		return;
	for (unsigned i = 0; i < nservers; i++) {
		uint64_t cpu = cpu_times_clock_ns(servers[i].cpu_clock);

		load[i] = seen_at && cpu > seen_cpu[i] ? (unsigned)((cpu - seen_cpu[i]) * 1000 / (now - seen_at)) : 0;
		seen_cpu[i] = cpu;
	}
	seen_at = now;
}

/* One thread saturates at a*C/D cores (docs/scaling.md, "Projection"): about 31 at
 * 150 us of tracer time per image, 14 at the slowest machine's 340. One per 8 CPUs
 * keeps each under about half busy even there; a thread that no busy one hands
 * images to (tracer_threads_pick) costs only its tick. */
#define CPUS_PER_THREAD 8

unsigned tracer_threads_for_cpus(unsigned cpus)
{
	unsigned n = (cpus + CPUS_PER_THREAD - 1) / CPUS_PER_THREAD;

	return n < 1 ? 1 : n > TRACER_THREADS_MAX ? TRACER_THREADS_MAX : n;
}

int tracer_threads_pick(void)
{
	unsigned least = me;

	if (handoff_every_exec())
		return (int)((me + 1) % nservers);
	if (nservers == 1)
		return -1;
	look_at_loads();
	for (unsigned i = 0; i < nservers; i++)
		if (load[i] < load[least])
			least = i;
	return load[me] > BUSY_PERMILLE && load[least] + BELOW_PERMILLE < load[me] ? (int)least : -1;
}

static void wake(unsigned to)
{
	syscall(SYS_tgkill, getpid(), servers[to].tid, SIGALRM);
}

void tracer_threads_post(unsigned to, const struct inbox_item *item)
{
	struct inbox_item *copy = malloc(sizeof(*copy));
	struct server *s = &servers[to];

	if (!copy)
		abort();
	*copy = *item;
	copy->next = NULL;
	pthread_mutex_lock(&lock);
	if (s->done && item->kind == INBOX_NESTED) {
		/* (what a thread's end tells one that has ended: nothing to do there; an
		 * image posted as the run gives up waits for tracer_threads_join) */
		pthread_mutex_unlock(&lock);
		free(copy);
		return;
	}
	*(s->last ? &s->last->next : &s->first) = copy;
	s->last = copy;
	in_flight++;
	if (s->idle)
		pthread_cond_broadcast(&changed);
	pthread_mutex_unlock(&lock);
	wake(to);
}

void tracer_threads_wake_others(void)
{
	for (unsigned i = 0; i < nservers; i++) {
		bool done;

		pthread_mutex_lock(&lock);
		done = servers[i].done;
		pthread_mutex_unlock(&lock);
		if (i != me && !done)
			wake(i);
	}
}

void tracer_threads_post_all(const struct inbox_item *item)
{
	for (unsigned i = 0; i < nservers; i++)
		if (i != me)
			tracer_threads_post(i, item);
}

bool tracer_threads_take(struct inbox_item *item)
{
	struct server *s = &servers[me];
	struct inbox_item *first;

	if (nservers == 1)
		return false;
	pthread_mutex_lock(&lock);
	if ((first = s->first)) {
		s->first = first->next;
		if (!s->first)
			s->last = NULL;
		in_flight--;
	}
	pthread_mutex_unlock(&lock);
	if (!first)
		return false;
	*item = *first;
	free(first);
	return true;
}

bool tracer_threads_idle(void)
{
	struct server *s = &servers[me];
	bool more;

	pthread_mutex_lock(&lock);
	s->idle = true;
	nidle++;
	if (nidle == nservers && !in_flight) {
		ended = true;
		pthread_cond_broadcast(&changed);
	}
	while (!ended && !s->first)
		pthread_cond_wait(&changed, &lock);
	nidle--;
	s->idle = false;
	more = !ended;
	pthread_mutex_unlock(&lock);
	return more;
}

void tracer_threads_stop_all(void)
{
	pthread_mutex_lock(&lock);
	ended = true;
	pthread_cond_broadcast(&changed);
	pthread_mutex_unlock(&lock);
	for (unsigned i = 0; i < nservers; i++)
		if (i != me)
			wake(i);
}

void tracer_threads_join(struct serving_sums *sums, struct object **caches[])
{
	struct inbox_item *item;

	for (unsigned i = 1; i < nservers; i++) {
		pthread_join(servers[i].thread, NULL);
		serving_sums_add(sums, &servers[i].sums);
		caches[i] = servers[i].objects;
	}
	/* what was posted and never taken (the run gave up): an image parked, killed
	 * (as EXITKILL kills every tracee when systrace ends), is the calling thread's
	 * to end, as running */
	for (unsigned i = 0; i < nservers; i++) {
		while ((item = servers[i].first)) {
			servers[i].first = item->next;
			if (item->kind == INBOX_IMAGE) {
				kill(item->handoff.tid, SIGKILL);
				thread_take(item->handoff.thread);
			}
			free(item);
		}
		servers[i].last = NULL;
	}
}
