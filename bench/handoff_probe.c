/* handoff_probe [CALLS] [EVERY]: what it costs to move a traced process from one
 * tracer thread to another, the step docs/scaling.md ("Several tracer threads")
 * designs for --tracer-threads, and whether a call is lost on the way.
 *
 * Two tracer threads of this process, T1 and T2, each wait in
 * waitpid(__WALL | __WNOTHREAD) with a sleeping tracee of their own, as a tracer
 * thread with tracees would. A probe process, under a seccomp filter that sends every
 * call to the tracer but those of one `syscall` instruction (pause_site: systrace's
 * gate's), makes CALLS getppid calls and checks each result. Its owner serves EVERY
 * of its getppid stops, and at the next one hands it to the other thread, the
 * process stopped and its call in flight as at an exec event:
 *
 *   owner (sender)                         other thread (receiver)
 *   GETREGS, GETSIGMASK                    ... blocked in waitpid
 *   SETSIGMASK: all blocked
 *   SETREGS: the call skipped (orig_rax
 *     -1), rip at pause_site, rax pause
 *   DETACH -> the probe runs pause()
 *     at the allowed site, untraced
 *   message into the receiver's pipe,
 *   tgkill(receiver, SIGUSR1)  ------->    waitpid: EINTR; the message read
 *                                          SEIZE, INTERRUPT, waitpid: its trap
 *                                          SETREGS: the saved ones, rip back on
 *                                            the call (made again, in its stop)
 *                                          SETSIGMASK: the saved mask
 *                                          CONT
 *
 * `handoff_probe exec [IMAGES] [EVERY]` hands the probe over at its exec events
 * instead, as systrace would (docs/scaling.md, "The hand-off point"): the probe
 * execs itself IMAGES times in a chain, each image making 10 getppid calls, and at
 * every EVERY-th exec event, before the new image's first instruction, when it has
 * no gate yet, the owner parks it at a `syscall` of its vDSO (found once in this
 * process's own vDSO: the same kernel maps the same image) making
 * ppoll(PARK_FDS, 0, NULL, NULL, PARK_SIGSETSIZE), a call the filter lets through
 * from anywhere by those two arguments and that waits until the INTERRUPT
 * (park_at_exec: it takes one more stop); the vDSO's address is in the new image's
 * auxiliary vector, read from its stack. The receiver puts back the registers of
 * the exec event (the loader's entry) as they were, and every call of the new
 * image, the loader's included, stops in it.
 *
 * Prints the hand-offs' wall time (sender's first request to receiver's resume) and
 * each side's CPU (CLOCK_THREAD_CPUTIME_ID), medians and means; exits 1 if any
 * getppid returned anything but the probe's parent or a stop went missing (a call
 * between the detach and the seize would have failed with ENOSYS).
 *
 * Build and run: cc -O2 -pthread -o /tmp/handoff_probe bench/handoff_probe.c &&
 * /tmp/handoff_probe 20000 4, /tmp/handoff_probe exec 2000 1 (x86-64; root, or
 * ptrace allowed on descendants). */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* the one instruction the filter lets through untraced; ud2 after it: the probe
 * never runs on from there (the receiver puts its registers back) */
extern const char pause_site[], pause_after[];
__asm__(".text\n.globl pause_site\npause_site: syscall\n.globl pause_after\npause_after: ud2\n");

#define MAX_HANDOFFS 100000
/* the parking call's two arguments that no program passes (ppoll ignores both
 * when it is given no descriptors and no mask; but the descriptors' address must
 * be a user address, or the call ends in EFAULT at its first wake-up instead of
 * being made again) */
#define PARK_FDS 0x5ee7c0ffee00ULL
#define PARK_SIGSETSIZE 0x6f5ee7d00dULL
#define CALLS_PER_IMAGE 10

struct message {
	struct user_regs_struct regs;
	uint64_t mask;
	uint64_t sent_ns, sender_cpu_ns;
	bool at_exec;
};

struct tracer {
	pthread_t thread;
	pid_t tid, sleeper;
	int inbox[2];
	struct tracer *other;
	bool owns;
};

