"""The `kodo browse` rows of `make bench` (bench/run.py calls `run`): the real browser in a
detached tmux of fixed size against release emulators, timed from outside.

The browser is timed through its bench aid: with KODO_BROWSE_TRACE=FILE, `kodo browse` appends
one line per frame to FILE (never to the terminal): the wall clock after the frame was written,
the thread CPU time of the event's update + view + diff, the bytes the diff wrote, what caused
the frame, the cursor, and how much of the folder is loaded (Sources/KodoCLI/Browse/
BrowseTrace.swift). Process CPU comes from /proc/PID/stat, peak RSS from VmHWM; a load's end is
read off the screen (`capture-pane`), so that it also works for a build without the trace.

a. start to the bucket list drawn (median of --startup-runs launches); goal ≤ 100 ms.
b. a keystroke (`j`) in a folder of 100,000 loaded entries: kodo's CPU per key over 200 keys
   (whole process, and update + view + diff from the trace); goal ≤ 5 ms. Bytes written per key
   moving within the screen and scrolling, against a full repaint: proportional to what changed.
c. 1,000,000 loaded entries in one folder (`--synthetic NAME=COUNT:flat`, load-all): peak RSS
   (goal ≤ 300 MB), the load's CPU, and a keystroke answered during and after the load.
d. with 800 ms of latency per request: the cursor moves, and `q` quits, while a page loads.
"""

import json
import os
import shlex
import shutil
import statistics
import subprocess
import time

TICKS = os.sysconf("SC_CLK_TCK")
WIDTH, HEIGHT = 120, 40
# The list shows HEIGHT - 4 rows (title, column header, status, hints): a move below that
# scrolls.
LIST_HEIGHT = HEIGHT - 4


class Pane:
    """`kodo browse ARGUMENTS` in a detached tmux (a server of its own, no user config)."""

    serial = 0

    def __init__(self, kodo, arguments, env, scratch, width=WIDTH, height=HEIGHT):
        Pane.serial += 1
        self.socket = "kodo-bench-%d-%d" % (os.getpid(), Pane.serial)
        self.directory = os.path.join(scratch, self.socket)
        os.makedirs(self.directory)
        self.trace_path = os.path.join(self.directory, "trace")
        self.trace_offset = 0
        self.frames = []
        lines = ["cd %s" % shlex.quote(self.directory)]
        for name, value in sorted(env.items()):
            if name.replace("_", "").isalnum() and name != "TERM":
                lines.append("export %s=%s" % (name, shlex.quote(value)))
        lines.append("export TERM=xterm-256color KODO_BROWSE_TRACE=%s"
                     % shlex.quote(self.trace_path))
        # The launch time is taken in the pane, just before exec: tmux's own start-up is not
        # counted. The exit time is taken as soon as kodo is gone.
        command = " ".join(shlex.quote(word) for word in [kodo, "browse"] + arguments)
        lines.append("sh -c 'date +%%s.%%N > launched; echo $$ > pid; exec \"$0\" \"$@\"' %s"
                     % command)
        lines.append("status=$?; date +%s.%N > exited.tmp; echo $status >> exited.tmp; "
                     "mv exited.tmp exited")
        with open(os.path.join(self.directory, "run.sh"), "w") as script:
            script.write("\n".join(lines) + "\n")
        self.tmux("-f", "/dev/null", "new-session", "-d", "-s", "main", "-x", str(width),
                  "-y", str(height), "sh run.sh")
        self.pid = int(self.wait_file("pid"))

    def tmux(self, *arguments):
        subprocess.run(["tmux", "-L", self.socket] + list(arguments), cwd=self.directory,
                       stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, check=True)

    def keys(self, *names):
        self.tmux("send-keys", "-t", "main", *names)

    def screen(self):
        return subprocess.run(["tmux", "-L", self.socket, "capture-pane", "-p", "-t", "main"],
                              capture_output=True, text=True).stdout

    def wait_file(self, name, seconds=30):
        path = os.path.join(self.directory, name)
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            try:
                with open(path) as handle:
                    text = handle.read().strip()
                if text:
                    return text
            except OSError:
                pass
            time.sleep(0.002)
        raise SystemExit("bench: browse: %s did not appear in %s" % (name, self.directory))

    def read_frames(self):
        """The frames traced since the last call, parsed."""
        try:
            with open(self.trace_path, "rb") as trace:
                trace.seek(self.trace_offset)
                data = trace.read()
        except OSError:
            return []
        end = data.rfind(b"\n") + 1
        self.trace_offset += end
        new = []
        for line in data[:end].decode().splitlines():
            fields = dict(part.split("=", 1) for part in line.split()[1:])
            frame = {name: (float(value) if name == "t" else
                            value if name == "event" else int(value))
                     for name, value in fields.items()}
            new.append(frame)
        self.frames += new
        return new

    def wait_frame(self, condition, seconds=60, what="a frame"):
        """The first new frame for which `condition` holds."""
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            for frame in self.read_frames():
                if condition(frame):
                    return frame
            time.sleep(0.001)
        raise SystemExit("bench: browse: no %s within %d s (%s)" % (what, seconds, self.directory))

    def wait_quiet(self, seconds=0.5, limit=60):
        """Waits until no frame came for `seconds`."""
        end = time.monotonic() + limit
        last = time.monotonic()
        while time.monotonic() < end:
            if self.read_frames():
                last = time.monotonic()
            elif time.monotonic() - last >= seconds:
                return
            time.sleep(0.01)

    def wait_screen(self, condition, seconds, interval=0.05, what="the screen"):
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            screen = self.screen()
            if condition(screen):
                return screen
            time.sleep(interval)
        raise SystemExit("bench: browse: %s not shown within %d s (%s)"
                         % (what, seconds, self.directory))

    def cpu_seconds(self):
        with open("/proc/%d/stat" % self.pid) as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / TICKS

    def peak_rss_mib(self):
        with open("/proc/%d/status" % self.pid) as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
        return 0.0

    def launched(self):
        return float(self.wait_file("launched"))

    def exited(self, seconds=30):
        """(wall time of the exit, exit status)."""
        stamp, status = self.wait_file("exited", seconds).split()
        return float(stamp), int(status)

    def close(self):
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], stdin=subprocess.DEVNULL,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        shutil.rmtree(self.directory, ignore_errors=True)


