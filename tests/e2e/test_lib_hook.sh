#!/bin/sh
# The libraries' known sites written by the image itself once its loader has mapped
# them (tracer/lib_hook.h): an image of an executable seen before gets libc's sites
# built at its exec event for where libc will lie (the same distance from the loader
# as last time), and writes them from the loader's _dl_allocate_tls_init, with no
# stop. Checked against strace -f -c of the same command (every count exact, the
# files consistent) and by what each image shows in processes.csv:
#  - held: the third getppid_loop of three makes no ptraced call and no early stop
#    (its first libc call, which stopped before, is in-process), its loader's calls
#    are early and its own late;
#  - a layout that changed under the prediction (LD_PRELOAD of libm, mapped between
#    the loader and libc; a small library would fit a hole and move nothing): that
#    image's libc is not where it was, the hook leaves it alone (its build-id is not
#    there), and its first libc call stops as before; of the two images after it,
#    laid out as the ones before, the second goes without (the first learns again);
#  - a constructor of a preloaded library that starts a thread or forks before the
#    hook is settled (their creation is the first stop after it): counts exact, the
#    child's memory a copy of the patched one;
#  - a library whose file changed under the same layout (LD_LIBRARY_PATH to a copy
#    with another build-id): its sites are left to their first trap, libc's are
#    written;
#  - a library of 2 MB or more, linked before libc: the kernel puts it at a 2 MB
#    boundary, so libc lies elsewhere for each place of the loader in its 2 MB page;
#    an image at a place between two seen ones is laid out as they agree;
#  - --patch=single and --patch=unsafe take the hook as safe does.
. "$(dirname "$0")/lib.sh"
# what a later image knows is what its serving thread learned from the earlier ones
# (each thread learns on its own: tracer/tracer_threads.h): one thread, whatever the
# suite's SYSTRACE_TEST_THREADS
SYSTRACE_TEST_THREADS=1
export SYSTRACE_TEST_THREADS

P=$PROGRAMS
T=$TMPDIR

# images NAME EXE: the rows of processes.csv of the images of EXE, in start order,
# as "ptraced stops_early early syscalls library" lines
images() {
	python3 - "$T/$1/processes.csv" "$2" <<'PY'
import csv, sys
rows = sorted((r for r in csv.DictReader(open(sys.argv[1])) if r["exe"].endswith("/" + sys.argv[2])
               and r["image"] != "0"), key=lambda r: int(r["start_ns"]))
for r in rows:
    print(r["ptraced"], r["stops_early"], r["early"], r["syscalls"], r["library"])
PY
}

# the Nth (1-based) image's field (1: ptraced, 2: stops_early, 3: early, 4: calls)
field() {
	images "$1" "$2" | sed -n "${3}p" | cut -d' ' -f"$4"
}

echo "== held: three images of one program"
if compare_inprocess held default "exit_group=4" \
	sh -c '"$0" 50; "$0" 50; "$0" 50' "$P/getppid_loop"; then
	images held getppid_loop | sed 's/^/    ptraced stops_early early calls library: /'
	[ "$(images held getppid_loop | wc -l)" = 3 ] || check_problem "held: not 3 getppid_loop images"
	[ "$(field held getppid_loop 3 1)" = 0 ] ||
		check_problem "held: the third image made $(field held getppid_loop 3 1) ptraced calls (0: libc's sites written by the hook)"
	[ "$(field held getppid_loop 3 2)" = 0 ] ||
		check_problem "held: the third image stopped $(field held getppid_loop 3 2) times early (0)"
	early=$(field held getppid_loop 3 3)
	calls=$(field held getppid_loop 3 4)
	# the loader's calls (mmap, openat, ...: a dozen and more) early, the loop's 50 late
	{ [ "${early:-0}" -ge 10 ] && [ "$early" -le $((calls - 50)) ]; } ||
		check_problem "held: the third image's early calls $early of $calls (the loader's alone)"
	[ "$(field held getppid_loop 3 5)" = ready ] || check_problem "held: the third image is not ready"
fi

echo "== a layout that changed: a preloaded library in the middle"
if compare_inprocess moved default "exit_group=6" \
	sh -c '"$0" 20; "$0" 20; LD_PRELOAD=libm.so.6 "$0" 20; "$0" 20; "$0" 20' "$P/getppid_loop"; then
	images moved getppid_loop | sed 's/^/    ptraced stops_early early calls library: /'
	[ "$(field moved getppid_loop 2 1)" = 0 ] || check_problem "moved: the second image made ptraced calls"
	[ "$(field moved getppid_loop 3 2)" -ge 1 ] ||
		check_problem "moved: the preloaded image's libc was taken as where it was (no early stop)"
	[ "$(field moved getppid_loop 5 1)" = 0 ] || check_problem "moved: the fifth image made ptraced calls"
fi

for pre in thread_in_constructor fork_in_constructor; do
	echo "== a constructor that makes a $pre before the hook is settled"
	extra="exit_group=3"
	[ $pre = thread_in_constructor ] && extra="exit_group=3 exit=2 munmap=?"
	[ $pre = fork_in_constructor ] && extra="exit_group=5"
	compare_inprocess "$pre" default "$extra" \
		sh -c 'LD_PRELOAD="$1" "$0" 20; LD_PRELOAD="$1" "$0" 20' "$P/getppid_loop" "$P/${pre}_preload.so" || continue
	images "$pre" getppid_loop | sed 's/^/    ptraced stops_early early calls library: /'
