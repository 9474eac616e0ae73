/* stop_probe [-a] [-k K] [-g GAP_US] [-o FILE] N COMMAND [ARG...]: starts N copies of
 * COMMAND at once and, while all N run, times system calls that a tracer must
 * serve one stop at a time: how long a stopped thread waits for the tracer.
 *
 * Two probes time up to K calls each (default 2000), a pause between calls drawn
 * from an exponential distribution of mean GAP_US (default 1000 us; Poisson
 * arrivals see the time average of the queue): the process itself (`first`) and
 * a child it forks before starting the copies (`last`). Each call is
 * `mov $110,%eax; syscall; ret` (getppid) in an anonymous executable mapping:
 * systrace never patches anonymous code, so under it every call is a seccomp stop;
 * under strace -f two stops; natively a plain syscall. Each is timed with
 * clock_gettime (the vDSO: no syscall of its own), and the probe reads its own
 * run_delay (/proc/thread-self/schedstat: time runnable but waiting for a CPU)
 * before and after, so that a round trip splits into waiting for a CPU and the
 * rest (the call itself and, traced, the time stopped until the tracer resumed it).
 *
 * Why two probes: the kernel reports stops to waitpid(-1) in list order, the
 * tracer's own children first (the command it started: `first`), then the tracees
 * newest first (each new process is put at the head of the tracer's list). The
 * child forked before the copies is older than every process they start, so among
 * the stopped threads it is served last (as a long-lived parent such as make is);
 * the command itself is served first. The two bracket what a stop waits.
 *
 * -a: the process first sets its own CPU affinity to the CPUs it may use
 * (sched_getaffinity, then sched_setaffinity with the same set). systrace keeps the
 * command on its own CPU and moves threads off it by its own rules
 * (tracer/placement.c), but leaves a thread that set its affinity, and its
 * children, where the scheduler puts them: -a measures the tracer without its
 * placement.
 *
 * Probing stops at the first copy's end (a call during which one ended is not
 * kept) or after K calls; with N = 0 both probes make their K calls. The copies'
 * wall time is from just before the first is started to the end of the last (its
 * reaping). Traced, the tracer's CPU time and run-queue wait over that window come
 * from /proc/TRACER/schedstat (TracerPid of /proc/self/status), and every CPU's busy
 * fraction over it from /proc/stat (the whole machine, other work included).
 *
 * Writes `key,value` lines to FILE (default stdout): loops, wall_ns, loop_failures,
 * tracer_pid, tracer_cpu_ns, tracer_run_delay_ns, cpu_busy (per CPU, `;`-separated),
 * then per probe (first_, last_): samples, dropped, rt_p50_ns, rt_p90_ns,
 * rt_p99_ns, rt_mean_ns, rt_min_ns, runq_p50_ns, runq_p90_ns, runq_mean_ns,
 * rest_p50_ns, rest_p90_ns, rest_mean_ns (rest = round trip minus run-queue wait,
 * per call, over the split_samples calls whose reads of schedstat took no longer
 * than usual: a wait around them would count in run_delay but not in the round
 * trip), bad_results. Exit status: 0, 1 when a copy failed or a call returned
 * the wrong value, 2 on a usage or set-up error. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define MAX_CPUS 256
/* a read of schedstat takes 1-3 us: longer, the thread waited around it */
#define SPLIT_SLACK_NS 20000
#define NO_SPLIT UINT64_MAX

struct sample {
    uint64_t rt_ns, runq_ns;
};

/* What both probes see and write, in memory shared across the fork. */
struct shared {
    volatile int started;       /* every copy started */
    volatile int loops_ended;   /* copies reaped so far */
    volatile unsigned signals;  /* SIGCHLDs taken by `first` (a call interrupted) */
    uint64_t nsamples[2], dropped[2], bad[2];
    struct sample samples[];    /* [0, K) first's, [K, 2K) last's */
};

static struct shared *sh;
static unsigned long k = 2000;
static double gap_us = 1000;
static int nloops;
static pid_t *loop_pids, last_pid;
static int last_status = -1, loop_failures;
static uint64_t end_ns;

