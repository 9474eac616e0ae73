#!/bin/sh
# Unpack libiberty (plus what its configure and make need) from Debian's
# binutils-source into the benchmark cache, never into the repository.
# Usage: sh bench/prepare-libiberty.sh [CACHE_DIR]   (default /var/tmp/systrace-bench)
# Prints the path of the unpacked source tree (the folder holding libiberty/).
set -eu

cache=${1:-${BENCH_CACHE:-/var/tmp/systrace-bench}}
srcroot=/usr/src/binutils

if [ ! -d "$srcroot" ]; then
    echo "prepare-libiberty: $srcroot missing, installing binutils-source" >&2
    apt-get install -y binutils-source >&2
fi

tarball=$(find "$srcroot" -maxdepth 1 -name 'binutils-*.tar.*' | sort | tail -n 1)
if [ -z "$tarball" ]; then
    echo "prepare-libiberty: no binutils-*.tar.* in $srcroot" >&2
    exit 1
fi

top=$(tar -tf "$tarball" | head -n 1 | cut -d/ -f1)   # e.g. binutils-2.40
dest=$cache/src
if [ ! -f "$dest/$top/.complete" ]; then
    echo "prepare-libiberty: extracting libiberty from $tarball into $dest" >&2
    rm -rf "${dest:?}/$top"
    mkdir -p "$dest"
    files=""
    for f in libiberty include config config.guess config.sub config-ml.in \
             config.rpath install-sh missing mkinstalldirs move-if-change ltmain.sh; do
        files="$files $top/$f"
    done
    # shellcheck disable=SC2086  # $files is a list of member names without spaces
    tar -xf "$tarball" -C "$dest" $files
    touch "$dest/$top/.complete"
fi
echo "$dest/$top"
