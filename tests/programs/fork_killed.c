/* Processes killed in the middle of fork: each of N rounds starts a child that
 * forks (and reaps) grandchildren in a loop, and kills it with SIGKILL after 1-3 ms.
 * A grandchild the kernel made just before its parent died is reported by no fork
 * event: the tracer must still let it run (it must not wait for that event) and
 * count it. Prints "done N rounds" and exits 0. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 100;

	srand(1);
	for (int r = 0; r < rounds; r++) {
		pid_t child = fork();

		if (child == 0) {
			for (;;) {
				pid_t grandchild = fork();

				if (grandchild == 0)
					_exit(0);
				if (grandchild > 0)
					waitpid(grandchild, NULL, 0);
			}
		}
		usleep(1000 + rand() % 2000);
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
	}
	printf("done %d rounds\n", rounds);
	return 0;
}