def write_config(path, base):
    with open(path, "w") as config:
        json.dump({"accessKey": "kodo-emulator-access-key",
                   "secretKey": "kodo-emulator-secret-key", "domains": {},
                   "hosts": {"uc": base, "rs": base, "rsf": base, "api": base}}, config)
    os.chmod(path, 0o600)


def environment_for(env, emulator, scratch, name):
    config = os.path.join(scratch, "browse-%s.json" % name)
    write_config(config, emulator.base)
    result = dict(env)
    result["KODO_CONFIG"] = config
    return result


def count_text(number):
    return "{:,}".format(number)


def loaded_all(count):
    """The status line once every entry is loaded: `N entries`, no `≥`."""
    text = " %s entries" % count_text(count)
    return lambda screen: any(text in line and "≥" not in line for line in screen.splitlines())


def startup(kodo, emulator_class, emulator_binary, env, scratch, runs, progress):
    """(a): launch to the bucket list drawn, median over `runs` (ms)."""
    emulator = emulator_class(emulator_binary, ["--synthetic", "photos=100", "--synthetic",
                                                "videos=100", "--seed", "1"])
    try:
        browse_env = environment_for(env, emulator, scratch, "startup")
        times = []
        for index in range(runs):
            progress("browse: start to the bucket list, run %d of %d" % (index + 1, runs))
            pane = Pane(kodo, [], browse_env, scratch)
            try:
                frame = pane.wait_frame(lambda f: f["buckets"] == 1, what="bucket list")
                times.append((frame["t"] - pane.launched()) * 1000)
                if index == 0:
                    screen = pane.wait_screen(lambda s: "videos" in s, 30, what="bucket list")
                    if "photos" not in screen:
                        raise SystemExit("bench: browse: the bucket list lacks a bucket")
                pane.keys("q")
                pane.exited()
            finally:
                pane.close()
        return statistics.median(times)
    finally:
        emulator.stop()


def load_everything(pane, count, seconds):
    """Presses A in a folder and waits for all `count` entries; (CPU s, wall s) of the load."""
    pane.wait_screen(lambda s: "entries" in s, 60, interval=0.01, what="the first page")
    cpu = pane.cpu_seconds()
    start = time.monotonic()
    pane.keys("A")
    pane.wait_screen(loaded_all(count), seconds, interval=0.1, what="all %d entries" % count)
    return pane.cpu_seconds() - cpu, time.monotonic() - start


