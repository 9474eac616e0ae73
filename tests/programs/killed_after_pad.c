/* A ptraced call that returns -ENOSYS and whose thread dies of a signal as it
 * returns: counted once. Its seccomp stop was seen (the call counted there); the
 * signal's stop takes its result from the return pad and puts rip after its own
 * syscall, so that at the exit event it looks like a call killed at its entry
 * (orig_rax its number, rax -ENOSYS), which events.c's count_unseen_entry counts
 * when no stop of it was seen.
 *
 * By construction, not by timing: main's getpriority, at a site of its own (its
 * first call there stops in the tracer, and returns through the pad), goes to a
 * supervisor thread (main's filter: SECCOMP_RET_USER_NOTIF with WAIT_KILLABLE_RECV:
 * once the notification is received, only a fatal signal ends the call's wait; a
 * traced thread's SIGTERM is not one until delivered). The supervisor, holding the
 * notification (main is known to wait in the call), sends main SIGTERM, which stays
 * pending, then answers ENOSYS: the call returns -ENOSYS with SIGTERM pending, and
 * the process dies of SIGTERM (its default action) at that return.
 * Calls at site_getpriority's site: exactly 1 (with 1 error). Dies of SIGTERM; exits
 * 2 when the construction does not hold. */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV
#define SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV (1UL << 5)
#endif

static int listener_pipe[2];
static pid_t main_tid;

/* Not static: the e2e test finds the site by this name. */
__attribute__((noinline)) long site_getpriority(void)
{
	long ret;

	__asm__ volatile("mov $140,%%eax\n\tsyscall" : "=a"(ret) : "D"(PRIO_PROCESS), "S"(0L) : "rcx", "r11", "memory");
	return ret;
}

static void *supervisor(void *arg)
{
	struct seccomp_notif req = { 0 };
	struct seccomp_notif_resp resp;
	int fd;

	(void)arg;
	if (read(listener_pipe[0], &fd, sizeof(fd)) != sizeof(fd))
		exit(2);
	/* (a tracer's stop of main before the notification is received makes it again) */
	while (ioctl(fd, SECCOMP_IOCTL_NOTIF_RECV, &req) != 0)
		if (errno != EINTR && errno != ENOENT)
			exit(2);
	if (req.data.nr != SYS_getpriority || syscall(SYS_tgkill, getpid(), main_tid, SIGTERM) != 0)
		exit(2);
	resp = (struct seccomp_notif_resp){ .id = req.id, .error = -ENOSYS };
	if (ioctl(fd, SECCOMP_IOCTL_NOTIF_SEND, &resp) != 0)
		exit(2);
	pause(); /* the process dies of main's SIGTERM */
	exit(2);
}

int main(void)
{
	struct sock_filter code[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_getpriority, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = sizeof(code) / sizeof(code[0]), .filter = code };
	pthread_t th;
	int fd;

	main_tid = (pid_t)syscall(SYS_gettid);
	/* the supervisor is made first: the filter is on the installing thread only */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || pipe(listener_pipe) != 0
	    || pthread_create(&th, NULL, supervisor, NULL) != 0)
		return 2;
	fd = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
			  SECCOMP_FILTER_FLAG_NEW_LISTENER | SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV, &prog);
	if (fd < 0 || write(listener_pipe[1], &fd, sizeof(fd)) != sizeof(fd))
		return 2;
	site_getpriority();
	fprintf(stderr, "killed_after_pad: alive after the call\n");
	return 2;
}
