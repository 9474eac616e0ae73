#include "region_handout.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fd_limit.h"
#include "shared_region.h"
#include "tasks.h"

/* The region's path and identity, the same for every serving thread; each thread's
 * own socket, so that a connection is accepted by the thread that serves it (its
 * tables alone say whether the peer is in its set-up: tasks.h) */
static struct region_reach shared;
static _Thread_local struct region_reach reach;
static _Thread_local int listeners[HANDOUT_NAMES] = { -1, -1 };
/* the folder of the sockets' files ("": none), short enough for their names, and
 * its descriptor */
static char folder[sizeof(((struct sockaddr_un *)0)->sun_path) - sizeof("/2147483647")];
static int folder_fd = -1;
/* Under SYSTRACE_TEST_HANDOUT=wrong-file, what is handed out instead of the region,
 * as a squatter of the socket's name would: another file (/dev/zero), which the
 * set-up must refuse (test_namespaces). -1: the region. */
static int wrong_fd = -1;

static bool listen_at(int fd, struct sockaddr_un *addr, socklen_t *len, size_t name_len)
{
	*len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + name_len);
	if (bind(fd, (struct sockaddr *)addr, *len) == 0 && listen(fd, 64) == 0)
		return true;
	*len = 0;
	return false;
}

/* This thread's socket by its abstract name, one nobody else holds: another
 * tracer's, another serving thread's or a squatter's fails the bind. */
static bool listen_abstract(int fd)
{
	struct sockaddr_un *addr = &reach.addr[HANDOUT_ABSTRACT];

	for (int tries = 0; tries < 8; tries++) {
		uint64_t nonce = 0;
		int n;

		if (getrandom(&nonce, sizeof(nonce), 0) != sizeof(nonce))
			nonce = (uint64_t)tries;
		*addr = (struct sockaddr_un){ .sun_family = AF_UNIX };
		n = snprintf(addr->sun_path + 1, sizeof(addr->sun_path) - 1, "systrace-%d-%016llx", (int)getpid(),
			     (unsigned long long)nonce);
		if (listen_at(fd, addr, &reach.addr_len[HANDOUT_ABSTRACT], 1 + (size_t)n))
			return true;
	}
	return false;
}

/* And by a file in the folder, named for the thread. */
static bool listen_file(int fd)
{
	struct sockaddr_un *addr = &reach.addr[HANDOUT_FILE];
	int n;

	*addr = (struct sockaddr_un){ .sun_family = AF_UNIX };
	n = snprintf(addr->sun_path, sizeof(addr->sun_path), "%s/%d", folder, (int)gettid());
	return folder[0] && listen_at(fd, addr, &reach.addr_len[HANDOUT_FILE], (size_t)n + 1);
}

/* This thread's sockets; false (errno set) if it has none. */
static bool listen_here(void)
{
	bool (*const listen_by[HANDOUT_NAMES])(int) = { listen_abstract, listen_file };
	int saved = 0;

	reach = shared;
	for (int k = 0; k < HANDOUT_NAMES; k++) {
		int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

		if (fd >= 0 && listen_by[k](fd)) {
			listeners[k] = fd;
			continue;
		}
		saved = saved ? saved : errno;
		if (fd >= 0)
			close(fd);
	}
	errno = saved;
	return listeners[HANDOUT_ABSTRACT] >= 0 || listeners[HANDOUT_FILE] >= 0;
}

void handout_close(void)
{
	int fd = folder_fd;
	DIR *d;
	struct dirent *e;

	if (fd < 0)
		return;
	folder_fd = -1;
	/* through the folder's own descriptor: if its name was made to lead elsewhere
	 * since, nothing there is removed */
	if ((d = fdopendir(fd))) {
		while ((e = readdir(d)))
			if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
				unlinkat(fd, e->d_name, 0);
		closedir(d);
	} else {
		close(fd);
	}
	rmdir(folder);
	folder[0] = '\0';
}

/* The folder of the sockets' files, where TMPDIR says, as mktemp does, else (no
 * room there for a socket's name, or no folder made) in /tmp; removed when the
 * tracer exits (or dies by the command's signal: main.c). */
static void make_folder(void)
{
	const char *tmp = getenv("TMPDIR"), *places[2] = { tmp && tmp[0] == '/' ? tmp : NULL, "/tmp" };

	for (int i = 0; i < 2 && folder_fd < 0; i++) {
		int n = places[i] ? snprintf(folder, sizeof(folder), "%s/systrace-%d-XXXXXX", places[i], (int)getpid()) : -1;

		if (n > 0 && (size_t)n < sizeof(folder) && mkdtemp(folder))
			folder_fd = open(folder, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	}
	if (folder_fd < 0 || atexit(handout_close) != 0)
		folder[0] = '\0';
}

bool handout_open(char *err, size_t errlen)
{
	struct stat st;
	const char *test;

	if (fstat(region_fd(), &st) < 0) {
		snprintf(err, errlen, "cannot stat the shared region: %s", strerror(errno));
		return false;
	}
	snprintf(shared.path, sizeof(shared.path), "/proc/%d/fd/%d", (int)getpid(), region_fd());
	shared.dev = st.st_dev;
	shared.ino = st.st_ino;
	make_folder();
	if ((test = getenv("SYSTRACE_TEST_HANDOUT")) && strcmp(test, "wrong-file") == 0)
		wrong_fd = open("/dev/zero", O_RDWR | O_CLOEXEC);
	if (listen_here())
		return true;
	snprintf(err, errlen, "cannot open the socket that hands out the shared region: %s", strerror(errno));
	shared.path[0] = '\0'; /* (no region for the other threads to hand out either) */
	return false;
}

void handout_open_thread(void)
{
	/* (without a socket of its own, this thread's images reach the region by its
	 * path only: in a chroot they stay on the slow path, counted as ever) */
	if (shared.path[0])
		listen_here();
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
	int fd = wrong_fd >= 0 ? wrong_fd : region_fd();

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
	for (int k = 0; k < HANDOUT_NAMES; k++)
		while (listeners[k] >= 0
		       && ((conn = accept4(listeners[k], NULL, NULL, SOCK_CLOEXEC)) >= 0
			   || (fd_limit_retry(errno) && (conn = accept4(listeners[k], NULL, NULL, SOCK_CLOEXEC)) >= 0))) {
			if (may_have(conn))
				send_region(conn);
			close(conn);
		}
}
