#!/bin/sh
# An image whose library cannot come up stays on the slow path, exactly counted, and
# says why (processes.csv `library`, sites.csv `unpatchable:library-<why>`):
#  - gate-address-taken: gate_taken 1000 (getppid_loop with a page of its own at the
#    gate address, which the kernel maps at exec, before systrace can); a preloaded
#    library that maps a page there when it starts (gate_squatter_preload.so) comes
#    too late: every image has the gate from its first instruction (tracer/early.c),
#    the squatter finds the address taken and the program counts in-process;
#  - region-unreachable: a program that drops from root to nobody execs
#    getppid_loop 1000, whose library cannot open the root tracer's region.
# Each: exit 0, getppid exactly 1000 in the image, nothing in-process, the library
# column and every site of that image say the reason.
. "$(dirname "$0")/lib.sh"
require_library
T=$TMPDIR

check_image() { # DIR IMAGE REASON
	python3 - "$1" "$2" "$3" <<'PY' || check_problem "$(basename "$1"): image $2 not on the slow path with reason $3 (see above)"
import csv, sys
d, image, reason = sys.argv[1], sys.argv[2], sys.argv[3]
bad = []
rows = [r for r in csv.DictReader(open(d + "/processes.csv", newline="")) if r["image"] == image]
if len(rows) != 1:
    bad.append(f"{len(rows)} rows for image {image}")
for r in rows:
    if r["library"] != reason:
        bad.append(f"library {r['library']!r}, expected {reason!r}")
    if r["inprocess"] != "0" or r["ptraced"] != r["syscalls"]:
        bad.append(f"syscalls {r['syscalls']}, ptraced {r['ptraced']}, inprocess {r['inprocess']}: all should be ptraced")
calls = sum(int(r["calls"]) for r in csv.DictReader(open(d + "/syscalls.csv", newline=""))
            if r["image"] == image and r["syscall"] == "getppid")
if calls != 1000:
    bad.append(f"getppid {calls}, expected 1000")
states = {r["state"] for r in csv.DictReader(open(d + "/sites.csv", newline="")) if r["image"] == image}
if states != {"unpatchable:library-" + reason}:
    bad.append(f"site states {sorted(states)}, expected only unpatchable:library-{reason}")
for b in bad:
    print("   ", b)
sys.exit(1 if bad else 0)
PY
}

st_run_mode default "$T/gate" "$PROGRAMS/gate_taken" 1000
[ "$ST_STATUS" -eq 0 ] || check_problem "gate_taken: systrace exited $ST_STATUS"
require_file "$T/gate/processes.csv" "gate_taken" && check_image "$T/gate" 1 gate-address-taken
# (systrace puts its own library first in the LD_PRELOAD it is given; the plain
# build: ASan must come first in its own process)
LD_PRELOAD="$PROGRAMS/gate_squatter_preload.so"
export LD_PRELOAD
ST_BIN=$SYSTRACE_PLAIN st_run_mode default "$T/squat" "$PROGRAMS/getppid_loop" 1000
unset LD_PRELOAD
[ "$ST_STATUS" -eq 0 ] || check_problem "gate squatter: systrace exited $ST_STATUS"
# as the run's first image, and after env
st_run_mode default "$T/squat2" env LD_PRELOAD="$PROGRAMS/gate_squatter_preload.so" "$PROGRAMS/getppid_loop" 1000
[ "$ST_STATUS" -eq 0 ] || check_problem "gate squatter after env: systrace exited $ST_STATUS"
for d in squat squat2; do
	if require_file "$T/$d/processes.csv" "gate squatter ($d)"; then
		csvtool library "$T/$d" ready /getppid_loop >/dev/null ||
			check_problem "gate squatter ($d): the library of getppid_loop is not ready (its gate was mapped at exec)"
		expect_count "$T/$d" x86_64 getppid 1000 "gate squatter ($d)"
	fi
done

if [ "$(id -u)" -ne 0 ]; then
	echo "    region-unreachable case not run: it needs root (to drop to nobody)"
else
	# nobody must reach the program and the library (a checkout may sit in a
	# private folder): copies of both, and of systrace, in a world-readable one
	open=$(mktemp -d /tmp/systrace-nobody.XXXXXX) || fail "mktemp"
	chmod 755 "$open" && cp "$PROGRAMS/getppid_loop" "$SYSTRACE" "$LIBSYSTRACE" "$open/" &&
		chmod 755 "$open/getppid_loop" "$open/systrace" && chmod 644 "$open/libsystrace.so"
	ST_BIN=$open/systrace st_run_mode default "$T/uid" "$PROGRAMS/drop_uid" "$open/getppid_loop" 1000
	rm -rf "$open"
	[ "$ST_STATUS" -eq 0 ] || check_problem "drop_uid: systrace exited $ST_STATUS"
	require_file "$T/uid/processes.csv" drop_uid && check_image "$T/uid" 2 region-unreachable
fi
finish
