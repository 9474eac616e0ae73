/* What the tracer reads from /proc about a traced process. */
#ifndef SYSTRACE_PROCFS_H
#define SYSTRACE_PROCFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

uint64_t monotonic_ns(void);
/* At start-up: the kept stat descriptors' release when descriptors run short
 * (fd_limit.h). */
void procfs_setup(void);
/* Whether a thread is on a CPU or waiting for one (not asleep in a syscall). */
bool procfs_is_running(pid_t tid);
/* Its state letter in /proc (R, S, T, t, Z, ...); '?' if it cannot be read. */
char procfs_state(pid_t tid);
/* A numeric field of /proc/<tid>/status ("Tgid" in base 10, "SigCgt" in 16, ...). */
bool procfs_status_u64(pid_t tid, const char *key, int base, uint64_t *value);
/* Several, in one read of the file; false unless every one was found. */
struct status_field {
	const char *key;
	int base;
	uint64_t value;
};
bool procfs_status(pid_t tid, struct status_field *fields, size_t n);
/* The numbers of a line of /proc/<tid>/status that holds several ("Uid", "NSpid"):
 * how many were read into values (at most max), 0 if none; the _read form from fd,
 * as procfs_status_read reads (NSpid comes after Groups:, which can be longer
 * than 4 KiB). */
size_t procfs_status_list(pid_t tid, const char *key, uint64_t *values, size_t max);
size_t procfs_status_list_read(int fd, const char *key, uint64_t *values, size_t max);
/* The inode of tid's pid namespace (/proc/<tid>/ns/pid), 0 if unreadable. */
uint64_t procfs_pid_ns(pid_t tid);
/* The same as procfs_status from fd, a status file open at its start: read line by
 * line to the last field wanted, however far (a long Groups: line pushes the Sig*
 * lines past the first 4 KiB). At most PROCFS_STATUS_MAX fields. */
#define PROCFS_STATUS_MAX 16
bool procfs_status_read(int fd, struct status_field *fields, size_t n);
/* The executable's path (malloc'd), or NULL. */
char *procfs_exe(pid_t pid);

/* A signal about to be delivered to tid: whether tid has a handler for it is read
 * from /proc/TID/stat (status for a real-time signal) once, when first asked (most
 * deliveries never ask). */
struct delivery {
	pid_t tid;
	int sig;
	int caught; /* -1 until read */
};
bool delivery_caught(struct delivery *d);

#endif
