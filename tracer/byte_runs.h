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

/* Where the bytes of a gap come from: what memory holds there, when the caller knows
 * it without reading it (a file's bytes as just mapped); false if it does not. */
struct gap_bytes {
	bool (*read)(const void *ctx, uint64_t addr, void *buf, size_t len);
	const void *ctx;
};

/* Adds len bytes at addr to r, filling a gap of at most `gap` bytes after what r
 * holds with what `from` reads there, or with int3 if from is NULL (stub room). False
 * when they cannot join r (r is not empty, and they lie before its end, too far after
 * it, or past its room, or `from` cannot give the gap's bytes): the caller writes r
 * out, empties it, and adds them again. len is at most BYTE_RUN_MAX. */
bool byte_run_add(struct byte_run *r, uint64_t addr, const uint8_t *bytes, size_t len, uint64_t gap,
		  const struct gap_bytes *from);

#endif