static pid_t probe;
static long calls, every;
static bool exec_mode;
static uint64_t vdso_syscall_offset;
static long exec_events;
static volatile int done;
static long getppid_stops, handoffs, sent, exit_status = -1;
static double wall_us[MAX_HANDOFFS], sender_us[MAX_HANDOFFS], receiver_us[MAX_HANDOFFS];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t started;
static int probe_go;

static uint64_t clock_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void die(const char *what)
{
	perror(what);
	exit(2);
}

static void on_wake(int sig)
{
	(void)sig;
}

/* A process that is not this one's child (its parent a middle process that waits
 * for it): a tracer thread's waitpid would otherwise also see the stops of the
 * children its own thread forked (docs/scaling.md). */
static pid_t grandchild(void (*body)(int), int arg)
{
	int p[2];
	pid_t middle, pid;

	if (pipe(p) < 0 || (middle = fork()) < 0)
		die("fork");
	if (middle == 0) {
		int status;

		if ((pid = fork()) == 0)
			body(arg);
		if (write(p[1], &pid, sizeof(pid)) != sizeof(pid))
			_exit(2);
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
	}
	if (read(p[0], &pid, sizeof(pid)) != sizeof(pid))
		die("read");
	close(p[0]);
	close(p[1]);
	return pid;
}

static void sleeper_body(int unused)
{
	(void)unused;
	for (;;)
		pause();
}

/* The exec chain's next image, which has `left` images to run (the filter stays
 * across the exec); returns only if the exec failed. */
static int exec_image(long left, pid_t parent)
{
	char images[32], expected[32];

	snprintf(images, sizeof(images), "%ld", left);
	snprintf(expected, sizeof(expected), "%d", (int)parent);
	execl("/proc/self/exe", "handoff_probe", "image", images, expected, (char *)NULL);
	return 4;
}

/* One image of the chain: CALLS_PER_IMAGE getppid calls, then the next image. */
static int image_main(long left, pid_t parent)
{
	long wrong = 0;

	for (int i = 0; i < CALLS_PER_IMAGE; i++)
		if (syscall(SYS_getppid) != parent)
			wrong++;
	if (wrong || left <= 1)
		return wrong ? 1 : 0;
	return exec_image(left - 1, parent);
}

static void probe_body(int ready_fd)
{
	uint64_t ip = (uint64_t)pause_after;
	struct sock_filter f[] = {
		/* the parking call, from anywhere */
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_ppoll, 0, 9),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)PARK_FDS, 0, 7),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0]) + 4),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)(PARK_FDS >> 32), 0, 5),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[4])),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)PARK_SIGSETSIZE, 0, 3),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[4]) + 4),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)(PARK_SIGSETSIZE >> 32), 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		/* the pause site */
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, instruction_pointer)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)ip, 0, 3),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, instruction_pointer) + 4),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)(ip >> 32), 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRACE),
	};
	struct sock_fprog prog = { sizeof(f) / sizeof(f[0]), f };
	pid_t parent = getppid();
	long wrong = 0;
	char c;

	if (read(ready_fd, &c, 1) != 1 || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0
	    || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) < 0)
		_exit(3);
	if (exec_mode)
		_exit(exec_image(calls, parent));
	for (long i = 0; i < calls; i++)
		if (syscall(SYS_getppid) != parent)
			wrong++;
	_exit(wrong ? 1 : 0);
}


/* Where a `syscall` (0f 05) lies in this process's vDSO, from its start: any two
 * such bytes in its executable segment will do, as the parked image never runs on
 * past them. */
static uint64_t find_vdso_syscall(void)
{
	const uint8_t *base = (const uint8_t *)getauxval(AT_SYSINFO_EHDR);
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)base;

	for (int i = 0; base && i < eh->e_phnum; i++) {
		const Elf64_Phdr *ph = (const Elf64_Phdr *)(base + eh->e_phoff) + i;

		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		for (uint64_t at = ph->p_offset; at + 1 < ph->p_offset + ph->p_filesz; at++)
			if (base[at] == 0x0f && base[at + 1] == 0x05)
				return at;
	}
	fprintf(stderr, "handoff_probe: no syscall instruction in the vDSO\n");
	exit(2);
}

/* The new image's vDSO, from the auxiliary vector above its stack pointer at the
 * exec event (argc, argv, NULL, envp, NULL, then the pairs): read a page at a
 * time, as the stack may end within the first. */
