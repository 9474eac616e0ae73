#include <stdlib.h>
#include <string.h>

#include "progress_bar.h"
#include "suites.h"

/* What one show (and a clear, if asked) draws. */
static char *drawn(uint64_t done, uint64_t total, bool clear)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	struct progress_bar b;

	progress_bar_start(&b, f, "entries");
	b.start.tv_sec -= 2; /* as if started two seconds ago */
	progress_bar_show(&b, done, total);
	if (clear)
		progress_bar_clear(&b);
	fclose(f);
	return text;
}

START_TEST(line_has_percent_rate_and_time_left)
{
	char *text = drawn(1000000, 4000000, false);

	/* 1 M in 2 s: 0.50 M/s, 3 M left: 6 s */
	ck_assert_str_eq(text, "\r[#######.......................]  25.0%  0.50 M entries/s  ETA 0:06\033[K");
	free(text);
}
END_TEST

START_TEST(finished_line_has_no_time_left_and_is_cleared)
{
	char *text = drawn(4000000, 4000000, true);

	ck_assert_str_eq(text, "\r[##############################] 100.0%  2.00 M entries/s\033[K\r\033[K");
	free(text);
}
END_TEST

START_TEST(clear_erases_only_a_drawn_line)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	struct progress_bar b;

	progress_bar_start(&b, f, "entries");
	progress_bar_clear(&b);
	fclose(f);
	ck_assert_str_eq(text, "");
	free(text);
}
END_TEST

Suite *progress_bar_suite(void)
{
	return single_case_suite("progress_bar", (const TTest *const[]){
		line_has_percent_rate_and_time_left, finished_line_has_no_time_left_and_is_cleared,
		clear_erases_only_a_drawn_line, NULL });
}
