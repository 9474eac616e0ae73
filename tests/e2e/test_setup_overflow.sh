#!/bin/sh
# An image whose known sites do not fit in its exec-time set-up (tracer/early.c: 96
# writes and a 16 KB stage; many_sites has 256 sites of its own, each called twice,
# all known from its first image when the second starts). The set-up is built
# again with fewer bytes (the loader's jumps apart, then no known sites at all), and
# the image must come out as if nothing had been tried:
#  - it runs (every call returns the parent's pid), counts equal strace -f -c's and
#    513 getppid calls per image by construction (and the shell's one: dash asks
#    for its parent's pid at its start), the CSV files agree;
#  - in the second image each of its 256 sites stops once and runs in-process once
#    (a site marked written by the set-up it was dropped from would never trap: 0
#    ptraced, and a wrong count if its jump were half there), and the image's
#    processes.csv row says the known sites were missed, not written (known_missed
#    256, patches_known below 256).
. "$(dirname "$0")/lib.sh"
# what a later image knows is what its serving thread learned from the earlier ones
# (each thread learns on its own: tracer/tracer_threads.h): one thread, whatever the
# suite's SYSTRACE_TEST_THREADS
SYSTRACE_TEST_THREADS=1
export SYSTRACE_TEST_THREADS
P=$PROGRAMS
D=$TMPDIR/overflow

if compare_inprocess overflow default "exit_group=3" sh -c "$P/many_sites && $P/many_sites"; then
	expect_count "$D" x86_64 getppid 1027 "two images of many_sites and the shell"
	python3 - "$D" <<'PY' || check_problem "the second image of many_sites (above)"
import csv, sys
d = sys.argv[1]
procs = sorted((r for r in csv.DictReader(open(f"{d}/processes.csv")) if r["exe"].endswith("/many_sites")),
               key=lambda r: int(r["start_ns"]))
if len(procs) != 2:
    print(f"FAIL: {len(procs)} images of many_sites, expected 2")
    sys.exit(1)
second = procs[1]
own = [r for r in csv.DictReader(open(f"{d}/sites.csv"))
       if r["pid"] == second["pid"] and r["start_ns"] == second["start_ns"] and r["object"].endswith("/many_sites")]
ptraced = sum(int(r["ptraced"]) for r in own)
inprocess = sum(int(r["inprocess"]) for r in own)
print(f"    second image: {len(own)} own sites, ptraced {ptraced}, inprocess {inprocess}, "
      f"known_missed {second['known_missed']}, patches_known {second['patches_known']}")
bad = []
if len(own) != 256 or any(int(r["ptraced"]) != 1 or int(r["inprocess"]) != 1 for r in own):
    bad.append("each of its 256 sites should stop once, then run in-process once")
if int(second["known_missed"]) != 256 or int(second["patches_known"]) >= 256:
    bad.append("its 256 known sites should be missed at its start, not written by it")
for b in bad:
    print(f"FAIL: {b}")
sys.exit(1 if bad else 0)
PY
fi

finish
