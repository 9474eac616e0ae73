#include "procfs.h"

#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

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
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
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

bool procfs_status_u64(pid_t tid, const char *key, int base, uint64_t *value)
{
	char path[64], line[256];
	size_t len = strlen(key);
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	if (!(f = fopen(path, "re")))
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = strncmp(line, key, len) == 0 && line[len] == ':'
			&& sscanf(line + len + 1, base == 16 ? "%" SCNx64 : "%" SCNu64, value) == 1;
	fclose(f);
	return found;
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

bool procfs_signal_caught(pid_t tid, int sig)
{
	uint64_t caught;

	return procfs_status_u64(tid, "SigCgt", 16, &caught) && sig >= 1 && sig <= 64 && (caught >> (sig - 1)) & 1;
}
