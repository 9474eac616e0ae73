#include "syscall_log.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "counting.h"
#include "csv.h"
#include "procfs.h"
#include "region.h"
#include "shared_region.h"
#include "string_map.h"
#include "tsc_clock.h"

#define BUFFERED 32768 /* entries: 1 MiB */

/* With several serving threads (--tracer-threads) each writes the entries of its
 * own tracees: the buffer, the file's entry numbers, the sites' ids and file and
 * the figures below are behind one lock, taken by the functions of syscall_log.h
 * (the static ones below run under it). A tracee's entries are all written by the
 * thread that serves it, and an image changes threads only at its exec event,
 * after the execve's entry and every earlier one of its threads were put
 * (begin_exec drains, count_exec writes the execve's): so each thread's entries
 * stay in time order in the file, as with one serving thread. What a tracee's
 * record holds (its waiting entry, its unanswered ones, its slot's ring) is its
 * serving thread's alone. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int fd = -1;
static FILE *sites_file;
static struct csv_writer sites_csv;
static struct log_entry buffer[BUFFERED];
static size_t nbuffered;
static uint64_t nwritten; /* entries in the file; the buffer's follow */
static struct syscall_log_stats stats;
static bool write_failed;
static int write_errno;

/* The sites the entries name: "offset object" -> the id of their row. Each site
 * record keeps its id once named (log_site), so that moving a buffer's entries
 * looks nothing up. */
static struct string_map site_ids;

static void flush_buffer(void)
{
	const char *p = (const char *)buffer;
	size_t left = nbuffered * sizeof(buffer[0]);

	while (left && !write_failed) {
		ssize_t n = write(fd, p, left);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			write_failed = true;
			write_errno = n < 0 ? errno : ENOSPC;
			break;
		}
		p += n;
		left -= (size_t)n;
		stats.bytes += (uint64_t)n;
	}
	nwritten += nbuffered;
	nbuffered = 0;
}

/* Entry number (from 0) is e again, where it is now: in the buffer or the file. */
static void rewrite(uint64_t number, const struct log_entry *e)
{
	if (number >= nwritten)
		buffer[number - nwritten] = *e;
	else if (!write_failed && pwrite(fd, e, sizeof(*e), (off_t)(sizeof(struct log_header) + number * sizeof(*e)))
					  != (ssize_t)sizeof(*e)) {
		write_failed = true;
		write_errno = errno;
	}
}

static void put(const struct log_entry *e)
{
	if (nbuffered == BUFFERED)
		flush_buffer();
	buffer[nbuffered++] = *e;
	stats.entries++;
}

static uint32_t site_id(struct site_record *s)
{
	const char *object = s->object ? s->object : "";
	uint64_t offset = s->object ? s->offset : s->addr;
	char key[4096 + 32], symbol[512];
	size_t id;

	if (s->log_site)
		return s->log_site;
	snprintf(key, sizeof(key), "%llx %s", (unsigned long long)offset, object);
	if ((id = string_map_find(&site_ids, key)) == (size_t)-1) {
		id = site_ids.n + 1;
		string_map_put(&site_ids, key, id);
		csv_u64(&sites_csv, id);
		csv_str(&sites_csv, object);
		csv_hex(&sites_csv, offset);
		if (s->symbol) {
			snprintf(symbol, sizeof(symbol), "%s+0x%llx", s->symbol, (unsigned long long)s->symbol_offset);
			csv_str(&sites_csv, symbol);
		} else
			csv_empty(&sites_csv);
		csv_end_row(&sites_csv);
		stats.sites++;
	}
	/* an unnamed site's key is its address: named later, it gets its own */
	if (s->named)
		s->log_site = (uint32_t)id;
	return (uint32_t)id;
}

static const char *const sites_header[] = { "site", "object", "offset", "symbol", NULL };

bool syscall_log_open(const char *dir, char *err, size_t errlen)
{
	struct log_header h = { .magic = LOG_MAGIC, .version = LOG_VERSION, .entry_size = sizeof(struct log_entry),
				.tracer_pid = getpid() };
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", dir, LOG_FILE_NAME);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		snprintf(err, errlen, "cannot write the log %s: %s", path, strerror(errno));
		return false;
	}
	snprintf(path, sizeof(path), "%s/%s", dir, LOG_SITES_FILE_NAME);
	if (!(sites_file = fopen(path, "we"))) {
		snprintf(err, errlen, "cannot write the log's sites %s: %s", path, strerror(errno));
		close(fd);
		fd = -1;
		return false;
	}
	sites_csv = (struct csv_writer){ .file = sites_file };
	csv_header(&sites_csv, sites_header);
	h.start_ns = tsc_clock_ns(tsc_now());
	if (write(fd, &h, sizeof(h)) != (ssize_t)sizeof(h)) {
		snprintf(err, errlen, "cannot write the log %s/%s: %s", dir, LOG_FILE_NAME, strerror(errno));
		return false;
	}
	stats.bytes = sizeof(h);
	return true;
}