static uint64_t now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A reaped child: a copy (its end is the window's end once all are in) or `last`. */
static void reaped(pid_t pid, int status)
{
    if (pid == last_pid) {
        last_status = status;
        return;
    }
    for (int i = 0; i < nloops; i++) {
        if (loop_pids[i] == pid) {
            loop_pids[i] = 0;
            if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
                loop_failures++;
            sh->loops_ended++;
            end_ns = now_ns();
            return;
        }
    }
}

static void on_sigchld(int sig)
{
    int status, saved = errno;
    pid_t pid;

    (void)sig;
    sh->signals++;
    while ((pid = waitpid(-1, &status, WNOHANG)) > 0)
        reaped(pid, status);
    errno = saved;
}

/* run_delay of the calling thread (ns), or 0 when schedstat cannot be read. */
static uint64_t run_delay(int fd)
{
    char buf[128];
    unsigned long long run, delay;
    ssize_t n = fd >= 0 ? pread(fd, buf, sizeof(buf) - 1, 0) : -1;

    if (n <= 0)
        return 0;
    buf[n] = 0;
    return sscanf(buf, "%llu %llu", &run, &delay) == 2 ? delay : 0;
}

static uint64_t xorshift(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* A pause drawn from the exponential distribution of mean gap_us (at most 10x). */
static void pause_a_while(uint64_t *seed)
{
    double u = ((double)(xorshift(seed) >> 11) + 1) / 9007199254740993.0;
    double us = -log(u) * gap_us;
    struct timespec ts;

    if (us > 10 * gap_us)
        us = 10 * gap_us;
    ts.tv_sec = (time_t)(us / 1e6);
    ts.tv_nsec = (long)((us - (double)ts.tv_sec * 1e6) * 1e3);
    while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) == EINTR)
        ;
}

/* Up to k timed calls of code; which: 0 first, 1 last. */
static void probe(int which, long (*code)(void), long expect)
{
    struct sample *out = sh->samples + (size_t)which * k;
    uint64_t seed = 0x9e3779b97f4a7c15ull * (uint64_t)(which + 1);
    int fd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);

    for (unsigned long i = 0; i < k; i++) {
        pause_a_while(&seed);
        if (nloops && sh->loops_ended)
            break;
        unsigned sig0 = sh->signals;
        uint64_t ta = now_ns(), d0 = run_delay(fd), t0 = now_ns();
        long got = code();
        uint64_t t1 = now_ns(), d1 = run_delay(fd), tb = now_ns();

        if (got != expect)
            sh->bad[which]++;
        if (sh->signals != sig0 || (nloops && sh->loops_ended)) {
            sh->dropped[which]++;
            continue;
        }
        /* run_delay grows when the thread gets a CPU back: a wait around the reads
         * (at their return, say) is outside the timed call, and makes the split moot */
        out[sh->nsamples[which]++] = (struct sample){
            t1 - t0, t0 - ta > SPLIT_SLACK_NS || tb - t1 > SPLIT_SLACK_NS ? NO_SPLIT : d1 > d0 ? d1 - d0 : 0 };
    }
    if (fd >= 0)
        close(fd);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

    return x < y ? -1 : x > y;
}

/* The q-quantile (nearest rank) of v[0..n), sorted here. */
static uint64_t quantile(uint64_t *v, size_t n, double q)
{
    size_t i;

    if (!n)
        return 0;
    qsort(v, n, sizeof(*v), cmp_u64);
    i = (size_t)ceil(q * (double)n);
    return v[i ? i - 1 : 0];
}

static uint64_t mean(const uint64_t *v, size_t n)
{
    long double s = 0;

    for (size_t i = 0; i < n; i++)
        s += v[i];
    return n ? (uint64_t)(s / n) : 0;
}

static void report_probe(FILE *f, const char *name, int which)
{
    size_t n = sh->nsamples[which];
    const struct sample *s = sh->samples + (size_t)which * k;
    uint64_t *rt = malloc((n + 1) * sizeof(*rt)), *rq = malloc((n + 1) * sizeof(*rq)),
             *rest = malloc((n + 1) * sizeof(*rest));

    if (!rt || !rq || !rest) {
        perror("stop_probe: malloc");
        exit(2);
    }
    size_t nsplit = 0;

    for (size_t i = 0; i < n; i++) {
        rt[i] = s[i].rt_ns;
        if (s[i].runq_ns != NO_SPLIT) {
            rq[nsplit] = s[i].runq_ns < s[i].rt_ns ? s[i].runq_ns : s[i].rt_ns;
            rest[nsplit] = s[i].rt_ns - rq[nsplit];
            nsplit++;
        }
    }
    fprintf(f, "%s_samples,%zu\n%s_dropped,%llu\n%s_bad_results,%llu\n%s_split_samples,%zu\n", name, n,
            name, (unsigned long long)sh->dropped[which], name, (unsigned long long)sh->bad[which], name,
            nsplit);
    fprintf(f, "%s_rt_mean_ns,%llu\n%s_runq_mean_ns,%llu\n%s_rest_mean_ns,%llu\n", name,
            (unsigned long long)mean(rt, n), name, (unsigned long long)mean(rq, nsplit), name,
            (unsigned long long)mean(rest, nsplit));
    fprintf(f, "%s_rt_min_ns,%llu\n", name, (unsigned long long)quantile(rt, n, 0));
    fprintf(f, "%s_rt_p50_ns,%llu\n%s_rt_p90_ns,%llu\n%s_rt_p99_ns,%llu\n", name,
            (unsigned long long)quantile(rt, n, 0.5), name, (unsigned long long)quantile(rt, n, 0.9),
            name, (unsigned long long)quantile(rt, n, 0.99));
    fprintf(f, "%s_runq_p50_ns,%llu\n%s_runq_p90_ns,%llu\n", name,
            (unsigned long long)quantile(rq, nsplit, 0.5), name, (unsigned long long)quantile(rq, nsplit, 0.9));
    fprintf(f, "%s_rest_p50_ns,%llu\n%s_rest_p90_ns,%llu\n", name,
            (unsigned long long)quantile(rest, nsplit, 0.5), name, (unsigned long long)quantile(rest, nsplit, 0.9));
    free(rt);
    free(rq);
    free(rest);
}

