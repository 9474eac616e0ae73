#include "tracer_nice.h"

#include <errno.h>
#include <stdbool.h>
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

/* The lowest nice RLIMIT_NICE lets an unprivileged thread take (20 - limit). */
static int rlimit_floor(void)
{
	struct rlimit r;

	if (getrlimit(RLIMIT_NICE, &r) < 0 || r.rlim_cur == RLIM_INFINITY || r.rlim_cur > 40)
		return -20;
	return 20 - (int)r.rlim_cur;
}

bool tracer_nice_apply(int adjustment, int *nice)
{
	id_t self = (id_t)gettid(); /* this thread, not the process */
	int now = nice_of(self, 0), wanted = now + adjustment;

	wanted = wanted < -20 ? -20 : wanted > 19 ? 19 : wanted;
	if (wanted != now && setpriority(PRIO_PROCESS, self, wanted) < 0 && wanted < now) {
		/* refused (EACCES): as far as RLIMIT_NICE goes, if that is lower at all */
		int floor = rlimit_floor();

		if (floor < now)
			setpriority(PRIO_PROCESS, self, floor > wanted ? floor : wanted);
	}
	*nice = nice_of(self, now);
	return *nice == wanted;
}
