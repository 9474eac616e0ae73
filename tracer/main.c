/* systrace: runs a command under ptrace and seccomp and counts every syscall of every
 * process it starts; see INTERFACE.md for the contract. */
#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "calibrate.h"
#include "call_times.h"
#include "cpus_allowed.h"
#include "events.h"
#include "fd_limit.h"
#include "gate.h"
#include "handoff.h"
#include "launch.h"
#include "libc_calls.h"
#include "library.h"
#include "nested_ptrace.h"
#include "objects.h"
#include "offload.h"
#include "options.h"
#include "output_dir.h"
#include "patching.h"
#include "placement.h"
#include "proc_maps.h"
#include "procfs.h"
#include "region_handout.h"
#include "serve_times.h"
#include "serving_end.h"
#include "shared_region.h"
#include "signals.h"
#include "site_history.h"
#include "syscall_log.h"
#include "tasks.h"
#include "tid_marks.h"
#include "tracer_nice.h"
#include "tracer_threads.h"
#include "tsc_clock.h"

enum { EXIT_SYSTRACE_FAILED = 125, EXIT_CANNOT_EXECUTE = 126, EXIT_NOT_FOUND = 127 };

static uint64_t tracer_cpu_ns(struct rusage *ru)
{
	return (uint64_t)(ru->ru_utime.tv_sec + ru->ru_stime.tv_sec) * 1000000000u
	       + (uint64_t)(ru->ru_utime.tv_usec + ru->ru_stime.tv_usec) * 1000u;
}

/* What a stop and an in-process call cost here, measured before the command starts
 * (with the tracer already pinned, as the command will be); a failure costs the run
 * nothing but those figures. */
static void measure_costs(struct totals *totals)
{
	struct calibration c;
	char err[256];

	if (calibrate(&c, region_fd(), err, sizeof(err))) {
		totals_set_costs(totals, c.stop_ns, c.inprocess_ns, c.took_ns);
		library_set_saving(totals->saving_per_call_ns);
		history_set_stop_cost(c.stop_ns);
	} else
		fprintf(stderr, "systrace: warning: cannot measure what a stop and an in-process call cost: %s "
				"(stop_cost_ns, inprocess_cost_ns and saving_per_call_ns are left empty)\n", err);
}

/* The log's figures, on stderr: runs with --log are for diagnosis, and what it
 * cost them is part of the diagnosis. */
static bool close_log(bool on)
{
	struct syscall_log_stats st;
	char err[512];

	if (!on)
		return true;
	if (!syscall_log_close(&st, err, sizeof(err))) {
		fprintf(stderr, "systrace: %s\n", err);
		return false;
	}
	fprintf(stderr, "systrace: log: %llu entries (%llu in-process), %.1f MiB, %llu sites; "
			"its cost: %llu stops to empty full buffers, %.1f ms of the tracer's time\n",
		(unsigned long long)st.entries, (unsigned long long)st.inprocess_entries,
		(double)st.bytes / (1 << 20), (unsigned long long)st.sites, (unsigned long long)st.flushes,
		(double)st.tracer_ns / 1e6);
	return true;
}

/* How the command ended, from its last wait status: the signal that killed it (the
 * exit status is then 128+N), or 0 and its exit status in *code. When the command's
 * end was not seen (systrace gave up), the termination signal that made it give up,
 * with which the command is killed. */
static int command_end(const struct run_result *r, int *code)
{
	*code = 0;
	if (!r->root_status_known)
		return signals_last_termination ? signals_last_termination : SIGKILL;
	if (WIFSIGNALED(r->root_status))
		return WTERMSIG(r->root_status);
	*code = WEXITSTATUS(r->root_status);
	return 0;
}

/* LeakSanitizer's check, which exit would have run, in the sanitized build only
 * (a weak reference: absent from the plain one). */
extern void __lsan_do_leak_check(void) __attribute__((weak));

/* Dies by sig, as the command did (as strace and timeout do): a shell then sees a
 * signal death, an interactive one stops the command line at a Ctrl-C, and prints
 * "Quit" at a Ctrl-\. No core file of systrace's own: the command dumped its own
 * if it did. Returns only if the signal did not kill (then the caller exits
 * 128+sig). */
