/* The command line of INTERFACE.md. */
#ifndef SYSTRACE_OPTIONS_H
#define SYSTRACE_OPTIONS_H

#include <stdbool.h>

#include "syscall_table.h"

enum patch_mode { PATCH_OFF, PATCH_SINGLE, PATCH_UNSAFE, PATCH_SAFE };

struct options {
	const char *output_dir;
	bool show_perf_stats;
	enum patch_mode patch;
	bool prepatch;          /* patch every site that can be, at each image's start */
	unsigned region_slots;  /* threads the shared region has counters for */
	bool libc_calls;        /* name the libc entry point of each ptraced call (libc_calls.h) */
	int tracer_nice;        /* added to the serving thread's nice (tracer_nice.h) */
	bool tracer_nice_given; /* on the command line: say so when it cannot be had */
	unsigned tracer_threads; /* serving threads (tracer_threads.h); 0: auto */
	bool log;               /* write the temporal log (syscall_log.h) */
	bool time;              /* measure how long each call takes (call_times.h) */
	bool summary;           /* -c: print strace -c's table at the end */
	enum syscall_sort summary_sort; /* -S: its order */
	char **command; /* NULL-terminated */
};

enum options_result { OPTIONS_RUN, OPTIONS_EXIT_OK, OPTIONS_USAGE_ERROR };

/* Parses argv; prints help, version or the problem itself. */
enum options_result options_parse(struct options *o, int argc, char **argv);
const char *patch_mode_name(enum patch_mode m);

#endif
