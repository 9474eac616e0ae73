#include "log_csv.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define PROGRESS_INTERVAL_NS 250000000L

/* A chunk's rows, formatted: up to the first corrupt entry if there is one. */
struct chunk {
	uint64_t first, rows;   /* entries */
	char *end;              /* of the rows in buf */
	bool corrupt;           /* entry first + rows is, msg says how */
	char msg[256];
};

/* Where chunk i is formatted: slot i % nslots, free again once chunk i is written. */
struct slot {
	char *buf;              /* buf_size bytes, from its first use */
	struct chunk k;
	bool ready;             /* formatted, waiting for its turn */
};

/* What the workers share. A worker takes the next chunk, formats it into its slot
 * without the lock and marks it ready; whoever finds the chunk whose turn it is
 * ready writes it and the ready ones after it, so writes follow file order and no
 * worker waits for another's turn (waiting only when every slot is taken). */
struct conversion {
	struct log_csv *c;
	const struct log_row_parts *parts;
	uint64_t chunk_entries, nchunks;
	size_t buf_size;
	struct slot *slots;
	unsigned nslots;
	pthread_mutex_t lock;
	pthread_cond_t changed; /* a slot freed or the run stopped: for the workers */
	pthread_cond_t finished; /* a worker finished: for the caller's thread */
	uint64_t next_chunk, turn, rows;
	bool writing;           /* a worker is writing the chunk of the turn */
	unsigned running;
	int status;             /* the first failure, once stop is set */
	bool stop;
	size_t released;        /* bytes of the mapping given back (madvise) */
	char *err;
	size_t errlen;
};

