#include "procfs.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fd_limit.h"

uint64_t monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The fields of /proc/<tid>/stat after the command name (which may hold spaces and
 * parentheses, so they resume after the last ')'), in buf; NULL if gone. */
static const char *read_stat(pid_t tid, char *buf, size_t size)
{
	char path[64];
	const char *after_comm;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)tid);
	if ((fd = fd_open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return NULL;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	after_comm = strrchr(buf, ')');
	return after_comm && after_comm[1] == ' ' ? after_comm + 2 : NULL;
}

bool procfs_times(pid_t pid, uint64_t *user_ns, uint64_t *sys_ns)
{
	static long ticks_per_s;
	char buf[1024];
	unsigned long utime, stime;
	const char *fields = read_stat(pid, buf, sizeof(buf));

	if (!ticks_per_s)
		ticks_per_s = sysconf(_SC_CLK_TCK);
	if (!fields || sscanf(fields, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &utime, &stime) != 2)
		return false;
	*user_ns = (uint64_t)utime * (1000000000u / (uint64_t)ticks_per_s);
	*sys_ns = (uint64_t)stime * (1000000000u / (uint64_t)ticks_per_s);
	return true;
}

bool procfs_is_running(pid_t tid)
{
	char buf[1024];
	const char *fields = read_stat(tid, buf, sizeof(buf));

	return fields && fields[0] == 'R';
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

bool procfs_status_read(int fd, struct status_field *fields, size_t n)
{
	char buf[4096];
	bool found[PROCFS_STATUS_MAX] = { false }, skipping = false;
	size_t have = 0, nfound = 0;
	ssize_t got;

	if (n > PROCFS_STATUS_MAX)
		return false;
	/* line by line, as far as the last field wanted: most files are read whole by the
	 * first read, the fields in it; a line longer than the buffer (Groups: with
	 * hundreds of supplementary groups) is none of them, and is passed over */
	while (nfound < n && (got = read(fd, buf + have, sizeof(buf) - 1 - have)) != 0) {
		char *line = buf, *nl;

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return false;
		have += (size_t)got;
		buf[have] = '\0';
		for (; (nl = memchr(line, '\n', (size_t)(buf + have - line))); line = nl + 1) {
			*nl = '\0';
			if (!skipping)
				nfound += status_line(line, fields, n, found);
			skipping = false;
		}
		have = (size_t)(buf + have - line);
		memmove(buf, line, have);
		if (have == sizeof(buf) - 1) {
			skipping = true;
			have = 0;
		}
	}
	if (nfound < n && have && !skipping) {
		buf[have] = '\0';
		nfound += status_line(buf, fields, n, found);
	}
	return nfound == n;
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

bool delivery_caught(struct delivery *d)
{
	uint64_t caught;

	if (d->caught < 0)
		d->caught = procfs_status_u64(d->tid, "SigCgt", 16, &caught) && d->sig >= 1 && d->sig <= 64
			    && (caught >> (d->sig - 1)) & 1;
	return d->caught;
}
