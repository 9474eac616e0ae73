"""An interactive shell on a pseudo-terminal, driven as a person would drive it, for
the tests of job control and signals (tests/e2e, tests/real).

    sh = PtyShell()                 # bash -i (or sh -i), prompt "PROMPT> "
    sh.expect(r"PROMPT> ", 20)      # a regex match object, or None after the timeout
    sh.send("sleep 30\\n"); sh.send("\\x03")   # typed keys: Ctrl-C
    sh.status()                     # `echo "RC=$?"` read back, or None
    sh.close()                      # kills whatever is left of the session

Every wait is bounded; sh.transcript holds all the terminal printed, for failure
messages (sh.text() with the carriage returns dropped).

A key typed too early acts on another state than the one meant (Ctrl-C before the
command runs, a line before the program reads): wait for the state itself, e.g.

    sh.wait_for(lambda: sh.asleep_in_foreground("sleep"), 30)   # then sh.send("\\x03")"""
import fcntl
import os
import pty
import re
import select
import shutil
import signal
import struct
import termios
import time


def shell_command():
    """bash in interactive mode without rc files, else sh -i."""
    bash = shutil.which("bash")
    return [bash, "--norc", "--noprofile", "-i"] if bash else ["/bin/sh", "-i"]


def proc_stat(pid):
    """(comm, the fields of /proc/PID/stat after the command name: state, ppid, pgrp,
    session, tty_nr, tpgid, ...), or None when the process is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            stat = f.read()
        return stat[stat.index("(") + 1:stat.rindex(")")], stat[stat.rindex(")") + 2:].split()
    except (OSError, ValueError):
        return None


class PtyShell:
    PROMPT = "PROMPT> "

    def __init__(self, argv=None, env=None, cwd=None):
        argv = argv or shell_command()
        env = dict(env or os.environ, PS1=self.PROMPT, TERM="dumb", HISTFILE="/dev/null")
        self.transcript = b""
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            try:
                if cwd:
                    os.chdir(cwd)
                os.execve(argv[0], argv, env)
            finally:
                os._exit(127)
        # wide enough that the line editor never scrolls a long command line
        fcntl.ioctl(self.fd, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 1000, 0, 0))

    def read_some(self, timeout):
        """Reads what the terminal printed within timeout; False at its end."""
        r, _, _ = select.select([self.fd], [], [], timeout)
        if r:
            try:
                data = os.read(self.fd, 4096)
            except OSError:
                return False
            self.transcript += data
            return bool(data)
        return True

    def expect(self, pattern, timeout, start=0):
        """Waits until the transcript (from offset start) matches pattern."""
        rx = re.compile(pattern.encode(), re.M)
        end = time.monotonic() + timeout
        while True:
            m = rx.search(self.transcript, start)
            if m:
                return m
            left = end - time.monotonic()
            if left <= 0:
                return None
            if not self.read_some(min(left, 0.2)):
                return rx.search(self.transcript, start)

    def drain(self, seconds):
        """Reads for that long, whatever comes."""
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            if not self.read_some(min(0.1, max(end - time.monotonic(), 0))):
                break

    def mark(self):
        return len(self.transcript)

    def send(self, s):
        os.write(self.fd, s.encode())

    def run(self, line, timeout):
        """Types line and waits for the next prompt; the offset where its output starts,
        or None when no prompt came back within timeout."""
        mark = self.mark()
        self.send(line + "\n")
        if not self.expect(re.escape(self.PROMPT), timeout, mark + 1):
            return None
        return mark

    def status(self, timeout=10):
        """The status of the last command ($?), or None."""
        mark = self.mark()
        self.send('echo "RC=$?"\n')
        m = self.expect(r"^RC=(\d+)\r?$", timeout, mark)
        return int(m.group(1)) if m else None

    def text(self, start=0, end=None):
        return self.transcript[start:end].decode(errors="replace").replace("\r", "")

    def session_pids(self):
        """Processes of the pty's session (the shell is its leader)."""
        return list(self.session_procs())

    def session_procs(self):
        """{pid: (comm, stat fields)} of the session's processes (see proc_stat)."""
        procs = {}
        for p in os.listdir("/proc"):
            if not p.isdigit():
                continue
            st = proc_stat(p)
            try:
                if st and int(st[1][3]) == self.pid:
                    procs[int(p)] = st
            except (ValueError, IndexError):
                pass
        return procs

    def asleep_in_foreground(self, comm):
        """The session's processes named comm that sleep (state S: in a read, a
        nanosleep) in the terminal's foreground process group, the one its keys
        signal and its input goes to: a program ready for a key."""
        return [pid for pid, (c, f) in self.session_procs().items()
                if c == comm and len(f) > 5 and f[0] == "S" and f[2] == f[5]]

    def wait_for(self, cond, timeout, step=0.05):
        """Polls cond() until it returns something true, reading the terminal
        meanwhile (step seconds between tries): its value, or None after timeout."""
        end = time.monotonic() + timeout
        while True:
            value = cond()
            if value:
                return value
            left = end - time.monotonic()
            if left <= 0:
                return None
            started = time.monotonic()
            self.drain(min(step, left))
            rest = min(step, left) - (time.monotonic() - started)
            if rest > 0:  # the terminal closed: drain returned at once
                time.sleep(rest)

    def close(self):
        for p in self.session_pids():
            try:
                os.kill(p, signal.SIGKILL)
            except OSError:
                pass
        try:
            os.kill(self.pid, signal.SIGKILL)
        except OSError:
            pass
        try:
            os.waitpid(self.pid, 0)
        except OSError:
            pass
        os.close(self.fd)
