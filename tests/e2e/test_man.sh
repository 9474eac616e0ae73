#!/bin/sh
# The man pages, systrace(1) and systrace-stats(1) (man/):
#  - each renders with `man -l` without a warning, with the sections a man page has
#    (NAME, SYNOPSIS, DESCRIPTION, OPTIONS, FILES, EXIT STATUS, LIMITS, SEE ALSO);
#  - the options they describe (the tags of OPTIONS, and of each command's
#    subsection of COMMANDS for systrace-stats) are exactly those `--help` lists
#    (its usage lines and option lines), for systrace, systrace-stats and each of
#    its commands: an option in one and not the other fails, naming it;
#  - systrace(1)'s LIMITS has each of the README's "Limits worth knowing";
#  - `make install` puts both under PREFIX/share/man/man1, where man finds them.
. "$(dirname "$0")/lib.sh"
: "${SYSTRACE_STATS:?SYSTRACE_STATS is not set (run tests through tests/e2e/run-all.sh BUILD)}"
REPO=$(cd "$E2E_DIR/../.." && pwd)
command -v man >/dev/null 2>&1 || fail "man is not installed (scripts/install-deps.sh installs man-db)"

# render PAGE NAME: $TMPDIR/NAME.txt, plain ASCII, wide enough that no tag wraps
render() {
	LC_ALL=C MANWIDTH=200 MAN_KEEP_FORMATTING= man --warnings -E ascii -l "$1" >"$TMPDIR/$2.raw" 2>"$TMPDIR/$2.warn"
	st=$?
	[ "$st" -eq 0 ] || check_problem "man -l $1 exited $st: $(cat "$TMPDIR/$2.warn")"
	[ -s "$TMPDIR/$2.warn" ] && check_problem "man -l $1 warns: $(head -5 "$TMPDIR/$2.warn")"
	# no overstrike left (bold, underline), whatever man-db's default
	sed 's/.\x08//g' "$TMPDIR/$2.raw" >"$TMPDIR/$2.txt"
}

echo "== rendering"
render "$REPO/man/systrace.1" systrace
render "$REPO/man/systrace-stats.1" systrace-stats

echo "== --help and the man pages: the same options"
"$SYSTRACE" --help >"$TMPDIR/help-systrace" 2>&1 || check_problem "systrace --help failed"
"$SYSTRACE_STATS" --help >"$TMPDIR/help-stats" 2>&1 || check_problem "systrace-stats --help failed"
for c in log2csv report export html; do
	"$SYSTRACE_STATS" "$c" --help >"$TMPDIR/help-stats-$c" 2>&1 || check_problem "systrace-stats $c --help failed"
done
python3 - "$TMPDIR" "$REPO/README.md" <<'PY' || check_problem "the man pages and --help (above)"
import re, sys
tmp, readme = sys.argv[1:]
OPTION = re.compile(r"(?<![\w-])(--?[A-Za-z][\w-]*)")
bad = 0

def problem(msg):
    global bad
    print("FAIL: " + msg)
    bad = 1

def help_options(path):
    """The options a --help text lists: those of its usage lines (the first lines
    with [...]) and of its option lines (indented, starting with '-': the part
    before the description, two spaces on)."""
    lines = open(path).read().splitlines()
    found = set()
    i = 0
    while i < len(lines) and "[" in lines[i]:
        found |= set(OPTION.findall(lines[i]))
        i += 1
    for line in lines[i:]:
        if re.match(r"\s+-", line):
            found |= set(OPTION.findall(re.split(r"\s{2,}", line.strip(), maxsplit=1)[0] + " "))
    return found

def sections(text):
    """{heading: lines} of a rendered page (headings at column 0)."""
    out, cur = {}, None
    for line in text.splitlines():
        if re.match(r"^[A-Z][A-Z ]+$", line):
            cur = line
            out[cur] = []
        elif cur:
            out[cur].append(line)
    return out

