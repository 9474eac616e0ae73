/* Threads blocked inside a syscall at a site that gets patched meanwhile: when the
 * call returns, the thread continues at site + 2, which a patch of the AFTER shape
 * has turned into the middle of a jump. Readers, each blocked in a read on its own
 * pipe at one of three sites:
 *  - glibc's read() (the multi-threaded path of __libc_read):  A0..A3, C2;
 *  - before_read: `mov $0,%eax; syscall` (fixed number, BEFORE shape):  B1;
 *  - after_read:  `jne; xor %eax,%eax; syscall; cmp $-4096,%rax; ja`
 *    (only the AFTER shape fits, as in glibc's single-threaded read):  B2, C1, C3.
 * Once the first eight are blocked (each says it is about to read, then the main
 * thread waits until its /proc stat says S: blocked_in.h), the main thread calls each of the three sites N times (argv[1], default
 * 2000) on /dev/zero, so each gets patched while readers are blocked in it (or
 * blocked in it through the in-process path, if their own first call was the one that
 * patched it). C3 starts its read only after that (so an in-process call is blocked).
 * Then C1, C2 and C3 get a SIGUSR1 whose SA_RESTART handler calls glibc getppid():
 * their reads are restarted by the kernel, at a site patched since they entered it.
 * Then the main thread writes a distinct message into every pipe; every reader must
 * get exactly its message and length (not EINTR, not a crash, not another's bytes).
 * Joins spin with pthread_tryjoin_np (no futex).
 * Counts by construction (systrace counts a restarted call once; strace -f -c counts
 * it twice, so for read it says 3 more when the three signals hit blocked reads):
 * read 3N + 9, write 9, getppid 3, gettid 9, tgkill 3, rt_sigreturn 3, clone3 9,
 * exit 9, pipe2 9, and for the waits openat 9, close 9 more; pread64 and
 * clock_nanosleep as the waits take (timing). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "blocked_in.h"
#include "spin.h"

long before_read(long fd, void *buf, long n);
long after_read(long fd, void *buf, long n);

__asm__(".text\n"
	".globl before_read\n"
	".type before_read,@function\n"
	"before_read:\n"
	"mov $0,%eax\n"
	"syscall\n"
	"ret\n"
	".size before_read,.-before_read\n"

	".globl after_read\n"
	".type after_read,@function\n"
	"after_read:\n"
	"xor %r10d,%r10d\n"
	"test %r10d,%r10d\n"
	"jne 1f\n"
	"xor %eax,%eax\n"
	"syscall\n"
	"cmp $-4096,%rax\n"
	"ja 1f\n"
	"ret\n"
	"1: ret\n"
	".size after_read,.-after_read\n");

enum site { GLIBC, BEFORE, AFTER };

struct reader {
	const char *name;
	enum site site;
	int signalled; /* gets SIGUSR1 while blocked */
	int late;      /* starts reading only after the sites were patched */
	int fds[2];
	pid_t tid;
	pthread_t thread;
	char got[64];
	long ret;
	int done;      /* its read returned */
};

#define READER(n, s, sig, l) { .name = n, .site = s, .signalled = sig, .late = l }
static struct reader readers[] = {
	READER("A0", GLIBC, 0, 0), READER("A1", GLIBC, 0, 0), READER("A2", GLIBC, 0, 0),
	READER("A3", GLIBC, 0, 0), READER("B1", BEFORE, 0, 0), READER("B2", AFTER, 0, 0),
	READER("C1", AFTER, 1, 0), READER("C2", GLIBC, 1, 0), READER("C3", AFTER, 1, 1),
};
#define NREADERS (int)(sizeof readers / sizeof readers[0])

static int ready[NREADERS], handled[NREADERS], late_go;
static __thread int my_index = -1;

static void on_usr1(int sig)
{
	(void)sig;
	getppid();
	if (my_index >= 0)
		__atomic_store_n(&handled[my_index], 1, __ATOMIC_RELEASE);
}

static long do_read(enum site s, int fd, void *buf, long n)
{
	long r;

	switch (s) {
	case GLIBC:
		r = read(fd, buf, n);
		return r < 0 ? -errno : r;
	case BEFORE:
		return before_read(fd, buf, n);
	default:
		return after_read(fd, buf, n);
	}
}

static const char *site_name(enum site s)
{
	return s == GLIBC ? "glibc read" : s == BEFORE ? "before_read" : "after_read";
}

static int early_return(int i)
{
	return __atomic_load_n(&readers[i].done, __ATOMIC_ACQUIRE);
}

