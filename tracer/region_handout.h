/* How a new image reaches the region (tracer/exec_blob.S does the reaching): through
 * /proc/<tracer>/fd/<n>, when that path names the region in the image's own /proc
 * (checked by device and inode: in a pid namespace with its own /proc the path may
 * name another process's descriptor, or nothing; a chroot may have no /proc; a user
 * namespace may not open another's descriptors); else from the tracer itself, over
 * a unix socket of its own (one per serving thread): the image connects, stops
 * once, and the thread that serves it sends it the descriptor (SCM_RIGHTS). Each
 * thread listens at two names, tried in turn, as sandboxes hide one or the other:
 *
 *   an abstract name ("\0systrace-<pid>-<nonce>")  no file: no chroot or mount
 *                                                  namespace hides it; a network
 *                                                  namespace of its own does
 *   a file, <TMPDIR or /tmp>/systrace-<pid>-XXXXXX/<thread's tid>
 *                                                  no network namespace hides it;
 *                                                  a /tmp of its own does
 *
 * (the folder is the tracer's, mode 0700, removed at its exit). An image that
 * reaches neither (a pid and a network namespace and a /tmp of its own, as in a
 * Nix build) stays on the slow path, counted exactly (library region-unreachable).
 * Only an image in its set-up at exec, of the tracer's own effective uid, is given
 * the descriptor (a program that dropped to another user must not write into the
 * gate's code that every traced process runs). */
#ifndef SYSTRACE_REGION_HANDOUT_H
#define SYSTRACE_REGION_HANDOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/un.h>

enum handout_name { HANDOUT_ABSTRACT, HANDOUT_FILE, HANDOUT_NAMES };

struct region_reach {
	char path[64];               /* /proc/<tracer>/fd/<region> */
	uint64_t dev, ino;           /* what stat(path) must say */
	struct sockaddr_un addr[HANDOUT_NAMES]; /* the thread's socket, by each name */
	socklen_t addr_len[HANDOUT_NAMES];      /* 0: none by that name */
};

/* Opens the first serving thread's socket, once the region exists. False with a
 * message on failure (the socket by its abstract name; without the folder for the
 * file's, the images go without that name). */
bool handout_open(char *err, size_t errlen);
/* Each other serving thread's, at its start (tracer_threads.h): an image connects
 * to the socket of the thread that builds its set-up. */
void handout_open_thread(void);
/* Removes the folder of the sockets' files (at exit, or before dying by a signal). */
void handout_close(void);
/* The calling thread's. */
const struct region_reach *handout_reach(void);
/* At an image's stop in its set-up, once it has connected: every connection waiting
 * is answered (the descriptor to an image in its set-up, nothing to anyone else). */
void handout_serve(void);

#endif
