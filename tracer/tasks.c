#include "tasks.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "cpu_times.h"
#include "objects.h"
#include "offload.h"
#include "proc_maps.h"
#include "procfs.h"
#include "remote_read.h"
#include "tid_marks.h"

/* Threads by tid, and in a list as well: walking the table's buckets at each thread's
 * end (nested_ptrace.c) took 8 us of a /bin/true image's 250 here */
#define THREAD_BUCKETS 4096
static _Thread_local struct thread **threads; /* THREAD_BUCKETS, from the thread's first use */
static _Thread_local struct thread *live_first, *live_last;
static _Thread_local struct image *unwritten;

#define MAX_HOOKS 4
static thread_hook *thread_leave_hooks[MAX_HOOKS];
static image_hook *image_complete_hooks[MAX_HOOKS];
static unsigned nthread_leave_hooks, nimage_complete_hooks;

void tasks_on_thread_leave(thread_hook *fn)
{
	if (nthread_leave_hooks == MAX_HOOKS)
		abort();
	thread_leave_hooks[nthread_leave_hooks++] = fn;
}

void tasks_on_image_complete(image_hook *fn)
{
	if (nimage_complete_hooks == MAX_HOOKS)
		abort();
	image_complete_hooks[nimage_complete_hooks++] = fn;
}

static void *zalloc(size_t size)
{
	void *p = calloc(1, size);

	if (!p)
		abort();
	return p;
}

/* (on the heap, not in every thread's static TLS: the writer's too) */
static struct thread **bucket(pid_t tid)
{
	if (!threads)
		threads = zalloc(THREAD_BUCKETS * sizeof(*threads));
	return &threads[(unsigned)tid % THREAD_BUCKETS];
}

_Static_assert(offsetof(struct image, rec) == 0, "image_new clears the record, then what follows it");

struct thread *thread_find(pid_t tid)
{
	struct thread *t;

	for (t = *bucket(tid); t; t = t->hash_next)
		if (t->tid == tid)
			return t;
	return NULL;
}

static void unlink_thread(struct thread *t)
{
	struct thread **p;

	for (p = bucket(t->tid); *p != t; p = &(*p)->hash_next)
		;
	*p = t->hash_next;
}

/* t into the calling thread's tables (not its image) */
static void link_thread(struct thread *t)
{
	t->hash_next = *bucket(t->tid);
	*bucket(t->tid) = t;
	t->live_prev = live_last;
	t->live_next = NULL;
	*(live_last ? &live_last->live_next : &live_first) = t;
	live_last = t;
}

static void unlink_live(struct thread *t)
{
	*(t->live_prev ? &t->live_prev->live_next : &live_first) = t->live_next;
	*(t->live_next ? &t->live_next->live_prev : &live_last) = t->live_prev;
}

static void link_image(struct image *img)
{
	img->prev = NULL;
	img->next = unwritten;
	if (unwritten)
		unwritten->prev = img;
	unwritten = img;
}

static void unlink_image(struct image *img)
{
	if (img->prev)
		img->prev->next = img->next;
	else
		unwritten = img->next;
	if (img->next)
		img->next->prev = img->prev;
}

/* Tracee threads in every serving thread's tables (and in flight between two), and
 * in the calling one's. */
static _Atomic unsigned live_everywhere;
static _Thread_local unsigned live_here;

bool tasks_traced_elsewhere(void)
{
	return live_everywhere > live_here;
}

struct thread *thread_add(pid_t tid, struct image *img, enum thread_state state)
{
	struct thread *t = zalloc(sizeof(*t));

	t->tid = tid;
	t->state = state;
	t->exec_index = -1;
	t->slot = -1;
	tid_marks_forget(tid); /* (a tid reused) */
	link_thread(t);
	live_everywhere++;
	live_here++;
	if (img)
		thread_attach(t, img);
	return t;
}

void thread_give(struct thread *t)
{
	live_here--;
	unlink_thread(t);
	unlink_live(t);
	unlink_image(t->img);
}

void thread_take(struct thread *t)
{
	live_here++;
	link_thread(t);
	link_image(t->img);
}

