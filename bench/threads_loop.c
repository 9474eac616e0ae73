/* threads_loop [--allow-filter] [T [M]]: T threads (default 4) each make M raw
 * getppid system calls (default 1,000,000) from one shared syscall instruction.
 * The threads are created first and released together (a barrier); the main thread
 * never calls the site itself, so the site's first call happens with every thread
 * alive (under systrace --patch=single it then stays unpatched).
 * Prints the time from the release to the last join (clock_gettime, the vDSO) as
 * ns per call over all T*M calls, and each thread's own ns per call.
 * --allow-filter: as getppid_loop (allow_filter.c). */
#include "allow_filter.h"
#include "raw_getppid.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static pthread_barrier_t start;
static long calls_per_thread;

struct worker {
    pthread_t thread;
    long sum;
    double seconds;
};

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void *work(void *arg)
{
    struct worker *w = arg;
    long sum = 0;

    pthread_barrier_wait(&start);
    double t0 = now();
    for (long i = 0; i < calls_per_thread; i++)
        sum += raw_getppid();
    w->seconds = now() - t0;
    w->sum = sum;
    return NULL;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    int filter = argc > 1 && strcmp(argv[1], "--allow-filter") == 0;
    int nthreads = argc > 1 + filter ? atoi(argv[1 + filter]) : 4;
    calls_per_thread = argc > 2 + filter ? strtol(argv[2 + filter], NULL, 10) : 1000000;
    if (nthreads < 1 || calls_per_thread < 0) {
        fprintf(stderr, "usage: threads_loop [--allow-filter] [THREADS [CALLS_PER_THREAD]]\n");
        return 2;
    }
    struct worker *w = calloc((size_t)nthreads, sizeof(*w));
    double *per = calloc((size_t)nthreads, sizeof(*per));
    if (!w || !per)
        return 1;

    if (filter && allow_filter_install((const void *)raw_getppid) != 0)
        return 1;
    pthread_barrier_init(&start, NULL, (unsigned)nthreads + 1);
    for (int i = 0; i < nthreads; i++)
        if (pthread_create(&w[i].thread, NULL, work, &w[i]) != 0) {
            fprintf(stderr, "threads_loop: pthread_create failed\n");
            return 1;
        }
    pthread_barrier_wait(&start);
    double t0 = now();
    long sum = 0;
    for (int i = 0; i < nthreads; i++) {
        pthread_join(w[i].thread, NULL);
        sum += w[i].sum;
        per[i] = calls_per_thread ? w[i].seconds * 1e9 / (double)calls_per_thread : 0.0;
    }
    double s = now() - t0;
    long total = (long)nthreads * calls_per_thread;
    qsort(per, (size_t)nthreads, sizeof(*per), by_value);
    printf("threads_loop: %d threads x %ld calls = %ld calls in %.3f s, loop %.1f ns/call over all calls; "
           "per thread ns/call: min %.1f, median %.1f, max %.1f (ppid sum %ld)\n",
           nthreads, calls_per_thread, total, s, total ? s * 1e9 / (double)total : 0.0,
           per[0], per[nthreads / 2], per[nthreads - 1], sum);
    free(w);
    free(per);
    return 0;
}