done

echo "== a library whose file changed, laid out the same"
mkdir -p "$T/libA" "$T/libB"
cp "$P/lib_hook_dso.so" "$T/libA/"
cp "$P/lib_hook_dso.so" "$T/libB/"
# the same code with another build-id: the layout holds, the object does not
python3 - "$T/libB/lib_hook_dso.so" <<'PY'
import sys, subprocess
out = subprocess.run(["readelf", "-n", sys.argv[1]], capture_output=True, text=True).stdout
bid = next(l.split()[-1] for l in out.splitlines() if "Build ID" in l)
data = bytearray(open(sys.argv[1], "rb").read())
at = data.find(bytes.fromhex(bid))
data[at] ^= 0xff
open(sys.argv[1], "wb").write(data)
PY
if compare_inprocess swapped default "exit_group=4" \
	sh -c 'LD_LIBRARY_PATH=$1 "$0"; LD_LIBRARY_PATH=$1 "$0"; LD_LIBRARY_PATH=$2 "$0"' \
	"$P/lib_hook_user" "$T/libA" "$T/libB"; then
	images swapped lib_hook_user | sed 's/^/    ptraced stops_early early calls library: /'
	[ "$(field swapped lib_hook_user 2 1)" = 0 ] || check_problem "swapped: the second image made ptraced calls"
	[ "$(field swapped lib_hook_user 3 1)" -ge 1 ] ||
		check_problem "swapped: the changed library's sites were written as if it were the same"
	[ "$(field swapped lib_hook_user 3 2)" = 0 ] ||
		check_problem "swapped: the third image stopped early (libc's sites should have been written)"
fi

echo "== a library of 2 MB or more: the layout by the loader's place in its 2 MB page"
# (tracer/layouts.h) setarch -R fixes the address space; each 4 KB more of soft stack
# limit puts the loader a page lower. Two triples of places, 16 pages apart and then
# their middle: the middle image is laid out as its two neighbours say when they
# agree (libc and the large library each at one distance from the loader, or at one
# address), and its libraries' sites are then written by the hook (no early stop).
places="0 16 8 256 272 264"
setarch -R sh -c 'ulimit -S -s 131072' ||
	check_problem "large: setarch -R or a soft stack limit of 128 MB refused here (personality, rlimits)"
if compare_inprocess large default "exit_group=7" \
	setarch -R sh -c 'for k in $1; do (ulimit -S -s $((131072 + 4 * k)) && LD_LIBRARY_PATH=$2 exec "$0"); done' \
	"$P/large_lib_user" "$places" "$P"; then
	images large large_lib_user | sed 's/^/    ptraced stops_early early calls library: /'
	sed 's/^/    where: /' "$T/large.out"
	[ "$(images large large_lib_user | wc -l)" = 6 ] || check_problem "large: not 6 large_lib_user images"
	[ "$(grep -c '^loader=' "$T/large.out")" = 6 ] || check_problem "large: not 6 lines of addresses"
	qualified=0
	for triple in 1 4; do
		# "same" when each library kept its distance from the loader or its address
		# from the first image of the triple to the second
		agree=$(sed -n "${triple}p;$((triple + 1))p" "$T/large.out" | python3 -c '
import sys
rows = [dict(kv.split("=") for kv in l.split()) for l in sys.stdin]
a, b = ({k: int(v, 16) for k, v in r.items()} for r in rows)
ok = all(a[n] == b[n] or a[n] - a["loader"] == b[n] - b["loader"] for n in ("large", "libc"))
print("same" if ok else "changed")')
		echo "    places $(echo "$places" | cut -d' ' -f"$triple"-$((triple + 2))): the two first $agree"
		[ "$agree" = same ] || continue
		qualified=$((qualified + 1))
		mid=$((triple + 2))
		[ "$(field large large_lib_user $mid 2)" = 0 ] ||
			check_problem "large: the middle image $mid stopped early (its layout was not predicted from its neighbours)"
		[ "$(field large large_lib_user $mid 1)" = 0 ] ||
			check_problem "large: the middle image $mid made ptraced calls"
	done
	[ "$qualified" -ge 1 ] || check_problem "large: no triple whose first two images agree (a change of layout inside both)"
	# (what the case is for: the large library at a 2 MB boundary, away from where
	# one layout per executable would put it)
	grep '^loader=' "$T/large.out" | python3 -c '
import sys
rows = [{k: int(v, 16) for k, v in (kv.split("=") for kv in l.split())} for l in sys.stdin]
aligned = all(r["large"] % (2 << 20) == 0 for r in rows)
moved = len({r["large"] - r["loader"] for r in rows}) > 1
print("    the large library at 2 MB boundaries: %s; at more than one distance from the loader: %s" % (aligned, moved))
sys.exit(0 if aligned and moved else 1)' ||
		check_problem "large: the kernel did not map the 3 MB library at a 2 MB boundary (thp_get_unmapped_area): this case tests nothing here"
fi

for mode in single unsafe; do
	echo "== --patch=$mode"
	compare_inprocess "mode_$mode" $mode "exit_group=3" sh -c '"$0" 20; "$0" 20' "$P/getppid_loop" || continue
	[ "$(field "mode_$mode" getppid_loop 2 1)" = 0 ] || check_problem "--patch=$mode: the second image made ptraced calls"
done
finish
