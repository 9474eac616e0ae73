/* A one-line progress bar on a terminal (stderr): percent, rate, time left. */
#ifndef SYSTRACE_PROGRESS_BAR_H
#define SYSTRACE_PROGRESS_BAR_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

struct progress_bar {
	FILE *out;
	const char *unit;       /* what is counted, e.g. "entries" */
	struct timespec start;
	bool shown;
};

void progress_bar_start(struct progress_bar *b, FILE *out, const char *unit);
/* Redraws the line: done of total, the rate since the start and the time left. */
void progress_bar_show(struct progress_bar *b, uint64_t done, uint64_t total);
/* Erases the line, if it was drawn. */
void progress_bar_clear(struct progress_bar *b);

#endif
