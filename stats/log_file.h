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
};

/* Maps path and checks its header and that its size is the header plus whole
 * entries. -1 with a message naming the file and the byte offset of the problem. */
int log_file_open(struct log_file *f, const char *path, char *err, size_t errlen);
void log_file_close(struct log_file *f);
/* Whether entry i is well formed (check byte, flags, syscall index, site below
 * nsites); if not, a message naming its byte offset in the file. */
bool log_entry_check(const struct log_file *f, uint64_t i, uint32_t nsites, char *err, size_t errlen);

/* The sites file: object and offset (and symbol) of each site id; id 0 is none. */
struct log_site {
	const char *object;     /* "" when unknown */
	uint64_t offset;
	const char *symbol;     /* "" when none */
};

struct log_sites {
	struct log_site *site;  /* indexed by id; site[0] is empty */
	uint32_t count;         /* ids are below it */
	char *strings;          /* storage of the names */
};

/* Loads path; a missing file is an empty table. -1 with a message (file, line). */
int log_sites_load(struct log_sites *s, const char *path, char *err, size_t errlen);
void log_sites_free(struct log_sites *s);

#endif
