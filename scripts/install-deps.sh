#!/bin/sh
# Installs the build and test dependencies when pkg-config cannot find them.
# Called by the Makefile and by .ci/run; does nothing when all are present.
set -e
pc_modules="libelf capstone libunwind-ptrace check"
# chromium: the HTML report's test loads the page headless (tests/e2e/test_html_report.sh)
tools="pkg-config strace python3 chromium"
missing=0
for t in $tools; do command -v "$t" >/dev/null 2>&1 || missing=1; done
[ -x /usr/bin/time ] || missing=1 # the memory test measures with it
if [ "$missing" = 0 ] && pkg-config --exists $pc_modules 2>/dev/null; then
	exit 0
fi
if [ "$(id -u)" != 0 ]; then
	echo "install-deps: missing dependencies ($pc_modules) and not root; install them with apt-get" >&2
	exit 1
fi
echo "install-deps: installing build dependencies with apt-get" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends \
	pkg-config libelf-dev libcapstone-dev libunwind-dev check strace linux-libc-dev time python3 chromium >/dev/null
pkg-config --exists $pc_modules
