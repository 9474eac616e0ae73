/* first_touch FAR N [RANGES]: what a new process pays for touching memory in an
 * address range it has no page tables for, against memory the kernel places next
 * to its other mappings (docs/benchmarks.md, "first touches of memory": the gate
 * and the region sit at one far address for a whole run). N times: fork a child
 * that maps and writes one page in each of RANGES (default 1) ranges, 1 GB apart,
 * at the far address systrace's gate used in the profile (FAR = 1) or where mmap
 * puts it (FAR = 0), and exits; prints the wall time per child. Compare FAR = 0
 * and 1 in turns, in one run. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define FAR_ADDRESS 0x6f5ee7000000ul

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void child(int far, int ranges)
{
	for (int k = 0; k < ranges; k++) {
		void *hint = far ? (void *)(FAR_ADDRESS + (unsigned long)k * (1ul << 30)) : NULL;
		volatile char *p = mmap(hint, 4096, PROT_READ | PROT_WRITE,
					MAP_PRIVATE | MAP_ANONYMOUS | (far ? MAP_FIXED_NOREPLACE : 0), -1, 0);

		if (p == MAP_FAILED)
			_exit(1);
		*p = 1;
	}
	_exit(0);
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: first_touch FAR(0|1) N [RANGES]\n");
		return 2;
	}
	int far = atoi(argv[1]), n = atoi(argv[2]), ranges = argc > 3 ? atoi(argv[3]) : 1;
	double start = now();

	for (int i = 0; i < n; i++) {
		pid_t pid = fork();
		int status;

		if (pid < 0) {
			perror("first_touch: fork");
			return 1;
		}
		if (pid == 0)
			child(far, ranges);
		if (waitpid(pid, &status, 0) < 0 || status != 0) {
			fprintf(stderr, "first_touch: a child failed (the far range taken?)\n");
			return 1;
		}
	}
	printf("%s, %d range(s): %.1f us per child\n", far ? "far" : "near", ranges, (now() - start) / n * 1e6);
	return 0;
}
