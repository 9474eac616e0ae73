#!/bin/sh
# Unpack glibc from Debian's glibc-source into a work folder, never into the
# repository, after installing what glibc's configure and make need.
# Usage: sh bench/prepare-glibc.sh [WORK_DIR]   (default $GLIBC_WORK or /var/tmp/systrace-glibc)
# Prints the path of the unpacked source tree (WORK_DIR/glibc-VERSION).
set -eu

work=${1:-${GLIBC_WORK:-/var/tmp/systrace-glibc}}
tools="gawk bison gettext texinfo python3 perl make gcc linux-libc-dev"

need=""
[ -d /usr/src/glibc ] || need=glibc-source
for p in $tools; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q '^install ok installed' || need="$need $p"
done
if [ -n "$need" ]; then
    echo "prepare-glibc: installing$need" >&2
    # shellcheck disable=SC2086  # $need is a list of package names
    apt-get install -y $need >&2
fi

tarball=$(find /usr/src/glibc -maxdepth 1 -name 'glibc-*.tar.*' | sort | tail -n 1)
if [ -z "$tarball" ]; then
    echo "prepare-glibc: no glibc-*.tar.* in /usr/src/glibc" >&2
    exit 1
fi

top=$(tar -tf "$tarball" | head -n 1 | cut -d/ -f1)   # e.g. glibc-2.36
if [ ! -f "$work/$top/.complete" ]; then
    echo "prepare-glibc: unpacking $tarball into $work" >&2
    rm -rf "${work:?}/$top"
    mkdir -p "$work"
    tar -xf "$tarball" -C "$work"
    touch "$work/$top/.complete"
fi
echo "$work/$top"
