#include "options.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shared_region.h"
#include "tracer_nice.h"
#include "tracer_threads.h"

#ifndef SYSTRACE_VERSION
#define SYSTRACE_VERSION "0.1"
#endif

static const char *const mode_names[] = {
	[PATCH_OFF] = "off", [PATCH_SINGLE] = "single", [PATCH_UNSAFE] = "unsafe", [PATCH_SAFE] = "safe",
};

const char *patch_mode_name(enum patch_mode m)
{
	return mode_names[m];
}

static void usage(FILE *f)
{
	fputs("Usage: systrace [OPTIONS] -- COMMAND [ARG...]\n"
	      "Counts every syscall of COMMAND and all its processes and threads, per process\n"
	      "image, per syscall and per call site, and writes them as CSV files.\n\n"
	      "  -o, --output DIR     where the CSV files go (default ./systrace-out)\n"
	      "  -c, --summary        print at the end, on stderr, the table of strace -c\n"
	      "                       (per syscall: % time, seconds, usecs/call, calls, errors),\n"
	      "                       with each syscall's calls in-process and ptraced\n"
	      "  -S, --summary-sort-by=KEY  order that table by time, calls, name, errors,\n"
	      "                       inprocess or ptraced (default: time with --time,\n"
	      "                       else calls); implies -c\n"
	      "      --time           measure the time each call spends in the kernel:\n"
	      "                       syscalls.csv time_ns, min_ns, max_ns, sites.csv\n"
	      "                       time_ns (not with --log)\n"
	      "      --show-perf-stats  print the summary to stderr at the end\n"
	      "      --patch=MODE     off, single, unsafe or safe (default safe)\n"
	      "      --prepatch       patch every site that can be at each image's start,\n"
	      "                       not only those that ran in an earlier process\n"
	      "      --log            also write the temporal log: an entry per syscall\n"
	      "                       (syscall-log.bin; systrace-stats log2csv converts it)\n"
	      "      --region-slots=N  threads alive at once that count in-process\n"
	      "                       (default 4096; beyond, processes stop in the tracer)\n"
	      "      --libc-calls     name in sites.csv the libc function that led to each\n"
	      "                       site (unwinds the stack at every stop: slower)\n"
	      "      --tracer-nice=N  added to the nice value of the thread that serves the\n"
	      "                       stops, as nice -n does (default -20: served sooner\n"
	      "                       under load, where the system allows it; 0: as is)\n"
	      "      --tracer-threads=N  threads that serve the stops, or auto (the default:\n"
	      "                       one per 8 CPUs the run may use); a process moves to a\n"
	      "                       less busy one when it execs\n"
	      "  -h, --help           show this help\n"
	      "      --version        show the version\n\n"
	      "Exit status: COMMAND's own; 128+N if it was killed by signal N; 127 if COMMAND\n"
	      "is not found, 126 if it cannot be executed, 125 if systrace itself fails.\n", f);
}

/* A number from 1 to max, for option `name`; false with a message (that names
 * what else the option takes: or_else). */
static bool count_of(const char *name, const char *arg, unsigned long max, const char *or_else, unsigned *n)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(arg, &end, 10);
	if (errno || end == arg || *end || v == 0 || v > max || arg[0] == '-') {
		fprintf(stderr, "systrace: %s needs a number from 1 to %lu%s, not '%s'\n", name, max, or_else, arg);
		return false;
	}
	*n = (unsigned)v;
	return true;
}

/* A number of serving threads, or auto (0: tracer_threads_for_cpus decides). */
static bool threads_of(const char *name, const char *arg, unsigned *n)
{
	if (strcmp(arg, "auto") == 0) {
		*n = 0;
		return true;
	}
	return count_of(name, arg, TRACER_THREADS_MAX, " or 'auto'", n);
}

