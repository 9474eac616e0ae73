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

/* What the workers share. Chunk i is taken by one worker, formatted without the
 * lock, and written when turn reaches i: writes follow file order. */
struct conversion {
	struct log_csv *c;
	const struct log_row_parts *parts;
	uint64_t chunk_entries, nchunks;
	size_t buf_size;
	pthread_mutex_t lock;
	pthread_cond_t changed; /* turn moved, the run stopped, or a worker finished */
	uint64_t next_chunk, turn, rows;
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

/* A chunk's rows, formatted: up to the first corrupt entry if there is one. */
struct chunk {
	uint64_t first, rows;   /* entries */
	char *end;              /* of the rows in the buffer */
	bool corrupt;           /* entry first + rows is, msg says how */
	char msg[256];
};

static void format_chunk(struct conversion *cv, uint64_t i, char *buf, struct chunk *k)
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

static void stop_with(struct conversion *cv, int status, const char *msg)
{
	if (cv->stop)
		return;
	cv->stop = true;
	cv->status = status;
	snprintf(cv->err, cv->errlen, "%s", msg);
}

/* Writes chunk i's rows once it is its turn (unless the run stopped). */
static void write_in_turn(struct conversion *cv, uint64_t i, const char *buf, const struct chunk *k)
{
	bool keep = !k->corrupt || cv->c->keep_before_corrupt;
	int written = 0, error = 0;
	char why[160];

	pthread_mutex_lock(&cv->lock);
	while (cv->turn != i && !cv->stop)
		pthread_cond_wait(&cv->changed, &cv->lock);
	if (cv->stop) {
		pthread_mutex_unlock(&cv->lock);
		return;
	}
	pthread_mutex_unlock(&cv->lock);
	/* the turn holder alone writes, so outside the lock */
	if (keep)
		written = write_all(cv->c->out, buf, (size_t)(k->end - buf));
	error = errno;
	if (keep && written == 0)
		release_converted(cv, k->first + k->rows);
	pthread_mutex_lock(&cv->lock);
	if (written < 0) {
		snprintf(why, sizeof(why), "write: %s", strerror(error));
		cv->c->write_failed = !cv->stop;
		stop_with(cv, -1, why);
	} else {
		cv->rows += keep ? k->rows : 0;
		if (k->corrupt)
			stop_with(cv, keep ? 1 : -1, k->msg);
		cv->turn++;
	}
	pthread_cond_broadcast(&cv->changed);
	pthread_mutex_unlock(&cv->lock);
}

static void *worker(void *arg)
{
	struct conversion *cv = arg;
	char *buf = malloc(cv->buf_size);
	struct chunk k;

	pthread_mutex_lock(&cv->lock);
	if (!buf)
		stop_with(cv, -1, "out of memory for a chunk's rows");
	while (!cv->stop && cv->next_chunk < cv->nchunks) {
		uint64_t i = cv->next_chunk++;

		pthread_mutex_unlock(&cv->lock);
		format_chunk(cv, i, buf, &k);
		write_in_turn(cv, i, buf, &k);
		pthread_mutex_lock(&cv->lock);
	}
	cv->running--;
	pthread_cond_broadcast(&cv->changed);
	pthread_mutex_unlock(&cv->lock);
	free(buf);
	return NULL;
}

/* Under the lock: until the workers are done or, when progress is reported, the
 * next report is due (the turn moves many times a second: not each move counts). */
static void wait_for_workers(struct conversion *cv)
{
	struct timespec until;

	if (!cv->c->progress) {
		while (cv->running > 0)
			pthread_cond_wait(&cv->changed, &cv->lock);
		return;
	}
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_nsec += PROGRESS_INTERVAL_NS;
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	while (cv->running > 0 && pthread_cond_timedwait(&cv->changed, &cv->lock, &until) != ETIMEDOUT)
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

	if (!ids) {
		snprintf(cv->err, cv->errlen, "out of memory for %u threads", threads);
		return -1;
	}
	for (; started < threads; started++) {
		cv->running++;
		if (pthread_create(&ids[started], NULL, worker, cv) != 0) {
			cv->running--;
			break;
		}
	}
	if (started == 0) {
		free(ids);
		snprintf(cv->err, cv->errlen, "cannot start a thread: %s", strerror(errno));
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
	pthread_mutex_init(&cv.lock, NULL);
	pthread_cond_init(&cv.changed, NULL);
	if (write_all(c->out, LOG_ROW_HEADER, strlen(LOG_ROW_HEADER)) < 0) {
		snprintf(err, errlen, "write: %s", strerror(errno));
		c->write_failed = true;
		status = -1;
	} else {
		status = run_workers(&cv, threads);
	}
	c->rows = cv.rows;
	pthread_cond_destroy(&cv.changed);
	pthread_mutex_destroy(&cv.lock);
	return status;
}