def tag_options(lines):
    """The options of the tagged paragraphs (.TP) in lines: a tag at column 7 that
    starts with '-', its description at column 14 on the next line (or on the same
    line, after spaces, when the tag is short); a line of prose at column 7 that
    happens to start with an option is followed by prose at column 7."""
    found = set()
    for i, line in enumerate(lines):
        if not re.match(r"^ {7}-", line):
            continue
        below = lines[i + 1] if i + 1 < len(lines) else ""
        if re.match(r"^ {14}\S", below) or re.match(r"^ {7}\S.{0,4}\s{2,}(?<=^.{14})\S", line):
            found |= set(OPTION.findall(re.split(r"\s{2,}", line.strip(), maxsplit=1)[0] + " "))
    return found

def subsections(lines):
    """{name: lines} of the .SS subsections (headings at column 3)."""
    out, cur = {}, None
    for line in lines:
        m = re.match(r"^ {3}(\S+)$", line)
        if m:
            cur = m.group(1)
            out[cur] = []
        elif cur:
            out[cur].append(line)
    return out

def same(what, helped, documented):
    print(f"    {what}: {' '.join(sorted(helped))}")
    for o in sorted(helped - documented):
        problem(f"{what}: {o} is in --help but not in the man page")
    for o in sorted(documented - helped):
        problem(f"{what}: {o} is in the man page but not in --help")
    if not helped:
        problem(f"{what}: no option found in --help")

pages = {}
for name in ("systrace", "systrace-stats"):
    pages[name] = sections(open(f"{tmp}/{name}.txt").read())
    for s in ("NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "FILES", "EXIT STATUS", "LIMITS", "SEE ALSO"):
        if s not in pages[name]:
            problem(f"{name}(1) has no section {s} (it has {list(pages[name])})")
same("systrace", help_options(f"{tmp}/help-systrace"), tag_options(pages["systrace"].get("OPTIONS", [])))
same("systrace-stats", help_options(f"{tmp}/help-stats"), tag_options(pages["systrace-stats"].get("OPTIONS", [])))
commands = subsections(pages["systrace-stats"].get("COMMANDS", []))
for c in ("log2csv", "report", "export", "html"):
    if c not in commands:
        problem(f"systrace-stats(1) has no subsection for {c} under COMMANDS (it has {list(commands)})")
        continue
    same(f"systrace-stats {c}", help_options(f"{tmp}/help-stats-{c}"), tag_options(commands[c]))
for c in set(commands) - {"log2csv", "report", "export", "html"}:
    problem(f"systrace-stats(1) has a subsection {c} for a command systrace-stats does not have")

# each limit of the README, by its first words, in systrace(1)'s LIMITS
text = open(readme).read()
limits = text.split("## Limits worth knowing", 1)[1].split("\n## ", 1)[0]
man = " ".join(" ".join(pages["systrace"].get("LIMITS", [])).split())
for item in re.split(r"\n- ", "\n" + limits.strip())[1:]:
    words = " ".join(item.replace("`", "").split()).split()[:8]
    if " ".join(words) not in man:
        problem(f"systrace(1) LIMITS lacks the README's limit '{' '.join(words)} ...'")
    else:
        print(f"    limit: {' '.join(words)} ...")
sys.exit(bad)
PY

echo "== make install: under PREFIX/share/man/man1"
make -s -C "$REPO" install DESTDIR="$TMPDIR/inst" PREFIX=/usr/local BUILD="$BUILD_DIR" >"$TMPDIR/install.out" 2>&1 ||
	check_problem "make install failed: $(tail -5 "$TMPDIR/install.out")"
for p in systrace systrace-stats; do
	f=$TMPDIR/inst/usr/local/share/man/man1/$p.1
	if require_file "$f" "make install"; then
		cmp -s "$f" "$REPO/man/$p.1" || check_problem "$f differs from man/$p.1"
		LC_ALL=C MANPATH="$TMPDIR/inst/usr/local/share/man" man -E ascii "$p" 2>&1 | grep -q "^NAME" ||
			check_problem "man $p does not find the installed page (MANPATH=$TMPDIR/inst/usr/local/share/man)"
	fi
done

finish
