/* 32-bit syscalls from a 64-bit process: 7 `int $0x80` getpid (i386 number 20, which
 * is writev on x86_64) and 1 `int $0x80` getppid (i386 number 64, semget on x86_64),
 * plus 5 ordinary 64-bit getpid and 1 64-bit getppid. A tracer must count them
 * under the i386 ABI. Exits 0 when every result equals the pid / ppid.
 * `i386_int80 probe`: tries one int $0x80 in a child and exits 0 when the kernel
 * runs it, 77 when it has no IA32 emulation (the child gets SIGSEGV). */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static long int80(long nr)
{
	long ret;
	__asm__ volatile("int $0x80" : "=a"(ret) : "a"(nr) : "memory", "r8", "r9", "r10", "r11");
	return ret;
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "probe") == 0) {
		pid_t pid = fork();
		if (pid == 0)
			_exit(int80(20) == getpid() ? 0 : 1);
		int st;
		waitpid(pid, &st, 0);
		if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
			return 0;
		fprintf(stderr, "i386_int80: no IA32 emulation (status %#x)\n", st);
		return 77;
	}
	long pid = syscall(SYS_getpid), ppid = getppid();
	int bad = 0;
	for (int i = 0; i < 4; i++)
		if (syscall(SYS_getpid) != pid)
			bad = 1;
	for (int i = 0; i < 7; i++)
		if (int80(20) != pid)
			bad = 1;
	if (int80(64) != ppid)
		bad = 1;
	if (bad)
		fprintf(stderr, "i386_int80: a result was wrong\n");
	return bad;
}
