/* Runs n children one after another, each child() (which must not return), and
 * says whether every one ended with the wait status want: 0 for a clean exit, or
 * a signal's number for a death by it. */
#ifndef CHILDREN_IN_TURN_H
#define CHILDREN_IN_TURN_H

#include <stdbool.h>
#include <sys/wait.h>
#include <unistd.h>

static inline bool children_in_turn(int n, void (*child)(void), int want)
{
	bool ok = true;
	int status;

	for (int i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid == 0)
			child();
		if (pid < 0 || waitpid(pid, &status, 0) != pid || status != want)
			ok = false;
	}
	return ok;
}

#endif
