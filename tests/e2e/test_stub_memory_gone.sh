#!/bin/sh
# A batch of known sites whose stubs cannot be written (the program unmapped the
# stub memory near its executable, which it did not map) writes no jump to them:
# stub_memory_gone (tests/programs/stub_memory_gone.c) learns child_only's site
# from a fork child, unmaps that memory, forks again (the tracer writes the site
# then, in a batch) and calls child_only:
#  - it exits 0 (a jump to a stub that is not there: SIGSEGV);
#  - sites.csv: child_only's site patched in the child, pending in the parent (its
#    patch was not written, though its batch ran), with its one call ptraced; the
#    site's 2 calls in all.
. "$(dirname "$0")/lib.sh"
require_library
D=$TMPDIR/gone
st_run_mode default "$D" "$PROGRAMS/stub_memory_gone"
case $ST_STATUS in
0) ;;
2) check_problem "the construction does not hold: $(cat "$D.err")" ;;
*) check_problem "stub_memory_gone exited $ST_STATUS (natively 0)"
   st_show_err "$D" ;;
esac
sed 's/^/    /' "$D.out"
if require_file "$D/sites.csv" stub_memory_gone; then
	expect_site_count "$D" symbol=child_only+0x5 2 "child_only's calls"
	python3 - "$D" <<'PY' || check_problem "child_only's site in each process (above)"
import csv, sys
rows = [r for r in csv.DictReader(open(f"{sys.argv[1]}/sites.csv")) if r["symbol"] == "child_only+0x5"]
got = sorted((r["image"], r["state"], r["ptraced"], r["inprocess"]) for r in rows)
print(f"    child_only+0x5 (image, state, ptraced, inprocess): {got}")
# image 0: the fork child; image 1: the parent, its exec's image
if got != [("0", "patched", "1", "0"), ("1", "pending", "1", "0")]:
    print("FAIL: expected the child's patched and the parent's pending, one ptraced call each")
    sys.exit(1)
PY
fi
finish