def keystrokes(kodo, emulator_class, emulator_binary, env, scratch, entries, keys, progress):
    """(b): per-key CPU and bytes in a folder of `entries` loaded entries."""
    emulator = emulator_class(emulator_binary, ["--synthetic", "flat=%d:flat" % entries,
                                                "--seed", "1"])
    try:
        browse_env = environment_for(env, emulator, scratch, "keys")
        pane = Pane(kodo, ["flat/dir-000/sub-00/"], browse_env, scratch)
        try:
            progress("browse: loading %s entries" % count_text(entries))
            load_everything(pane, entries, 600)
            pane.wait_quiet()
            pane.read_frames()
            progress("browse: %d keystrokes in %s loaded entries" % (keys, count_text(entries)))
            before = pane.cpu_seconds()
            pane.frames = []
            pane.keys(*(["j"] * keys))
            pane.wait_frame(lambda f: f["event"] == "key" and f["cursor"] == keys,
                            what="the cursor on row %d" % keys)
            # The details of the row the cursor rests on are asked for once it rests.
            pane.wait_quiet()
            cpu_per_key = (pane.cpu_seconds() - before) / keys * 1000
            moves = [f for f in pane.frames if f["event"] == "key"]
            within = [f for f in moves if f["cursor"] < LIST_HEIGHT]
            scrolled = [f for f in moves if f["cursor"] >= LIST_HEIGHT]
            # A resize repaints everything: the full screen's bytes, for comparison.
            pane.frames = []
            pane.tmux("resize-window", "-t", "main", "-x", str(WIDTH - 1), "-y", str(HEIGHT))
            pane.wait_frame(lambda f: f["event"] == "signal", what="a repaint")
            pane.wait_quiet()
            full = max(f["bytes"] for f in pane.frames)
            pane.keys("q")
            pane.exited()
        finally:
            pane.close()
    finally:
        emulator.stop()
    return {
        "cpu_per_key_ms": cpu_per_key,
        "frame_cpu_ms": statistics.median(f["cpu_us"] for f in moves) / 1000,
        "frames": len(moves),
        "within_bytes": statistics.median(f["bytes"] for f in within) if within else 0,
        "scrolled_bytes": statistics.median(f["bytes"] for f in scrolled) if scrolled else 0,
        "full_bytes": full,
    }


def key_latency_ms(pane, cursor):
    """Sends `j` and waits for the frame that shows the cursor on `cursor`; ms from the send."""
    sent = time.time()
    pane.keys("j")
    frame = pane.wait_frame(lambda f: f["event"] == "key" and f["cursor"] == cursor,
                            what="the cursor on row %d" % cursor)
    return (frame["t"] - sent) * 1000, frame


def million(kodo, emulator_class, emulator_binary, env, scratch, entries, progress):
    """(c): load-all of `entries` in one folder: RSS, CPU, and keys answered."""
    emulator = emulator_class(emulator_binary, ["--synthetic", "flat=%d:flat" % entries,
                                                "--seed", "1"])
    try:
        browse_env = environment_for(env, emulator, scratch, "million")
        pane = Pane(kodo, ["flat/dir-000/sub-00/"], browse_env, scratch)
        try:
            progress("browse: loading %s entries in one folder" % count_text(entries))
            pane.wait_screen(lambda s: "entries" in s, 60, interval=0.01, what="the first page")
            cpu = pane.cpu_seconds()
            start = time.monotonic()
            pane.read_frames()
            pane.keys("A")
            # A key while the load runs, once half is loaded.
            pane.wait_frame(lambda f: f["loaded"] >= entries // 2, seconds=1800,
                            what="half of the entries")
            during, frame = key_latency_ms(pane, 1)
            during_loaded = frame["loaded"]
            pane.wait_screen(loaded_all(entries), 1800, interval=0.1,
                             what="all %d entries" % entries)
            load_cpu, load_wall = pane.cpu_seconds() - cpu, time.monotonic() - start
            pane.wait_quiet()
            after, _ = key_latency_ms(pane, 2)
            pane.wait_quiet()
            rss = pane.peak_rss_mib()
            sent = time.time()
            pane.keys("q")
            exited, status = pane.exited()
        finally:
            pane.close()
    finally:
        emulator.stop()
    return {"rss": rss, "load_cpu": load_cpu, "load_wall": load_wall, "during_ms": during,
            "during_loaded": during_loaded, "after_ms": after,
            "quit_ms": (exited - sent) * 1000, "status": status}


