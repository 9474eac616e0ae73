#!/bin/sh
# Another object mapped where a patched one was (dlclose, then a dlopen at the same
# address). munmap runs in-process, so the tracer does not see the old object go; it
# must check that a patch's jump is still in memory before acting on it.
# same_address (tests/programs/same_address.c) checks itself, exit 0 when the new
# object's function returned what it returns natively:
#  - frame: a signal frame whose rip lies inside the old patch's bytes is left
#    where it is, not sent into the old stub;
#  - withdraw: arch_prctl(ARCH_SET_GS) writes back the original bytes of the patches
#    still in memory only, not over the new object's code;
# and in both runs: the old object's site is named in sites.csv from the old object
# (swap_old+0x9 in swap_old_dso.so, its 5 calls), not from the one mapped there at
# the end; the dlclose's munmap went in-process (else the tracer saw it, and the
# case is not the one tested).
# same_address_counts (tests/programs/same_address_counts.c): an object with a
# syscall where the old one's patched site was; each object's row counts its own
# calls (8 and 7 by construction), in the default mode (the old site patched, some
# old counts still in a live thread's slot at the swap), under --log (the counts
# are the log's) and --patch=off (every call stops, the dlclose's munmap too).
# The same with swap_refused_dso.so as the old object: its site is refused (every
# call stops, and the tracer does not look at the mappings at each), 8 calls; the
# next object's site at its address is that object's, 7 calls, patched at its trap
# (the munmap in-process: the stubs count it for the tracer, which checks the object
# at the refused site's next stop).
. "$(dirname "$0")/lib.sh"
P=$PROGRAMS
# expect_munmap_inprocess DIR WHAT: the dlclose's munmap went in-process (else the
# tracer saw it, and the case is not the one tested).
expect_munmap_inprocess() {
	python3 - "$1" <<'PY' || check_problem "$2: the dlclose's munmap (above)"
import csv, sys
rows = [r for r in csv.DictReader(open(f"{sys.argv[1]}/syscalls.csv")) if r["syscall"] == "munmap"]
inprocess = sum(int(r["inprocess"] or 0) for r in rows)
if inprocess < 1:
    print(f"FAIL: no munmap went in-process ({rows}): the tracer saw the dlclose, which is not the case tested")
    sys.exit(1)
PY
}
for mode in frame withdraw; do
	D=$TMPDIR/$mode
	echo "== same_address $mode"
	st_run_mode default "$D" "$P/same_address" "$mode" "$P/swap_old_dso.so" "$P/swap_new_dso.so"
	case $ST_STATUS in
	0) ;;
	2) check_problem "$mode: the construction does not hold: $(cat "$D.err")" ;;
	*) check_problem "$mode: same_address exited $ST_STATUS (natively 0)"
	   st_show_err "$D" ;;
	esac
	sed 's/^/    /' "$D.out"
	require_file "$D/sites.csv" "$mode" || continue
	expect_site_count "$D" symbol=swap_old+0x9 object=/swap_old_dso.so 5 "$mode: the old object's site"
	expect_site_count "$D" object=/swap_new_dso.so 0 "$mode: sites named in the new object (which has none)"
	expect_munmap_inprocess "$D" "$mode"
done
for old in old refused; do
for mode in default log off; do
	D=$TMPDIR/counts-$old-$mode
	echo "== same_address_counts $old $mode"
	case $mode in
	log) ST_OPTS=--log st_run_mode default "$D" "$P/same_address_counts" "$P/swap_${old}_dso.so" "$P/swap_next_dso.so" ;;
	*) st_run_mode "$mode" "$D" "$P/same_address_counts" "$P/swap_${old}_dso.so" "$P/swap_next_dso.so" ;;
	esac
	case $ST_STATUS in
	0) ;;
	2) check_problem "counts $old $mode: the construction does not hold: $(cat "$D.err")" ;;
	*) check_problem "counts $old $mode: same_address_counts exited $ST_STATUS (natively 0)"
	   st_show_err "$D" ;;
	esac
	require_file "$D/sites.csv" "counts $old $mode" || continue
	expect_site_count "$D" object=/swap_${old}_dso.so 8 "counts $old $mode: the old object's calls"
	expect_site_count "$D" object=/swap_next_dso.so 7 "counts $old $mode: the next object's calls"
	if [ "$mode" != off ]; then
		expect_munmap_inprocess "$D" "counts $old $mode"
		expect_site "$D" swap_next+0x9 patched "counts $old $mode: the next object's site, planned anew"
	fi
	csvtool consistency "$D" --any-mode || check_problem "counts $old $mode: the CSV files disagree"
done
done
finish