bool syscall_log_on(void)
{
	return fd >= 0;
}

static void fill(struct log_entry *e, const struct thread *t, int index, struct site_record *s)
{
	*e = (struct log_entry){ .pid = t->img->rec.pid, .tid = t->tid, .syscall = (uint16_t)index,
				 .flags = t->img->late ? 0 : LOG_EARLY, .check = LOG_ENTRY_CHECK };
	e->site = s ? site_id(s) : 0;
}

void syscall_log_enter(struct thread *t, int index, uint64_t site)
{
	uint64_t began = monotonic_ns();
	struct site_record *s;

	/* a call whose result did not come: one a handler interrupted (its restart is
	 * not a call of its own), or one whose exit stop was not asked for */
	syscall_log_unfinished(t);
	syscall_log_drain(t);
	/* after the drain, which may add sites to the table; the file names sites:
	 * this image's are looked up at once */
	s = image_site(t->img, site, false);
	if (s && !s->named)
		image_name_sites(t->img, t->tid, s);
	pthread_mutex_lock(&lock);
	fill(&t->log_waiting, t, index, s);
	t->log_waiting.t_ns = tsc_clock_ns(tsc_now());
	t->log_is_waiting = true;
	stats.tracer_ns += monotonic_ns() - began;
	pthread_mutex_unlock(&lock);
}

void syscall_log_result(struct thread *t, int64_t ret)
{
	if (!t->log_is_waiting)
		return;
	t->log_waiting.ret = ret;
	t->log_waiting.flags |= LOG_HAS_RET;
	syscall_log_unfinished(t);
}

void syscall_log_unfinished(struct thread *t)
{
	if (!t->log_is_waiting)
		return;
	pthread_mutex_lock(&lock);
	put(&t->log_waiting);
	pthread_mutex_unlock(&lock);
	t->log_is_waiting = false;
}

/* An entry taken without its result: the thread may be in the call still, or in a
 * handler that interrupted it. The oldest is let go when there are too many. */
static void await_answer(struct thread *t, uint64_t seq, const struct log_entry *e, const struct site_record *s)
{
	const unsigned max = sizeof(t->log_unanswered) / sizeof(t->log_unanswered[0]);

	if (t->nlog_unanswered == max) {
		memmove(t->log_unanswered, t->log_unanswered + 1, (max - 1) * sizeof(t->log_unanswered[0]));
		t->nlog_unanswered--;
	}
	t->log_unanswered[t->nlog_unanswered++] =
		(struct log_unanswered){ seq, stats.entries, s ? s->addr : 0, s ? s->gen : 0, *e };
}

/* The results that came since for entries taken without them. */
static void answer_late(struct thread *t, const struct region_log *log)
{
	unsigned kept = 0;

	for (unsigned i = 0; i < t->nlog_unanswered; i++) {
		struct log_unanswered *u = &t->log_unanswered[i];
		const struct region_log_entry *r = &log->entries[u->seq % REGION_LOG_ENTRIES];

		if (r->mark != (u->seq | REGION_LOG_MARK))
			continue; /* its place was taken again: the result will not come */
		if (r->has_ret) {
			u->entry.ret = r->ret;
			u->entry.flags |= LOG_HAS_RET;
			rewrite(u->number, &u->entry);
			count_result(t->img, site_table_find_gen(&t->img->sites, u->site, u->gen), u->entry.syscall,
				     r->ret);
			continue;
		}
		t->log_unanswered[kept++] = *u;
	}
	t->nlog_unanswered = kept;
}

