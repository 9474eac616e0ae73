#include "region_handout.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fd_limit.h"
#include "shared_region.h"
#include "tasks.h"

/* The region's path and identity, the same for every serving thread; each thread's
 * own socket, so that a connection is accepted by the thread that serves the image
 * (its tables alone say whether the peer is in its set-up: tasks.h) */
static struct region_reach shared;
static _Thread_local struct region_reach reach;
static _Thread_local int listener = -1;

/* This thread's socket, at a name nobody else holds: another tracer's, another
 * serving thread's or a squatter's fails the bind. */
static bool listen_here(char *err, size_t errlen)
{
	reach = shared;
	listener = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (listener < 0) {
		snprintf(err, errlen, "cannot make the socket that hands out the shared region: %s", strerror(errno));
		return false;
	}
	for (int tries = 0; tries < 8; tries++) {
		uint64_t nonce = 0;
		int n;

		if (getrandom(&nonce, sizeof(nonce), 0) != sizeof(nonce))
			nonce = (uint64_t)tries;
		reach.addr = (struct sockaddr_un){ .sun_family = AF_UNIX };
		n = snprintf(reach.addr.sun_path + 1, sizeof(reach.addr.sun_path) - 1, "systrace-%d-%016llx",
			     (int)getpid(), (unsigned long long)nonce);
		reach.addr_len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
		if (bind(listener, (struct sockaddr *)&reach.addr, reach.addr_len) == 0 && listen(listener, 64) == 0)
			return true;
	}
	snprintf(err, errlen, "cannot bind the socket that hands out the shared region: %s", strerror(errno));
	close(listener);
	listener = -1;
	reach.addr_len = 0;
	return false;
}

bool handout_open(char *err, size_t errlen)
{
	struct stat st;

	if (fstat(region_fd(), &st) < 0) {
		snprintf(err, errlen, "cannot stat the shared region: %s", strerror(errno));
		return false;
	}
	snprintf(shared.path, sizeof(shared.path), "/proc/%d/fd/%d", (int)getpid(), region_fd());
	shared.dev = st.st_dev;
	shared.ino = st.st_ino;
	if (listen_here(err, errlen))
		return true;
	shared.path[0] = '\0'; /* (no region for the other threads to hand out either) */
	return false;
}

void handout_open_thread(void)
{
	char err[128];

	/* (without a socket of its own, this thread's images reach the region by its
	 * path only: in a chroot they stay on the slow path, counted as ever) */
	if (shared.path[0])
		listen_here(err, sizeof(err));
}

const struct region_reach *handout_reach(void)
{
	return &reach;
}

/* Whether the peer of a connection may have the region: an image in its set-up at
 * exec (early.c), with the tracer's effective uid. */
static bool may_have(int conn)
{
	struct ucred peer;
	socklen_t len = sizeof(peer);
	const struct thread *t;

	if (getsockopt(conn, SOL_SOCKET, SO_PEERCRED, &peer, &len) < 0 || len != sizeof(peer))
		return false;
	t = thread_find(peer.pid);
	return t && t->setup && peer.uid == geteuid();
}

static void send_region(int conn)
{
	char byte = 'r';
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} control;
	struct iovec iov = { &byte, 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.buf,
			      .msg_controllen = sizeof(control.buf) };
	struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
	int fd = region_fd();

	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(fd));
	/* the image's socket is fresh: one byte always fits (nothing waits on it) */
	sendmsg(conn, &msg, MSG_DONTWAIT | MSG_NOSIGNAL);
}

void handout_serve(void)
{
	int conn;

	/* (short of descriptors, what the tracer keeps is given back, and it tries again) */
	while (listener >= 0 && ((conn = accept4(listener, NULL, NULL, SOCK_CLOEXEC)) >= 0
				 || (fd_limit_retry(errno) && (conn = accept4(listener, NULL, NULL, SOCK_CLOEXEC)) >= 0))) {
		if (may_have(conn))
			send_region(conn);
		close(conn);
	}
}
