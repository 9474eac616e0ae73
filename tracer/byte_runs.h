/* Bytes to write at increasing addresses, gathered into runs so that a batch of
 * patches costs a few writes instead of one per stub and one per jump. Pure: the
 * caller writes each run out (known_sites.c). */
#ifndef SYSTRACE_BYTE_RUNS_H
#define SYSTRACE_BYTE_RUNS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BYTE_RUN_MAX 4096

struct byte_run {
	uint64_t addr;
	size_t len;     /* 0: empty */
	uint8_t bytes[BYTE_RUN_MAX];
};

/* Adds len bytes at addr to r, filling a gap of at most `gap` bytes after what r
 * holds with int3 (only stub room may have gaps). False when they cannot join r (r
 * is not empty, and they lie before its end, too far after it, or past its room):
 * the caller writes r out, empties it, and adds them again. len is at most
 * BYTE_RUN_MAX. */
bool byte_run_add(struct byte_run *r, uint64_t addr, const uint8_t *bytes, size_t len, uint64_t gap);

#endif
