/* gen_log DIR ENTRIES [SEED]: a made-up temporal log (common/log_format.h) and its
 * sites file in DIR, for benchmarking and fuzzing log2csv. The mix looks like a
 * build: thousands of processes with a few threads each, a few thousand sites in
 * objects with long paths (some needing CSV quotes), both paths, early calls,
 * failures, calls that never return. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log_format.h"

#define SITES 3000
#define OBJECTS 150
#define PROCESSES 4000
#define THREADS_PER_PROCESS 4

static uint64_t state = 0x9e3779b97f4a7c15ULL;

static uint64_t next_random(void)
{
	state ^= state << 13;
	state ^= state >> 7;
	state ^= state << 17;
	return state;
}

static void object_name(char *buf, size_t len, unsigned object)
{
	/* a few names need quoting: a comma, a quote */
	snprintf(buf, len, "/usr/lib/x86_64-linux-gnu/systrace-bench/toolchain-%u/%s/libcomponent-%u.so.%u.%u",
		 object % 7, object % 50 == 1 ? "with,comma" : object % 50 == 2 ? "say \"\"hi\"\"" : "lib", object,
		 object % 5, object % 11);
}

static int write_sites(const char *dir)
{
	char path[4096], object[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, LOG_SITES_FILE_NAME);
	f = fopen(path, "w");
	if (!f)
		return -1;
	fprintf(f, "site,object,offset,symbol\n");
	for (unsigned site = 1; site <= SITES; site++) {
		object_name(object, sizeof(object), site % OBJECTS);
		fprintf(f, "%u,%s%s%s,0x%x,func_%u+0x%x\n", site, strpbrk(object, ",\"") ? "\"" : "", object,
			strpbrk(object, ",\"") ? "\"" : "", 0x1000 + site * 0x37, site, site % 64);
	}
	return fclose(f);
}

static struct log_entry make_entry(uint64_t i)
{
	static const uint16_t common[] = { 0, 1, 3, 9, 10, 11, 12, 13, 14, 17, 39, 56, 59, 60, 61, 89, 202,
					   228, 231, 257, 262, 318, 334, 435 };
	uint64_t r = next_random();
	unsigned process = (unsigned)(r % PROCESSES);
	struct log_entry e = {
		.t_ns = 1000000000ULL + i * 397,
		.pid = (int32_t)(1000 + process * 8),
		.tid = (int32_t)(1000 + process * 8 + (r >> 12) % THREADS_PER_PROCESS),
		.site = (r >> 20) % 20 == 0 ? 0 : 1 + (uint32_t)((r >> 24) % SITES),
		.syscall = (r >> 36) % 100 == 0 ? (uint16_t)(1024 + (r >> 40) % 400) : common[(r >> 40) % 24],
		.check = LOG_ENTRY_CHECK,
	};
	unsigned kind = (unsigned)((r >> 48) % 100);

	e.flags = (kind < 70 ? LOG_INPROCESS : 0) | (kind >= 90 ? LOG_EARLY : 0) | (kind % 50 ? LOG_HAS_RET : 0);
	if (e.flags & LOG_HAS_RET)
		e.ret = kind % 17 == 0 ? -(int64_t)(1 + kind % 40) : (int64_t)((r >> 8) % 100000);
	return e;
}

int main(int argc, char **argv)
{
	static struct log_entry batch[8192];
	struct log_header header = { .version = LOG_VERSION, .entry_size = sizeof(struct log_entry),
				     .start_ns = 1000000000ULL, .tracer_pid = 999 };
	char path[4096];
	uint64_t count;
	FILE *f;

	if (argc < 3 || argc > 4) {
		fprintf(stderr, "usage: gen_log DIR ENTRIES [SEED]\n");
		return 2;
	}
	count = strtoull(argv[2], NULL, 10);
	if (argc == 4)
		state ^= strtoull(argv[3], NULL, 10) * 0x2545f4914f6cdd1dULL;
	memcpy(header.magic, LOG_MAGIC, sizeof(header.magic));
	snprintf(path, sizeof(path), "%s/%s", argv[1], LOG_FILE_NAME);
	f = fopen(path, "w");
	if (!f || write_sites(argv[1]) < 0) {
		perror(argv[1]);
		return 1;
	}
	fwrite(&header, sizeof(header), 1, f);
	for (uint64_t done = 0; done < count;) {
		size_t n = count - done < 8192 ? (size_t)(count - done) : 8192;

		for (size_t i = 0; i < n; i++)
			batch[i] = make_entry(done + i);
		fwrite(batch, sizeof(batch[0]), n, f);
		done += n;
	}
	if (fclose(f) != 0) {
		perror(path);
		return 1;
	}
	return 0;
}