void thread_rekey(struct thread *t, pid_t tid)
{
	proc_maps_forget(t->tid);
	tid_marks_move(t->tid, tid);
	unlink_thread(t);
	t->tid = tid;
	t->hash_next = *bucket(tid);
	*bucket(tid) = t;
}

void thread_attach(struct thread *t, struct image *img)
{
	t->img = img;
	img->refs++;
	img->live_threads++;
}

/* What the writer frees once it wrote img's rows (offload.h). */
static void free_image(void *arg)
{
	struct image *img = arg;

	site_table_free(&img->sites);
	free((char *)img->rec.exe);
	free(img->rec.time_ns); /* --time: its sums (call_times.c), in one block */
	free(img->times);
	free(img);
}

static void image_write(struct image *img)
{
	if (img->unnamed_sites)
		for (size_t i = 0; i < img->sites.n; i++)
			if (!img->sites.sites[i].named)
				img->sites.sites[i].offset = img->sites.sites[i].addr;
	for (unsigned i = 0; i < nimage_complete_hooks; i++)
		image_complete_hooks[i](img);
	img->rec.sites = img->sites.sites;
	img->rec.nsites = img->sites.n;
	unlink_image(img);
	perf_counters_close(&img->perf);
	as_put(img->as);
	offload_image(img->hidden ? NULL : &img->rec, free_image, img);
}

void tasks_for_each_thread(void (*fn)(struct thread *, void *), void *arg)
{
	for (struct thread *t = live_first; t; t = t->live_next)
		fn(t, arg);
}

void thread_detach(struct thread *t)
{
	struct image *img = t->img;

	for (unsigned i = 0; img && i < nthread_leave_hooks; i++)
		thread_leave_hooks[i](t);
	t->img = NULL;
	if (img && --img->refs == 0 && img->ended)
		image_write(img);
}

bool thread_alone_in_memory(const struct thread *t)
{
	return t->img->live_threads <= 1 && t->img->as->refs <= 1;
}

void thread_remove(struct thread *t)
{
	thread_detach(t);
	unlink_thread(t);
	unlink_live(t);
	live_everywhere--;
	live_here--;
	proc_maps_forget(t->tid);
	tid_marks_forget(t->tid);
	free(t->setup);
	free(t);
}

/* one order of images for every tracer thread (site_history.h, objects.h's stamps) */
static _Atomic uint64_t serials;

uint64_t tasks_last_serial(void)
{
	return serials;
}

struct image *image_new(pid_t pid, unsigned image_no, pid_t ppid, char *exe)
{
	struct image *img = malloc(sizeof(*img));

	if (!img)
		abort();
	image_record_clear(&img->rec);
	memset((char *)img + sizeof(img->rec), 0, sizeof(*img) - sizeof(img->rec));
	img->serial = ++serials;
	img->rec.pid = pid;
	img->rec.image = image_no;
	img->rec.ppid = ppid;
	img->rec.exe = exe;
	img->rec.start_ns = monotonic_ns();
	img->rec.instructions = img->rec.cycles = -1;
	for (int i = 0; i < PERF_COUNTERS; i++)
		img->perf.fd[i] = -1;
	link_image(img);
	return img;
}

/* A counter's sum and what it counted since (-1: unknown) */
static int64_t add_count(int64_t sum, int64_t since)
{
	return sum < 0 ? since : since < 0 ? sum : sum + since;
}

void image_take_times(struct image *img, pid_t pid)
{
	const struct cpu_times since = { img->user_ns0, img->sys_ns0 };
	struct cpu_times now;
	int64_t counts[PERF_COUNTERS];

	if (cpu_times_of(pid, &since, &now)) {
		img->rec.times_known = true;
		img->rec.user_ns = now.user_ns - since.user_ns;
		img->rec.sys_ns = now.sys_ns - since.sys_ns;
	}
	perf_counters_take(&img->perf, counts);
	img->rec.instructions = add_count(img->rec.instructions, counts[PERF_INSTRUCTIONS]);
	img->rec.cycles = add_count(img->rec.cycles, counts[PERF_CYCLES]);
	img->rec.end_ns = monotonic_ns();
}

