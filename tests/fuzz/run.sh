#!/bin/sh
# make fuzz: a seed corpus of small logs from bench/gen_log.c (valid, truncated,
# corrupt, each behind a few option bytes), then libFuzzer for SECONDS.
# Usage: run.sh BUILD SECONDS. Fails (libFuzzer's status) on any crash; the input
# that crashed is left in BUILD/fuzz/ as crash-*.
set -e
build=$1
seconds=$2
dir=$build/fuzz
seeds=$dir/seeds
cc -O2 -Icommon -o "$dir/gen_log" bench/gen_log.c
rm -rf "$seeds"
mkdir -p "$seeds" "$dir/corpus"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# $1 name, $2 option byte (octal), $3 log file: a seed
seed() {
	printf "\\$2" > "$seeds/$1-$2"
	cat "$3" >> "$seeds/$1-$2"
}
# $1 file, $2 byte offset: that byte zeroed
zero_byte() {
	printf '\000' | dd of="$1" bs=1 seek="$2" conv=notrunc 2>/dev/null
}

for n in 0 1 3 40 300; do
	"$dir/gen_log" "$work" "$n" "$n"
	log=$work/syscall-log.bin
	size=$(wc -c < "$log")
	for opt in 000 003 016 021 201 237; do
		seed "valid-$n" "$opt" "$log"
	done
	[ "$n" -gt 0 ] || continue
	head -c $((size - 5)) "$log" > "$work/truncated"
	seed "truncated-$n" 201 "$work/truncated"
	cp "$log" "$work/corrupt"
	zero_byte "$work/corrupt" $((64 + (n - 1) * 32 + 31)) # the last entry's check byte
	seed "corrupt-$n" 000 "$work/corrupt"
	seed "corrupt-$n" 237 "$work/corrupt"
done
head -c 40 "$log" > "$work/short-header"
seed short-header 000 "$work/short-header"

"$dir/fuzz_log" -max_total_time="$seconds" -print_final_stats=1 -artifact_prefix="$dir/" "$dir/corpus" "$seeds"
