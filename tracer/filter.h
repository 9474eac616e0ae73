/* The seccomp-bpf filter that sends every syscall to the tracer except those made
 * from the gate (see preload/gate.h). */
#ifndef SYSTRACE_FILTER_H
#define SYSTRACE_FILTER_H

#include <linux/filter.h>
#include <stdint.h>

#define FILTER_MAX_LEN 32

/* Fills prog (room for FILTER_MAX_LEN instructions) and returns its length. A
 * syscall is allowed only when it is a native x86_64 call (not i386, not x32) and
 * its instruction pointer equals allowed_ip (the gate's), instrument_ip (the
 * gate page's second `syscall`, for systrace's own calls: preload/gate.h) or
 * stackless_ip (its third, for vfork), which share their high half, or when it is the set-up's mmap of the page holding
 * allowed_ip (exec_blob.h: EXEC_BLOB_GATE_PROT, _FLAGS; once the page is there it
 * fails with EEXIST: a program making that exact call itself would have it
 * uncounted, and would take the gate's address from systrace anyway), or when it is
 * the parking ppoll of an image between two tracer threads (park.h), from
 * anywhere; every other call is traced. */
unsigned filter_build(struct sock_filter *prog, uint64_t allowed_ip, uint64_t instrument_ip, uint64_t stackless_ip);

/* Sets no_new_privs and installs the filter in the calling process; -1 with errno. */
int filter_install(uint64_t allowed_ip, uint64_t instrument_ip, uint64_t stackless_ip);

#endif
