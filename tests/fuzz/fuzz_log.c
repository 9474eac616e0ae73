/* libFuzzer: any bytes as a temporal log, through the header and entry checks and
 * the conversion to CSV. The first byte picks threads, chunk size and --salvage;
 * the rest is the log. Beyond the sanitizers it checks what the converter
 * promises: a row per entry before the first corrupt one, none after it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "log_csv.h"
#include "log_file.h"

/* as many as bench/gen_log.c names, so its logs make good seeds */
#define SITES 3001

static struct log_row_parts parts;
static int out = -1;

/* The parts of rows, once: building them costs more than converting a small log. */
static void make_parts(void)
{
	static char names[SITES][64];
	struct log_sites sites;

	sites.count = SITES;
	sites.site = calloc(SITES, sizeof(*sites.site));
	sites.site[0] = (struct log_site){ "", 0, false, "" };
	for (uint32_t id = 1; id < SITES; id++) {
		/* some objects need quoting; none has a newline, so lines count rows */
		snprintf(names[id], sizeof(names[id]), id % 3 ? "/usr/lib/obj-%u.so" : "/opt/a,\"b\"/obj-%u.so", id);
		sites.site[id] = (struct log_site){ names[id], id * 16, id % 5 != 0, "" };
	}
	out = memfd_create("fuzz_log.csv", 0);
	if (out < 0 || !sites.site || log_row_parts_init(&parts, &sites) < 0)
		abort();
	free(sites.site);
}

static uint64_t count_lines(int fd)
{
	char buf[65536];
	uint64_t lines = 0;
	ssize_t n;

	lseek(fd, 0, SEEK_SET);
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		for (ssize_t i = 0; i < n; i++)
			lines += buf[i] == '\n';
	return lines;
}

static uint64_t first_corrupt(const struct log_file *f)
{
	char err[256];

	for (uint64_t i = 0; i < f->count; i++)
		if (!log_entry_check(f, i, SITES, err, sizeof(err))) {
			if (!strstr(err, "corrupt entry at byte offset "))
				abort();
			return i;
		}
	return f->count;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct log_file f;
	struct log_csv c = { .log = &f, .parts = &parts };
	char err[512];
	void *log;
	uint64_t bad;
	int status;

	if (size < 1)
		return 0;
	if (out < 0)
		make_parts();
	c.threads = 1 + (data[0] & 1);
	c.chunk_entries = (data[0] >> 1) & 7; /* 0 is the default */
	c.keep_before_corrupt = data[0] >> 7;
	/* a copy, aligned as the mapped file is (the data pointer may not be) */
	log = malloc(size - 1 ? size - 1 : 1);
	memcpy(log, data + 1, size - 1);
	status = log_file_view(&f, log, size - 1, err, sizeof(err));
	if (status == LOG_FILE_TRUNCATED && !strstr(err, "truncated entry at byte offset "))
		abort();
	if (status < 0) {
		free(log);
		return 0;
	}
	bad = first_corrupt(&f);
	if (ftruncate(out, 0) < 0 || lseek(out, 0, SEEK_SET) < 0)
		abort();
	c.out = out;
	status = log_csv_write(&c, err, sizeof(err));
	if (bad == f.count ? status != 0 || c.rows != f.count
			   : status != (c.keep_before_corrupt ? 1 : -1) || c.rows > bad ||
				     (c.keep_before_corrupt && c.rows != bad))
		abort();
	if (count_lines(out) != c.rows + 1)
		abort();
	free(log);
	return 0;
}