def latency(kodo, emulator_class, emulator_binary, env, scratch, progress):
    """(d): at 800 ms per request, a key and `q` while a page loads (ms)."""
    emulator = emulator_class(emulator_binary, ["--synthetic", "lat=20000:flat", "--seed", "1",
                                                "--latency-ms", "800"])
    try:
        browse_env = environment_for(env, emulator, scratch, "latency")
        pane = Pane(kodo, ["lat/dir-000/sub-00/"], browse_env, scratch)
        try:
            progress("browse: a key and q while a page loads at 800 ms latency")
            pane.wait_frame(lambda f: f["event"] == "page", seconds=60, what="the first page")
            pane.wait_quiet()
            # Load-all asks for the next page at once; it takes 800 ms to come.
            pane.keys("A")
            pane.wait_frame(lambda f: f["event"] == "key", what="load-all")
            moved, frame = key_latency_ms(pane, 1)
            loading = frame["complete"] == 0 and frame["loaded"] == pane.frames[-1]["loaded"]
            pages_before = sum(1 for f in pane.frames if f["event"] == "page")
            sent = time.time()
            pane.keys("q")
            exited, status = pane.exited()
            pane.read_frames()
            # Still loading: no page arrived between the key and the quit.
            loading = loading and pages_before == sum(
                1 for f in pane.frames if f["event"] == "page")
        finally:
            pane.close()
    finally:
        emulator.stop()
    return {"moved_ms": moved, "quit_ms": (exited - sent) * 1000, "status": status,
            "loading": loading}


def run(progress, emulator_class, emulator_binary, kodo, env, scratch, big=1_000_000,
        mid=100_000, keys=200, startup_runs=20):
    """Measures the browser's rows; returns (rows, checks, ok)."""
    if shutil.which("tmux") is None:
        raise SystemExit("bench: browse: tmux is missing (make deps installs it)")
    start_ms = startup(kodo, emulator_class, emulator_binary, env, scratch, startup_runs,
                       progress)
    typed = keystrokes(kodo, emulator_class, emulator_binary, env, scratch, mid, keys, progress)
    large = million(kodo, emulator_class, emulator_binary, env, scratch, big, progress)
    slow = latency(kodo, emulator_class, emulator_binary, env, scratch, progress)

    m, n = count_text(mid), count_text(big)
    proportional = (typed["within_bytes"] * 4 <= typed["full_bytes"]
                    and typed["scrolled_bytes"] <= typed["full_bytes"])
    rss_ok = large["rss"] * 2**20 <= 300e6
    rows = [
        ("9. browse: start to the bucket list drawn (median of %d, %d×%d tmux)"
         % (startup_runs, WIDTH, HEIGHT), "%.1f ms" % start_ms, "", None, "≤ 100 ms",
         start_ms <= 100),
        ("9. browse: a keystroke (`j`) in %s loaded entries: kodo CPU per key (%d keys)"
         % (m, keys), "%.2f ms" % typed["cpu_per_key_ms"], "", None, "≤ 5 ms",
         typed["cpu_per_key_ms"] <= 5),
        ("9. … of which update + view + diff (median frame)", "%.2f ms" % typed["frame_cpu_ms"],
         "", None, "", None),
        ("9. … bytes written per key: moving on screen / scrolling / whole screen",
         "%d / %d / %d B" % (typed["within_bytes"], typed["scrolled_bytes"],
                             typed["full_bytes"]), "", None, "proportional to the change",
         proportional),
        ("9. browse: %s entries in one folder, load-all: peak RSS" % n,
         "%.1f MiB" % large["rss"], "", None, "≤ 300 MB", rss_ok),
        ("9. … load-all: kodo CPU (wall)", "%.2f s (%.1f s)" % (large["load_cpu"],
                                                               large["load_wall"]),
         "", None, "", None),
        ("9. … a keystroke answered during the load / after it",
         "%.1f / %.1f ms" % (large["during_ms"], large["after_ms"]), "", None, "≤ 100 ms",
         large["during_ms"] <= 100 and large["after_ms"] <= 100),
        ("9. browse at 800 ms latency, while a page loads: key → cursor moved / `q` → exited",
         "%.1f / %.1f ms" % (slow["moved_ms"], slow["quit_ms"]), "", None, "≤ 100 ms",
         slow["loading"] and slow["status"] == 0 and slow["moved_ms"] <= 100
         and slow["quit_ms"] <= 100),
    ]
    checks = [
        "browse: %d keys in %s entries drew %d frames; the key during the load came with %s of "
        "%s entries loaded" % (keys, m, typed["frames"], count_text(large["during_loaded"]), n),
        "browse at 800 ms latency: the key and `q` came while the page was still loading: %s; "
        "`q` exited %d" % ("yes" if slow["loading"] else "**NO**", slow["status"]),
    ]
    ok = slow["loading"] and slow["status"] == 0 and large["status"] == 0
    return rows, checks, ok
