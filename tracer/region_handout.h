/* How a new image reaches the region (tracer/exec_blob.S does the reaching): through
 * /proc/<tracer>/fd/<n>, when that path names the region in the image's own /proc
 * (checked by device and inode: in a pid namespace with its own /proc the path may
 * name another process's descriptor, or nothing, and a chroot may have no /proc);
 * else from the tracer itself, over a unix socket of its own with an abstract name
 * (no file, so no chroot or mount namespace hides it; one per serving thread): the
 * image connects, stops once, and the thread that serves it sends it the descriptor
 * (SCM_RIGHTS). Only an image in its
 * set-up at exec, of the tracer's own effective uid, is given one (a program that
 * dropped to another user must not write into the gate's code that every traced
 * process runs). A network namespace of its own hides the socket too: such an image
 * stays on the slow path (library region-unreachable). */
#ifndef SYSTRACE_REGION_HANDOUT_H
#define SYSTRACE_REGION_HANDOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/un.h>

struct region_reach {
	char path[64];               /* /proc/<tracer>/fd/<region> */
	uint64_t dev, ino;           /* what stat(path) must say */
	struct sockaddr_un addr;     /* the tracer's socket (an abstract name) */
	socklen_t addr_len;
};

/* Opens the first serving thread's socket, once the region exists. False with a
 * message on failure. */
bool handout_open(char *err, size_t errlen);
/* Each other serving thread's, at its start (tracer_threads.h): an image connects
 * to the socket of the thread that builds its set-up. */
void handout_open_thread(void);
/* The calling thread's. */
const struct region_reach *handout_reach(void);
/* At an image's stop in its set-up, once it has connected: every connection waiting
 * is answered (the descriptor to an image in its set-up, nothing to anyone else). */
void handout_serve(void);

#endif
