#include "log_builder.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct log_entry test_entry(uint64_t t_ns, int32_t pid, int32_t tid, uint16_t syscall, uint32_t site,
			    uint8_t flags, int64_t ret)
{
	return (struct log_entry){ .t_ns = t_ns, .ret = ret, .pid = pid, .tid = tid, .site = site,
				   .syscall = syscall, .flags = flags, .check = LOG_ENTRY_CHECK };
}

unsigned char *test_log(const struct log_entry *entries, size_t n, size_t *size)
{
	struct log_header h = { .version = LOG_VERSION, .entry_size = sizeof(struct log_entry),
				.start_ns = 5, .tracer_pid = 1 };
	unsigned char *data;

	*size = sizeof(h) + n * sizeof(*entries);
	data = malloc(*size);
	if (!data)
		abort();
	memcpy(h.magic, LOG_MAGIC, sizeof(h.magic));
	memcpy(data, &h, sizeof(h));
	if (n)
		memcpy(data + sizeof(h), entries, n * sizeof(*entries));
	return data;
}

int test_write_file(const char *path, const void *data, size_t size)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	if (fwrite(data, 1, size, f) != size) {
		fclose(f);
		return -1;
	}
	return fclose(f) == 0 ? 0 : -1;
}
