#!/bin/sh
# run-tests.sh BINDIR: runs each program on its input and compares the output.
set -eu
bin=$1
dir=$(dirname "$0")
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
fail=0
check() { # name expected-file command...
    name=$1 expected=$2
    shift 2
    if "$@" > "$tmp" && cmp -s "$tmp" "$expected"; then
        echo "PASS $name"
    else
        echo "FAIL $name"; diff "$expected" "$tmp" || true; fail=1
    fi
}
check wordfreq "$dir/wordfreq.expected" "$bin/wordfreq" -n 8 "$dir/words.txt"
check wordfreq-stdin "$dir/wordfreq.expected" sh -c "\"$bin/wordfreq\" -n 8 < \"$dir/words.txt\""
check rpncalc "$dir/rpncalc.expected" "$bin/rpncalc" "$dir/calc.txt"
check crcsum "$dir/crcsum.expected" sh -c "cd \"$dir\" && \"../$bin/crcsum\" check.txt words.txt"
check sortlines "$dir/sortlines.expected" "$bin/sortlines" -u "$dir/lines.txt"
exit $fail
