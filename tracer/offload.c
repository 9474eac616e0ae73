#include "offload.h"

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include "cpu_times.h"
#include "fd_limit.h"

/* The writer is woken when this many jobs wait (a wake is a futex call: once per
 * image it would cost the serving thread most of what it hands over), and the
 * serving thread waits for room past the most that may wait: two batches, so that
 * it waits only for a writer a batch behind. An image is 13 KB (--patch=off) to
 * some 80 KB: the memory that follows the live images stays within 0.4-2.5 MB
 * (with 128, a writer starved of CPU let it reach 1.7 MB in a run of 4,000
 * --patch=off images and not in one of 400: peak RSS grew with the run's length,
 * test_memory_bounded). */
#define WAKE_AT 16
#define MAX_WAITING 32

struct job {
	const struct image_record *rec;
	void (*done)(void *);
	void *arg;
	int fd; /* >= 0: a close */
	struct job *next;
};

static struct output_dir *out;
static pthread_t writer;
static bool running, finishing;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t work = PTHREAD_COND_INITIALIZER, room = PTHREAD_COND_INITIALIZER;
static struct job *first, *last;
static unsigned closes_waiting;
/* jobs handed over and done in all, in order (one writer: those waiting are the
 * difference); and the number of the calling thread's last, which offload_drain
 * waits for */
static uint64_t jobs_put, jobs_done;
static _Thread_local uint64_t my_last;
static uint64_t writer_cpu_ns;

static void run(const struct job *j)
{
	if (j->fd >= 0) {
		close(j->fd);
		return;
	}
	if (j->rec && out)
		output_dir_image(out, j->rec);
	j->done(j->arg);
}

static void *writer_main(void *unused)
{
	(void)unused;
	pthread_mutex_lock(&lock);
	for (;;) {
		struct job *j;

		while (!first && !finishing)
			pthread_cond_wait(&work, &lock);
		if (!(j = first))
			break;
		first = j->next;
		if (!first)
			last = NULL;
		pthread_mutex_unlock(&lock);
		run(j);
		pthread_mutex_lock(&lock);
		closes_waiting -= j->fd >= 0;
		free(j);
		jobs_done++;
		pthread_cond_broadcast(&room);
	}
	pthread_mutex_unlock(&lock);
	writer_cpu_ns = cpu_times_thread_ns();
	return NULL;
}

/* fd_limit.h's releaser: the closes the calling thread handed over, made now (its
 * own jobs, not an empty queue, which other tracer threads may keep filling). */
static bool offload_drain(void)
{
	bool any;

	pthread_mutex_lock(&lock);
	any = closes_waiting > 0;
	if (jobs_done < my_last)
		pthread_cond_signal(&work);
	while (jobs_done < my_last)
		pthread_cond_wait(&room, &lock);
	pthread_mutex_unlock(&lock);
	return any;
}

void offload_start(struct output_dir *d)
{
	sigset_t all, before;

	out = d;
	/* the tracer's signals (a forwarded SIGINT, placement's SIGALRM, SIGCHLD) are
	 * its serving thread's: they interrupt its waitpid */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &before);
	running = pthread_create(&writer, NULL, writer_main, NULL) == 0;
	pthread_sigmask(SIG_SETMASK, &before, NULL);
	if (running)
		fd_limit_on_short(offload_drain);
}

static void put(struct job j)
{
	struct job *n;

	if (!running) {
		run(&j);
		return;
	}
	if (!(n = malloc(sizeof(*n))))
		abort();
	*n = j;
	n->next = NULL;
	pthread_mutex_lock(&lock);
	while (jobs_put - jobs_done >= MAX_WAITING)
		pthread_cond_wait(&room, &lock);
	if (last)
		last->next = n;
	else
		first = n;
	last = n;
	my_last = ++jobs_put;
	closes_waiting += n->fd >= 0;
	if (jobs_put - jobs_done >= WAKE_AT)
		pthread_cond_signal(&work);
	pthread_mutex_unlock(&lock);
}

void offload_image(const struct image_record *rec, void (*done)(void *), void *arg)
{
	put((struct job){ .rec = rec, .done = done, .arg = arg, .fd = -1 });
}

void offload_close(int fd)
{
	if (fd < 0)
		return;
	put((struct job){ .fd = fd });
}

void offload_finish(void)
{
	if (!running)
		return;
	pthread_mutex_lock(&lock);
	finishing = true;
	pthread_cond_signal(&work);
	pthread_mutex_unlock(&lock);
	pthread_join(writer, NULL);
	running = false;
}

uint64_t offload_cpu_ns(void)
{
	return writer_cpu_ns;
}
