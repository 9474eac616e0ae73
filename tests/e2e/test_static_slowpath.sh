#!/bin/sh
# A statically linked program has no dynamic loader for systrace to set up at exec:
# under the default mode (safe) every syscall still counts, exactly, through the slow path.
# getppid_static 2000: the counts equal strace -f -c's; its processes.csv row says
# library `absent`, every call is early and ptraced (none in-process), and every site
# is unpatchable:<reason>, the reason not `patching-off` (patching is on).
. "$(dirname "$0")/lib.sh"
D=$TMPDIR/static
if compare_inprocess static default "exit_group=1" "$PROGRAMS/getppid_static" 2000; then
	expect_count "$D" x86_64 getppid 2000 getppid_static
fi
if require_file "$D/processes.csv" getppid_static; then
	csvtool library "$D" absent ||
		check_problem "getppid_static: processes.csv library should be 'absent' (a static binary loads no library)"
	csvtool library "$D" unpatchable ||
		check_problem "getppid_static: every site should be unpatchable:<reason>"
	python3 - "$D" <<'PY' || check_problem "getppid_static: not every call was early and ptraced, or a site says patching-off"
import csv, sys
d = sys.argv[1]
bad = []
for r in csv.DictReader(open(d + "/processes.csv", newline="")):
    if r["inprocess"] != "0" or r["early"] != r["syscalls"] or r["ptraced"] != r["syscalls"]:
        bad.append(f"pid {r['pid']} image {r['image']}: syscalls {r['syscalls']}, early {r['early']}, "
                   f"ptraced {r['ptraced']}, inprocess {r['inprocess']} (expected all early and ptraced)")
for r in csv.DictReader(open(d + "/sites.csv", newline="")):
    if r["state"] == "unpatchable:patching-off":
        bad.append(f"site {r['symbol'] or r['offset']} ({r['syscall']}): unpatchable:patching-off under --patch=safe "
                   "(the reason should say there is no library)")
for b in bad:
    print("   ", b)
sys.exit(1 if bad else 0)
PY
fi
finish