enum options_result options_parse(struct options *o, int argc, char **argv)
{
	enum { OPT_STATS = 256, OPT_PATCH, OPT_PREPATCH, OPT_SLOTS, OPT_LOG, OPT_TIME, OPT_LIBC_CALLS, OPT_NICE, OPT_THREADS, OPT_VERSION };
	static const struct option longs[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "summary", no_argument, NULL, 'c' },
		{ "summary-sort-by", required_argument, NULL, 'S' },
		{ "show-perf-stats", no_argument, NULL, OPT_STATS },
		{ "patch", required_argument, NULL, OPT_PATCH },
		{ "prepatch", no_argument, NULL, OPT_PREPATCH },
		{ "region-slots", required_argument, NULL, OPT_SLOTS },
		{ "log", no_argument, NULL, OPT_LOG },
		{ "time", no_argument, NULL, OPT_TIME },
		{ "libc-calls", no_argument, NULL, OPT_LIBC_CALLS },
		{ "tracer-nice", required_argument, NULL, OPT_NICE },
		{ "tracer-threads", required_argument, NULL, OPT_THREADS },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ NULL, 0, NULL, 0 },
	};
	int c;
	bool threads_given = false;
	const char *test_threads;

	*o = (struct options){ .output_dir = "systrace-out", .patch = PATCH_SAFE, .region_slots = REGION_DEFAULT_SLOTS,
			       .tracer_nice = TRACER_NICE_DEFAULT, .tracer_threads = 0 };
	opterr = 0;
	/* '+': stop at the command, so that its own options stay its own */
	while ((c = getopt_long(argc, argv, "+:o:cS:h", longs, NULL)) != -1) {
		switch (c) {
		case 'o': o->output_dir = optarg; break;
		case 'c': o->summary = true; break;
		case 'S':
			if (syscall_sort_parse(optarg, &o->summary_sort) < 0) {
				fprintf(stderr, "systrace: -S '%s': sort by %s\n", optarg, syscall_sort_keys);
				return OPTIONS_USAGE_ERROR;
			}
			o->summary = true;
			break;
		case OPT_STATS: o->show_perf_stats = true; break;
		case OPT_PREPATCH: o->prepatch = true; break;
		case OPT_LOG: o->log = true; break;
		case OPT_TIME: o->time = true; break;
		case OPT_LIBC_CALLS: o->libc_calls = true; break;
		case OPT_PATCH: {
			size_t m;

			for (m = 0; m < sizeof(mode_names) / sizeof(mode_names[0]); m++)
				if (strcmp(optarg, mode_names[m]) == 0)
					break;
			if (m == sizeof(mode_names) / sizeof(mode_names[0])) {
				fprintf(stderr, "systrace: unknown patch mode '%s' (off, single, unsafe, safe)\n", optarg);
				return OPTIONS_USAGE_ERROR;
			}
			o->patch = (enum patch_mode)m;
			break;
		}
		case OPT_SLOTS:
			if (!count_of("--region-slots", optarg, 1000000, "", &o->region_slots))
				return OPTIONS_USAGE_ERROR;
			break;
		case OPT_THREADS:
			if (!threads_of("--tracer-threads", optarg, &o->tracer_threads))
				return OPTIONS_USAGE_ERROR;
			threads_given = true;
			break;
		case OPT_NICE: {
			char *end;
			long n;

			errno = 0;
			n = strtol(optarg, &end, 10);
			/* (strtol would take leading blanks) */
			if (errno || end == optarg || *end || !strchr("+-0123456789", optarg[0]) || n < -TRACER_NICE_MAX
			    || n > TRACER_NICE_MAX) {
				fprintf(stderr, "systrace: --tracer-nice needs a number from %d to %d, not '%s'\n",
					-TRACER_NICE_MAX, TRACER_NICE_MAX, optarg);
				return OPTIONS_USAGE_ERROR;
			}
			o->tracer_nice = (int)n;
			o->tracer_nice_given = true;
			break;
		}
		case 'h': usage(stdout); return OPTIONS_EXIT_OK;
		case OPT_VERSION: printf("systrace %s\n", SYSTRACE_VERSION); return OPTIONS_EXIT_OK;
		case ':':
			fprintf(stderr, "systrace: option '%s' needs a value\n", argv[optind - 1]);
			return OPTIONS_USAGE_ERROR;
		default:
			fprintf(stderr, "systrace: unknown option '%s' (see systrace --help)\n", argv[optind - 1]);
			return OPTIONS_USAGE_ERROR;
		}
	}
	if (optind >= argc) {
		fputs("systrace: no command given (usage: systrace [OPTIONS] -- COMMAND [ARG...])\n", stderr);
		return OPTIONS_USAGE_ERROR;
	}
	if (!*o->output_dir) {
		fputs("systrace: the output folder name is empty\n", stderr);
		return OPTIONS_USAGE_ERROR;
	}
	if (o->prepatch && o->patch == PATCH_OFF) {
		fputs("systrace: --prepatch needs patching on (it cannot go with --patch=off)\n", stderr);
		return OPTIONS_USAGE_ERROR;
	}
	/* the test suite's way to run every test with several serving threads
	 * (docs/scaling.md): the default */
	if (!threads_given && (test_threads = getenv("SYSTRACE_TEST_THREADS")) && *test_threads
	    && !threads_of("SYSTRACE_TEST_THREADS", test_threads, &o->tracer_threads))
		return OPTIONS_USAGE_ERROR;
	if (o->time && o->log) {
		/* the log routine makes the in-process calls under --log, and does not time
		 * them; the log's t_ns gives when each call was made */
		fputs("systrace: --time cannot go with --log (the log's entries have no durations; "
		      "run twice, or read the log's t_ns)\n", stderr);
		return OPTIONS_USAGE_ERROR;
	}
	o->command = argv + optind;
	return OPTIONS_RUN;
}
