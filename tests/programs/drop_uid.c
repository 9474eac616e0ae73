/* Runs argv[1...] as user and group 65534 (nobody), dropped from root: the library
 * in the new program cannot open the tracer's region (/proc/<tracer>/fd/N belongs to
 * root), so that image must stay on the slow path, exactly counted, with
 * library=region-unreachable. Exits 2 when not run as root. */
#define _GNU_SOURCE
#include <grp.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 2 || geteuid() != 0) {
		fprintf(stderr, "drop_uid: usage: drop_uid COMMAND [ARG...], as root\n");
		return 2;
	}
	if (setgroups(0, NULL) < 0 || setresgid(65534, 65534, 65534) < 0 || setresuid(65534, 65534, 65534) < 0) {
		perror("drop_uid");
		return 1;
	}
	execv(argv[1], argv + 1);
	perror("drop_uid: execv");
	return 127;
}
