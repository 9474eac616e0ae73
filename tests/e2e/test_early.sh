#!/bin/sh
# The loader's calls in-process from an image's first instruction (tracer/early.c):
# after a first image has taught the tracer the loader's sites, each later image has
# them patched before its loader runs. Exactly counted (strace -f -c of the same
# command), and the hazards of an image's first moments, as a library the program
# preloads (LD_PRELOAD) can make them:
#  - plain: the second image's loader sites (mmap, openat, ...) are all in-process,
#    none ptraced, and their calls are early;
#  - a preloaded constructor forks a child that loads a library (the loader's sites
#    in a second process, its own slot);
#  - one that starts a thread that loads a library (a second thread, its own slot);
#  - one that takes %gs for itself (arch_prctl ARCH_SET_GS) and then loads a library:
#    the patches written go first, its gs block stays untouched, the image stays on
#    the ptrace path (library program-sets-gs).
# Each program checks itself (exit 0) and the counts equal strace's. And what the
# set-up at exec must leave as it was:
#  - inherited_state: a blocked or ignored SIGTRAP (the steps end in SIGTRAPs the
#    kernel forces), the blocked mask, and no descriptor of systrace's (its output
#    files, the region) visible to the program before or after the exec;
#  - loader_intact: the loader's code the set-up ran over is the file's again, in
#    clean pages, when nothing is patched;
#  - a /bin/true image stops twice: its first call outside the loader and its exit;
#  - an execve goes in-process once its site is patched, failing or not (env trying
#    each folder of PATH), and a failing one before that stops once;
#  - an image under an address-space limit the region does not fit in runs, on the
#    ptrace path (library region-unreachable), exactly counted.
. "$(dirname "$0")/lib.sh"
# what a later image knows is what its serving thread learned from the earlier ones
# (each thread learns on its own: tracer/tracer_threads.h): one thread, whatever the
# suite's SYSTRACE_TEST_THREADS
SYSTRACE_TEST_THREADS=1
export SYSTRACE_TEST_THREADS

# ran_clean DIR WHAT CMD...: CMD under systrace in its default mode into DIR; true when
# it exited 0 and DIR/processes.csv is there (a problem said otherwise).
ran_clean() {
	_rc_dir=$1 _rc_what=$2
	shift 2
	st_run_mode default "$_rc_dir" "$@"
	if [ "$ST_STATUS" -ne 0 ]; then
		check_problem "$_rc_what: exited $ST_STATUS under systrace"
		return 1
	fi
	require_file "$_rc_dir/processes.csv" "$_rc_what"
}

P=$PROGRAMS
T=$TMPDIR

# the first image (sh) teaches the loader's sites; getppid_loop has them at exec
run() { # NAME EXTRA PRELOAD
	compare_inprocess "$1" default "$2" sh -c 'true; LD_PRELOAD="$0" "$1" 100' "$3" "$P/getppid_loop"
}

if run plain "exit_group=2" ""; then
	python3 - "$T/plain" <<'PY' || check_problem "plain: the loader's sites of the second image are not all in-process (see above)"
import csv, sys
d = sys.argv[1]
procs = [r for r in csv.DictReader(open(d + "/processes.csv")) if r["exe"].endswith("/getppid_loop")]
pid, image = procs[0]["pid"], procs[0]["image"]
rows = [r for r in csv.DictReader(open(d + "/sites.csv"))
        if (r["pid"], r["image"]) == (pid, image) and "ld-linux" in r["object"]]
inproc = sum(int(r["inprocess"]) for r in rows)
bad = [r for r in rows if r["syscall"] not in ("munmap", "arch_prctl") and int(r["ptraced"])]
for r in bad:
    print(f"    {r['symbol']} ({r['syscall']}): {r['ptraced']} ptraced, state {r['state']}")
early = int(procs[0]["early"])
print(f"    getppid_loop: {inproc} loader calls in-process, {early} early calls in all")
if inproc < 20 or early < inproc:
    print("    expected at least 20 loader calls in-process, all of them early")
    bad.append(None)
sys.exit(1 if bad else 0)
PY
fi
run fork_before_ready "exit_group=3" "$P/fork_in_constructor_preload.so"
if run sets_gs_before_ready "exit_group=2" "$P/sets_gs_early_preload.so"; then
	csvtool library "$T/sets_gs_before_ready" program-sets-gs /getppid_loop >/dev/null ||
		check_problem "sets_gs_before_ready: getppid_loop's library is not program-sets-gs"
fi
# (munmap left out: the thread's malloc arena is an aligned 64 MiB heap carved out of
# a larger mmap, whose excess takes one munmap or two as the address falls: ASLR)
run thread_before_ready "exit_group=2 exit=1 munmap=?" "$P/thread_in_constructor_preload.so"
for how in ignore block; do
	echo "== inherited_state $how"
	st_run_mode default "$T/state_$how" sh -c 'true; "$0" "$1"' "$P/inherited_state" "$how"
	if [ "$ST_STATUS" -ne 0 ]; then
		check_problem "inherited_state $how: exited $ST_STATUS under systrace (0 natively): the exec's set-up changed what it inherits"
		sed 's/^/    out| /' "$T/state_$how.out"
	fi
done

# The set-up's code lies over the loader's last pages while it runs; it ends without
# a stop by dropping them (their bytes come back from the file). With nothing patched
# (--patch=off: the set-up still maps gate and region) the loader's code must be the
# file's, in clean pages: in the command's image and in an exec'd one.
for how in command exec; do
	echo "== loader_intact, $how"
	if [ $how = command ]; then
		st_run_mode off "$T/intact_$how" "$P/loader_intact"
	else
		st_run_mode off "$T/intact_$how" sh -c 'true; exec "$0"' "$P/loader_intact"
	fi
	if [ "$ST_STATUS" -ne 0 ]; then
		check_problem "loader_intact ($how): exited $ST_STATUS under systrace --patch=off (0 natively): the set-up left the loader's code changed or its pages dirty"
		sed 's/^/    out| /' "$T/intact_$how.out"
	fi
