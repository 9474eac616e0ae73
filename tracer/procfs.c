#include "procfs.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fd_limit.h"
#include "offload.h"

uint64_t monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* /proc/<tid>/stat descriptors kept from one read to the next: a signal's handler
 * check and placement's look come back to the same few threads (a shell, make), and
 * a pread is a third of an open, a read and a close. A descriptor holds its thread,
 * not the number: once the thread is gone it reads ESRCH, and the number's next
 * thread gets a descriptor of its own. */
#define STAT_KEPT 8
static _Thread_local struct kept_stat {
	pid_t tid; /* 0: no descriptor */
	int fd;
} kept_stat[STAT_KEPT];
static _Thread_local unsigned kept_stat_next;

/* fd_limit.h's releaser. */
static bool give_up_kept_stat(void)
{
	bool any = false;

	for (int i = 0; i < STAT_KEPT; i++) {
		if (kept_stat[i].tid) {
			close(kept_stat[i].fd);
			kept_stat[i].tid = 0;
			any = true;
		}
	}
	return any;
}

void procfs_setup(void)
{
	fd_limit_on_short(give_up_kept_stat);
}

static ssize_t read_stat_file(pid_t tid, char *buf, size_t size)
{
	struct kept_stat *k = NULL;
	char path[64];
	ssize_t n;

	for (int i = 0; i < STAT_KEPT && !k; i++)
		if (kept_stat[i].tid == tid)
			k = &kept_stat[i];
	if (k && (n = pread(k->fd, buf, size, 0)) > 0)
		return n;
	if (!k)
		k = &kept_stat[kept_stat_next++ % STAT_KEPT];
	/* (often a thread gone: the close frees it, the writer's work) */
	if (k->tid)
		offload_close(k->fd);
	k->tid = 0;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)tid);
	if ((k->fd = fd_open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	k->tid = tid;
	return read(k->fd, buf, size);
}

/* The fields of /proc/<tid>/stat after the command name (which may hold spaces and
 * parentheses, so they resume after the last ')'), in buf; NULL if gone. */
static const char *read_stat(pid_t tid, char *buf, size_t size)
{
	const char *after_comm;
	ssize_t n = read_stat_file(tid, buf, size - 1);

	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	after_comm = strrchr(buf, ')');
	return after_comm && after_comm[1] == ' ' ? after_comm + 2 : NULL;
}

char procfs_state(pid_t tid)
{
	char buf[1024];
	const char *fields = read_stat(tid, buf, sizeof(buf));

	return fields ? fields[0] : '?';
}

bool procfs_is_running(pid_t tid)
{
	return procfs_state(tid) == 'R';
}

/* Takes line ("Key:\tvalue") into the first field not found yet whose key it has. */
static size_t status_line(const char *line, struct status_field *fields, size_t n, bool *found)
{
	for (size_t i = 0; i < n; i++) {
		size_t klen = strlen(fields[i].key);

		if (!found[i] && strncmp(line, fields[i].key, klen) == 0 && line[klen] == ':') {
			found[i] = sscanf(line + klen + 1, fields[i].base == 16 ? "%" SCNx64 : "%" SCNu64,
					  &fields[i].value) == 1;
			return found[i];
		}
	}
	return 0;
}

/* Gives take each line of fd, a status file open at its start, as far as take says it
 * has what it wants (true). False if a read failed. */
static bool status_lines(int fd, bool (*take)(const char *line, void *ctx), void *ctx)
{
	char buf[4096];
	bool skipping = false, done = false;
	size_t have = 0;
	ssize_t got;

	/* line by line, as far as the last line wanted: most files are read whole by the
	 * first read, the lines in it; a line longer than the buffer (Groups: with
	 * hundreds of supplementary groups) is none of them, and is passed over */
	while (!done && (got = read(fd, buf + have, sizeof(buf) - 1 - have)) != 0) {
		char *line = buf, *nl;

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return false;
		have += (size_t)got;
		buf[have] = '\0';
		for (; !done && (nl = memchr(line, '\n', (size_t)(buf + have - line))); line = nl + 1) {
			*nl = '\0';
			if (!skipping)
				done = take(line, ctx);
			skipping = false;
		}
		have = (size_t)(buf + have - line);
		memmove(buf, line, have);
		if (have == sizeof(buf) - 1) {
			skipping = true;
			have = 0;
		}
	}
	if (!done && have && !skipping) {
		buf[have] = '\0';
		take(buf, ctx);
	}
	return true;
}

struct fields_wanted {
	struct status_field *fields;
	size_t n, nfound;
	bool found[PROCFS_STATUS_MAX];
};

static bool take_field(const char *line, void *ctx)
{
	struct fields_wanted *w = ctx;

	w->nfound += status_line(line, w->fields, w->n, w->found);
	return w->nfound == w->n;
}

bool procfs_status_read(int fd, struct status_field *fields, size_t n)
{
	struct fields_wanted w = { fields, n, 0, { false } };

	if (n > PROCFS_STATUS_MAX)
		return false;
	return n == 0 || (status_lines(fd, take_field, &w) && w.nfound == n);
}

struct list_wanted {
	const char *key;
	uint64_t *values;
	size_t max, n;
};

static bool take_list(const char *line, void *ctx)
{
	struct list_wanted *w = ctx;
	size_t klen = strlen(w->key);
	char *end;

	if (strncmp(line, w->key, klen) != 0 || line[klen] != ':')
		return false;
	for (const char *p = line + klen + 1; w->n < w->max; p = end) {
		w->values[w->n] = strtoull(p, &end, 10);
		if (end == p)
			break;
		w->n++;
	}
	return true;
}

size_t procfs_status_list_read(int fd, const char *key, uint64_t *values, size_t max)
{
	struct list_wanted w = { key, values, max, 0 };

	return status_lines(fd, take_list, &w) ? w.n : 0;
}

bool procfs_status(pid_t tid, struct status_field *fields, size_t n)
{
	char path[64];
	bool ok;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	if ((fd = fd_open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return false;
	ok = procfs_status_read(fd, fields, n);
	close(fd);
	return ok;
}

bool procfs_status_u64(pid_t tid, const char *key, int base, uint64_t *value)
{
	struct status_field f = { key, base, 0 };
	bool ok = procfs_status(tid, &f, 1);

	*value = f.value;
	return ok;
}

size_t procfs_status_list(pid_t tid, const char *key, uint64_t *values, size_t max)
{
	char path[64];
	size_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	if ((fd = fd_open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	n = procfs_status_list_read(fd, key, values, max);
	close(fd);
	return n;
}

uint64_t procfs_pid_ns(pid_t tid)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%d/ns/pid", (int)tid);
	return stat(path, &st) == 0 ? (uint64_t)st.st_ino : 0;
}

char *procfs_exe(pid_t pid)
{
	char path[64], target[4096];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	n = readlink(path, target, sizeof(target) - 1);
	if (n < 0)
		return NULL;
	target[n] = '\0';
	return strdup(target);
}

/* The signals 1 to 31 that tid catches, from /proc/<tid>/stat (its field 34 has no
 * more: the real-time ones are in status alone); false if gone. */
static bool stat_sigcatch(pid_t tid, uint64_t *caught)
{
	char buf[2048], *end;
	const char *f = read_stat(tid, buf, sizeof(buf));

	/* from the state (field 3) on, 31 fields to skip */
	for (int i = 0; f && i < 31; i++)
		f = (f = strchr(f, ' ')) ? f + 1 : NULL;
	if (!f)
		return false;
	*caught = strtoull(f, &end, 10);
	return end != f;
}

bool delivery_caught(struct delivery *d)
{
	uint64_t caught;

	if (d->caught < 0)
		d->caught = d->sig >= 1 && d->sig <= 64
			    && (d->sig < 32 ? stat_sigcatch(d->tid, &caught)
					    : procfs_status_u64(d->tid, "SigCgt", 16, &caught))
			    && (caught >> (d->sig - 1)) & 1;
	return d->caught;
}
