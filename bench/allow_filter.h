/* The benchmark's fair baseline: systrace's own seccomp filter (tracer/filter.c's
 * filter_build), with its TRACE outcome turned into ALLOW, installed the way
 * systrace installs it. See allow_filter.c. */
#ifndef BENCH_ALLOW_FILTER_H
#define BENCH_ALLOW_FILTER_H

/* Installs systrace's filter with every outcome ALLOW in the calling process (and
 * its future threads). The filter's instruction-pointer compare is aimed at the
 * first `syscall` instruction of site_fn, so a call from there takes the same
 * path through the filter as an in-process call from systrace's gate (every
 * instruction, then ALLOW). Prints what it did on stderr; 0, or -1 with a message. */
int allow_filter_install(const void *site_fn);

#endif