void syscall_log_drain(struct thread *t)
{
	struct region_log *log;
	uint64_t head, end, began;
	struct addr_space *as = t->img ? t->img->as : NULL;

	if (fd < 0 || t->slot < 0 || !as)
		return;
	log = region_log(t->slot);
	if (log->head == log->tail && !t->nlog_unanswered)
		return;
	began = monotonic_ns();
	pthread_mutex_lock(&lock);
	answer_late(t, log);
	head = log->head;
	/* reservations past a full buffer were given up (the routine asked to flush) */
	end = head - log->tail > REGION_LOG_ENTRIES ? log->tail + REGION_LOG_ENTRIES : head;
	for (uint64_t seq = log->tail; seq < end; seq++) {
		const struct region_log_entry *r = &log->entries[seq % REGION_LOG_ENTRIES];
		struct site_record *s;
		struct log_entry e;

		if (r->mark != (seq | REGION_LOG_MARK))
			continue; /* reserved, and given up when a signal came (gate_code.S) */
		s = as_site_of_counter(as, (int)((r->counter - offsetof(struct region_slot, site_calls)) / 8));
		fill(&e, t, syscall_index(ABI_X86_64, r->nr), s);
		/* the stubs do not count under --log: the entries are the counts */
		count_inprocess(t->img, s, 1, e.syscall);
		if (r->has_ret)
			count_result(t->img, s ? image_site_of(t->img, s, false) : NULL, e.syscall, r->ret);
		e.flags |= LOG_INPROCESS | (r->has_ret ? LOG_HAS_RET : 0);
		e.ret = r->has_ret ? r->ret : 0;
		e.t_ns = tsc_clock_ns(r->tsc);
		if (!r->has_ret)
			await_answer(t, seq, &e, s);
		put(&e);
		stats.inprocess_entries++;
	}
	log->tail = head;
	stats.tracer_ns += monotonic_ns() - began;
	pthread_mutex_unlock(&lock);
}

bool syscall_log_set_result(struct thread *t, uint64_t mark, int64_t ret)
{
	struct region_log *log;
	struct region_log_entry *r;
	bool waited = false;

	if (fd < 0 || t->slot < 0)
		return false;
	log = region_log(t->slot);
	r = &log->entries[mark % REGION_LOG_ENTRIES];
	if (r->mark != mark)
		return false;
	r->ret = ret;
	r->has_ret = 1;
	if ((mark & ~REGION_LOG_MARK) >= log->tail)
		return true; /* counted when the buffer is drained */
	/* taken already: into the file now, before later entries take its place */
	for (unsigned i = 0; i < t->nlog_unanswered; i++)
		waited |= t->log_unanswered[i].seq == (mark & ~REGION_LOG_MARK);
	pthread_mutex_lock(&lock);
	answer_late(t, log);
	pthread_mutex_unlock(&lock);
	return waited;
}

bool syscall_log_answer_left(struct thread *t, int64_t ret)
{
	uint64_t mark = t->log_left_mark;

	/* (not a call the tracer logged itself: a handler's own, at any site) */
	if (!mark || t->log_is_waiting || t->result_wait != RESULT_AT_EXIT || t->result_site != t->log_left_site)
		return false;
	t->log_left_mark = 0;
	return syscall_log_set_result(t, mark, ret);
}

bool syscall_log_unmark(struct thread *t, uint64_t mark)
{
	struct region_log *log;
	struct region_log_entry *r;

	if (fd < 0 || t->slot < 0)
		return false;
	log = region_log(t->slot);
	r = &log->entries[mark % REGION_LOG_ENTRIES];
	if (r->mark != mark || (mark & ~REGION_LOG_MARK) < log->tail)
		return false;
	r->mark = 0; /* skipped when the buffer is drained, as an entry never marked */
	return true;
}

void syscall_log_flush(struct thread *t)
{
	syscall_log_drain(t);
	pthread_mutex_lock(&lock);
	stats.flushes++;
	pthread_mutex_unlock(&lock);
}

bool syscall_log_close(struct syscall_log_stats *st, char *err, size_t errlen)
{
	bool ok;

	if (fd < 0)
		return true;
	flush_buffer();
	ok = !write_failed && fflush(sites_file) == 0 && !ferror(sites_file);
	if (write_failed)
		snprintf(err, errlen, "writing the log failed: %s", strerror(write_errno));
	else if (!ok)
		snprintf(err, errlen, "writing the log's sites failed: %s", strerror(errno));
	if (fclose(sites_file) != 0 && ok) {
		snprintf(err, errlen, "writing the log's sites failed: %s", strerror(errno));
		ok = false;
	}
	close(fd);
	fd = -1;
	string_map_free(&site_ids);
	*st = stats;
	return ok;
}