static int write_all(int fd, const char *buf, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

static void format_chunk(const struct conversion *cv, uint64_t i, char *buf, struct chunk *k)
{
	const struct log_file *log = cv->c->log;
	uint32_t nsites = cv->c->any_site ? UINT32_MAX : cv->parts->nsites;
	uint64_t end;

	k->first = i * cv->chunk_entries;
	end = k->first + cv->chunk_entries < log->count ? k->first + cv->chunk_entries : log->count;
	k->corrupt = false;
	for (k->rows = 0; k->first + k->rows < end; k->rows++) {
		if (!log_entry_check(log, k->first + k->rows, nsites, k->msg, sizeof(k->msg))) {
			k->corrupt = true;
			break;
		}
		buf = log_row_put(cv->parts, buf, &log->entries[k->first + k->rows]);
	}
	k->end = buf;
}

/* Gives back the mapped pages every written chunk up to `end` (entries) used: the
 * log may be far larger than memory. Called by the turn holder only. */
static void release_converted(struct conversion *cv, uint64_t end)
{
	const struct log_file *log = cv->c->log;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t upto = (sizeof(struct log_header) + end * sizeof(struct log_entry)) / page * page;

	if (!log->mapped || upto <= cv->released)
		return;
	madvise((char *)log->header + cv->released, upto - cv->released, MADV_DONTNEED);
	cv->released = upto;
}

/* Under the lock: the first failure stops every worker, waiting ones too. */
static void stop_with(struct conversion *cv, int status, const char *msg)
{
	if (cv->stop)
		return;
	cv->stop = true;
	cv->status = status;
	snprintf(cv->err, cv->errlen, "%s", msg);
	pthread_cond_broadcast(&cv->changed);
}

/* Under the lock: writes the chunk of the turn and the ready ones after it, unless
 * another worker is at it (it will see the ones made ready meanwhile). */
static void write_ready(struct conversion *cv)
{
	while (!cv->writing && !cv->stop && cv->slots[cv->turn % cv->nslots].ready) {
		struct slot *s = &cv->slots[cv->turn % cv->nslots];
		bool keep = !s->k.corrupt || cv->c->keep_before_corrupt;
		int written = 0, error = 0;
		char why[160];

		cv->writing = true;
		pthread_mutex_unlock(&cv->lock);
		if (keep)
			written = write_all(cv->c->out, s->buf, (size_t)(s->k.end - s->buf));
		error = errno;
		if (keep && written == 0)
			release_converted(cv, s->k.first + s->k.rows);
		pthread_mutex_lock(&cv->lock);
		cv->writing = false;
		s->ready = false;
		if (written < 0) {
			snprintf(why, sizeof(why), "write: %s", strerror(error));
			cv->c->write_failed = !cv->stop;
			stop_with(cv, -1, why);
		} else {
			cv->rows += keep ? s->k.rows : 0;
			if (s->k.corrupt)
				stop_with(cv, keep ? 1 : -1, s->k.msg);
			cv->turn++;
		}
		pthread_cond_broadcast(&cv->changed);
	}
}

/* Under the lock: the slot of chunk i, once chunk i - nslots is written; NULL when
 * the run stops first. */
static struct slot *free_slot(struct conversion *cv, uint64_t i)
{
	struct slot *s = &cv->slots[i % cv->nslots];

	while (!cv->stop && i >= cv->turn + cv->nslots)
		pthread_cond_wait(&cv->changed, &cv->lock);
	if (cv->stop)
		return NULL;
	if (!s->buf)
		s->buf = malloc(cv->buf_size);
	if (!s->buf)
		stop_with(cv, -1, "out of memory for a chunk's rows");
	return s->buf ? s : NULL;
}

static void *worker(void *arg)
{
	struct conversion *cv = arg;

	pthread_mutex_lock(&cv->lock);
	while (!cv->stop && cv->next_chunk < cv->nchunks) {
		uint64_t i = cv->next_chunk++;
		struct slot *s = free_slot(cv, i);

		if (!s)
			break;
		pthread_mutex_unlock(&cv->lock);
		format_chunk(cv, i, s->buf, &s->k);
		pthread_mutex_lock(&cv->lock);
		s->ready = true;
		write_ready(cv);
	}
	cv->running--;
	pthread_cond_signal(&cv->finished);
	pthread_mutex_unlock(&cv->lock);
	return NULL;
}

/* Under the lock: until the workers are done or, when progress is reported, the
 * next report is due. */
static void wait_for_workers(struct conversion *cv)
{
	struct timespec until;

	if (!cv->c->progress) {
		while (cv->running > 0)
			pthread_cond_wait(&cv->finished, &cv->lock);
		return;
	}
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_nsec += PROGRESS_INTERVAL_NS;
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	while (cv->running > 0 && pthread_cond_timedwait(&cv->finished, &cv->lock, &until) != ETIMEDOUT)
		;
}

/* Waits for the workers, reporting progress meanwhile if asked, and at the end. */
static void await_workers(struct conversion *cv)
{
	bool finished;

	do {
		uint64_t rows;

		pthread_mutex_lock(&cv->lock);
		wait_for_workers(cv);
		finished = cv->running == 0;
		rows = cv->rows;
		pthread_mutex_unlock(&cv->lock);
		if (cv->c->progress)
			cv->c->progress(cv->c->progress_arg, rows, cv->c->log->count);
	} while (!finished);
}

static int run_workers(struct conversion *cv, unsigned threads)
{
	pthread_t *ids = calloc(threads, sizeof(*ids));
	unsigned started = 0;
	int error = 0;

	if (!ids) {
		snprintf(cv->err, cv->errlen, "out of memory for %u threads", threads);
		return -1;
	}
	/* counted before any starts: the first may be done before the next is made */
	cv->running = threads;
	for (; started < threads && !error; started++)
		error = pthread_create(&ids[started], NULL, worker, cv);
	if (error) {
		started--;
		pthread_mutex_lock(&cv->lock);
		cv->running -= threads - started;
		pthread_mutex_unlock(&cv->lock);
	}
	if (started == 0) {
		free(ids);
		snprintf(cv->err, cv->errlen, "cannot start a thread: %s", strerror(error));
		return -1;
	}
	await_workers(cv);
	for (unsigned t = 0; t < started; t++)
		pthread_join(ids[t], NULL);
	free(ids);
	return cv->status;
}

int log_csv_write(struct log_csv *c, char *err, size_t errlen)
{
	struct conversion cv = { .c = c, .parts = c->parts, .err = err, .errlen = errlen };
	unsigned threads = c->threads ? c->threads : 1;
	int status;

	c->rows = 0;
	c->write_failed = false;
	cv.chunk_entries = c->chunk_entries ? c->chunk_entries : LOG_CSV_CHUNK_ENTRIES;
	if (cv.chunk_entries * cv.parts->max_row > LOG_CSV_CHUNK_BYTES)
		cv.chunk_entries = LOG_CSV_CHUNK_BYTES / cv.parts->max_row ? LOG_CSV_CHUNK_BYTES / cv.parts->max_row : 1;
	cv.buf_size = cv.chunk_entries * cv.parts->max_row;
	cv.nchunks = (c->log->count + cv.chunk_entries - 1) / cv.chunk_entries;
	if (threads > cv.nchunks)
		threads = cv.nchunks ? (unsigned)cv.nchunks : 1;
	cv.nslots = LOG_CSV_SLOTS_PER_THREAD * threads;
	cv.slots = calloc(cv.nslots, sizeof(*cv.slots));
	if (!cv.slots) {
		snprintf(err, errlen, "out of memory for %u threads", threads);
		return -1;
	}
	pthread_mutex_init(&cv.lock, NULL);
	pthread_cond_init(&cv.changed, NULL);
	pthread_cond_init(&cv.finished, NULL);
	if (write_all(c->out, LOG_ROW_HEADER, strlen(LOG_ROW_HEADER)) < 0) {
		snprintf(err, errlen, "write: %s", strerror(errno));
		c->write_failed = true;
		status = -1;
	} else {
		status = run_workers(&cv, threads);
	}
	c->rows = cv.rows;
	pthread_cond_destroy(&cv.finished);
	pthread_cond_destroy(&cv.changed);
	pthread_mutex_destroy(&cv.lock);
	for (unsigned i = 0; i < cv.nslots; i++)
		free(cv.slots[i].buf);
	free(cv.slots);
	return status;
}