static void *reader_main(void *arg)
{
	struct reader *r = arg;
	int i = (int)(r - readers);

	my_index = i;
	__atomic_store_n(&r->tid, (pid_t)syscall(SYS_gettid), __ATOMIC_RELEASE);
	if (r->late)
		while (!__atomic_load_n(&late_go, __ATOMIC_ACQUIRE))
			__builtin_ia32_pause();
	__atomic_store_n(&ready[i], 1, __ATOMIC_RELEASE);
	r->ret = do_read(r->site, r->fds[0], r->got, sizeof r->got);
	__atomic_store_n(&r->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void wait_ready(int late)
{
	for (int i = 0; i < NREADERS; i++)
		if (readers[i].late == late) {
			int stat;

			SPIN_UNTIL(__atomic_load_n(&ready[i], __ATOMIC_ACQUIRE), "blocked_threads: reader %s never started\n",
				   readers[i].name);
			/* it said it is about to read: wait until it is blocked in it */
			if ((stat = proc_stat_open(0, __atomic_load_n(&readers[i].tid, __ATOMIC_ACQUIRE))) < 0) {
				fprintf(stderr, "blocked_threads: no /proc stat for reader %s\n", readers[i].name);
				exit(2);
			}
			wait_state(stat, "S");
			close(stat);
		}
}

static char message[NREADERS][48];

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 2000;
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_usr1;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGUSR1, &sa, NULL) != 0)
		return 2;
	int zero = open("/dev/zero", O_RDONLY);
	if (zero < 0)
		return 2;
	for (int i = 0; i < NREADERS; i++) {
		if (pipe(readers[i].fds) != 0)
			return 2;
		/* distinct lengths, distinct bytes */
		snprintf(message[i], sizeof message[i], "reader %s: %.*s", readers[i].name, 3 + 2 * i,
			 "abcdefghijklmnopqrstuvwxyz");
	}
	for (int i = 0; i < NREADERS; i++)
		if (pthread_create(&readers[i].thread, NULL, reader_main, &readers[i]) != 0) {
			fprintf(stderr, "blocked_threads: pthread_create failed\n");
			return 2;
		}
	wait_ready(0);

	/* patch the three sites while the readers are blocked in them */
	for (long k = 0; k < n; k++) {
		char c = 1;
		long r1 = do_read(GLIBC, zero, &c, 1);
		long r2 = do_read(BEFORE, zero, &c, 1);
		long r3 = do_read(AFTER, zero, &c, 1);

		if (r1 != 1 || r2 != 1 || r3 != 1 || c != 0) {
			fprintf(stderr, "blocked_threads: read of /dev/zero %ld: glibc %ld, before_read %ld, after_read %ld, byte %d\n",
				k, r1, r2, r3, c);
			return 1;
		}
	}

	/* an in-process call blocked, then everyone interrupted by a handler */
	__atomic_store_n(&late_go, 1, __ATOMIC_RELEASE);
	wait_ready(1);
	pid_t pid = getpid();
	for (int i = 0; i < NREADERS; i++)
		if (readers[i].signalled)
			syscall(SYS_tgkill, pid, readers[i].tid, SIGUSR1);
	for (int i = 0; i < NREADERS; i++)
		if (readers[i].signalled)
			SPIN_UNTIL(__atomic_load_n(&handled[i], __ATOMIC_ACQUIRE) || early_return(i),
				   "blocked_threads: reader %s never ran its SIGUSR1 handler\n", readers[i].name);
	/* nothing was written yet: no read may have returned */
	for (int i = 0; i < NREADERS; i++)
		if (early_return(i)) {
			struct reader *r = &readers[i];

			fprintf(stderr, "blocked_threads: reader %s (%s site%s) returned %ld from its blocked read before anything was written\n",
				r->name, site_name(r->site), r->signalled ? ", signalled" : "", r->ret);
			return 1;
		}

	for (int i = 0; i < NREADERS; i++) {
		size_t len = strlen(message[i]);

		if (write(readers[i].fds[1], message[i], len) != (ssize_t)len) {
			fprintf(stderr, "blocked_threads: write to %s failed\n", readers[i].name);
			return 1;
		}
	}
	int bad = 0;
	for (int i = 0; i < NREADERS; i++) {
		struct reader *r = &readers[i];
		size_t len = strlen(message[i]);
		int e;

		SPIN_UNTIL((e = pthread_tryjoin_np(r->thread, NULL)) != EBUSY,
			   "blocked_threads: reader %s never returned from its read (the data was written)\n", r->name);
		if (e != 0) {
			fprintf(stderr, "blocked_threads: join failed: %d\n", e);
			return 1;
		}
		if (r->ret != (long)len || memcmp(r->got, message[i], len) != 0) {
			fprintf(stderr, "blocked_threads: reader %s (%s site%s) got %ld: '%.*s', expected %zu: '%s'\n",
				r->name, site_name(r->site), r->signalled ? ", signalled" : "", r->ret, r->ret > 0 ? (int)r->ret : 0, r->got, len,
				message[i]);
			bad = 1;
		}
	}
	return bad;
}
