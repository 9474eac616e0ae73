#include "progress_bar.h"

#define BAR_WIDTH 30

void progress_bar_start(struct progress_bar *b, FILE *out, const char *unit)
{
	b->out = out;
	b->unit = unit;
	b->shown = false;
	clock_gettime(CLOCK_MONOTONIC, &b->start);
}

static double seconds_since(const struct timespec *start)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - start->tv_sec) + (double)(now.tv_nsec - start->tv_nsec) / 1e9;
}

void progress_bar_show(struct progress_bar *b, uint64_t done, uint64_t total)
{
	double fraction = total ? (double)done / (double)total : 1.0, elapsed = seconds_since(&b->start);
	double rate = elapsed > 0 ? (double)done / elapsed : 0;
	int filled = (int)(fraction * BAR_WIDTH);
	char bar[BAR_WIDTH + 1];

	for (int i = 0; i < BAR_WIDTH; i++)
		bar[i] = i < filled ? '#' : '.';
	bar[BAR_WIDTH] = '\0';
	/* \033[K erases what a longer earlier line left */
	fprintf(b->out, "\r[%s] %5.1f%%  %.2f M %s/s", bar, fraction * 100, rate / 1e6, b->unit);
	if (rate > 0 && done < total) {
		unsigned long left = (unsigned long)((double)(total - done) / rate + 0.5);

		fprintf(b->out, "  ETA %lu:%02lu", left / 60, left % 60);
	}
	fputs("\033[K", b->out);
	fflush(b->out);
	b->shown = true;
}

void progress_bar_clear(struct progress_bar *b)
{
	if (b->shown) {
		fputs("\r\033[K", b->out);
		fflush(b->out);
	}
	b->shown = false;
}