static uint64_t vdso_of(pid_t pid, uint64_t sp)
{
	static uint64_t words[4 * 4096 / 8];
	struct iovec local = { words, sizeof(words) }, remote[4];
	ssize_t n;
	size_t i = 1, nwords;

	for (int k = 0; k < 4; k++)
		remote[k] = (struct iovec){ (void *)(sp + (uint64_t)k * 4096), 4096 };
	if ((n = process_vm_readv(pid, &local, 1, remote, 4, 0)) < 8)
		die("hand-off: the stack");
	nwords = (size_t)n / 8;
	i += words[0] + 1; /* argv and its NULL */
	while (i < nwords && words[i])
		i++;
	for (i++; i + 1 < nwords && words[i] != AT_NULL; i += 2)
		if (words[i] == AT_SYSINFO_EHDR)
			return words[i + 1];
	fprintf(stderr, "handoff_probe: no vDSO in the new image's auxiliary vector\n");
	exit(2);
}

static void seize(pid_t pid)
{
	if (ptrace(PTRACE_SEIZE, pid, 0, PTRACE_O_TRACESECCOMP | PTRACE_O_EXITKILL | PTRACE_O_TRACEEXEC) < 0)
		die("PTRACE_SEIZE");
}

/* At the exec event the new image has no instruction the filter lets through, and
 * the number of the call it would make there cannot be set: the execve's return
 * (0, read's number) replaces rax after the stop. So it goes, with the parking
 * call's arguments, to a `syscall` of its vDSO, where read stops (the filter sends
 * it here), and at that stop its number is changed to ppoll, which the filter,
 * run again on the changed call, lets through: the detached image waits there. */
static void park_at_exec(struct message *m, struct user_regs_struct *regs)
{
	int status;

	m->at_exec = true;
	m->regs.rax = 0; /* what the execve returns */
	regs->rip = vdso_of(probe, regs->rsp) + vdso_syscall_offset;
	regs->rdi = PARK_FDS;
	regs->rsi = regs->rdx = regs->r10 = 0;
	regs->r8 = PARK_SIGSETSIZE;
	if (ptrace(PTRACE_SETREGS, probe, 0, regs) < 0 || ptrace(PTRACE_CONT, probe, 0, 0) < 0)
		die("hand-off: to the vDSO");
	while (waitpid(probe, &status, __WALL | __WNOTHREAD) < 0)
		if (errno != EINTR)
			die("hand-off: waitpid");
	if (!WIFSTOPPED(status) || (unsigned)status >> 16 != PTRACE_EVENT_SECCOMP
	    || ptrace(PTRACE_GETREGS, probe, 0, regs) < 0 || regs->orig_rax != SYS_read) {
		fprintf(stderr, "handoff_probe: parking, status %#x\n", status);
		exit(2);
	}
	regs->orig_rax = SYS_ppoll;
	if (ptrace(PTRACE_SETREGS, probe, 0, regs) < 0)
		die("hand-off: the parking call");
}

static void hand_off(struct tracer *me)
{
	struct message m = { .sender_cpu_ns = clock_ns(CLOCK_THREAD_CPUTIME_ID) };
	struct user_regs_struct regs;
	uint64_t all = ~(uint64_t)0;

	m.sent_ns = clock_ns(CLOCK_MONOTONIC);
	if (ptrace(PTRACE_GETREGS, probe, 0, &m.regs) < 0 || ptrace(PTRACE_GETSIGMASK, probe, 8, &m.mask) < 0
	    || ptrace(PTRACE_SETSIGMASK, probe, 8, &all) < 0)
		die("hand-off: the probe's state");
	regs = m.regs;
	regs.orig_rax = (uint64_t)-1;
	if (exec_mode) {
		park_at_exec(&m, &regs);
	} else {
		regs.rax = SYS_pause;
		regs.rip = (uint64_t)pause_site;
		if (ptrace(PTRACE_SETREGS, probe, 0, &regs) < 0)
			die("hand-off: to the pause site");
	}
	if (ptrace(PTRACE_DETACH, probe, 0, 0) < 0)
		die("hand-off: detach");
	me->owns = false;
	if (write(me->other->inbox[1], &m, sizeof(m)) != sizeof(m))
		die("hand-off: post");
	if (syscall(SYS_tgkill, getpid(), me->other->tid, SIGUSR1) < 0)
		die("tgkill");
	/* (hand-offs are one at a time: the n-th sent is the n-th taken) */
	if (sent < MAX_HANDOFFS)
		sender_us[sent] = (double)(clock_ns(CLOCK_THREAD_CPUTIME_ID) - m.sender_cpu_ns) / 1e3;
	sent++;
}

