#include "procfs.h"

#include <fcntl.h>
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

bool procfs_times(pid_t pid, uint64_t *user_ns, uint64_t *sys_ns)
{
	static long ticks_per_s;
	char path[64], buf[1024];
	unsigned long utime, stime;
	const char *after_comm;
	ssize_t n;
	int fd;

	if (!ticks_per_s)
		ticks_per_s = sysconf(_SC_CLK_TCK);
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	/* the command name may hold spaces and parentheses: fields resume after the last ')' */
	if (!(after_comm = strrchr(buf, ')'))
	    || sscanf(after_comm + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &utime, &stime) != 2)
		return false;
	*user_ns = (uint64_t)utime * (1000000000u / (uint64_t)ticks_per_s);
	*sys_ns = (uint64_t)stime * (1000000000u / (uint64_t)ticks_per_s);
	return true;
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

uint64_t procfs_self_peak_rss_kb(void)
{
	char line[256];
	unsigned long long kb = 0;
	FILE *f = fopen("/proc/self/status", "re");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmHWM: %llu kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}
