#!/usr/bin/env python3
"""The tracer as a single server, projected to many cores (docs/scaling.md).

A build of IMAGES process images takes NATIVE_S seconds natively on NATIVE_CORES
cores: each image costs C = NATIVE_CORES * NATIVE_S / IMAGES seconds of a core
(the cores assumed busy throughout). Traced, each image costs the tracees
a * C of CPU (a, --inflation: the traced processes' own extra work, stops and
the library) and the tracer D of its thread's CPU (--tracer-us), in V stops
(--stops). With c cores and make -jP (P = c unless --jobs), natively
images/s = min(c, P) / C (perfect scaling up to the build's parallelism: the
assumption to doubt first), and traced the closed network of P jobs that each
compute a * C (a delay: every job has its core) and then queue for a tracer
thread (T threads, --threads, each taking 1/T of the images, demand D / T)
is solved exactly by mean value analysis (exponential service; FIFO), and
capped by the cores' capacity, c / (a * C + D). Prints, per core count, the
native and traced build times, their ratio, each tracer thread's utilization
rho = images/s * D / T (the tracer thread's CPU busy), the mean wait of a stop for its tracer thread and what
the waits add to each image; then the core count at which one tracer thread
saturates (rho = 1 with the tracees' images/s unhindered: c = a * C / D) and at
which it reaches rho = 0.7.

--pinned-us p: tracee CPU per image that runs on the tracer thread's own CPU
(systrace keeps stop-heavy threads there, tracer/placement.c): the tracer's
station then serves D + p per image and the tracees compute a * C - p elsewhere.

--writer-us W: tracer CPU per image spent by its writer thread (tracer/offload.h:
rows, frees, closes), off the thread that serves the stops: no stop waits for it,
but it takes a core's time like the tracees' (the capacity cap counts it). D is
then the serving thread's alone.

--from-summary DIR takes D (tracer_cpu_ns less tracer_writer_cpu_ns, / processes),
W (tracer_writer_cpu_ns / processes; 0 before the writer) and V (ptrace_stops /
processes) from a systrace output folder's summary.csv.
"""
import argparse
import csv
import os


def mva(jobs, think, demands):
    """Exact MVA of a closed network: `jobs` customers, a delay station of
    `think` seconds and queueing stations of the given demands. Returns
    (throughput, residence time per station)."""
    queue = [0.0] * len(demands)
    x, resid = 0.0, [0.0] * len(demands)
    for n in range(1, jobs + 1):
        resid = [d * (1 + q) for d, q in zip(demands, queue)]
        x = n / (think + sum(resid))
        queue = [x * r for r in resid]
    return x, resid


def project(args, cores):
    c_img = args.native_cores * args.native_s / args.images
    jobs = args.jobs or cores
    native_x = min(cores, jobs) / c_img
    d = args.tracer_us * 1e-6
    pinned = min(args.pinned_us * 1e-6, args.inflation * c_img)
    demands = [(d + pinned) / args.threads] * args.threads
    x, resid = mva(jobs, args.inflation * c_img - pinned, demands)
    x = min(x, cores / (args.inflation * c_img + d + args.writer_us * 1e-6))
    rho = x * (d + pinned) / args.threads
    wait_image = sum(resid) - d - pinned  # queueing only, per image (all threads)
    wait_stop = wait_image / args.stops if args.stops else 0.0
    return {"cores": cores, "jobs": jobs, "native_s": args.images / native_x,
            "traced_s": args.images / x, "ratio": native_x / x, "rho": rho,
            "wait_stop_us": wait_stop * 1e6, "wait_image_ms": wait_image * 1e3,
            "native_x": native_x, "traced_x": x}


def from_summary(folder):
    with open(os.path.join(folder, "summary.csv"), newline="") as f:
        s = {row["metric"]: row["value"] for row in csv.DictReader(f)}
    procs = float(s["processes"])
    writer = float(s.get("tracer_writer_cpu_ns") or 0)
    return ((float(s["tracer_cpu_ns"]) - writer) / procs / 1e3, writer / procs / 1e3,
            float(s["ptrace_stops"]) / procs)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--images", type=float, default=100000)
    ap.add_argument("--native-s", type=float, default=203)
    ap.add_argument("--native-cores", type=int, default=2)
    ap.add_argument("--tracer-us", type=float, default=1290,
                    help="tracer CPU per image, of the thread that serves the stops")
    ap.add_argument("--writer-us", type=float, default=0,
                    help="tracer CPU per image of its writer thread")
    ap.add_argument("--stops", type=float, default=11.7, help="stops per image")
    ap.add_argument("--inflation", type=float, default=1.0, help="traced / native tracee CPU")
    ap.add_argument("--pinned-us", type=float, default=0,
                    help="tracee CPU per image on the tracer's own CPU")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=0, help="make -j (default: the core count)")
    ap.add_argument("--cores", default="2,8,32,64,128")
    ap.add_argument("--from-summary", metavar="DIR")
    args = ap.parse_args()
    if args.from_summary:
        args.tracer_us, args.writer_us, args.stops = from_summary(args.from_summary)

    c_img = args.native_cores * args.native_s / args.images
    print(f"C = {c_img * 1e3:.2f} ms of a core per image natively, tracees a = "
          f"{args.inflation:g}, D = {args.tracer_us:.0f} us of tracer CPU per image in "
          f"{args.stops:.1f} stops ({args.tracer_us / args.stops:.1f} us a stop) and W = "
          f"{args.writer_us:.0f} us on its writer thread, "
          f"{args.pinned_us:.0f} us of tracee CPU per image on the tracer's CPU, "
          f"{args.threads} tracer thread(s)")
    print("| cores | make -j | native s | traced s | traced/native | rho per tracer thread "
          "| wait per stop us | waits per image ms |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    for cores in (int(x) for x in args.cores.split(",")):
        p = project(args, cores)
        print(f"| {cores} | {p['jobs']} | {p['native_s']:.1f} | {p['traced_s']:.1f} "
              f"| {p['ratio']:.2f}x | {p['rho']:.2f} | {p['wait_stop_us']:,.1f} "
              f"| {p['wait_image_ms']:.2f} |")
    sat = args.threads * args.inflation * c_img / ((args.tracer_us + args.pinned_us) * 1e-6)
    print(f"tracer threads saturate (rho = 1) at {sat:.1f} cores; rho = 0.7 at "
          f"{0.7 * sat:.1f} cores")


if __name__ == "__main__":
    main()
