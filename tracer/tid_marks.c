#include "tid_marks.h"

#include <stdio.h>
#include <stdlib.h>

static _Atomic uint8_t *table;
static size_t ntable;

void tid_marks_setup(void)
{
	FILE *f = fopen("/proc/sys/kernel/pid_max", "re");
	unsigned long max = 0;

	if (f) {
		if (fscanf(f, "%lu", &max) != 1)
			max = 0;
		fclose(f);
	}
	/* (calloc maps it untouched: only the pages of the tids marked are made) */
	if (max && (table = calloc(max, sizeof(*table))))
		ntable = max;
}

static _Atomic uint8_t *mark_of(pid_t tid)
{
	return tid > 0 && (size_t)tid < ntable ? &table[tid] : NULL;
}

uint8_t tid_marks(pid_t tid)
{
	_Atomic uint8_t *m = mark_of(tid);

	return m ? *m : 0;
}

void tid_mark_set(pid_t tid, uint8_t marks)
{
	_Atomic uint8_t *m = mark_of(tid);

	if (m)
		*m |= marks;
}

/* (a page of the table is made only once a tid of it is marked: what clears marks
 * that are not there writes nothing) */
void tid_mark_clear(pid_t tid, uint8_t clear)
{
	_Atomic uint8_t *m = mark_of(tid);

	if (m && (*m & clear))
		*m &= (uint8_t)~clear;
}

void tid_marks_forget(pid_t tid)
{
	tid_mark_clear(tid, 0xff);
}

void tid_marks_move(pid_t from, pid_t to)
{
	uint8_t taken = tid_marks(from);

	tid_marks_forget(from);
	tid_marks_forget(to);
	if (taken)
		tid_mark_set(to, taken);
}
