#!/usr/bin/env python3
"""Real, widely used programs under systrace against running them natively
(make check-real; docs/reliability.md says what each case runs and why).

    python3 tests/real/real.py BUILD WORK CASE

runs one case with BUILD/systrace (the plain build: what users run) in the scratch
folder WORK, prints what it compared, and exits 1 on any difference. Each case checks
that the program behaves the same (exit status, output) and, where the number of a
call does not depend on timing, that systrace's syscalls.csv counts what the kernel
counts: `perf stat -e syscalls:sys_enter_NAME`, which counts in the kernel without
stopping the program. Nothing is loaded into a program under systrace (its image is
set up at exec, tracer/early.c), so the native runs are the program alone; the traced
runs get the environment perf gives its command (perf prepends its own folder to
PATH, and a PATH search makes one failing execve per folder)."""
import collections
import concurrent.futures
import csv
import hashlib
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "e2e"))

# the interpreter whose regression tests Debian ships (libpython3.11-testsuite);
# not the `python3` first in PATH, which may be another build
PYTHON = os.environ.get("REAL_PYTHON", "/usr/bin/python3.11")
# the kernel's tracepoint names that are not the syscall's (strace's) name
TRACEPOINT_NAMES = {"newstat": "stat", "newlstat": "lstat", "newfstat": "fstat", "newuname": "uname",
                    "sendfile64": "sendfile", "umount": "umount2"}
TIMEOUT = int(os.environ.get("REAL_TIMEOUT", "900"))


