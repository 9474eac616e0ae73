#!/bin/sh
# sites.csv names where each syscall instruction is: the object, the offset that
# addr2line -e takes, the nearest symbol, and `?` for a site that saw several numbers
# (JIT code rewritten at run time). See tests/programs/sites.c for the construction.
. "$(dirname "$0")/lib.sh"
D=$TMPDIR/sites
PROG=$PROGRAMS/sites
st_run "$D" "$PROG"
[ "$ST_STATUS" -eq 0 ] || { check_problem "sites exited $ST_STATUS, expected 0"; st_show_err "$D"; finish; }
python3 - "$D/sites.csv" "$PROG" <<'PY' || check_problem "sites.csv does not place the sites as constructed"
import csv, os, subprocess, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
prog = os.path.realpath(sys.argv[2])
bad = []
own = [r for r in rows if r["object"] == prog and r["symbol"].startswith("own_site+")]
if len(own) != 1 or own[0]["syscall"] != "getppid" or own[0]["ptraced"] != "7":
    bad.append(f"own_site: expected one getppid row in {prog} with 7 calls, got {own}")
else:
    fn = subprocess.run(["addr2line", "-f", "-e", prog, own[0]["offset"]],
                        capture_output=True, text=True).stdout.split("\n")[0]
    if fn != "own_site":
        bad.append(f"addr2line -f -e {prog} {own[0]['offset']} says {fn!r}, not own_site")
anon = [r for r in rows if r["object"] == "[anon]"]
if len(anon) != 1 or anon[0]["syscall"] != "?" or anon[0]["ptraced"] != "8" or anon[0]["offset"] != anon[0]["address"]:
    bad.append(f"JIT: expected one [anon] site, syscall ?, 8 calls, offset = address; got {anon}")
libc = [r for r in rows if "libc.so" in r["object"] and r["syscall"] == "getppid"]
if not libc or not all(r["symbol"] for r in libc):
    bad.append(f"getppid() in libc: expected named sites, got {libc}")
for b in bad:
    print("   ", b)
sys.exit(1 if bad else 0)
PY
finish
