/* An execve that fails, made inline with an environment that lacks systrace's
 * variables: the tracer puts a new environment in its place (rdx), and must give the
 * program its own register back when the call fails. Exits 1 if rdx changed. */
#include <stdio.h>

int main(void)
{
	static char *argv[] = { "/nonexistent/program", NULL }, *envp[] = { "A=1", NULL };
	char **rdx = envp;
	long ret;

	__asm__ volatile("mov $59,%%eax\n\tsyscall"
			 : "=a"(ret), "+d"(rdx)
			 : "D"(argv[0]), "S"(argv)
			 : "rcx", "r11", "memory");
	if (ret != -2 || rdx != envp) {
		fprintf(stderr, "failed_execve_env: execve returned %ld, rdx %s\n", ret,
			rdx == envp ? "preserved" : "changed");
		return 1;
	}
	return 0;
}
