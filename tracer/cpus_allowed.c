#include "cpus_allowed.h"

#include <errno.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

unsigned cpu_quota_cpus(long long quota, long long period)
{
	if (quota <= 0 || period <= 0)
		return 0;
	return (unsigned)((quota + period - 1) / period);
}

unsigned cpu_max_cpus(const char *text)
{
	long long quota, period;

	return sscanf(text, "%lld %lld", &quota, &period) == 2 ? cpu_quota_cpus(quota, period) : 0;
}

static unsigned cpus_in_affinity(void)
{
	long online;

	/* a set as large as the kernel's CPUs need (more than a cpu_set_t holds) */
	for (int n = CPU_SETSIZE; n <= 1 << 20; n *= 2) {
		cpu_set_t *set = CPU_ALLOC(n);
		size_t size = CPU_ALLOC_SIZE(n);
		int got = set ? sched_getaffinity(0, size, set) : -1;
		unsigned count = got == 0 ? (unsigned)CPU_COUNT_S(size, set) : 0;

		CPU_FREE(set);
		if (got == 0)
			return count;
		if (errno != EINVAL)
			break;
	}
	online = sysconf(_SC_NPROCESSORS_ONLN);
	return online > 0 ? (unsigned)online : 1;
}

static bool read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	bool ok = f && fgets(buf, (int)len, f);

	if (f)
		fclose(f);
	return ok;
}

/* The quota of the cgroup folder at root + dir, by version: 0 if none. */
static unsigned quota_at(const char *root, const char *dir, bool v2)
{
	char path[4096 + 64], text[64], period[64];

	if (v2) {
		snprintf(path, sizeof(path), "%s%s/cpu.max", root, dir);
		return read_line(path, text, sizeof(text)) ? cpu_max_cpus(text) : 0;
	}
	snprintf(path, sizeof(path), "%s%s/cpu.cfs_quota_us", root, dir);
	if (!read_line(path, text, sizeof(text)))
		return 0;
	snprintf(path, sizeof(path), "%s%s/cpu.cfs_period_us", root, dir);
	return read_line(path, period, sizeof(period)) ? cpu_quota_cpus(atoll(text), atoll(period)) : 0;
}

/* The smallest quota of the folder for path and those above it. */
static unsigned smallest_quota(const char *root, char *path, bool v2)
{
	unsigned least = 0;
	char *slash;

	for (;;) {
		unsigned q = quota_at(root, path, v2);

		if (q && (!least || q < least))
			least = q;
		if (!(slash = strrchr(path, '/')))
			return least;
		*slash = '\0';
	}
}

/* Whether a v1 line's controllers ("cpu,cpuacct") hold cpu. */
static bool has_cpu(const char *controllers, size_t len)
{
	for (const char *c = controllers; c < controllers + len;) {
		size_t n = strcspn(c, ",:");

		if (n == 3 && strncmp(c, "cpu", 3) == 0)
			return true;
		c += n + 1;
	}
	return false;
}

static unsigned cgroup_quota(void)
{
	FILE *f = fopen("/proc/self/cgroup", "re");
	char line[4096];
	unsigned least = 0;

	while (f && fgets(line, sizeof(line), f)) {
		char *controllers = strchr(line, ':'), *path = controllers ? strchr(controllers + 1, ':') : NULL;
		unsigned q = 0;

		if (!path)
			continue;
		path[strcspn(path, "\n")] = '\0';
		if (path == controllers + 1)
			q = smallest_quota("/sys/fs/cgroup", path + 1, true);
		else if (has_cpu(controllers + 1, (size_t)(path - controllers - 1)))
			q = smallest_quota("/sys/fs/cgroup/cpu", path + 1, false);
		if (q && (!least || q < least))
			least = q;
	}
	if (f)
		fclose(f);
	return least;
}

unsigned cpus_allowed(void)
{
	const char *test = getenv("SYSTRACE_TEST_CPUS");
	unsigned cpus = test && atoi(test) > 0 ? (unsigned)atoi(test) : cpus_in_affinity();
	unsigned quota = cgroup_quota();

	return quota && quota < cpus ? quota : cpus;
}
