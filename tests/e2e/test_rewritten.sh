#!/bin/sh
# A program rewritten in place (cp over it keeps its inode) between two runs is
# another object: what was learned of the first version is not used in the second.
# A shell runs rewritten_v1 twice from a copy (so that the tracer keeps the file
# open, its pin cache), then copies rewritten_v2 over that copy and runs it: f's
# site, patched in v1, lies in v2 under a branch target (tests/programs/rewritten.h)
# and must not be patched there from v1's plan:
#  - the shell exits 0 (v2 does natively; a v1 patch in v2 crashes it), and the
#    copy kept its inode (else the case is not the one tested);
#  - sites.csv: f's site patched in the two v1 images, unpatchable:branch-target in
#    the v2 image.
. "$(dirname "$0")/lib.sh"
require_library
P=$PROGRAMS
T=$TMPDIR/prog
D=$TMPDIR/run
st_run_clean rewritten "$D" /bin/sh -c "cp $P/rewritten_v1 $T && stat -c %i $T && $T && $T &&
	cp $P/rewritten_v2 $T && stat -c %i $T && $T"
sed 's/^/    /' "$D.out"
[ "$(grep -c '^[0-9][0-9]*$' "$D.out")" -eq 2 ] && [ "$(grep '^[0-9][0-9]*$' "$D.out" | sort -u | wc -l)" -eq 1 ] ||
	check_problem "the copy did not keep its inode (above): the case is not the one tested"
if require_file "$D/sites.csv" rewritten && require_file "$D/processes.csv" rewritten; then
	python3 - "$D" "$T" <<'PY' || check_problem "f's site in each version (above)"
import csv, sys
d, prog = sys.argv[1:]
images = sorted((r for r in csv.DictReader(open(f"{d}/processes.csv")) if r["exe"] == prog),
                key=lambda r: int(r["start_ns"]))
if len(images) != 3:
    print(f"FAIL: {len(images)} images of {prog}, expected 3 (v1, v1, v2)")
    sys.exit(1)
sites = list(csv.DictReader(open(f"{d}/sites.csv")))
bad = 0
for n, img in enumerate(images):
    want = "unpatchable:branch-target" if n == 2 else "patched"
    rows = [s for s in sites if (s["pid"], s["image"]) == (img["pid"], img["image"]) and s["symbol"] == "f+0xd"]
    got = [s["state"] for s in rows]
    print(f"    image {n + 1} ({'v2' if n == 2 else 'v1'}): f+0xd {got}")
    if got != [want]:
        print(f"FAIL: image {n + 1}: f's site is {got}, expected [{want!r}]")
        bad += 1
sys.exit(1 if bad else 0)
PY
fi
finish