static void take_over(struct tracer *me, struct message *m)
{
	uint64_t cpu = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	int status;

	seize(probe);
	if (ptrace(PTRACE_INTERRUPT, probe, 0, 0) < 0)
		die("PTRACE_INTERRUPT");
	while (waitpid(probe, &status, __WALL | __WNOTHREAD) < 0)
		if (errno != EINTR)
			die("take-over: waitpid");
	if (!WIFSTOPPED(status) || (unsigned)status >> 16 != PTRACE_EVENT_STOP) {
		fprintf(stderr, "handoff_probe: at the take-over, status %#x\n", status);
		exit(2);
	}
	/* back on the call, made again in this thread's stop; or at the loader's entry
	 * as at the exec event (the execve not to be restarted either way) */
	if (!m->at_exec) {
		m->regs.rip -= 2;
		m->regs.rax = m->regs.orig_rax;
	}
	m->regs.orig_rax = (uint64_t)-1;
	if (ptrace(PTRACE_SETREGS, probe, 0, &m->regs) < 0 || ptrace(PTRACE_SETSIGMASK, probe, 8, &m->mask) < 0
	    || ptrace(PTRACE_CONT, probe, 0, 0) < 0)
		die("take-over: resume");
	me->owns = true;
	pthread_mutex_lock(&lock);
	if (handoffs < MAX_HANDOFFS) {
		wall_us[handoffs] = (double)(clock_ns(CLOCK_MONOTONIC) - m->sent_ns) / 1e3;
		receiver_us[handoffs] = (double)(clock_ns(CLOCK_THREAD_CPUTIME_ID) - cpu) / 1e3;
	}
	handoffs++;
	pthread_mutex_unlock(&lock);
}

static void serve_probe(struct tracer *me, int status, long *since)
{
	struct user_regs_struct regs;

	if (WIFEXITED(status) || WIFSIGNALED(status)) {
		exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
		done = 1;
		syscall(SYS_tgkill, getpid(), me->other->tid, SIGUSR1);
		return;
	}
	if ((unsigned)status >> 16 == PTRACE_EVENT_EXEC) {
		__atomic_add_fetch(&exec_events, 1, __ATOMIC_RELAXED);
		if (exec_mode && ++*since >= every) {
			*since = 0;
			hand_off(me);
			return;
		}
	} else if ((unsigned)status >> 16 == PTRACE_EVENT_SECCOMP && ptrace(PTRACE_GETREGS, probe, 0, &regs) == 0
		   && regs.orig_rax == SYS_getppid) {
		__atomic_add_fetch(&getppid_stops, 1, __ATOMIC_RELAXED);
		if (!exec_mode && ++*since > every) {
			*since = 0;
			hand_off(me);
			return;
		}
	}
	ptrace(PTRACE_CONT, probe, 0, (unsigned)status >> 16 || WSTOPSIG(status) == SIGTRAP ? 0 : WSTOPSIG(status));
}

