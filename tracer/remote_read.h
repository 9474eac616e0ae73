/* Many ranges of another process's memory read at once. process_vm_readv stops at
 * the first remote range it cannot read (unmapped since) and says only how many
 * bytes it read in all: the ranges after that one are left as they were. This reads
 * them too, with another call from the range after the one that failed, and says
 * which ranges were read whole. */
#ifndef SYSTRACE_REMOTE_READ_H
#define SYSTRACE_REMOTE_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <sys/uio.h>

/* Reads remote[i] of pid's memory into local[i] (of the same length) for each of n
 * ranges; whole[i] says whether range i was read entirely (a range read in part
 * counts as not read). How many were. When pid cannot be read at all (gone, not
 * permitted) none is, at the cost of one call. */
size_t remote_read_ranges(pid_t pid, const struct iovec *local, const struct iovec *remote, size_t n, bool *whole);

#endif
