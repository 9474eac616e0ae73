#!/bin/sh
# A command that enters namespaces of its own, as build sandboxes and test suites
# do: each hides one of the ways a new image reaches the region
# (tracer/region_handout.h): a pid namespace with its own /proc (`unshare -fp
# --mount-proc`) and a user namespace hide the tracer's /proc/<tracer>/fd path, a
# network namespace hides its socket's abstract name; the socket's other name, a
# file in a folder of the tracer's in TMPDIR, is then the way. Default mode, TMPDIR
# set for systrace to a folder of the test's own:
#  - `unshare -fp --mount-proc`, `unshare -rn` and `unshare -fpn --mount-proc`, each
#    `sh -c 'getppid_loop 1000; getppid_loop 1000'`: exit 0, nothing on stderr,
#    every image inside in-process (library `ready`, at least 999 of each
#    getppid_loop's 1000 calls in-process), the counts equal strace -f -c's (+
#    exit_group); after each run, the folder's TMPDIR is empty again; the same
#    for `unshare -rn` run by a user (nobody: systrace too), whose namespace maps
#    root to that user;
#  - while a command runs, the folder holds one socket per serving thread (2 with
#    --tracer-threads=2); it is gone after a run whose command was killed by
#    SIGTERM, which systrace dies by too (exit status 143);
#  - every way hidden (pid and network namespaces, and a tmpfs mounted over TMPDIR
#    inside): getppid_loop 1000 stays on the slow path (library
#    `region-unreachable`), its 1000 getppid counted exactly, every one stopped in
#    the tracer;
#  - the socket handing out another file, as a squatter of its name in a sandbox
#    would (SYSTRACE_TEST_HANDOUT=wrong-file: /dev/zero), under `unshare -fp
#    --mount-proc`: the set-up refuses it (fstat: not the region), getppid_loop is
#    `region-unreachable`, its 1000 getppid counted exactly.
. "$(dirname "$0")/lib.sh"
P=$PROGRAMS
T=$TMPDIR
unset SYSTRACE_TEST_THREADS SYSTRACE_TEST_HANDOFF

if [ "$(id -u)" -ne 0 ] || ! unshare -rn true 2>/dev/null; then
	echo "    not run: unshare -fp and -rn need root"
	finish
fi
S=$T/sockets
mkdir -p "$S"
# TMPDIR=$S for systrace (and the command it runs; the test's own files stay in $T)
printf '#!/bin/sh\nTMPDIR="%s" exec "%s" "$@"\n' "$S" "$SYSTRACE" >"$T/systrace-tmpdir"
chmod +x "$T/systrace-tmpdir"
ST_BIN=$T/systrace-tmpdir

# in_namespaces NAME EXIT_GROUPS UNSHARE...
in_namespaces() {
	_name=$1
	_exits=$2
	shift 2
	if compare_inprocess "$_name" default "exit_group=$_exits" "$@" sh -c '"$0" 1000; "$0" 1000' "$P/getppid_loop"; then
		if [ -s "$T/$_name.err" ]; then
			check_problem "$_name: output on stderr"
			st_show_err "$T/$_name"
		fi
		{ csvtool library "$T/$_name" ready /getppid_loop --images 2 --inprocess 999 &&
			csvtool library "$T/$_name" ready "$(readlink -f /bin/sh)"; } ||
			check_problem "$_name: the images inside are not in-process (above)"
		# (sh's own getppid, for $PPID)
		expect_rows "$T/$_name" getppid "1 1000 1000" "$_name"
	fi
	[ -z "$(ls -A "$S")" ] || check_problem "$_name: TMPDIR not empty after the run: $(ls -A "$S")"
}
# (sh and its two children; with -f, unshare's child too)
in_namespaces pidns 4 unshare -fp --mount-proc
in_namespaces user_netns 3 unshare -rn
in_namespaces pid_netns 4 unshare -fpn --mount-proc

