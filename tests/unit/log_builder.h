/* Temporal logs made in memory for the tests of log_file.c and log_csv.c. */
#ifndef SYSTRACE_TEST_LOG_BUILDER_H
#define SYSTRACE_TEST_LOG_BUILDER_H

#include <stddef.h>
#include <stdint.h>

#include "log_format.h"

/* A well-formed entry. */
struct log_entry test_entry(uint64_t t_ns, int32_t pid, int32_t tid, uint16_t syscall, uint32_t site,
			    uint8_t flags, int64_t ret);
/* A good header followed by n entries (free() it); its size in *size. */
unsigned char *test_log(const struct log_entry *entries, size_t n, size_t *size);
/* Writes size bytes at data to path; 0 or -1. */
int test_write_file(const char *path, const void *data, size_t size);

#endif
