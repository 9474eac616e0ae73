#include "tasks.h"

#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "objects.h"
#include "procfs.h"

#define THREAD_BUCKETS 4096
static struct thread *threads[THREAD_BUCKETS];
static struct image *unwritten;
static struct output_dir *output;

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

static struct thread **bucket(pid_t tid)
{
	return &threads[(unsigned)tid % THREAD_BUCKETS];
}

static void *zalloc(size_t size)
{
	void *p = calloc(1, size);

	if (!p)
		abort();
	return p;
}

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

struct thread *thread_add(pid_t tid, struct image *img, enum thread_state state)
{
	struct thread *t = zalloc(sizeof(*t));

	t->tid = tid;
	t->state = state;
	t->exec_index = -1;
	t->slot = -1;
	t->hash_next = *bucket(tid);
	*bucket(tid) = t;
	if (img)
		thread_attach(t, img);
	return t;
}

void thread_rekey(struct thread *t, pid_t tid)
{
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
	if (!img->hidden)
		output_dir_image(output, &img->rec);
	if (img->prev)
		img->prev->next = img->next;
	else
		unwritten = img->next;
	if (img->next)
		img->next->prev = img->prev;
	perf_counters_close(&img->perf);
	as_put(img->as);
	site_table_free(&img->sites);
	free((char *)img->rec.exe);
	free(img);
}

void tasks_for_each_thread(void (*fn)(struct thread *, void *), void *arg)
{
	for (size_t b = 0; b < THREAD_BUCKETS; b++)
		for (struct thread *t = threads[b]; t; t = t->hash_next)
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
	free(t->setup);
	free(t);
}

static uint64_t serials;

uint64_t tasks_last_serial(void)
{
	return serials;
}

struct image *image_new(pid_t pid, unsigned image_no, pid_t ppid, char *exe)
{
	struct image *img = zalloc(sizeof(*img));

	img->serial = ++serials;
	img->rec.pid = pid;
	img->rec.image = image_no;
	img->rec.ppid = ppid;
	img->rec.exe = exe;
	img->rec.start_ns = monotonic_ns();
	img->rec.instructions = img->rec.cycles = -1;
	for (int i = 0; i < PERF_COUNTERS; i++)
		img->perf.fd[i] = -1;
	img->next = unwritten;
	if (unwritten)
		unwritten->prev = img;
	unwritten = img;
	return img;
}

void image_take_times(struct image *img, pid_t pid)
{
	uint64_t user, sys;
	int64_t counts[PERF_COUNTERS];

	if (procfs_times(pid, &user, &sys)) {
		img->rec.times_known = true;
		img->rec.user_ns = user - img->user_ns0;
		img->rec.sys_ns = sys - img->sys_ns0;
	}
	perf_counters_take(&img->perf, counts);
	img->rec.instructions = counts[PERF_INSTRUCTIONS];
	img->rec.cycles = counts[PERF_CYCLES];
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

void image_name_sites(struct image *img, pid_t tid, struct site_record *extra)
{
	if (!img->unnamed_sites && !extra)
		return;
	if (!objects_begin(tid))
		return;
	for (size_t i = 0; img->unnamed_sites && i < img->sites.n; i++)
		if (!img->sites.sites[i].named)
			objects_name_site(tid, &img->sites.sites[i]);
	img->unnamed_sites = 0;
	if (extra)
		objects_name_site(tid, extra);
	objects_end();
}

void tasks_set_output_dir(struct output_dir *d)
{
	output = d;
}

void tasks_flush_all(void)
{
	for (size_t b = 0; b < THREAD_BUCKETS; b++)
		while (threads[b])
			thread_remove(threads[b]);
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
}
