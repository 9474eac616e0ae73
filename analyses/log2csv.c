/* systrace-stats log2csv: the temporal log of an output folder as CSV. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "command_args.h"
#include "commands.h"
#include "log_csv.h"
#include "log_file.h"
#include "progress_bar.h"

#define PROGRAM "systrace-stats log2csv"
#define DEFAULT_OUTPUT "syscall-log.csv"
#define MAX_THREADS 1024

struct options {
	const char *dir, *output; /* output NULL: DIR/DEFAULT_OUTPUT; "-": stdout */
	unsigned threads;
	int progress;             /* 1, 0, or -1: when stderr is a terminal */
	bool salvage;
};

static void usage(FILE *out)
{
	fprintf(out,
		"usage: " PROGRAM " [-o FILE|-] [-j THREADS] [--progress|--no-progress] [--salvage] DIR\n"
		"Converts DIR/" LOG_FILE_NAME " (systrace --log) to CSV, one row per syscall:\n"
		"  t_ns,pid,tid,syscall,path,early,object,offset,ret\n"
		"with object and offset from DIR/" LOG_SITES_FILE_NAME ". Rows keep the log's order,\n"
		"which is time order within each thread (not across threads).\n"
		"  -o, --output FILE  where the CSV goes (default DIR/" DEFAULT_OUTPUT "; - for stdout);\n"
		"                     a file is written under a temporary name and renamed when\n"
		"                     complete (a device, pipe or link is written directly)\n"
		"  -j, --jobs N       threads formatting chunks in parallel (default: online CPUs)\n"
		"  --progress, --no-progress\n"
		"                     a progress line on stderr (default: when it is a terminal)\n"
		"  --salvage          convert what a killed tracer left instead of failing: the whole\n"
		"                     entries before a truncated last one, the rows before a corrupt\n"
		"                     entry, the sites before a bad row of the sites file (entries\n"
		"                     naming sites it lacks get no object); warnings say where\n"
		"  -h, --help         show this help\n"
		"Memory: the log is cut into chunks of %u entries (fewer if their rows could\n"
		"pass %u MiB); at most %u chunks per thread are formatted and not yet written,\n"
		"and the log is mapped with the pages converted given back, so a log of any size\n"
		"converts in at most THREADS x %u MiB, and the sites.\n"
		"Exit status: 0; 1 for a bad or missing log, a bad sites file or an error writing;\n"
		"2 for bad usage.\n",
		LOG_CSV_CHUNK_ENTRIES, LOG_CSV_CHUNK_BYTES >> 20, LOG_CSV_SLOTS_PER_THREAD,
		LOG_CSV_SLOTS_PER_THREAD * (LOG_CSV_CHUNK_BYTES >> 20));
}

static int usage_error(const char *what, const char *arg)
{
	fprintf(stderr, PROGRAM ": %s %s\n", what, arg);
	usage(stderr);
	return 2;
}

static int parse_threads(const char *s, unsigned *threads)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(s, &end, 10);
	if (errno || end == s || *end || n < 1 || n > MAX_THREADS)
		return -1;
	*threads = (unsigned)n;
	return 0;
}