done

# What a /bin/true image stops for once the loader's and libc's sites are known (the
# earlier images taught them, and where libc lies from the loader): its exit alone.
# The set-up at exec makes no stop, and libc's sites are written by the image itself
# once its loader has mapped it (tracer/lib_hook.h): its first call outside the
# loader, which stopped for that before, goes in-process.
echo "== stops of a /bin/true image"
if ran_clean "$T/true_stops" "/bin/true x3" sh -c '/bin/true; /bin/true; /bin/true'; then
	python3 - "$T/true_stops/processes.csv" <<'PY' || check_problem "/bin/true x3: the last image's stops (above)"
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["exe"].endswith("/true")]
last = max(rows, key=lambda r: int(r["start_ns"]))
got = {k: int(last[k]) for k in ("ptrace_stops", "stops_early", "stops_lifecycle", "stops_late")}
want = {"ptrace_stops": 1, "stops_early": 0, "stops_lifecycle": 1, "stops_late": 0}
print(f"    the last /bin/true image: {got}")
sys.exit(0 if got == want else 1)
PY
fi

# execve goes in-process once its site is patched (its first call traps there): env's
# execvp trying each folder of PATH, failing twice and then running uname, stops
# nowhere, and the successful call is counted in the image it created. The first
# env image's first try, made before, fails through the return pad: one stop, no
# exit stop. The last env image stops only at its exit (its libraries' sites written
# by the image itself, tracer/lib_hook.h).
echo "== execve in-process"
mkdir -p "$T/none1" "$T/none2"
if ran_clean "$T/exec_stops" "env uname x3" \
	sh -c 'PATH=$0:$1:/usr/bin:/bin; env uname; env uname; env uname' "$T/none1" "$T/none2"; then
	# sh's own, then for each: env's (found by the shell), env's 2 failing and uname's
	expect_count "$T/exec_stops" x86_64 execve 13 "env uname x3"
	python3 - "$T/exec_stops" <<'PY' || check_problem "env uname x3: the env images' stops and execve rows (above)"
import csv, sys
procs = sorted((r for r in csv.DictReader(open(sys.argv[1] + "/processes.csv")) if r["exe"].endswith("/env")),
               key=lambda r: int(r["start_ns"]))
calls = {(r["pid"], r["image"]): r for r in csv.DictReader(open(sys.argv[1] + "/syscalls.csv"))
         if r["syscall"] == "execve"}

def row(p):
    c = calls.get((p["pid"], p["image"]))
    return tuple(int(c[k]) for k in ("calls", "errors", "ptraced", "inprocess")) if c else None

first, last = procs[0], procs[-1]
got = {k: int(last[k]) for k in ("ptrace_stops", "stops_early", "stops_lifecycle", "stops_late")}
got["execve"], got["first_execve"] = row(last), row(first)
# its own execve (counted here) and env's 3; the first env's first try went through the pad
want = {"ptrace_stops": 1, "stops_early": 0, "stops_lifecycle": 1, "stops_late": 0, "execve": (3, 2, 0, 3),
        "first_execve": (3, 2, 1, 2)}
print(f"    env images: {len(procs)}; the last: {got}")
sys.exit(0 if got == want and len(procs) == 3 else 1)
PY
fi

# A shell's execve is made by its vfork children, in the shell's memory: those calls
# are the shell's for what is written at the start of the shells to come, so that
# the third inner shell's children make theirs in-process from their first: each
# child stops at its first stop and once more, and every uname image's execve (its
# first call, counted there) is in-process.
echo "== a shell's vfork children's execve"
if ran_clean "$T/vfork_exec" "sh -c 'sh -c uname...' x3" \
	sh -c 'sh -c "uname; uname"; sh -c "uname; uname"; sh -c "uname; uname"'; then
	python3 - "$T/vfork_exec" <<'PY' || check_problem "the third inner shell's children (above)"
import csv, sys
procs = sorted(csv.DictReader(open(sys.argv[1] + "/processes.csv")), key=lambda r: int(r["start_ns"]))
calls = {(r["pid"], r["image"]): r for r in csv.DictReader(open(sys.argv[1] + "/syscalls.csv"))
         if r["syscall"] == "execve"}
root = procs[0]["pid"]
inner = [p for p in procs if p["exe"].endswith("/dash") and p["image"] == "1" and p["ppid"] == root]
third = inner[-1]["pid"]
children = [p for p in procs if p["ppid"] == third and p["image"] == "0"]
execed = [p for p in procs if p["ppid"] == third and p["image"] == "1"]
stops = [int(p["ptrace_stops"]) for p in children]
rows = [(int(calls[(p["pid"], "1")]["ptraced"]), int(calls[(p["pid"], "1")]["inprocess"])) for p in execed]
print(f"    inner shells {len(inner)}; the third's children's stops {stops}, their uname images' execve (ptraced, in-process) {rows}")
sys.exit(0 if len(inner) == 3 and stops == [2, 2] and rows == [(0, 1), (0, 1)] else 1)
PY
fi

echo "== an address-space limit the region does not fit in"
st_run_mode default "$T/limit" sh -c 'true; ulimit -v 80000; exec "$0" 100' "$P/getppid_loop"
expect_unreachable_loop "$T/limit" "getppid_loop under ulimit -v" 100
finish
