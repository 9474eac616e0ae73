#!/bin/sh
# Installs the build and test dependencies when pkg-config cannot find them.
# Called by the Makefile and by .ci/run; does nothing when all are present.
# `install-deps.sh fuzz`: clang and its libFuzzer runtime instead (make fuzz);
# `install-deps.sh real`: what make check-real needs instead (below).
set -e

# $1 what is missing (for messages), then the packages
apt_install() {
	what=$1
	shift
	if [ "$(id -u)" != 0 ]; then
		echo "install-deps: missing $what and not root; install them with apt-get" >&2
		exit 1
	fi
	echo "install-deps: installing $what with apt-get" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

# whether clang builds a fuzzer here (a fresh Debian has no clang, or no runtime)
clang_fuzzes() {
	probe=$(mktemp -d)
	echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return d && n ? 0 : 0; }' > "$probe/p.c"
	ok=0
	command -v clang >/dev/null 2>&1 &&
		clang -fsanitize=fuzzer,address,undefined -o "$probe/p" "$probe/p.c" 2>/dev/null || ok=1
	rm -rf "$probe"
	return $ok
}

# whether clang links an AddressSanitizer program (its runtime is a package of its own)
clang_sanitizes() {
	probe=$(mktemp -d)
	echo 'int main(void) { return 0; }' > "$probe/p.c"
	ok=0
	command -v clang >/dev/null 2>&1 && clang -fsanitize=address -o "$probe/p" "$probe/p.c" 2>/dev/null || ok=1
	rm -rf "$probe"
	return $ok
}

# `install-deps.sh real`: what make check-real runs (tests/real/run.sh): perf for the
# kernel's counts, CPython's regression tests for the interpreter Debian ships
# (/usr/bin/python3.11), git, xz, bash, binutils' source for the libiberty build,
# cargo (rustup's in ~/.cargo/bin will do; else Debian's)
real_ready() {
	command -v perf >/dev/null 2>&1 && command -v git >/dev/null 2>&1 &&
		command -v xz >/dev/null 2>&1 && command -v bash >/dev/null 2>&1 &&
		command -v make >/dev/null 2>&1 && command -v gcc >/dev/null 2>&1 &&
		[ -d /usr/src/binutils ] &&
		/usr/bin/python3.11 -c 'import test.test_threading' >/dev/null 2>&1
}
cargo_ready() {
	command -v cargo >/dev/null 2>&1 || [ -x "$HOME/.cargo/bin/cargo" ]
}

if [ "$1" = real ]; then
	real_ready ||
		apt_install "the real programs' test dependencies" \
			linux-perf libpython3.11-testsuite python3.11 git xz-utils bash binutils-source make gcc
	cargo_ready || apt_install "cargo (check-real's Rust build)" cargo
	real_ready && cargo_ready
	exit
fi

if [ "$1" = fuzz ]; then
	clang_fuzzes && exit 0
	apt_install "clang with libFuzzer" clang libclang-rt-dev
	clang_fuzzes
	exit
fi

pc_modules="libelf capstone libunwind-ptrace check"
# chromium: the HTML report's test loads the page headless (tests/e2e/test_html_report.sh);
# man: the man pages' test renders them (tests/e2e/test_man.sh);
# clang: the sanitizer tests build with both compilers (tests/programs/sanitized);
# valgrind: tests/e2e/test_valgrind.sh runs programs under it
tools="pkg-config strace python3 chromium man clang valgrind"
missing=0
for t in $tools; do command -v "$t" >/dev/null 2>&1 || missing=1; done
[ -x /usr/bin/time ] || missing=1 # the memory test measures with it
clang_sanitizes || missing=1
if [ "$missing" = 0 ] && pkg-config --exists $pc_modules 2>/dev/null; then
	exit 0
fi
apt_install "build dependencies ($pc_modules)" \
	pkg-config libelf-dev libcapstone-dev libunwind-dev check strace linux-libc-dev time python3 chromium man-db \
	clang libclang-rt-dev valgrind
pkg-config --exists $pc_modules
