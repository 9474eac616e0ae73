/* The output folder: processes.csv, syscalls.csv and sites.csv are written a row at a
 * time as images end (so memory does not grow with the run), under temporary names
 * that become the real ones only when the run is complete, with summary.csv. */
#ifndef SYSTRACE_OUTPUT_DIR_H
#define SYSTRACE_OUTPUT_DIR_H

#include <stdio.h>
#include <sys/types.h>

#include "csv.h"
#include "image_record.h"
#include "summary.h"

enum output_file { OUTPUT_PROCESSES, OUTPUT_SYSCALLS, OUTPUT_SITES, OUTPUT_SUMMARY, OUTPUT_FILES };

struct output_dir {
	char *dir;
	pid_t pid;   /* in the temporary names and the lock file */
	int lock_fd; /* flock'd DIR/.systrace.lock, held for the run */
	char warning[512]; /* set by output_dir_open when it could not lock the folder */
	FILE *file[OUTPUT_FILES];
	char *buffer[OUTPUT_FILES]; /* each file's stdio buffer (OUTPUT_BUFFER bytes) */
	struct csv_writer csv[OUTPUT_FILES];
	struct totals totals;
	/* per syscall index over the run, for systrace -c: NULL unless asked for */
	struct syscall_count *syscalls;
	bool syscalls_timed;  /* an image came with the times of its calls */
};

/* Creates the folder if needed, locks it for the run (a folder that another live
 * run holds is refused) and opens this run's temporary files. On failure returns -1
 * and puts a message naming the problem in err. */
int output_dir_open(struct output_dir *d, const char *dir, char *err, size_t errlen);
void output_dir_image(struct output_dir *d, const struct image_record *img);
/* From now on, sums every image's calls per syscall into d->syscalls (freed with d). */
void output_dir_count_syscalls(struct output_dir *d);
/* Writes summary.csv, and when every file is whole on disk, gives each its final
 * name and drops the lock; -1 with a message on failure (the temporary files are
 * then removed, as by output_dir_discard). */
int output_dir_commit(struct output_dir *d, char *err, size_t errlen);
/* Removes the temporary files and drops the lock (on a failed run). */
void output_dir_discard(struct output_dir *d);

#endif
