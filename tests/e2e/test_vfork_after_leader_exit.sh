#!/bin/sh
# A vfork child whose parent's leader has exited shares its parent's memory, and
# patches it makes count in the right rows: vfork_after_leader_exit exits 0 with
# getppid 1 in the child's row, getppid 100 and getpid 50 in the parent's.
. "$(dirname "$0")/lib.sh"
D=$TMPDIR/vfork_zombie
st_run_mode default "$D" "$PROGRAMS/vfork_after_leader_exit"
[ "$ST_STATUS" -eq 0 ] || check_problem "vfork_after_leader_exit exited $ST_STATUS (natively 0)"
require_file "$D/syscalls.csv" vfork_after_leader_exit &&
	{ python3 - "$D" <<'PY' || check_problem "vfork_after_leader_exit: counts per row not as constructed (see above)"; }
import csv, sys
rows = {}
for r in csv.DictReader(open(sys.argv[1] + "/syscalls.csv", newline="")):
    rows.setdefault((r["pid"], r["image"]), {})[r["syscall"]] = int(r["calls"])
child = [v for (pid, image), v in rows.items() if image == "0"]
parent = [v for (pid, image), v in rows.items() if image == "1"]
bad = []
if len(child) != 1 or child[0].get("getppid") != 1:
    bad.append(f"child rows {child}: expected one with getppid 1")
if len(parent) != 1 or parent[0].get("getppid") != 100 or parent[0].get("getpid") != 50:
    bad.append(f"parent row getppid {parent[0].get('getppid') if parent else None}, "
               f"getpid {parent[0].get('getpid') if parent else None}: expected 100 and 50")
for b in bad:
    print("   ", b)
sys.exit(1 if bad else 0)
PY
finish