static void die_by(int sig)
{
	struct rlimit no_core = { 0, 0 };
	struct sigaction dfl;
	sigset_t set;

	if (__lsan_do_leak_check)
		__lsan_do_leak_check();
	fflush(NULL);
	handout_close(); /* (exit would have) */
	setrlimit(RLIMIT_CORE, &no_core);
	/* a core_pattern pipe ignores RLIMIT_CORE; a process that is not dumpable
	 * dumps nowhere */
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigemptyset(&dfl.sa_mask);
	sigaction(sig, &dfl, NULL);
	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	raise(sig);
}

/* What the caller of systrace sees once the files are written (or failed to be): the
 * command's exit status, or its death by the same signal; files_written false (the
 * reason is on stderr already) turns an exit status into 125, after saying what
 * the status was, but not a signal death, which an interrupted command line must see. */
static int finish_as_command(const struct run_result *r, bool files_written, const char *dir)
{
	int code, sig = command_end(r, &code);

	if (!files_written) {
		if (sig)
			fprintf(stderr, "systrace: no files written in '%s'; the command was killed by signal %d (%s), "
					"and systrace dies by it too\n", dir, sig, strsignal(sig));
		else
			fprintf(stderr, "systrace: no files written in '%s'; the command exited with status %d "
					"(systrace exits 125)\n", dir, code);
	}
	if (sig) {
		die_by(sig);
		return 128 + sig;
	}
	return files_written ? code : EXIT_SYSTRACE_FAILED;
}