static void *tracer_main(void *arg)
{
	struct tracer *me = arg;
	long since = 0;

	struct sigevent ev = { .sigev_notify = SIGEV_THREAD_ID, .sigev_signo = SIGUSR1 };
	struct itimerspec tick = { { 0, 10000000 }, { 0, 10000000 } };
	timer_t timer;

	me->tid = (pid_t)syscall(SYS_gettid);
	/* a wake-up that comes between the inbox's read and waitpid's start is lost:
	 * this thread's own tick (10 ms) makes waitpid look again, as systrace's 16-ms
	 * tick would (tracer/placement.c) */
	ev._sigev_un._tid = me->tid; /* (sigev_notify_thread_id, which this glibc does not name) */
	if (timer_create(CLOCK_MONOTONIC, &ev, &timer) < 0 || timer_settime(timer, 0, &tick, NULL) < 0)
		die("timer_create");
	seize(me->sleeper);
	/* both threads known and waiting before the probe starts its calls */
	pthread_barrier_wait(&started);
	if (me->owns && write(probe_go, "", 1) != 1)
		die("write");
	while (!done) {
		struct message m;
		int status;
		pid_t pid;

		while (read(me->inbox[0], &m, sizeof(m)) == sizeof(m))
			take_over(me, &m);
		if ((pid = waitpid(-1, &status, __WALL | __WNOTHREAD)) < 0) {
			if (errno != EINTR)
				die("waitpid");
			continue;
		}
		if (pid == probe && me->owns)
			serve_probe(me, status, &since);
		else if (pid == me->sleeper && WIFSTOPPED(status))
			ptrace(PTRACE_CONT, pid, 0, 0);
	}
	timer_delete(timer);
	return NULL;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void report(const char *what, double *v, long n)
{
	double sum = 0;

	for (long i = 0; i < n; i++)
		sum += v[i];
	qsort(v, (size_t)n, sizeof(*v), by_value);
	printf("%-28s median %7.1f us, mean %7.1f us, 90th %7.1f us\n", what, v[n / 2], sum / (double)n,
	       v[n * 9 / 10]);
}

int main(int argc, char **argv)
{
	struct tracer t[2];
	struct sigaction sa;
	int ready[2];
	uint64_t start;
	long expected;

	if (argc == 4 && strcmp(argv[1], "image") == 0)
		return image_main(atol(argv[2]), (pid_t)atol(argv[3]));
	if ((exec_mode = argc > 1 && strcmp(argv[1], "exec") == 0)) {
		argv++;
		argc--;
		vdso_syscall_offset = find_vdso_syscall();
	}
	calls = argc > 1 ? atol(argv[1]) : exec_mode ? 2000 : 20000;
	every = argc > 2 ? atol(argv[2]) : exec_mode ? 1 : 4;
	if (calls < 1 || every < 1) {
		fprintf(stderr, "usage: handoff_probe [CALLS >= 1] [EVERY >= 1]\n"
				"       handoff_probe exec [IMAGES >= 1] [EVERY >= 1]\n");
		return 2;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_wake; /* no SA_RESTART: waitpid returns EINTR */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	if (pipe(ready) < 0 || pthread_barrier_init(&started, NULL, 2) != 0)
		die("pipe");
	probe_go = ready[1];
	probe = grandchild(probe_body, ready[0]);
	for (int i = 0; i < 2; i++) {
		t[i] = (struct tracer){ .other = &t[1 - i], .owns = i == 0, .sleeper = grandchild(sleeper_body, 0) };
		if (pipe2(t[i].inbox, O_NONBLOCK) < 0)
			die("pipe2");
	}
	seize(probe); /* by T1's thread: the main thread seizes for it below */
	start = clock_ns(CLOCK_MONOTONIC);
	/* T1 is this thread's tracee's owner: PTRACE_SEIZE bound the probe to the
	 * calling thread, so T1 runs here, T2 in a thread of its own */
	t[0].thread = pthread_self();
	if (pthread_create(&t[1].thread, NULL, tracer_main, &t[1]) != 0)
		die("pthread_create");
	tracer_main(&t[0]);
	pthread_join(t[1].thread, NULL);
	for (int i = 0; i < 2; i++)
		kill(t[i].sleeper, SIGKILL);
	expected = exec_mode ? calls * CALLS_PER_IMAGE : calls + handoffs;
	if (exec_mode)
		printf("%ld images, %ld exec events, a hand-off at every %ld-th: ", calls, exec_events, every);
	else
		printf("%ld getppid calls, a hand-off after every %ld: ", calls, every);
	printf("%ld hand-offs, %ld getppid stops (%ld expected), %.2f s, probe exit status %ld\n", handoffs,
	       getppid_stops, expected, (double)(clock_ns(CLOCK_MONOTONIC) - start) / 1e9, exit_status);
	if (handoffs) {
		long n = handoffs < MAX_HANDOFFS ? handoffs : MAX_HANDOFFS;

		report("hand-off, wall", wall_us, n);
		n = sent < MAX_HANDOFFS ? sent : MAX_HANDOFFS;
		report("sender's CPU", sender_us, n);
		report("receiver's CPU", receiver_us, n);
	}
	return exit_status == 0 && getppid_stops == expected && (!exec_mode || exec_events == calls) ? 0 : 1;
}
