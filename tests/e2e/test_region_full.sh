#!/bin/sh
# Running out of counter slots in the shared region degrades to ptrace, loudly, never
# to lost or misplaced counts. With --region-slots=1:
#  - fork_tree (15 processes, each 40 getppid through glibc's syscall(), forked after
#    their parent patched that site) and fork_threads (children forked while
#    threads run patched sites) exit 0;
#  - their counts equal strace -f -c's, and per image they are
#    exactly as constructed (a child that inherited patched code but has no slot must
#    not count into its parent's);
#  - every image says library `ready` or `region-full`, and at least one says
#    `region-full` (slots are per thread: a process whose second thread finds none
#    has its patches withdrawn and goes on ptraced, keeping the in-process calls it
#    had made; its counts are still exact, above);
#  - systrace says so on stderr (a line with "region" and "slot" or "full").
. "$(dirname "$0")/lib.sh"
T=$TMPDIR
# shellcheck disable=SC2034 # read by st_run_mode in lib.sh
ST_OPTS=--region-slots=1

check_full() { # NAME
	D=$T/$1
	require_file "$D/processes.csv" "$1 --region-slots=1" || return
	python3 - "$D" <<'PY' || check_problem "$1 --region-slots=1: library column not as expected (see above)"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1] + "/processes.csv", newline="")))
if rows and "library" not in rows[0]:
    print("    processes.csv has no library column")
    sys.exit(1)
bad = []
for r in rows:
    lib = r["library"]
    if lib not in ("ready", "region-full"):
        bad.append(f"pid {r['pid']} image {r['image']}: library {lib!r}, expected ready or region-full")
full = sum(r["library"] == "region-full" for r in rows)
ready = sum(r["library"] == "ready" for r in rows)
print(f"    {ready} image(s) ready, {full} region-full, of {len(rows)}")
if not full:
    bad.append("no image says region-full, with one slot for several processes alive at once")
for b in bad:
    print("   ", b)
sys.exit(1 if bad else 0)
PY
	if ! grep -i 'region' "$D.err" | grep -Ei 'slot|full' >/dev/null; then
		check_problem "$1 --region-slots=1: systrace did not warn on stderr that the region is full"
		st_show_err "$D"
	fi
}

if compare_inprocess fork_tree default "exit_group=15" "$PROGRAMS/fork_tree"; then
	expect_rows "$T/fork_tree" getppid "40 40 40 40 40 40 40 40 40 40 40 40 40 40 40" fork_tree
fi
check_full fork_tree

if compare_inprocess fork_threads default "exit=4 exit_group=4" "$PROGRAMS/fork_threads" 4 3000; then
	expect_rows "$T/fork_threads" getppid "1111 1222 1333 24001" fork_threads
fi
check_full fork_threads
finish