void image_end(struct image *img, enum image_end end, int code)
{
	if (img->ended)
		return;
	img->ended = true;
	img->rec.end = end;
	img->rec.end_code = code;
	if (!img->rec.end_ns)
		img->rec.end_ns = monotonic_ns();
	if (img->refs == 0)
		image_write(img);
}

void image_end_by_status(struct image *img, int wait_status)
{
	if (WIFSIGNALED(wait_status))
		image_end(img, IMAGE_SIGNALED, WTERMSIG(wait_status));
	else
		image_end(img, IMAGE_EXITED, WEXITSTATUS(wait_status));
}

/* Names s as its memory's record of it was named, when it was: from the object
 * mapped when the site was planned (at its first trap, or from what is known). The
 * object mapped there now may be another: munmap runs in-process, so a dlclose, and
 * a dlopen at the same address, go by unseen. True if it did. */
static bool name_as_planned(const struct addr_space *as, struct site_record *s)
{
	const struct site_record *planned = as ? site_table_find_gen(&as->sites, s->addr, s->gen) : NULL;

	if (!planned || !planned->named)
		return false;
	s->object = planned->object;
	s->offset = planned->offset;
	s->symbol = planned->symbol;
	s->symbol_offset = planned->symbol_offset;
	s->named = true;
	return true;
}

/* Whether the two bytes at a trapped site are still a system call instruction
 * (syscall, int $0x80, sysenter): if not, other code is mapped there now. */
static bool still_a_syscall(const uint8_t b[2])
{
	return (b[0] == 0x0f && (b[1] == 0x05 || b[1] == 0x34)) || (b[0] == 0xcd && b[1] == 0x80);
}

void image_name_sites_as_planned(struct image *img)
{
	for (size_t i = 0; img->unnamed_sites && i < img->sites.n; i++) {
		struct site_record *s = &img->sites.sites[i];

		/* unnamed_sites counts the records a call made (counting.c) */
		if (!s->named && name_as_planned(img->as, s) && s->syscall != SITE_SYSCALL_UNSET)
			img->unnamed_sites--;
	}
}

void image_name_sites(struct image *img, pid_t tid, struct site_record *extra)
{
	size_t n = 0, *which;
	struct iovec *local, *remote;
	uint8_t (*code)[2];
	bool *whole;

	image_name_sites_as_planned(img);
	if (!img->unnamed_sites && !extra)
		return;
	if (!objects_begin(tid))
		return;
	which = zalloc((img->sites.n + 1) * sizeof(*which));
	for (size_t i = 0; img->unnamed_sites && i < img->sites.n; i++)
		if (!img->sites.sites[i].named)
			which[n++] = i;
	/* the others from what is mapped now, if their code is still there (one read):
	 * a site whose bytes changed is left without an object rather than given one
	 * that never ran it */
	local = zalloc((n + 1) * sizeof(*local));
	remote = zalloc((n + 1) * sizeof(*remote));
	code = zalloc((n + 1) * sizeof(*code));
	whole = zalloc((n + 1) * sizeof(*whole));
	for (size_t k = 0; k < n; k++) {
		local[k] = (struct iovec){ code[k], 2 };
		remote[k] = (struct iovec){ (void *)img->sites.sites[which[k]].addr, 2 };
	}
	remote_read_ranges(tid, local, remote, n, whole);
	for (size_t k = 0; k < n; k++) {
		struct site_record *s = &img->sites.sites[which[k]];

		if (whole[k] && still_a_syscall(code[k])) {
			objects_name_site(tid, s);
		} else {
			s->object = NULL;
			s->offset = s->addr;
			s->named = true;
		}
	}
	img->unnamed_sites = 0;
	if (extra)
		objects_name_site(tid, extra);
	objects_end();
	free(which);
	free(local);
	free(remote);
	free(code);
	free(whole);
}

void tasks_flush_all(void)
{
	while (live_first)
		thread_remove(live_first);
	while (unwritten) {
		/* images of processes that outlived systrace's tracing */
		unwritten->refs = 0;
		if (!unwritten->ended) {
			image_name_sites(unwritten, unwritten->rec.pid, NULL);
			image_take_times(unwritten, unwritten->rec.pid);
			image_end(unwritten, IMAGE_RUNNING, 0);
		}
		else
			image_write(unwritten);
	}
	free(threads);
	threads = NULL;
}
