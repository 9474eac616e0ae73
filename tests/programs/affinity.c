/* The CPUs a program may run on, as it sees them: systrace keeps threads that stop
 * often on its own CPU, and must not let the program see that. Prints the number of
 * CPUs sched_getaffinity reports; tries to set an impossible affinity (CPU 1000,
 * which fails) and prints the count again (unchanged); then sets its affinity to
 * the first CPU and prints the count again (it must then be 1: a program's own
 * choice is kept).
 * Each line comes from a separate getaffinity call; exits 0 unless a call fails. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>

int main(void)
{
	cpu_set_t set;
	int first = -1;

	if (sched_getaffinity(0, sizeof(set), &set) < 0)
		return 1;
	printf("%d\n", CPU_COUNT(&set));
	{
		cpu_set_t impossible;

		CPU_ZERO(&impossible);
		CPU_SET(1000, &impossible);
		if (sched_setaffinity(0, sizeof(impossible), &impossible) == 0
		    || sched_getaffinity(0, sizeof(set), &set) < 0)
			return 1;
		printf("%d\n", CPU_COUNT(&set));
	}
	for (int cpu = 0; cpu < CPU_SETSIZE && first < 0; cpu++)
		if (CPU_ISSET(cpu, &set))
			first = cpu;
	CPU_ZERO(&set);
	CPU_SET(first, &set);
	if (sched_setaffinity(0, sizeof(set), &set) < 0 || sched_getaffinity(0, sizeof(set), &set) < 0)
		return 1;
	printf("%d\n", CPU_COUNT(&set));
	return 0;
}
