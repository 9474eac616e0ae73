#!/bin/sh
# Exit status (the conventions of env and timeout): the command's own status;
# 128+N in the shell when it was killed by signal N (systrace dies by N); 127 when the command is not found; 126 when it
# cannot be executed; 125 when systrace itself fails (unknown option, no command,
# unusable output folder). Every error message names what was wrong; an unusable
# output folder fails before the command runs and leaves no CSV file behind.
# No case may crash systrace: no AddressSanitizer, LeakSanitizer or UBSan report.
. "$(dirname "$0")/lib.sh"
P=$PROGRAMS
T=$TMPDIR

# expect_status WANT NAME [MUST_MENTION] -- SYSTRACE-ARGS...
expect_status() {
	want=$1 name=$2 mention=$3
	shift 4
	timeout --foreground -k 10 "$RUN_TIMEOUT" "$SYSTRACE" "$@" >"$T/$name.out" 2>"$T/$name.err"
	got=$?
	if ! no_sanitizer_report "$T/$name.err" "systrace $*"; then
		[ "$got" -eq "$want" ] || check_problem "$name: systrace $* exited $got, expected $want (stderr above)"
	elif [ "$got" -ne "$want" ]; then
		check_problem "$name: systrace $* exited $got, expected $want"
		sed 's/^/    | /' "$T/$name.err" | head -20
	elif [ -n "$mention" ] && ! grep -F -e "$mention" "$T/$name.err" >/dev/null; then
		check_problem "$name: systrace $* (status $got): stderr does not name '$mention':"
		sed 's/^/    | /' "$T/$name.err" | head -20
	else
		echo "ok   $name: status $got"
	fi
}

# the traced command's own status
expect_status 0 exit0 "" -- --patch=off -o "$T/o1" -- "$P/exit_code" exit 0
expect_status 3 exit3 "" -- --patch=off -o "$T/o2" -- "$P/exit_code" exit 3
expect_status 255 exit255 "" -- --patch=off -o "$T/o3" -- "$P/exit_code" exit 255
expect_status 7 getppid_exit7 "" -- --patch=off -o "$T/o4" -- "$P/getppid_loop" 10 7
# killed by a signal: 128 + N (systrace dies by the same signal: test_signal_death)
expect_status 143 sigterm "" -- --patch=off -o "$T/o5" -- "$P/exit_code" kill 15
expect_status 137 sigkill "" -- --patch=off -o "$T/o6" -- "$P/exit_code" kill 9
expect_status 139 sigsegv "" -- --patch=off -o "$T/o7" -- "$P/exit_code" segv
expect_status 134 sigabrt "" -- --patch=off -o "$T/o8" -- "$P/exit_code" kill 6
# a shell that exits with its child's signal status is a plain exit status
expect_status 137 sh_exit137 "" -- --patch=off -o "$T/o9" -- /bin/sh -c "$P/exit_code kill 9"
# the exit column agrees
for o in o2:exit:3 o5:signal:15 o6:signal:9 o7:signal:11; do
	d=${o%%:*} e=${o#*:}
	got=$(python3 -c 'import csv,sys; print(" ".join(r["exit"] for r in csv.DictReader(open(sys.argv[1], newline=""))))' "$T/$d/processes.csv" 2>&1)
	[ "$got" = "$e" ] || check_problem "$d: processes.csv exit column is '$got', expected '$e'"
done

# not found: 127
echo data >"$T/regular_file"
# (a path is said as a shell says it, a name searched in PATH is "not found")
expect_status 127 missing_path "/nonexistent/dir/no_such_cmd_xyz: No such file or directory" -- -o "$T/o10" -- /nonexistent/dir/no_such_cmd_xyz
expect_status 127 missing_in_path "no_such_cmd_xyz: command not found" -- -o "$T/o11" -- no_such_cmd_xyz arg
expect_status 127 path_through_file "regular_file/cmd: Not a directory" -- -o "$T/o11b" -- "$T/regular_file/cmd"
# cannot execute: 126
printf '#!/bin/sh\necho hi\n' >"$T/not_executable"
chmod 644 "$T/not_executable"
expect_status 126 not_executable not_executable -- -o "$T/o12" -- "$T/not_executable"
mkdir -p "$T/a_directory"
expect_status 126 directory a_directory -- -o "$T/o13" -- "$T/a_directory"
# a file with neither #! nor an ELF header: like env (execvp), /bin/sh runs it;
# the status is then the script's, whatever env gives natively
printf 'echo script without interpreter line "$@"\nexit 4\n' >"$T/no_interpreter"
chmod 755 "$T/no_interpreter"
env "$T/no_interpreter" x >/dev/null 2>&1
expect_status $? no_interpreter_line "" -- -o "$T/o14" -- "$T/no_interpreter" x
grep -q "script without interpreter line x" "$T/no_interpreter_line.out" ||
	check_problem "no_interpreter_line: the script did not run with its argument"

# systrace itself fails: 125
expect_status 125 unknown_option --bogus-option -- --bogus-option -o "$T/o15" -- "$P/getppid_loop" 1
expect_status 125 bad_patch_mode nonsense -- --patch=nonsense -o "$T/o16" -- "$P/getppid_loop" 1
expect_status 125 no_command "" -- -o "$T/o17"
expect_status 125 no_command_after_dashes "" -- -o "$T/o18" --

# unusable output folders: 125, the folder named, the command not run, no CSV left
echo data >"$T/regular_file"
for case in "/proc/nope" "/proc/self" "$T/regular_file/sub" "$T/regular_file"; do
	rm -f "$T/command_ran"
	name=outdir_$(echo "$case" | tr -c 'a-zA-Z0-9\n' _)
	expect_status 125 "$name" "$case" -- --patch=off -o "$case" -- /bin/sh -c "touch '$T/command_ran'"
	if [ -e "$T/command_ran" ]; then
		check_problem "$name: with the unusable output folder '$case' the command was run anyway"
	fi
	for f in "$case"/*.csv "$case"/.*.csv*; do
		[ -e "$f" ] && check_problem "$name: file left behind: $f"
	done
done

# --help and --version succeed and print to stdout
expect_status 0 help "" -- --help
grep -q -- '--patch' "$T/help.out" || check_problem "--help does not mention --patch"
expect_status 0 version "" -- --version
[ -s "$T/version.out" ] || check_problem "--version prints nothing on stdout"

finish
