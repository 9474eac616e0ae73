#!/bin/sh
# A process that ends as a whole (a fatal signal here) while another of its threads
# is in a stop the tracer is handling: the kernel kills that thread, and it may die
# without an exit event, so that the first thread's exit event is the last stop at
# which the process's memory and CPU times can be read
# (tests/programs/group_exit_sites.c: 20 children, each dying of SIGTERM while its
# second thread makes sched_getaffinity calls, which always stop). Every site row
# is named (an object, and the site's symbol for site_getppid), every process row has
# its CPU times, and the counts are exact by construction, in the default mode and
# with --patch=off. Before: in each run some children's sites had no object (2 to 20
# rows) and 1 or 2 children no times.
. "$(dirname "$0")/lib.sh"
for mode in default off; do
	D=$TMPDIR/group_exit_$mode
	st_run_ok "$mode" group_exit_sites "$D" "$PROGRAMS/group_exit_sites" || continue
	expect_count "$D" x86_64 getppid 20 "group_exit_sites ($mode)"
	expect_count "$D" x86_64 tgkill 20 "group_exit_sites ($mode)"
	expect_site_count "$D" symbol=site_getppid+0x5 20 "group_exit_sites ($mode): the children's getppid"
	python3 - "$D" <<'PY' || check_problem "group_exit_sites ($mode): a row read at the process's end is missing"
import csv, sys
d = sys.argv[1]
bad = 0
for r in csv.DictReader(open(d + "/sites.csv")):
    if not r["object"]:
        print(f"    site {r['address']} ({r['syscall']}) of pid {r['pid']} has no object")
        bad += 1
procs = list(csv.DictReader(open(d + "/processes.csv")))
if len(procs) != 21:
    print(f"    {len(procs)} process rows, expected 21")
    bad += 1
for r in procs:
    if r["user_ns"] == "" or r["sys_ns"] == "":
        print(f"    pid {r['pid']} has no CPU times")
        bad += 1
sys.exit(1 if bad else 0)
PY
	csvtool consistency "$D" --any-mode || check_problem "group_exit_sites ($mode): CSV files inconsistent"
done
finish
