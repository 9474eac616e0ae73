#!/bin/sh
# processes.csv's exe is the image's executable however its memory is laid out. At
# an exec event the tracer takes it from the lowest executable mapping when another
# file's code is at the first instruction (the loader); these runs are the cases
# where that mapping does not say it, and /proc/PID/exe must:
#  - layout: `ulimit -s unlimited` gives the legacy layout, the loader mapped below
#    the executable (checked natively first);
#  - long: a copy of /bin/true under a path longer than a mapping entry holds
#    (256 bytes: the mapping query refuses it);
#  - loader: the loader run as the program (`ld.so /bin/true`: its exe is ld.so);
#  - static: a static program (no loader at all).
# Each: exit 0, and the exe of the image that ran the program is its real path; for
# layout and long also library `ready` (the early set-up still ran).
. "$(dirname "$0")/lib.sh"
P=$PROGRAMS
T=$TMPDIR

loader=$(sed -n 's/^\s*\[Requesting program interpreter: \(.*\)\]$/\1/p' <<EOF
$(readelf -l /bin/true)
EOF
)
[ -x "$loader" ] || fail "no loader found for /bin/true ('$loader')"
loader=$(realpath "$loader")

# the layout case is only one if the loader really lies below the executable
maps=$(sh -c 'ulimit -s unlimited && exec cat /proc/self/maps') || fail "ulimit -s unlimited refused"
python3 - "$loader" <<PY || fail "ulimit -s unlimited did not map the loader below the executable"
import sys
lines = """$maps""".splitlines()
def low(path):
    return min(int(l.split("-")[0], 16) for l in lines if l.endswith(path) and " r-xp " in l)
sys.exit(0 if low(sys.argv[1]) < low("/usr/bin/cat") else 1)
PY

long=$T/$(printf 'd%.0s' $(seq 1 90))/$(printf 'e%.0s' $(seq 1 90))/$(printf 'f%.0s' $(seq 1 90))
mkdir -p "$long" && cp /bin/true "$long/true" || fail "cannot copy /bin/true to $long"

# check NAME EXE LIBRARY: the run's image whose exe is EXE exists, with that library
# (empty: any)
check() {
	require_file "$T/$1/processes.csv" "$1" || return
	python3 - "$T/$1/processes.csv" "$2" "$3" <<'PY' || check_problem "$1: no image of $2 with library ${3:-any} (rows above)"
import csv, sys
path, exe, library = sys.argv[1:]
rows = list(csv.DictReader(open(path, newline="")))
for r in rows:
    print(f"    pid {r['pid']} image {r['image']} exe {r['exe']} library {r['library']}")
sys.exit(0 if any(r["exe"] == exe and (not library or r["library"] == library) for r in rows) else 1)
PY
}

st_run_clean layout "$T/layout" sh -c 'ulimit -s unlimited && exec /bin/true' && check layout "$(realpath /bin/true)" ready
st_run_clean long "$T/long" "$long/true" && check long "$long/true" ready
st_run_clean loader "$T/loader" "$loader" /bin/true && check loader "$loader" ""
st_run_clean static "$T/static" "$P/getppid_static" 10 && check static "$P/getppid_static" ""
finish