class Case:
    def __init__(self, build, work):
        self.systrace = os.path.join(build, "systrace")
        self.work = work
        self.problems = []
        self.env = dict(os.environ, LC_ALL="C", TZ="UTC")
        self.env.pop("LD_PRELOAD", None)
        self._perf_env = None

    def say(self, text):
        print(text, flush=True)

    def problem(self, text):
        print("FAIL: " + text, flush=True)
        self.problems.append(text)

    def path(self, *parts):
        return os.path.join(self.work, *parts)

    # --- running ---------------------------------------------------------------
    def run(self, argv, cwd=None, env=None, stdin=subprocess.DEVNULL, stdout=None, timeout=TIMEOUT):
        """argv's (status, stdout bytes or None, stderr text, seconds)."""
        start = time.monotonic()
        try:
            p = subprocess.run(argv, cwd=cwd or self.work, env=env or self.env, stdin=stdin,
                               stdout=stdout or subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout)
        except subprocess.TimeoutExpired as e:
            self.problem(f"{' '.join(argv)[:200]} did not finish within {timeout} s")
            return None, e.stdout, (e.stderr or b"").decode(errors="replace"), time.monotonic() - start
        return p.returncode, p.stdout, p.stderr.decode(errors="replace"), time.monotonic() - start

    def traced(self, argv, outdir, options=(), **kw):
        """argv under systrace -o outdir; the same as run, with systrace's messages in stderr."""
        shutil.rmtree(outdir, ignore_errors=True)
        return self.run([self.systrace, *options, "-o", outdir, "--", *argv], **kw)

    def perf_env(self):
        """The environment perf stat gives its command, read once by running env under perf."""
        if self._perf_env is None:
            out = subprocess.run(["perf", "stat", "-x,", "-o", "/dev/null", "-e", "syscalls:sys_enter_getppid",
                                  "--", "/usr/bin/env", "-0"], env=self.env, stdout=subprocess.PIPE, check=True).stdout
            self._perf_env = dict(kv.split("=", 1) for kv in out.decode().split("\0") if "=" in kv)
            self._perf_env.pop("_", None)
        return self._perf_env

    def traced_env(self):
        return dict(self.perf_env())

    def perf_counts(self, argv, names, cwd=None, stdout=None):
        """Runs argv under perf stat counting the entry tracepoints of names (a
        wildcard over all of them costs perf 14 s to set up here): (status, stdout,
        {syscall: calls})."""
        data = self.path("perf.out")
        tracepoint = {v: k for k, v in TRACEPOINT_NAMES.items()}
        events = ",".join(f"syscalls:sys_enter_{tracepoint.get(n, n)}" for n in names)
        status, out, err, secs = self.run(["perf", "stat", "-x,", "-o", data, "-e", events, "--", *argv],
                                          cwd=cwd, env=self.env, stdout=stdout)
        counts = {}
        try:
            with open(data) as f:
                for line in f:
                    fields = line.strip().split(",")
                    if len(fields) > 2 and fields[2].startswith("syscalls:sys_enter_") and fields[0].isdigit():
                        name = fields[2][len("syscalls:sys_enter_"):]
                        counts[TRACEPOINT_NAMES.get(name, name)] = int(fields[0])
        except OSError as e:
            self.problem(f"perf stat wrote no counts ({e}); stderr: {err[-500:]}")
        missing = [n for n in names if n not in counts]
        if missing:
            self.problem(f"perf stat counted none of {missing} (no such tracepoint?); stderr: {err[-500:]}")
        return status, out, counts, secs

    # --- checking --------------------------------------------------------------
    def same_status(self, what, native, traced, traced_err=""):
        if native != traced:
            self.problem(f"{what}: exit status {traced} under systrace, {native} natively; systrace's stderr:\n"
                         + traced_err[-2000:])
            return False
        return True

    def same_bytes(self, what, native, traced):
        if native != traced:
            self.problem(f"{what}: the output differs under systrace ({len(traced or b'')} bytes, "
                         f"natively {len(native or b'')}; sha256 {digest(traced)} against {digest(native)})")
            return False
        return True

    def files_complete(self, outdir, what):
        import csvtool
        try:
            csvtool.load_summary(outdir)
            for p in csvtool.check_consistency(outdir, patch_off=False):
                self.problem(f"{what}: {p}")
        except csvtool.CheckError as e:
            self.problem(f"{what}: systrace's files are not complete: {e}")

    def compare_counts(self, what, names, perf_runs, outdir, adjust=None):
        """systrace's totals for names equal perf's (plus adjust), for names whose perf
        count is the same in every perf run (else the premise is wrong: a problem)."""
        traced = systrace_counts(outdir)
        adjust = adjust or {}
        rows = []
        for name in names:
            native = {r.get(name, 0) for r in perf_runs}
            if len(native) != 1:
                self.problem(f"{what}: {name} is not deterministic natively: {sorted(native)} in {len(perf_runs)} runs")
                continue
            want = native.pop() + adjust.get(name, 0)
            got = traced.get(name, 0)
            rows.append(f"{name} {got}" + ("" if got == want else f" (perf: {want})"))
            if got != want:
                self.problem(f"{what}: systrace counted {got} {name}, the kernel {want}"
                             + (f" (perf's {want - adjust[name]} + {adjust[name]})" if name in adjust else ""))
        self.say(f"     {what}: counts against perf: " + ", ".join(rows))


def digest(data):
    return hashlib.sha256(data or b"").hexdigest()[:16]


