/* getppid_loop [--allow-filter] [N]: makes N raw getppid system calls (default
 * 1,000,000) from one syscall instruction, then prints the count and the time the
 * loop took (clock_gettime, which is the vDSO: no syscall of its own), so that the
 * per-call time excludes the start of the process.
 * --allow-filter: first install systrace's seccomp filter with every outcome ALLOW
 * (allow_filter.c), the fair native baseline for the in-process path. */
#include "allow_filter.h"
#include "raw_getppid.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int main(int argc, char **argv)
{
    int filter = argc > 1 && strcmp(argv[1], "--allow-filter") == 0;
    long n = argc > 1 + filter ? strtol(argv[1 + filter], NULL, 10) : 1000000;
    struct timespec t0, t1;
    long sum = 0;

    if (filter && allow_filter_install((const void *)raw_getppid) != 0)
        return 1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (long i = 0; i < n; i++)
        sum += raw_getppid();
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    printf("getppid_loop: %ld calls in %.3f s, %.3f us/call, loop %.1f ns/call (ppid sum %ld)\n",
           n, s, n ? s * 1e6 / (double)n : 0.0, n ? s * 1e9 / (double)n : 0.0, sum);
    return 0;
}
