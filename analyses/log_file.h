/* Reading the temporal log (log_format.h): the file mapped, its header and each
 * entry checked, and the sites file loaded. */
#ifndef SYSTRACE_LOG_FILE_H
#define SYSTRACE_LOG_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "log_format.h"

struct log_file {
	const struct log_header *header;
	const struct log_entry *entries;
	uint64_t count;         /* whole entries after the header */
	size_t size;            /* of the mapping */
	bool mapped;            /* by log_file_map (else memory log_file_view was given) */
};

/* Maps path and checks its header and that its size is the header plus whole
 * entries. -1 with a message naming the file and the byte offset of the problem. */
int log_file_open(struct log_file *f, const char *path, char *err, size_t errlen);
void log_file_close(struct log_file *f);

/* log_file_view's and log_file_map's result when the header is good but the file
 * ends inside an entry (a tracer killed while writing): f holds the whole entries
 * before it and err names the byte offset where the partial entry starts. */
#define LOG_FILE_TRUNCATED 1

/* Checks a log already in memory (size bytes at data) and describes it in f (which
 * does not own data): 0, LOG_FILE_TRUNCATED, or -1 with the problem in err. */
int log_file_view(struct log_file *f, const void *data, size_t size, char *err, size_t errlen);
/* log_file_open that also accepts a truncated file: 0, LOG_FILE_TRUNCATED (f mapped,
 * the message in err) or -1 (nothing to close). */
int log_file_map(struct log_file *f, const char *path, char *err, size_t errlen);
/* Whether entry i is well formed (check byte, flags, syscall index, site below
 * nsites); if not, a message naming its byte offset in the file. */
bool log_entry_check(const struct log_file *f, uint64_t i, uint32_t nsites, char *err, size_t errlen);

/* The sites file: object and offset (and symbol) of each site id; id 0 is none. */
struct log_site {
	const char *object;     /* "" when unknown */
	uint64_t offset;
	bool has_offset;        /* false for id 0, ids no row names, and an empty offset */
	const char *symbol;     /* "" when none */
};

struct log_sites {
	struct log_site *site;  /* indexed by id; site[0] is empty */
	uint32_t count;         /* ids are below it */
	char *strings;          /* storage of the names */
};

/* Loads path; a missing file is an empty table. -1 with a message (file, line). */
int log_sites_load(struct log_sites *s, const char *path, char *err, size_t errlen);
/* log_sites_load that keeps the rows before a bad one (the end of a file a killed
 * tracer left): 0, 1 with that row named in err, or -1 (a bad header, a site listed
 * twice: nothing to free). */
int log_sites_load_partial(struct log_sites *s, const char *path, char *err, size_t errlen);
void log_sites_free(struct log_sites *s);

#endif
