/* The output folder: processes.csv, syscalls.csv and sites.csv are written a row at a
 * time as images end (so memory does not grow with the run), under temporary names
 * that become the real ones only when the run is complete, with summary.csv. */
#ifndef SYSTRACE_REPORT_H
#define SYSTRACE_REPORT_H

#include <stdio.h>

#include "csv.h"
#include "image_record.h"
#include "summary.h"

enum report_file { REPORT_PROCESSES, REPORT_SYSCALLS, REPORT_SITES, REPORT_SUMMARY, REPORT_FILES };

struct report {
	char *dir;
	FILE *file[REPORT_FILES];
	struct csv_writer csv[REPORT_FILES];
	struct totals totals;
};

/* Creates the folder if needed and opens the temporary files. On failure returns -1
 * and puts a message naming the problem in err. */
int report_open(struct report *r, const char *dir, char *err, size_t errlen);
void report_image(struct report *r, const struct image_record *img);
/* Writes summary.csv and gives every file its final name; -1 with a message on failure. */
int report_commit(struct report *r, char *err, size_t errlen);
/* Removes the temporary files (on a failed run). */
void report_discard(struct report *r);

#endif
