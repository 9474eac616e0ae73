#include "fd_limit.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/resource.h>

static struct rlimit inherited;
static bool raised;
static bool (*releasers[4])(void);

void fd_limit_raise(void)
{
	struct rlimit raise;

	if (getrlimit(RLIMIT_NOFILE, &inherited) < 0 || inherited.rlim_cur == inherited.rlim_max)
		return;
	raise = (struct rlimit){ inherited.rlim_max, inherited.rlim_max };
	raised = setrlimit(RLIMIT_NOFILE, &raise) == 0;
}

void fd_limit_restore_inherited(void)
{
	if (raised)
		setrlimit(RLIMIT_NOFILE, &inherited);
}

void fd_limit_on_short(bool (*release)(void))
{
	for (size_t i = 0; i < sizeof(releasers) / sizeof(releasers[0]); i++) {
		if (releasers[i] == release)
			return;
		if (!releasers[i]) {
			releasers[i] = release;
			return;
		}
	}
	abort(); /* a releaser more than the table holds: make it bigger */
}

bool fd_limit_retry(int err)
{
	bool gave = false;

	for (size_t i = 0; err == EMFILE && i < sizeof(releasers) / sizeof(releasers[0]) && releasers[i]; i++)
		gave |= releasers[i]();
	return gave;
}

int fd_open(const char *path, int flags)
{
	int fd = open(path, flags);

	if (fd < 0 && fd_limit_retry(errno))
		fd = open(path, flags);
	return fd;
}
