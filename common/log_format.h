/* The temporal log (--log): DIR/syscall-log.bin, a 64-byte header then one flat
 * 32-byte entry per syscall, and DIR/syscall-log-sites.csv naming the sites the
 * entries refer to. The tracer writes both; systrace-stats reads them (log2csv, export).
 *
 * Entries are in time order per thread (each thread's in-process entries are moved
 * from its buffer to the file before any later entry of its own is written), not
 * across threads. Every entry carries LOG_ENTRY_CHECK in `check` and no flag bit
 * outside LOG_FLAGS_KNOWN: a reader tells a corrupt entry by them. */
#ifndef SYSTRACE_LOG_FORMAT_H
#define SYSTRACE_LOG_FORMAT_H

#include <stdint.h>

#define LOG_FILE_NAME "syscall-log.bin"
#define LOG_SITES_FILE_NAME "syscall-log-sites.csv" /* columns site,object,offset,symbol */

#define LOG_MAGIC "SYSTRLOG"
#define LOG_VERSION 1

struct log_header {
	char magic[8];          /* LOG_MAGIC, without its NUL */
	uint32_t version;       /* LOG_VERSION */
	uint32_t entry_size;    /* sizeof(struct log_entry) */
	uint64_t start_ns;      /* CLOCK_MONOTONIC when the tracer started */
	int32_t tracer_pid;
	uint32_t reserved[9];   /* zero */
};

enum log_flag {
	LOG_INPROCESS = 1 << 0, /* path inprocess; else ptraced */
	LOG_EARLY = 1 << 1,     /* before the library of its image was ready */
	LOG_HAS_RET = 1 << 2,   /* ret is the call's result (not: it never returned, e.g. exit) */
	LOG_FLAGS_KNOWN = 0x07,
};

#define LOG_ENTRY_CHECK 0xa5

struct log_entry {
	uint64_t t_ns;          /* CLOCK_MONOTONIC when the call was made */
	int64_t ret;            /* the result (-errno on failure) when LOG_HAS_RET, else 0 */
	int32_t pid, tid;
	uint32_t site;          /* a row of the sites file; 0: no site known */
	uint16_t syscall;       /* counter index (syscall_names.h): abi * SYSCALL_NR_SPAN + nr */
	uint8_t flags;          /* enum log_flag */
	uint8_t check;          /* LOG_ENTRY_CHECK */
};

_Static_assert(sizeof(struct log_header) == 64, "log header is 64 bytes");
_Static_assert(sizeof(struct log_entry) == 32, "log entries are 32 bytes");

#endif