def file_digest(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def systrace_counts(outdir, abi="x86_64"):
    counts = collections.Counter()
    try:
        with open(os.path.join(outdir, "syscalls.csv"), newline="") as f:
            for r in csv.DictReader(f):
                if r.get("abi", "x86_64") == abi:
                    counts[r["syscall"]] += int(r["calls"])
    except OSError:
        pass
    return counts


def make_text(path, lines, seed):
    """A fixed text file: lines of words drawn from a fixed vocabulary."""
    import random
    r = random.Random(seed)
    words = ["".join(r.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(r.randint(3, 12))) for _ in range(5000)]
    with open(path, "w") as f:
        for _ in range(lines):
            f.write(" ".join(r.choice(words) for _ in range(r.randint(2, 10))) + "\n")


# --- the cases -------------------------------------------------------------------
# Calls whose number does not depend on timing in these programs: the files opened
# and read in fixed-size blocks, the output written in fixed-size blocks, the
# threads made (one clone3 per worker), the signal handlers set. Not futex (how
# often a thread waits depends on who gets there first), munmap/mmap/brk in threaded
# programs (which thread's arena grows when), getrandom (glibc's malloc and temporary
# names draw it as needed).
FILE_CALLS = ["openat", "read", "write", "close", "newfstatat", "lseek", "fadvise64", "pread64"]


def case_xz(c):
    data = c.path("data.txt")
    make_text(data, 200000, 1)  # about 10 MB
    size = os.path.getsize(data)
    argv = ["xz", "-T2", "--block-size=1MiB", "-3", "-c", data]
    st_n, out_n, err_n, t_n = c.run(argv)
    st_t, out_t, err_t, t_t = c.traced(argv, c.path("xz.st"))
    c.say(f"     xz -T2 on {size} bytes: native {t_n:.1f} s status {st_n}, systrace {t_t:.1f} s status {st_t}")
    if c.same_status("xz -T2", st_n, st_t, err_t):
        c.same_bytes("xz -T2", out_n, out_t)
    c.files_complete(c.path("xz.st"), "xz -T2")
    with open(c.path("data.xz"), "wb") as f:
        f.write(out_n or b"")
    argv_d = ["xz", "-T2", "-d", "-c", c.path("data.xz")]
    st_n, out_n, _, _ = c.run(argv_d)
    st_t, out_t, err_t, _ = c.traced(argv_d, c.path("unxz.st"))
    if c.same_status("xz -T2 -d", st_n, st_t, err_t) and c.same_bytes("xz -T2 -d", out_n, out_t):
        with open(data, "rb") as f:
            c.same_bytes("xz -T2 -d (the original back)", f.read(), out_t)
    # counts: the compression, its output to a file (fixed-size writes)
    argv_f = ["sh", "-c", f"exec xz -T2 --block-size=1MiB -3 -c '{data}' > '{c.path('out.xz')}'"]
    calls = FILE_CALLS + ["clone3", "rt_sigaction", "rt_sigprocmask", "exit_group", "execve"]
    runs = [c.perf_counts(argv_f, calls)[2] for _ in range(2)]
    st_t, _, err_t, _ = c.traced(argv_f, c.path("xzc.st"), env=c.traced_env())
    c.same_status("xz -T2 (counted)", 0, st_t, err_t)
    c.compare_counts("xz -T2", calls, runs, c.path("xzc.st"), adjust={"execve": 1})


def case_sort(c):
    data = c.path("data.txt")
    make_text(data, 300000, 2)  # about 15 MB
    for name, argv in (("sort --parallel=2", ["sort", "--parallel=2", data]),
                       ("sort --parallel=2 -S 2M (merging temporary files)",
                        ["sort", "--parallel=2", "-S", "2M", "-T", c.work, data])):
        st_n, out_n, err_n, t_n = c.run(argv)
        st_t, out_t, err_t, t_t = c.traced(argv, c.path("sort.st"))
        c.say(f"     {name}: native {t_n:.1f} s, systrace {t_t:.1f} s, {len(out_n or b'')} bytes out")
        if c.same_status(name, st_n, st_t, err_t):
            c.same_bytes(name, out_n, out_t)
        c.files_complete(c.path("sort.st"), name)
        argv_f = argv[:1] + ["-o", c.path("sorted.txt")] + argv[1:]
        calls = FILE_CALLS + ["clone3", "unlink", "rt_sigaction", "exit_group", "execve"]
        runs = [c.perf_counts(argv_f, calls)[2] for _ in range(2)]
        st_t, _, err_t, _ = c.traced(argv_f, c.path("sortc.st"), env=c.traced_env())
        c.same_status(name + " (counted)", 0, st_t, err_t)
        c.compare_counts(name, calls, runs, c.path("sortc.st"), adjust={"execve": 1})


GIT_SCRIPT = r"""
set -e
export HOME="$PWD/home" GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=A GIT_AUTHOR_EMAIL=a@example.org
export GIT_COMMITTER_NAME=C GIT_COMMITTER_EMAIL=c@example.org
export GIT_AUTHOR_DATE='2024-01-01T00:00:00Z' GIT_COMMITTER_DATE='2024-01-01T00:00:00Z'
mkdir -p home repo
cd repo
git init -q -b main .
for d in 1 2 3 4 5; do
  mkdir -p dir$d
  for f in 1 2 3 4 5 6 7 8 9 10; do seq $((d * f)) $((d * f + 200)) > dir$d/file$f.txt; done
done
git add -A
git commit -q -m "first"
git checkout -q -b topic
for f in 1 2 3; do echo "topic $f" >> dir1/file$f.txt; done
git mv dir2/file1.txt dir2/moved.txt
git commit -q -am "topic"
git checkout -q main
echo "main" >> dir5/file10.txt
git commit -q -am "main"
git merge -q --no-edit topic
git tag -a v1 -m "v1"
git log --oneline --graph --all
git diff --stat HEAD~2 HEAD
git status --short
git gc -q
git fsck --no-progress
git rev-list --count HEAD
git cat-file -p v1
git archive --format=tar HEAD | sha256sum
git clone -q "$PWD" ../clone
cd ../clone && git log --format='%H %s' && git ls-files | wc -l
"""


def case_git(c):
    script = c.path("git.sh")
    with open(script, "w") as f:
        f.write(GIT_SCRIPT)
    scratch = c.path("git")
    results = {}
    for mode in ("native", "systrace"):
        shutil.rmtree(scratch, ignore_errors=True)
        os.makedirs(scratch)  # the same path both times: git prints it
        argv = ["sh", script]
        r = c.run(argv, cwd=scratch) if mode == "native" else c.traced(argv, c.path("git.st"), cwd=scratch)
        results[mode] = r
        c.say(f"     git ({mode}): status {r[0]}, {r[3]:.1f} s, {len((r[1] or b'').splitlines())} lines out")
    (st_n, out_n, err_n, _), (st_t, out_t, err_t, _) = results["native"], results["systrace"]
    if st_n != 0:
        c.problem(f"git's script fails natively (status {st_n}): {err_n[-1000:]}")
    if c.same_status("git", st_n, st_t, err_t):
        c.same_bytes("git's output", out_n, out_t)
    c.files_complete(c.path("git.st"), "git")
    procs = sum(1 for _ in open(c.path("git.st", "processes.csv"))) - 1
    c.say(f"     git: {procs} process images under systrace")
    # counts: the processes git starts, the folders it makes and lists, the objects
    # it links into place; not read (git reads its subprocesses' pipes as the data
    # comes) nor openat, close, newfstatat, rename, unlink: a file whose mtime is not
    # older than the index's is "racily clean", so git opens and hashes it to be sure
    # and may write the index again (a lock file renamed), which depends on the clock
    # (3318 and 3507 openat, 51 and 52 rename in native runs)
    calls = ["execve", "clone", "clone3", "vfork", "exit_group", "pipe2", "getdents64", "mkdir", "link"]
    runs = []
    for mode in ("perf", "perf", "systrace"):
        shutil.rmtree(scratch, ignore_errors=True)
        os.makedirs(scratch)
        if mode == "perf":
            runs.append(c.perf_counts(["sh", script], calls, cwd=scratch)[2])
        else:
            st, _, err, _ = c.traced(["sh", script], c.path("gitc.st"), cwd=scratch, env=c.traced_env())
            c.same_status("git (counted)", 0, st, err)
    c.compare_counts("git", calls, runs, c.path("gitc.st"), adjust={"execve": 1})


# Not rt_sigaction: the build's own count of it moves with the load (natively under
# perf: 85,950 in three runs, 84,832 in one beside a stress run, 2026-12-02), mostly
# bash's, whose images make from 6 to 4,763 each.
LIBIBERTY_CALLS = ["execve", "vfork", "clone", "clone3", "exit_group", "pipe2", "chdir", "mkdir", "unlink", "unlinkat",
                   "renameat", "chmod", "access", "faccessat2", "readlink", "getdents64", "openat", "newfstatat",
                   "lseek", "getcwd", "umask"]


def case_libiberty(c):
    src = subprocess.run(["sh", os.path.join(HERE, "..", "..", "bench", "prepare-libiberty.sh")],
                         stdout=subprocess.PIPE, text=True, check=True).stdout.strip()
    build = c.path("libiberty")
    argv = ["sh", "-c", f"'{src}/libiberty/configure' >configure.out 2>&1 && make -j2 >make.out 2>&1"]
    results = {}
    # natively under perf (the same build: perf only counts), then under systrace,
    # in the same folder (the objects' debug information names it)
    for mode in ("native", "systrace"):
        shutil.rmtree(build, ignore_errors=True)
        os.makedirs(build)
        if mode == "native":
            st, _, counts, secs = c.perf_counts(argv, LIBIBERTY_CALLS, cwd=build)
            err = ""
        else:
            st, _, err, secs = c.traced(argv, c.path("libiberty.st"), cwd=build, env=c.traced_env())
        lib = os.path.join(build, "libiberty.a")
        results[mode] = (st, file_digest(lib) if os.path.exists(lib) else None,
                         open(os.path.join(build, "config.h")).read() if os.path.exists(os.path.join(build, "config.h")) else None)
        c.say(f"     libiberty configure + make -j2 ({mode}): status {st}, {secs:.1f} s"
              + (" (under perf stat)" if mode == "native" else ""))
    if results["native"][0] != 0:
        c.problem("libiberty does not build natively")
    c.same_status("libiberty build", results["native"][0], results["systrace"][0], err)
    if results["native"][2] != results["systrace"][2]:
        c.problem("libiberty: config.h differs under systrace (configure found other answers)")
    if results["native"][1] != results["systrace"][1]:
        c.problem(f"libiberty: libiberty.a differs under systrace ({results['systrace'][1]} against {results['native'][1]})")
    else:
        c.say(f"     libiberty.a identical: sha256 {results['native'][1][:16]}")
    c.files_complete(c.path("libiberty.st"), "libiberty")
    # counts that follow from the commands the build runs and the files it touches
    # (one perf run: a build's counts were checked stable over 3 runs, docs/reliability.md)
    c.compare_counts("libiberty", LIBIBERTY_CALLS, [counts], c.path("libiberty.st"), adjust={"execve": 1})


# The modules, each with the tests it is limited to (regrtest's -m patterns; none:
# all of it). Chosen among those that pass here natively and exercise what systrace
# must not change: threads, fork and exec, subprocesses and their pipes, signals and
# their handlers (timers, sigwait, EINTR), selectors, an event loop. Native times
# here: docs/reliability.md. test_multiprocessing_spawn is limited to its process,
# queue, pool, lock, condition, connection and manager tests (22 s of its 116), and
# test_asyncio to the modules that make calls of their own: subprocesses, the event
# loops and their selectors, sockets, streams, sendfile (about 50 s of its 126 here).
ASYNCIO = ("subprocess", "events", "unix_events", "selector_events", "base_events",
           "streams", "sock_lowlevel", "sendfile")
PY_MODULES = {
    "test_threading": [], "test_subprocess": [], "test_signal": [], "test_selectors": [],
    "test_threadsignals": [], "test_fork1": [], "test_wait4": [],
    **{f"test_asyncio.test_{m}": [] for m in ASYNCIO},
    "test_multiprocessing_spawn": ["*WithProcessesTestProcess*", "*WithProcessesTestQueue*",
                                   "*WithProcessesTestPool.*", "*WithProcessesTestLock*",
                                   "*WithProcessesTestCondition*", "*WithProcessesTestConnection*",
                                   "*WithProcessesTestManagerRestart*"],
}


def junit_results(path):
    """{test id: outcome} from regrtest's --junit-xml file."""
    import xml.etree.ElementTree as ET
    results = {}
    for tc in ET.parse(path).getroot().iter("testcase"):
        outcome = "ok"
        for child in tc:
            if child.tag in ("failure", "error", "skipped"):
                outcome = child.tag
        results[f"{tc.get('classname', '')}.{tc.get('name', '')}"] = outcome
    return results


def regrtest(c, module, patterns, mode, tag):
    """One run of regrtest on module, natively or under systrace: (run, {test: outcome})."""
    xml = c.path(f"{module}.{tag}.{mode}.xml")
    argv = [PYTHON, "-m", "test", "-j1", "--timeout", "600", "--junit-xml", xml, module]
    for p in patterns:
        argv += ["-m", p]
    tmp = c.path(f"{module}.{tag}.{mode}.tmp")
    os.makedirs(tmp, exist_ok=True)
    env = dict(c.env, TMPDIR=tmp)
    outdir = c.path(f"{module}.{tag}.st")
    r = c.run(argv, env=env, cwd=tmp) if mode == "native" else c.traced(argv, outdir, env=env, cwd=tmp)
    try:
        results = junit_results(xml)
    except Exception as e:  # noqa: BLE001 (a missing or cut file is the finding)
        results = {}
        c.problem(f"{module} ({mode}): no test results ({e}); status {r[0]}; stderr {r[2][-1500:]}")
    if mode == "systrace":
        c.files_complete(outdir, module)
    return r, results


# The processes, threads, pipes (the jobserver's), folders and renames of a build
# from a clean target folder: the same in every native run (21 execve, 28 clone3,
# 14 pipe2 and 14 mkdir on 2026-12-07); not openat or write (650 or 651).
CARGO_CALLS = ["execve", "exit_group", "clone", "clone3", "vfork", "pipe2", "mkdir", "rename", "unlink", "getdents64"]


def case_cargo(c):
    """A Rust crate (tests/real/shapes) built by cargo (rustc: threads, a jobserver,
    libraries of 150 MB with 165,000 symbols), then run: the same program out, the
    same counts."""
    cargo = shutil.which("cargo") or os.path.expanduser("~/.cargo/bin/cargo")
    proj = c.path("shapes")
    shutil.copytree(os.path.join(HERE, "shapes"), proj)
    argv = [cargo, "build", "--offline", "--release", "-j2", "-q", "--manifest-path", os.path.join(proj, "Cargo.toml")]
    program = [os.path.join(proj, "target", "release", "shapes")]
    results = {}
    for mode in ("native", "systrace"):
        shutil.rmtree(os.path.join(proj, "target"), ignore_errors=True)
        r = c.run(argv) if mode == "native" else c.traced(argv, c.path("cargo.st"))
        results[mode] = r + (c.run(program)[1],)
        c.say(f"     cargo build ({mode}): status {r[0]}, {r[3]:.1f} s")
    (st_n, _, err_n, _, out_n), (st_t, _, err_t, _, out_t) = results["native"], results["systrace"]
    if st_n != 0:
        c.problem(f"cargo build fails natively (status {st_n}): {err_n[-1000:]}")
    if c.same_status("cargo build", st_n, st_t, err_t):
        c.same_bytes("the built program's output", out_n, out_t)
    c.files_complete(c.path("cargo.st"), "cargo build")
    runs = []
    for mode in ("perf", "perf", "systrace"):
        shutil.rmtree(os.path.join(proj, "target"), ignore_errors=True)
        if mode == "perf":
            runs.append(c.perf_counts(argv, CARGO_CALLS)[2])
        else:
            st, _, err, _ = c.traced(argv, c.path("cargoc.st"), env=c.traced_env())
            c.same_status("cargo build (counted)", 0, st, err)
    c.compare_counts("cargo build", CARGO_CALLS, runs, c.path("cargoc.st"), adjust={"execve": 1})


def case_cpython(c):
    if subprocess.run([PYTHON, "-c", "import test.test_threading"], capture_output=True).returncode:
        c.problem(f"{PYTHON} has no regression tests (install libpython3.11-testsuite: scripts/install-deps.sh real)")
        return
    only = os.environ.get("REAL_PY_TESTS")
    for module, patterns in PY_MODULES.items():
        if only and module not in only.split():
            continue
        # the two sides at once: each is mostly waits (timers, children, sockets), and
        # the case was most of a CI run's time; a difference is run again alone, below
        with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
            runs = [pool.submit(regrtest, c, module, patterns, mode, "all") for mode in ("native", "systrace")]
            (rn, res_n), (rt, res_t) = (r.result() for r in runs)
        tally = collections.Counter(res_t.values())
        c.say(f"     {module}: native {rn[3]:.1f} s status {rn[0]}, systrace {rt[3]:.1f} s status {rt[0]}; "
              f"{len(res_t)} tests under systrace: " + ", ".join(f"{n} {k}" for k, n in sorted(tally.items())))
        differ = sorted(t for t in set(res_n) | set(res_t) if res_n.get(t) != res_t.get(t))
        if differ and len(differ) <= 10:
            # a timing-sensitive test may fail once on a loaded machine, natively as
            # well: those that differ run again on both sides, one after the other,
            # and only a difference that stays is a finding (the first one is
            # reported as flaky)
            ids = [t.rsplit(".", 2)[-2] + "." + t.rsplit(".", 1)[-1] for t in differ]
            (_, again_n), (rt2, again_t) = (regrtest(c, module, ids, mode, "again") for mode in ("native", "systrace"))
            for t in differ:
                if again_n.get(t) == again_t.get(t):
                    c.say(f"     flaky: {t}: {res_t.get(t, 'absent')} under systrace, {res_n.get(t, 'absent')} "
                          f"natively, then {again_t.get(t)} on both")
            differ = [t for t in differ if again_n.get(t) != again_t.get(t)]
            if not differ:
                rt = rn  # the difference did not stay: not a finding
        for t in differ[:20]:
            c.problem(f"{module}: {t}: {res_t.get(t, 'absent')} under systrace, {res_n.get(t, 'absent')} natively")
        if rn[0] != 0:
            c.problem(f"{module} fails natively here (status {rn[0]}): not a systrace finding; drop it from the list")
        elif not c.same_status(module, rn[0], rt[0], rt[2]):
            sys.stdout.write((rt[1] or b"").decode(errors="replace")[-3000:])


def case_pty(c):
    """An interactive bash under systrace, driven through a pseudo-terminal: Ctrl-C
    ends a foreground sleep and the line it was on, Ctrl-Z stops cat, fg brings it
    back, Ctrl-D ends it, `exit 3` ends the shell; the transcript is the same as with
    the same bash run natively, and systrace's status is the shell's."""
    from ptyshell import PtyShell
    # (a line typed, keys typed after it, the program they are for, what to wait for
    # then): the keys go once that program waits (asleep: its nanosleep, its read)
    # in the terminal's foreground group, not to bash reading the line or to a job
    # still stopped
    steps = [("sleep 30; echo next", "\x03", "sleep", r"PROMPT> "),
             ("cat", None, None, None),
             ("", "\x1a", "cat", r"Stopped"),
             ("jobs", None, None, r"PROMPT> "),
             ("fg", None, None, None),
             ("", "typed after fg\n", "cat", r"^typed after fg\r?\n(?:.*\n)?typed after fg"),
             ("", "\x04", "cat", r"PROMPT> "),
             ("sh -c 'kill -INT $$'; echo next", None, None, r"PROMPT> "),
             ("echo done", None, None, r"PROMPT> ")]
    transcripts = {}
    for mode in ("native", "systrace"):
        sh = PtyShell()
        try:
            if not sh.expect(r"PROMPT> ", 20):
                c.problem("the outer shell printed no prompt")
                return
            inner = "bash --norc --noprofile -i"
            outdir = c.path("pty.st")
            shutil.rmtree(outdir, ignore_errors=True)
            line = inner if mode == "native" else f"{c.systrace} -o {outdir} -- {inner}"
            mark = sh.mark()
            sh.send(line + "\n")
            # its first prompt (past the echo of the line): the inner shell reads the
            # terminal, set up for its line editor
            if not sh.expect(r"PROMPT> ", 30, mark + 1):
                c.problem(f"{mode}: the inner shell printed no prompt")
                return
            start = sh.mark()
            sh.send("\n")
            if not sh.expect(r"PROMPT> ", 30, start):
                c.problem(f"{mode}: the inner shell printed no prompt")
                return
            start = sh.mark()
            for text, keys, ready, wait in steps:
                mark = sh.mark()
                if text:
                    sh.send(text + "\n")
                if ready and not sh.wait_for(lambda: sh.asleep_in_foreground(ready), 30):
                    c.problem(f"{mode}: after {text!r}: no {ready} asleep in the terminal's foreground "
                              f"group within 30 s, for {keys!r}")
                    break
                if keys:
                    sh.send(keys)
                # past the echo of a typed line (a prompt may end it)
                if wait and not sh.expect(wait, 30, mark + 1 if text else mark):
                    c.problem(f"{mode}: after {text!r} {keys!r}: no {wait!r} within 30 s")
                    break
                sh.drain(0.3)
            mark = sh.mark()
            sh.send("exit 3\n")
            if not sh.expect(r"PROMPT> ", 30, mark + 1):
                c.problem(f"{mode}: the inner shell did not exit")
            body = sh.text(start, sh.mark())
            status = sh.status()
            transcripts[mode] = body
            c.say(f"     interactive bash ({mode}): status {status}")
            if status != 3:
                c.problem(f"{mode}: the interactive shell's status is {status}, expected 3")
            if mode == "systrace":
                c.files_complete(outdir, "interactive bash")
        finally:
            if c.problems:
                print("--- terminal transcript ---\n" + sh.text() + "\n---------------------------")
            sh.close()
    if set(transcripts) == {"native", "systrace"}:
        if transcripts["native"] != transcripts["systrace"]:
            c.problem("the interactive session's transcript differs:\n--- native ---\n" + transcripts["native"]
                      + "\n--- systrace ---\n" + transcripts["systrace"])
        else:
            c.say("     the transcripts are the same: " + repr(transcripts["native"][:300]))
        if "\nnext\n" in transcripts["native"]:
            c.problem("natively the line went on after Ctrl-C / a SIGINT death: the session's premise is wrong")


CASES = {"xz": case_xz, "sort": case_sort, "git": case_git, "libiberty": case_libiberty,
         "cpython": case_cpython, "pty": case_pty, "cargo": case_cargo}


def main(argv):
    if len(argv) != 4 or argv[3] not in CASES:
        sys.exit(f"usage: real.py BUILD WORK CASE  (CASE: {' '.join(CASES)})")
    build, work, name = os.path.abspath(argv[1]), os.path.abspath(argv[2]), argv[3]
    os.makedirs(work, exist_ok=True)
    c = Case(build, work)
    CASES[name](c)
    sys.exit(1 if c.problems else 0)


if __name__ == "__main__":
    main(sys.argv)