echo "== the folder of the sockets, with --tracer-threads=2"
ST_OPTS=--tracer-threads=2 st_run_mode default "$T/folder" sh -c 'ls -A "$0"/systrace-*' "$S"
[ "$ST_STATUS" -eq 0 ] || check_problem "the folder's listing: exit status $ST_STATUS"
n=$(wc -l <"$T/folder.out")
[ "$n" -eq 2 ] || check_problem "2 serving threads: $n sockets in the folder, expected 2: $(cat "$T/folder.out")"
st_run_mode default "$T/killed" sh -c 'kill -TERM $$'
[ "$ST_STATUS" -eq 143 ] || check_problem "a command killed by SIGTERM: exit status $ST_STATUS, expected 143"
[ -z "$(ls -A "$S")" ] || check_problem "systrace died by the command's SIGTERM: TMPDIR not empty: $(ls -A "$S")"

echo "== every way hidden: a tmpfs over the folder's TMPDIR"
st_run_mode default "$T/hidden" unshare -fpnm --mount-proc sh -c 'mount -t tmpfs none "$1" && "$0" 1000' \
	"$P/getppid_loop" "$S"
expect_unreachable_loop "$T/hidden" "every way hidden" 1000
if [ -f "$T/hidden/syscalls.csv" ]; then
	# (its execve is counted in-process: the shell, ready, made it)
	split=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$c["syscall"] == "getppid" && $c["calls"] == 1000 { print $c["ptraced"] "," $c["inprocess"] }' "$T/hidden/syscalls.csv")
	[ "$split" = "1000,0" ] ||
		check_problem "every way hidden: getppid_loop's 1000 getppid ptraced,inprocess = '$split', expected 1000,0 (it never had the region)"
fi

echo "== a user's (nobody's) unshare -rn: its user namespace maps root to that user"
# (nobody must reach systrace and the program, write the output and the folder)
open=$(mktemp -d /tmp/systrace-nobody.XXXXXX) || fail "mktemp"
chmod 755 "$open" && cp "$P/getppid_loop" "$SYSTRACE" "$open/" && mkdir "$open/out" "$open/tmp" &&
	chown nobody "$open/out" "$open/tmp" || fail "the folders for nobody"
printf '#!/bin/sh\nexec setpriv --reuid=nobody --regid=nogroup --clear-groups env TMPDIR="%s" "%s" "$@"\n' \
	"$open/tmp" "$open/systrace" >"$open/as-nobody"
chmod 755 "$open/as-nobody"
ST_BIN=$open/as-nobody st_run_mode default "$open/out/user" unshare -rn sh -c '"$0" 1000; "$0" 1000' "$open/getppid_loop"
if [ "$ST_STATUS" -ne 0 ]; then
	check_problem "nobody's unshare -rn: exit status $ST_STATUS"
	st_show_err "$open/out/user"
elif require_file "$open/out/user/processes.csv" "nobody's unshare -rn"; then
	csvtool library "$open/out/user" ready /getppid_loop --images 2 --inprocess 999 ||
		check_problem "nobody's unshare -rn: the images inside are not in-process (above)"
	expect_rows "$open/out/user" getppid "1 1000 1000" "nobody's unshare -rn"
fi
[ -z "$(ls -A "$open/tmp")" ] || check_problem "nobody's unshare -rn: TMPDIR not empty after the run: $(ls -A "$open/tmp")"
rm -rf "$open"

echo "== a squatter's file handed out (SYSTRACE_TEST_HANDOUT=wrong-file), in a pid namespace"
SYSTRACE_TEST_HANDOUT=wrong-file st_run_mode default "$T/wrong" unshare -fp --mount-proc sh -c '"$0" 1000' "$P/getppid_loop"
expect_unreachable_loop "$T/wrong" "a squatter's file handed out" 1000
expect_count "$T/wrong" x86_64 getppid 1001 "a squatter's file handed out: sh and getppid_loop 1000"
finish