static pid_t tracer_pid(void)
{
    char line[256];
    long pid = 0;
    FILE *f = fopen("/proc/self/status", "r");

    while (f && fgets(line, sizeof(line), f))
        if (sscanf(line, "TracerPid: %ld", &pid) == 1)
            break;
    if (f)
        fclose(f);
    return (pid_t)pid;
}

/* sum_exec_runtime and run_delay of the tracer's thread (ns); false if unreadable. */
static int tracer_sched(pid_t pid, uint64_t *run, uint64_t *delay)
{
    char path[64];
    unsigned long long r, d;
    FILE *f;
    int ok;

    snprintf(path, sizeof(path), "/proc/%d/task/%d/schedstat", (int)pid, (int)pid);
    if (!(f = fopen(path, "r")))
        return 0;
    ok = fscanf(f, "%llu %llu", &r, &d) == 2;
    fclose(f);
    *run = r;
    *delay = d;
    return ok;
}

/* Busy jiffies (all but idle and iowait) and all jiffies of each CPU; how many CPUs. */
static int cpu_times(unsigned long long *busy, unsigned long long *all)
{
    char line[512];
    int n = 0;
    FILE *f = fopen("/proc/stat", "r");

    while (f && fgets(line, sizeof(line), f) && n < MAX_CPUS) {
        unsigned long long v[8] = { 0 };
        int cpu;

        if (strncmp(line, "cpu", 3) != 0 || line[3] < '0' || line[3] > '9')
            continue;
        if (sscanf(line, "cpu%d %llu %llu %llu %llu %llu %llu %llu %llu", &cpu, &v[0], &v[1], &v[2], &v[3],
                   &v[4], &v[5], &v[6], &v[7]) < 5)
            continue;
        all[n] = v[0] + v[1] + v[2] + v[3] + v[4] + v[5] + v[6] + v[7];
        busy[n] = all[n] - v[3] - v[4];
        n++;
    }
    if (f)
        fclose(f);
    return n;
}

/* The probes' code: getppid from an anonymous executable page. */
static long (*make_code(void))(void)
{
    static const unsigned char code[] = { 0xb8, 110, 0, 0, 0, 0x0f, 0x05, 0xc3 };
    unsigned char *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

    if (p == MAP_FAILED || (memcpy(p, code, sizeof(code)), mprotect(p, 4096, PROT_READ | PROT_EXEC)) != 0) {
        perror("stop_probe: code page");
        exit(2);
    }
    return (long (*)(void))p;
}

static void usage(void)
{
    fprintf(stderr, "usage: stop_probe [-a] [-k K] [-g GAP_US] [-o FILE] N COMMAND [ARG...]\n");
    exit(2);
}

