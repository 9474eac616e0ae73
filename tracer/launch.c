#include "launch.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fd_limit.h"
#include "filter.h"
#include "gate.h"
#include "signals.h"

extern char **environ;

/* 0 if path can be executed, else 127 or 126 with errno set */
static int check_executable(const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return errno == ENOENT || errno == ENOTDIR ? 127 : 126;
	if (S_ISDIR(st.st_mode)) {
		errno = EISDIR;
		return 126;
	}
	if (access(path, X_OK) < 0)
		return 126;
	return 0;
}

char *launch_resolve(const char *name, int *status)
{
	const char *path_var = getenv("PATH");
	int first_failure = 127, first_errno = ENOENT;

	if (!*name) {
		*status = 127;
		errno = ENOENT;
		return NULL;
	}
	if (strchr(name, '/')) {
		if ((*status = check_executable(name)) != 0)
			return NULL;
		return strdup(name);
	}
	if (!path_var)
		path_var = "/usr/local/bin:/usr/bin:/bin";
	for (const char *dir = path_var;; dir = strchr(dir, ':') + 1) {
		size_t len = strcspn(dir, ":");
		char *candidate;
		int failure;

		if (asprintf(&candidate, "%.*s%s%s", (int)len, len ? dir : ".", "/", name) < 0)
			abort();
		if ((failure = check_executable(candidate)) == 0)
			return candidate;
		/* like execvp: a file that exists but cannot run beats one that is absent */
		if (failure == 126 && first_failure == 127) {
			first_failure = 126;
			first_errno = errno;
		}
		free(candidate);
		if (!dir[len])
			break;
	}
	*status = first_failure;
	errno = first_errno;
	return NULL;
}

static void child(int sync_fd, const char *path, char **argv, uint64_t allowed_ip)
{
	char go;

	/* wait until the tracer has seized us: the filter's first TRACE must find it */
	if (read(sync_fd, &go, 1) != 1)
		_exit(125);
	close(sync_fd);
	if (filter_install(allowed_ip, SYSTRACE_INSTRUMENT_SYSCALL_IP, SYSTRACE_STACKLESS_SYSCALL_IP) < 0) {
		fprintf(stderr, "systrace: cannot install the seccomp filter: %s\n", strerror(errno));
		_exit(125);
	}
	execve(path, argv, environ);
	if (errno == ENOEXEC) {
		/* like execvp (and env): a file without #! or ELF header is a shell script */
		size_t n = 0;

		while (argv[n])
			n++;
		char *script[n + 2];

		script[0] = "/bin/sh";
		script[1] = (char *)path;
		memcpy(script + 2, argv + 1, n * sizeof(*argv));
		execve(script[0], script, environ);
	}
	/* the tracer saw the failed execve and its error; it reports it */
	_exit(errno == ENOENT ? 127 : 126);
}

pid_t launch_command(const char *path, char **argv, uint64_t allowed_ip)
{
	int sync[2], saved;
	pid_t pid;

	if (pipe2(sync, O_CLOEXEC) < 0)
		return -1;
	pid = fork();
	if (pid < 0) {
		saved = errno;
		close(sync[0]);
		close(sync[1]);
		errno = saved;
		return -1;
	}
	if (pid == 0) {
		signals_restore_inherited();
		fd_limit_restore_inherited();
		close(sync[1]);
		child(sync[0], path, argv, allowed_ip);
	}
	close(sync[0]);
	if (ptrace(PTRACE_SEIZE, pid, 0, LAUNCH_PTRACE_OPTIONS) < 0) {
		saved = errno;
		kill(pid, SIGKILL);
		close(sync[1]);
		errno = saved;
		return -1;
	}
	if (write(sync[1], "g", 1) != 1) {
		saved = errno;
		close(sync[1]);
		errno = saved;
		return -1;
	}
	close(sync[1]);
	return pid;
}
