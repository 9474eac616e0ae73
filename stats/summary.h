/* Run totals: the sums of processes.csv's columns plus run-wide figures, written as
 * summary.csv and printed by --show-perf-stats. */
#ifndef SYSTRACE_SUMMARY_H
#define SYSTRACE_SUMMARY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "image_record.h"
#include "syscall_table.h"

/* The kinds of status the serving thread's time is split by (tracer/serve_times.h):
 * a call that stops (the seccomp stop and its exit stop), an exec event, a fork,
 * vfork or clone event, an exit event, a signal's delivery, the other stops (group
 * and interrupt stops, a new thread's first stop), and a thread's end reaped (no
 * stop). The stops a serve takes inside itself (borrow.c, the patch protocol) are
 * in its time, not counted apart. */
enum serve_kind {
	SERVE_SYSCALL, SERVE_EXEC, SERVE_CREATE, SERVE_EXIT, SERVE_SIGNAL, SERVE_OTHER, SERVE_REAP, SERVE_KINDS
};
extern const char *const serve_kind_names[SERVE_KINDS];

struct totals {
	uint64_t syscalls, syscalls_early, syscalls_ptraced, syscalls_inprocess;
	uint64_t instrument_syscalls, processes, forks, vforks, threads, execs, exits;
	uint64_t sites, sites_patched, sites_unpatchable, ptrace_stops, syscalls_restarted;
	uint64_t ptrace_stops_lifecycle, ptrace_stops_early, ptrace_stops_late;
	uint64_t patches_written, patches_known, patches_not_amortized, patch_ns;
	uint64_t known_unused, known_missed;
	uint64_t errors;          /* calls that returned -4095..-1, on both paths */
	/* the choice of known sites (tracer/site_history.h): what a patch written in a
	 * batch cost (P), what a site left out cost when it ran (M: a stop and a patch
	 * at its trap), and P / M in thousandths */
	uint64_t batch_patch_ns, miss_ns, known_threshold_permille;
	uint64_t tracer_cpu_per_image_ns; /* derived when written */
	uint64_t processes_library_ready, processes_without_library;
	uint64_t wall_ns, tracer_cpu_ns, tracer_maxrss_kb;
	uint64_t tracer_writer_cpu_ns; /* of tracer_cpu_ns, the writer thread's (offload.h) */
	/* the serving thread over wall_ns (tracer/serving_load.h): its CPU, that CPU
	 * in thousandths of wall_ns, and its wait for a CPU (empty when not known) */
	uint64_t tracer_serving_cpu_ns, tracer_busy_permille; /* the permille derived when written */
	bool run_delay_known;
	uint64_t tracer_run_delay_ns;
	int tracer_nice; /* the serving thread's nice value (tracer/tracer_nice.h) */
	/* the threads that served stops (tracer/tracer_threads.h); the images handed
	 * from one to another, and the time that took (tracer/handoff.h) */
	uint64_t tracer_threads, tracer_handoffs, tracer_handoff_ns;
	/* per serve_kind: the statuses served and the time from each one's arrival to
	 * the end of its dispatch (tracer_serve_<kind>_count and _ns); how many of them
	 * were sampled on the thread's CPU clock, and the kind's CPU estimated from
	 * those (_sampled, _cpu_ns: empty when none was) */
	uint64_t serve_count[SERVE_KINDS], serve_ns[SERVE_KINDS];
	uint64_t serve_sampled[SERVE_KINDS], serve_cpu_ns[SERVE_KINDS];
	/* measured on this machine before the command ran (tracer/calibrate.h); empty
	 * in the files when not (--patch=off, or it failed) */
	bool costs_known;
	uint64_t stop_cost_ns, inprocess_cost_ns, saving_per_call_ns, calibration_ns;
	uint64_t patch_cost_ns, break_even_calls; /* derived when written */
};

void totals_add_image(struct totals *t, const struct image_record *r);
/* The image's calls of syscall index i added to by_index[i], as its row of
 * syscalls.csv has them. */
void totals_add_syscall(struct syscall_count *by_index, const struct image_record *r, int i);

/* The measured cost of one stop and of one in-process call, and the time measuring
 * took; the saving per call is their difference, at least 1. */
void totals_set_costs(struct totals *t, uint64_t stop_ns, uint64_t inprocess_ns, uint64_t took_ns);

/* Per-image site state counts, shared by the processes row and the totals. */
uint64_t image_sites_in_state(const struct image_record *r, enum site_state state);

/* a/total as a percentage in hundredths, and its complement, so that a pair of
 * percentage lines always adds up to exactly 100.00%. */
void percent_pair(uint64_t part, uint64_t total, unsigned *hundredths, unsigned *rest);

void summary_write_csv(FILE *f, const struct totals *t);
void summary_print(FILE *f, const struct totals *t);

#endif