/* 0 to go on, or the exit status (-h is 0 too: *done says so). */
static int parse(int argc, char **argv, struct options *o, int *done)
{
	static const struct option longs[] = {
		{ "output", required_argument, NULL, 'o' }, { "jobs", required_argument, NULL, 'j' },
		{ "progress", no_argument, NULL, 'P' },    { "no-progress", no_argument, NULL, 'N' },
		{ "salvage", no_argument, NULL, 'S' },     { "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int c;

	*o = (struct options){ .threads = cpus > 0 ? (unsigned)cpus : 1, .progress = -1 };
	*done = 0;
	optind = 0; /* a fresh scan: tests call this more than once */
	opterr = 0;
	while ((c = getopt_long(argc, argv, "o:j:h", longs, NULL)) != -1) {
		switch (c) {
		case 'o': o->output = optarg; break;
		case 'j':
			if (parse_threads(optarg, &o->threads) < 0)
				return usage_error("-j takes a number of threads from 1 to 1024, not", optarg);
			break;
		case 'P': o->progress = 1; break;
		case 'N': o->progress = 0; break;
		case 'S': o->salvage = true; break;
		case 'h': usage(stdout); *done = 1; return 0;
		default:
			return usage_error("unknown option or missing argument:", argv[optind - 1]);
		}
	}
	return command_dir_operand("log2csv", argc, argv, usage, &o->dir) < 0 ? 0 : 2;
}

static void show_progress(void *arg, uint64_t rows, uint64_t total)
{
	progress_bar_show(arg, rows, total);
}

/* A new temporary file next to output, ".NAME.XXXXXX" (its name in tmp). */
static int open_temporary(const char *output, char *tmp, size_t tmplen)
{
	const char *slash = strrchr(output, '/');
	int dirlen = slash ? (int)(slash - output + 1) : 0;
	mode_t mask = umask(0);
	int fd;

	umask(mask);
	if ((size_t)snprintf(tmp, tmplen, "%.*s.%s.XXXXXX", dirlen, output, output + dirlen) >= tmplen) {
		errno = ENAMETOOLONG;
		return -1;
	}
	fd = mkstemp(tmp);
	if (fd >= 0)
		fchmod(fd, 0666 & ~mask); /* mkstemp's 0600 is for secrets; this is a report */
	return fd;
}

/* What a conversion reads: the log mapped, its sites (until the rows' parts are
 * made of them), the parts. */
struct inputs {
	struct log_file log;
	struct log_sites sites;
	struct log_row_parts parts;
};

static void close_inputs(struct inputs *in)
{
	log_row_parts_free(&in->parts);
	log_sites_free(&in->sites);
	log_file_close(&in->log);
}

/* 0, or -1 after saying why on stderr (a truncated log is fine with --salvage). */
static int open_inputs(struct inputs *in, const struct options *o, const char *log_path, const char *sites_path)
{
	char err[1024];
	int status = log_file_map(&in->log, log_path, err, sizeof(err));

	memset(&in->sites, 0, sizeof(in->sites));
	memset(&in->parts, 0, sizeof(in->parts));
	if (status < 0 || (status == LOG_FILE_TRUNCATED && !o->salvage)) {
		fprintf(stderr, PROGRAM ": %s%s\n", err, status < 0 ? "" : " (--salvage converts the entries before it)");
		close_inputs(in);
		return -1;
	}
	if (status == LOG_FILE_TRUNCATED)
		fprintf(stderr, PROGRAM ": warning: %s: converting the entries before it\n", err);
	status = o->salvage ? log_sites_load_partial(&in->sites, sites_path, err, sizeof(err))
			    : log_sites_load(&in->sites, sites_path, err, sizeof(err));
	if (status < 0) {
		fprintf(stderr, PROGRAM ": %s\n", err);
		close_inputs(in);
		return -1;
	}
	if (status > 0)
		fprintf(stderr, PROGRAM ": warning: %s: keeping the sites before it\n", err);
	if (log_row_parts_init(&in->parts, &in->sites) < 0) {
		fprintf(stderr, PROGRAM ": out of memory for the names of %u sites\n", in->sites.count);
		close_inputs(in);
		return -1;
	}
	log_sites_free(&in->sites); /* the parts hold what rows need of them */
	return 0;
}

/* Converts into fd; 0, 1 (stopped early with --salvage, said on stderr) or -1. */
static int write_rows(struct inputs *in, const struct options *o, int fd, const char *log_path, const char *output)
{
	struct progress_bar bar;
	struct log_csv job = { .log = &in->log, .parts = &in->parts, .out = fd, .threads = o->threads,
			       .keep_before_corrupt = o->salvage, .any_site = o->salvage };
	char err[1024];
	int status;

	if (o->progress > 0 || (o->progress < 0 && isatty(STDERR_FILENO))) {
		progress_bar_start(&bar, stderr, "entries");
		job.progress = show_progress;
		job.progress_arg = &bar;
	}
	status = log_csv_write(&job, err, sizeof(err));
	if (job.progress)
		progress_bar_clear(&bar);
	if (status < 0)
		fprintf(stderr, PROGRAM ": %s: %s\n", job.write_failed ? output : log_path, err);
	else if (status > 0)
		fprintf(stderr, PROGRAM ": warning: %s: %s: kept the %llu rows before it\n", log_path, err,
			(unsigned long long)job.rows);
	return status;
}

/* -1 after naming output and errno's reason on stderr. */
static int output_failed(const char *output)
{
	fprintf(stderr, PROGRAM ": %s: %s\n", output, strerror(errno));
	return -1;
}

/* Closes fd, which status came from; -1 if that or closing failed. */
static int close_output(int fd, const char *output, int status)
{
	if (close(fd) < 0 && status >= 0)
		return output_failed(output);
	return status;
}

/* Straight into output: a device, a pipe or a link, which a rename would replace
 * (-o /dev/null must stay the device). */
static int write_through(struct inputs *in, const struct options *o, const char *log_path, const char *output)
{
	int fd = open(output, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);

	if (fd < 0)
		return output_failed(output);
	return close_output(fd, output, write_rows(in, o, fd, log_path, output));
}

/* The CSV under a temporary name, renamed to output when whole (removed if not). */
static int write_file(struct inputs *in, const struct options *o, const char *log_path, const char *output)
{
	char tmp[PATH_MAX];
	int fd = open_temporary(output, tmp, sizeof(tmp)), status;

	if (fd < 0)
		return output_failed(output);
	status = close_output(fd, output, write_rows(in, o, fd, log_path, output));
	if (status >= 0 && rename(tmp, output) < 0)
		status = output_failed(output);
	if (status < 0)
		unlink(tmp);
	return status;
}

/* Whether output names the same file as one of the inputs (which it would replace). */
static bool replaces_an_input(const char *output, const char *log_path, const char *sites_path)
{
	const char *inputs[] = { log_path, sites_path };
	struct stat out, in;

	if (stat(output, &out) < 0 || !S_ISREG(out.st_mode))
		return false;
	for (size_t i = 0; i < sizeof(inputs) / sizeof(inputs[0]); i++)
		if (stat(inputs[i], &in) == 0 && in.st_dev == out.st_dev && in.st_ino == out.st_ino)
			return true;
	return false;
}

static int convert(const struct options *o, const char *log_path, const char *sites_path, const char *output)
{
	struct inputs in;
	struct stat st;
	int status;

	if (strcmp(output, "-") != 0 && replaces_an_input(output, log_path, sites_path)) {
		fprintf(stderr, PROGRAM ": %s: the CSV would replace an input (the log or its sites file)\n", output);
		return 2;
	}
	if (open_inputs(&in, o, log_path, sites_path) < 0)
		return 1;
	if (!strcmp(output, "-"))
		status = write_rows(&in, o, STDOUT_FILENO, log_path, "stdout");
	else if (lstat(output, &st) == 0 && !S_ISREG(st.st_mode))
		status = write_through(&in, o, log_path, output);
	else
		status = write_file(&in, o, log_path, output);
	close_inputs(&in);
	return status < 0 ? 1 : 0;
}

int log2csv_main(int argc, char **argv)
{
	struct options o;
	char log_path[PATH_MAX], sites_path[PATH_MAX], output[PATH_MAX];
	const char *sep;
	int done, status = parse(argc, argv, &o, &done);

	if (status || done)
		return status;
	sep = o.dir[0] && o.dir[strlen(o.dir) - 1] == '/' ? "" : "/"; /* "DIR/" gives DIR/FILE */

	if ((size_t)snprintf(log_path, sizeof(log_path), "%s%s%s", o.dir, sep, LOG_FILE_NAME) >= sizeof(log_path) ||
	    (size_t)snprintf(sites_path, sizeof(sites_path), "%s%s%s", o.dir, sep, LOG_SITES_FILE_NAME) >=
		    sizeof(sites_path) ||
	    (size_t)snprintf(output, sizeof(output), "%s%s%s", o.dir, sep, DEFAULT_OUTPUT) >= sizeof(output))
		return usage_error("DIR is too long:", o.dir);
	return convert(&o, log_path, sites_path, o.output ? o.output : output);
}
