/* getppid_loop [N]: makes N raw getppid system calls (default 1,000,000)
 * from one syscall instruction, then prints the count and the time taken. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>

static __attribute__((noinline)) long raw_getppid(void)
{
    long ret;
    __asm__ volatile("syscall"
                     : "=a"(ret)
                     : "0"((long)SYS_getppid)
                     : "rcx", "r11", "memory");
    return ret;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? strtol(argv[1], NULL, 10) : 1000000;
    struct timespec t0, t1;
    long sum = 0;

    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (long i = 0; i < n; i++)
        sum += raw_getppid();
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    printf("getppid_loop: %ld calls in %.3f s, %.3f us/call (ppid sum %ld)\n",
           n, s, n ? s * 1e6 / (double)n : 0.0, sum);
    return 0;
}
