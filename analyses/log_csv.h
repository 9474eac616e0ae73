/* The temporal log as CSV (log2csv's work, on a log in memory or mapped): workers
 * format chunks of entries into buffers in parallel and write them strictly in file
 * order, so rows come in the log's order (time order per thread, log_format.h). */
#ifndef SYSTRACE_LOG_CSV_H
#define SYSTRACE_LOG_CSV_H

#include <stdbool.h>
#include <stdint.h>

#include "log_file.h"
#include "log_row.h"

/* Entries a chunk holds, unless its rows could take more than LOG_CSV_CHUNK_BYTES
 * (long object paths): then fewer. At most LOG_CSV_SLOTS_PER_THREAD chunks per
 * thread are formatted and not yet written (a worker goes on to the next chunk
 * rather than wait for its turn to write), so the converter's memory is at most
 * threads * LOG_CSV_SLOTS_PER_THREAD * LOG_CSV_CHUNK_BYTES whatever the log's size. */
#define LOG_CSV_CHUNK_ENTRIES 65536
#define LOG_CSV_CHUNK_BYTES (16u << 20)
#define LOG_CSV_SLOTS_PER_THREAD 2

struct log_csv {
	const struct log_file *log;
	const struct log_row_parts *parts; /* from the sites file (log_row_parts_init) */
	int out;                /* file descriptor the CSV goes to, header first */
	unsigned threads;       /* workers; 0 is 1 */
	uint64_t chunk_entries; /* 0: the default above (tests set it small) */
	bool keep_before_corrupt; /* at a corrupt entry write the rows before it (--salvage) */
	bool any_site;          /* a site past the sites file is no site, not corrupt (--salvage:
				   a killed tracer loses the file's last rows) */
	/* called by the caller's thread a few times a second while workers run */
	void (*progress)(void *arg, uint64_t rows, uint64_t total);
	void *progress_arg;
	uint64_t rows;          /* out: rows written (header not counted) */
	bool write_failed;      /* out: the failure was writing, not the log */
};

/* 0 when every entry became a row; -1 on a corrupt entry (err: "corrupt entry at
 * byte offset N: what") or an error writing; with keep_before_corrupt, 1 when the
 * rows stop before a corrupt entry (err says which). */
int log_csv_write(struct log_csv *c, char *err, size_t errlen);

#endif
