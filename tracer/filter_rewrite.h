/* A program's own seccomp filter, rewritten so that systrace still sees every call
 * and the program's verdicts still apply as the kernel would apply them
 * (own_filter.c installs it; filter_rewrite.c draws the program). Pure: no ptrace. */
#ifndef SYSTRACE_FILTER_REWRITE_H
#define SYSTRACE_FILTER_REWRITE_H

#include <linux/filter.h>
#include <stdint.h>

#define FILTER_REWRITE_DECIDES_MAX 4

/* The instruction pointers the rewritten filter tells apart; all in one page (the
 * gate's), so that their high halves are equal. */
struct filter_ips {
	uint64_t decides[FILTER_REWRITE_DECIDES_MAX]; /* the program's filter decides here */
	unsigned ndecides;
	uint64_t instrument;                          /* systrace's own calls: allowed */
};

/* The most instructions the rewriting adds to a program of n. */
unsigned filter_rewrite_extra(const struct filter_ips *ips);

/* Writes into out (room for BPF_MAXINSNS) the rewriting of the program in[0..n) and
 * returns its length, or 0 if it does not fit in BPF_MAXINSNS. The program is
 * copied once; its instructions are the kernel's to check (the copy changes only
 * its returns). */
unsigned filter_rewrite(const struct sock_filter *in, unsigned n, const struct filter_ips *ips, struct sock_filter *out);

#endif
