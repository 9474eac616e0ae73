/* libc_loop [N]: N getpid() calls through glibc's wrapper (default 20,000), each a
 * syscall reached from a libc entry point, for the cost of --libc-calls. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    long n = argc > 1 ? strtol(argv[1], NULL, 10) : 20000, sum = 0;

    for (long i = 0; i < n; i++)
        sum += getpid();
    printf("libc_loop: %ld getpid calls (sum %ld)\n", n, sum);
    return 0;
}
