/* One CSV row of the temporal log per entry (log2csv), formatted by hand: the
 * converter's inner loop, so no printf. The columns are LOG_ROW_HEADER's. */
#ifndef SYSTRACE_LOG_ROW_H
#define SYSTRACE_LOG_ROW_H

#include <stddef.h>
#include <stdint.h>

#include "log_file.h"

#define LOG_ROW_HEADER "t_ns,pid,tid,syscall,path,early,object,offset,ret\n"

/* What rows are made of, prepared once: each syscall's name, and each site's
 * "object,offset" as it stands in the CSV (object quoted per RFC 4180). */
struct log_row_parts {
	char *names;            /* the names one after the other */
	uint32_t *name_start;   /* SYSCALL_INDEX_COUNT + 1 offsets into names */
	char *sites;            /* the sites' fields one after the other */
	size_t *site_start;     /* nsites + 1 offsets into sites */
	uint32_t nsites;
	size_t max_row;         /* bytes the longest row can take */
};

/* -1 when out of memory. */
int log_row_parts_init(struct log_row_parts *p, const struct log_sites *sites);
void log_row_parts_free(struct log_row_parts *p);

/* Writes e's row at out, which has room for p->max_row bytes; returns its end. The
 * entry must have passed log_entry_check; a site past p->nsites prints as no site. */
char *log_row_put(const struct log_row_parts *p, char *out, const struct log_entry *e);

#endif