int main(int argc, char **argv)
{
    const char *out_path = NULL;
    unsigned long long busy0[MAX_CPUS], all0[MAX_CPUS], busy1[MAX_CPUS], all1[MAX_CPUS];
    uint64_t trun0 = 0, tdelay0 = 0, trun1 = 0, tdelay1 = 0, start_ns;
    struct sigaction sa;
    sigset_t chld, none;
    posix_spawnattr_t attr;
    long (*code)(void);
    pid_t tracer;
    int opt, ncpus0, ncpus1, traced, have_end = 0, own_affinity = 0, status;
    FILE *out = stdout;

    while ((opt = getopt(argc, argv, "+ak:g:o:")) != -1) {
        switch (opt) {
        case 'a': own_affinity = 1; break;
        case 'k': k = strtoul(optarg, NULL, 10); break;
        case 'g': gap_us = strtod(optarg, NULL); break;
        case 'o': out_path = optarg; break;
        default: usage();
        }
    }
    if (optind >= argc || k == 0 || gap_us <= 0)
        usage();
    nloops = atoi(argv[optind++]);
    if (nloops < 0 || (nloops > 0 && optind >= argc))
        usage();
    if (out_path && !(out = fopen(out_path, "w"))) {
        perror(out_path);
        return 2;
    }
    loop_pids = calloc((size_t)nloops + 1, sizeof(*loop_pids));
    sh = mmap(NULL, sizeof(*sh) + 2 * k * sizeof(struct sample), PROT_READ | PROT_WRITE,
              MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (!loop_pids || sh == MAP_FAILED) {
        perror("stop_probe: memory");
        return 2;
    }
    if (own_affinity) {
        cpu_set_t cpus;

        if (sched_getaffinity(0, sizeof(cpus), &cpus) != 0 || sched_setaffinity(0, sizeof(cpus), &cpus) != 0) {
            perror("stop_probe: affinity");
            return 2;
        }
    }
    code = make_code();
    tracer = tracer_pid();
    long ppid = getppid();

    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_sigchld;
    sa.sa_flags = SA_RESTART | SA_NOCLDSTOP;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGCHLD, &sa, NULL);
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    sigemptyset(&none);
    /* the copies start with no signal blocked, whatever this process blocks */
    posix_spawnattr_init(&attr);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK);

    /* `last`: older than every process the copies start */
    sigprocmask(SIG_BLOCK, &chld, NULL);
    last_pid = fork();
    if (last_pid < 0) {
        perror("stop_probe: fork");
        return 2;
    }
    if (last_pid == 0) {
        while (!sh->started) {
            struct timespec ms = { 0, 1000 * 1000 };

            nanosleep(&ms, NULL);
        }
        probe(1, code, getppid());
        _exit(0);
    }
    traced = tracer > 0 && tracer_sched(tracer, &trun0, &tdelay0);
    ncpus0 = cpu_times(busy0, all0);
    start_ns = now_ns();
    for (int i = 0; i < nloops; i++) {
        if ((errno = posix_spawnp(&loop_pids[i], argv[optind], NULL, &attr, argv + optind, environ)) != 0) {
            perror(argv[optind]);
            return 2;
        }
    }
    sh->started = 1;
    sigprocmask(SIG_UNBLOCK, &chld, NULL);
    probe(0, code, ppid);

    /* the rest in order: the copies' end, then `last`'s */
    sigprocmask(SIG_BLOCK, &chld, NULL);
    while (sh->loops_ended < nloops || last_status < 0) {
        pid_t pid = waitpid(-1, &status, 0);

        if (pid < 0 && errno == EINTR)
            continue;
        if (pid < 0)
            break;
        reaped(pid, status);
        if (sh->loops_ended == nloops && pid != last_pid && !have_end) {
            have_end = 1;
            traced = traced && tracer_sched(tracer, &trun1, &tdelay1);
        }
    }
    if (!nloops)
        end_ns = now_ns();
    /* (the copies all ended before probing stopped, or there were none) */
    if (!have_end)
        traced = traced && tracer_sched(tracer, &trun1, &tdelay1);
    ncpus1 = cpu_times(busy1, all1);

    fprintf(out, "key,value\nloops,%d\nwall_ns,%llu\nloop_failures,%d\n", nloops,
            (unsigned long long)(end_ns - start_ns), loop_failures);
    fprintf(out, "tracer_pid,%d\n", (int)tracer);
    if (traced)
        fprintf(out, "tracer_cpu_ns,%llu\ntracer_run_delay_ns,%llu\n", (unsigned long long)(trun1 - trun0),
                (unsigned long long)(tdelay1 - tdelay0));
    else
        fprintf(out, "tracer_cpu_ns,\ntracer_run_delay_ns,\n");
    fprintf(out, "cpu_busy,");
    for (int i = 0; i < ncpus0 && ncpus0 == ncpus1; i++)
        fprintf(out, "%s%.3f", i ? ";" : "",
                all1[i] > all0[i] ? (double)(busy1[i] - busy0[i]) / (double)(all1[i] - all0[i]) : 0.0);
    fprintf(out, "\n");
    report_probe(out, "first", 0);
    report_probe(out, "last", 1);
    if (out != stdout)
        fclose(out);
    if (last_status < 0 || !WIFEXITED(last_status) || WEXITSTATUS(last_status) != 0)
        fprintf(stderr, "stop_probe: the `last` probe failed (status %d)\n", last_status);
    return loop_failures || sh->bad[0] || sh->bad[1] || last_status != 0 ? 1 : 0;
}