int main(int argc, char **argv)
{
	struct options opt;
	struct output_dir out;
	struct run_result run = { 0 };
	/* the first serving thread's sums, and all of them; their object caches */
	struct serving_sums mine, sums = { 0 };
	struct object **objects[TRACER_THREADS_MAX] = { 0 };
	struct rusage ru;
	char err[512], *path;
	int status, tracer_nice;
	uint64_t start_ns;
	pid_t root;

	switch (options_parse(&opt, argc, argv)) {
	case OPTIONS_EXIT_OK: return 0;
	case OPTIONS_USAGE_ERROR: return EXIT_SYSTRACE_FAILED;
	case OPTIONS_RUN: break;
	}
	if (!opt.tracer_threads)
		opt.tracer_threads = tracer_threads_for_cpus(cpus_allowed());
	if (!(path = launch_resolve(opt.command[0], &status))) {
		/* as a shell says it: a name searched in PATH is "not found", a path has
		 * its errno (No such file or directory, Not a directory, Permission denied) */
		fprintf(stderr, "systrace: %s: %s\n", opt.command[0],
			status == EXIT_NOT_FOUND && !strchr(opt.command[0], '/') ? "command not found"
										  : strerror(errno));
		return status;
	}
	fd_limit_raise(); /* before the first descriptor that lasts */
	/* what every serve reads and none changes, set before the first */
	tsc_clock_init();
	events_setup();
	objects_setup();
	proc_maps_setup();
	procfs_setup();
	tid_marks_setup();
	serve_times_setup();
	handoff_setup();
	if (output_dir_open(&out, opt.output_dir, err, sizeof(err)) < 0) {
		fprintf(stderr, "systrace: %s\n", err);
		free(path);
		return EXIT_SYSTRACE_FAILED;
	}
	if (*out.warning)
		fprintf(stderr, "systrace: warning: %s\n", out.warning);
	if (opt.log && !syscall_log_open(opt.output_dir, err, sizeof(err))) {
		fprintf(stderr, "systrace: %s\n", err);
		output_dir_discard(&out);
		free(path);
		return EXIT_SYSTRACE_FAILED;
	}
	call_times_setup(opt.time); /* before any stub is built */
	if (!library_setup(opt.patch, opt.region_slots, opt.log, opt.time, err, sizeof(err))) {
		fprintf(stderr, "systrace: %s\n", err);
		output_dir_discard(&out);
		free(path);
		return EXIT_SYSTRACE_FAILED;
	}
	if (opt.summary)
		output_dir_count_syscalls(&out);
	patching_setup(opt.patch, opt.prepatch);
	libc_calls_setup(opt.libc_calls);
	signals_setup();
	/* the writer frees ended images in batches: with glibc's default the heap's top
	 * was given back at each, and the next images' memory faulted in again (brk
	 * and page faults were half of image_new) */
	mallopt(M_TRIM_THRESHOLD, 64 << 20);
	offload_start(&out); /* before placement pins this thread to a CPU */
	/* after signals_setup: the command gets the inherited SIGALRM */
	placement_start(opt.tracer_threads > 1);
	/* a thread's waiting log entry before the in-process ones its slot holds */
	tasks_on_thread_leave(syscall_log_unfinished);
	tasks_on_thread_leave(nested_thread_leaves);
	tasks_on_thread_leave(library_thread_ends);
	tasks_on_image_complete(library_image_complete);
	tasks_on_image_complete(libc_calls_complete);
	tasks_on_image_complete(call_times_complete); /* after the library took the slots */
	if (opt.patch != PATCH_OFF)
		measure_costs(&out.totals);
	start_ns = monotonic_ns();
	serving_begin();
	root = launch_command(path, opt.command, SYSTRACE_GATE_SYSCALL_IP);
	if (root < 0) {
		fprintf(stderr, "systrace: cannot start %s: %s\n", path, strerror(errno));
		output_dir_discard(&out);
		free(path);
		return EXIT_SYSTRACE_FAILED;
	}
	/* (the command forked: it does not inherit the serving thread's nice) */
	if (!tracer_nice_apply(opt.tracer_nice, &tracer_nice) && opt.tracer_nice_given)
		fprintf(stderr, "systrace: warning: --tracer-nice=%d: the system does not let the tracer go that far "
				"(it needs CAP_SYS_NICE or a higher RLIMIT_NICE); it serves the stops at nice %d\n",
			opt.tracer_nice, tracer_nice);
	events_begin(root, &run);
	tracer_threads_start(opt.tracer_threads, events_run);
	events_run();
	tracer_threads_join(&sums, objects);
	if (signals_give_up)
		fprintf(stderr, "systrace: interrupted three times: stopping; processes still running "
				"are killed and reported as running\n");
	objects[0] = serving_end(&mine);
	serving_sums_add(&sums, &mine);
	offload_finish(); /* the totals and the files are this thread's again */
	for (unsigned i = 0; i < tracer_threads_count(); i++)
		objects_free(objects[i]);
	history_costs(&sums.history, &out.totals.batch_patch_ns, &out.totals.miss_ns);
	out.totals.known_threshold_permille = history_threshold_permille(&sums.history);
	region_destroy();
	if (!close_log(opt.log)) {
		output_dir_discard(&out);
		free(path);
		return run.root_started ? finish_as_command(&run, false, opt.output_dir) : EXIT_SYSTRACE_FAILED;
	}

	if (!run.root_started) {
		/* no execve result: the child failed before it (its message is above) */
		int status = !run.root_exec_errno ? EXIT_SYSTRACE_FAILED
			     : run.root_exec_errno == ENOENT ? EXIT_NOT_FOUND : EXIT_CANNOT_EXECUTE;

		if (run.root_exec_errno)
			fprintf(stderr, "systrace: cannot execute %s: %s\n", path, strerror(run.root_exec_errno));
		output_dir_discard(&out);
		free(path);
		return status;
	}
	free(path);
	getrusage(RUSAGE_SELF, &ru);
	out.totals.wall_ns = monotonic_ns() - start_ns;
	out.totals.tracer_serving_cpu_ns = sums.load.cpu_ns;
	out.totals.tracer_run_delay_ns = sums.load.run_delay_ns;
	out.totals.tracer_nice = tracer_nice;
	out.totals.run_delay_known = sums.load.run_delay_known;
	serve_sums_totals(&sums.serves, &out.totals);
	out.totals.tracer_threads = tracer_threads_count();
	out.totals.tracer_handoffs = sums.handoffs.count;
	out.totals.tracer_handoff_ns = sums.handoffs.ns;
	out.totals.tracer_cpu_ns = tracer_cpu_ns(&ru);
	out.totals.tracer_writer_cpu_ns = offload_cpu_ns();
	/* VmHWM, not ru_maxrss: Linux carries the parent's peak across fork and execve
	 * into that one */
	procfs_status_u64(getpid(), "VmHWM", 10, &out.totals.tracer_maxrss_kb);
	if (opt.show_perf_stats) {
		summary_print(stderr, &out.totals);
		call_times_print(stderr, &sums.call_times);
	}
	if (opt.summary)
		syscall_table_print(stderr, out.syscalls, SYSCALL_INDEX_COUNT,
				    &(struct syscall_table_options){ opt.summary_sort, out.syscalls_timed, true, true });
	if (output_dir_commit(&out, err, sizeof(err)) < 0) {
		fprintf(stderr, "systrace: %s\n", err);
		return finish_as_command(&run, false, opt.output_dir);
	}
	return finish_as_command(&run, true, opt.output_dir);
}
