#include "tracer_nice.h"

#include <errno.h>
#include <sys/resource.h>
#include <unistd.h>

/* The thread's nice value, or fallback if it cannot be read. */
static int nice_of(id_t tid, int fallback)
{
	int n;

	errno = 0;
	n = getpriority(PRIO_PROCESS, tid);
	return errno ? fallback : n;
}

int tracer_nice_apply(int adjustment)
{
	id_t self = (id_t)gettid(); /* this thread, not the process */
	int now = nice_of(self, 0), wanted = now + adjustment;

	wanted = wanted < -20 ? -20 : wanted > 19 ? 19 : wanted;
	if (wanted != now)
		setpriority(PRIO_PROCESS, self, wanted); /* refused (EACCES): as it is */
	return nice_of(self, now);
}
