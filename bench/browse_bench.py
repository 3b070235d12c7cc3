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
e. a filter typed in the 1,000,000 loaded entries of (c), key by key, then deleted key by key:
   kodo's CPU per key (whole process); goal ≤ 16 ms (one frame at 60 Hz).
f. a preview (`Enter`) of a 1 GiB text object: key to the first screen drawn (goal ≤ 150 ms)
   and the bytes fetched for it (goal ≤ 1 MiB), counted by a proxy in front of the downloads.
g. a keystroke while the browser uploads that 1 GiB file (`u`): key to frame; goal ≤ 20 ms.
"""

import json
import os
import shlex
import shutil
import socket
import statistics
import subprocess
import threading
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


def write_config(path, base, domains=None):
    with open(path, "w") as config:
        json.dump({"accessKey": "kodo-emulator-access-key",
                   "secretKey": "kodo-emulator-secret-key", "domains": domains or {},
                   "hosts": {"uc": base, "rs": base, "rsf": base, "api": base}}, config)
    os.chmod(path, 0o600)


def environment_for(env, emulator, scratch, name, domains=None):
    config = os.path.join(scratch, "browse-%s.json" % name)
    write_config(config, emulator.base, domains)
    result = dict(env)
    result["KODO_CONFIG"] = config
    return result


def count_text(number):
    return "{:,}".format(number)


def size_text(size):
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if size >= 1 << shift and size % (1 << shift) == 0:
            return "%d %s" % (size >> shift, unit)
    return "%s-byte" % count_text(size)


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
            progress("browse: a filter typed and deleted in %s entries" % count_text(entries))
            typing = filter_typing(pane, FILTER_TEXT, FILTER_ROUNDS)
            sent = time.time()
            pane.keys("q")
            exited, status = pane.exited()
        finally:
            pane.close()
    finally:
        emulator.stop()
    result = {"rss": rss, "load_cpu": load_cpu, "load_wall": load_wall, "during_ms": during,
              "during_loaded": during_loaded, "after_ms": after,
              "quit_ms": (exited - sent) * 1000, "status": status}
    result.update(typing)
    return result


# (e): in the flat synthetic folder every name is `file-NNNNNNN.EXT` (numbers below 1,000,000
# have a leading 0): `l`, `e`, `-` and `0` keep every entry, the next `0` a tenth of them, and
# so on; each Backspace goes back to the rows the shorter filter showed (kept as it was typed),
# and the first key of each round passes over every entry.
FILTER_TEXT = "le-00042"
FILTER_ROUNDS = 3


def filter_typing(pane, text, rounds):
    """(e): `/`, then `text` typed and deleted one key at a time, each key answered before the
    next is sent, `rounds` times: kodo's CPU per filter key (ms), and the frames' own CPU."""
    cpu = 0.0
    frames = []
    for _ in range(rounds):
        pane.read_frames()
        pane.keys("/")
        pane.wait_frame(lambda f: f["event"] == "key", what="the filter prompt")
        pane.wait_quiet()
        before = pane.cpu_seconds()
        for key in [["-l", character] for character in text] + [["BSpace"]] * len(text):
            pane.keys(*key)
            frames.append(pane.wait_frame(lambda f: f["event"] == "key", what="a filter key"))
        cpu += pane.cpu_seconds() - before
        # The last Backspace emptied the filter; Escape leaves its prompt.
        pane.keys("Escape")
        pane.wait_frame(lambda f: f["event"] == "key", what="the filter closed")
        pane.wait_quiet()
    shown = [f["rows"] for f in frames[:len(text)]]
    return {"filter_cpu_ms": cpu / len(frames) * 1000, "filter_keys": len(frames),
            "filter_frame_ms": statistics.median(f["cpu_us"] for f in frames) / 1000,
            "filter_frame_max_ms": max(f["cpu_us"] for f in frames) / 1000,
            "filter_rows": shown}


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


class CountingProxy:
    """A TCP proxy on 127.0.0.1 in front of `target` (host, port) that counts the bytes the
    target sends back (headers included): what the client fetched."""

    def __init__(self, target):
        self.target = target
        self.listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(16)
        self.base = "http://127.0.0.1:%d" % self.listener.getsockname()[1]
        self.lock = threading.Lock()
        self.received = 0
        self.closed = False
        threading.Thread(target=self.accept, daemon=True).start()

    def accept(self):
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(self.target)
            for source, sink, counted in ((client, upstream, False), (upstream, client, True)):
                threading.Thread(target=self.pump, args=(source, sink, counted),
                                 daemon=True).start()

    def pump(self, source, sink, counted):
        try:
            while True:
                data = source.recv(1 << 16)
                if not data:
                    break
                if counted:
                    with self.lock:
                        self.received += len(data)
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for end in (source, sink):
                try:
                    end.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def take(self):
        """The bytes counted since the last call."""
        with self.lock:
            count, self.received = self.received, 0
        return count

    def close(self):
        self.listener.close()


# The big text object: lines of 64 bytes (a number, then text), 1 MiB of them written over and
# over.
BIG_LINE_TEXT = "a line of a big log, all of it text, preview me "


def write_text_file(path, size):
    lines = []
    for number in range(1 << 14):
        line = "%08d %s" % (number, BIG_LINE_TEXT)
        lines.append((line + "." * (63 - len(line)))[:63] + "\n")
    block = "".join(lines).encode()
    with open(path, "wb") as handle:
        written = 0
        while written < size:
            part = block[:size - written]
            handle.write(part)
            written += len(part)


def big_object(kodo, emulator_class, emulator_binary, env, scratch, size, previews, keys,
               progress):
    """(f) and (g): one text file of `size` bytes, served as `big/big.log` by a directory
    bucket (downloads through a counting proxy) and uploaded with `u` into the in-memory bucket
    `up`."""
    folder = os.path.join(scratch, "big-object")
    os.makedirs(folder)
    path = os.path.join(folder, "big.log")
    try:
        progress("browse: writing a %s-byte text file" % count_text(size))
        write_text_file(path, size)
        limit = max(1024, 3 * size >> 20)
        emulator = emulator_class(emulator_binary, ["--bucket", "big=" + folder, "--bucket", "up",
                                                    "--memory-limit", str(limit)])
        try:
            host, port = emulator.base.rsplit("/", 1)[-1].rsplit(":", 1)
            proxy = CountingProxy((host, int(port)))
            try:
                browse_env = environment_for(env, emulator, scratch, "big",
                                             {"big": proxy.base + "/dl/big"})
                seen = preview(kodo, browse_env, scratch, previews, proxy, progress)
            finally:
                proxy.close()
            seen.update(upload_keys(kodo, browse_env, scratch, path, keys, progress))
        finally:
            emulator.stop()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return seen


def preview(kodo, browse_env, scratch, runs, proxy, progress):
    """(f): `Enter` on big.log, `runs` times: ms to the frame of the first range, and the
    bytes fetched for it."""
    pane = Pane(kodo, ["big/"], browse_env, scratch)
    try:
        # The directory bucket hashes the file for the first listing.
        pane.wait_screen(lambda s: "big.log" in s and "1 entry" in s, 600, interval=0.1,
                         what="big.log")
        pane.wait_quiet()
        times, fetched = [], []
        shows_text = True
        for index in range(runs):
            progress("browse: preview of the big text object, run %d of %d" % (index + 1, runs))
            pane.read_frames()
            proxy.take()
            sent = time.time()
            pane.keys("Enter")
            frame = pane.wait_frame(lambda f: f["event"] == "range", what="the first range")
            times.append((frame["t"] - sent) * 1000)
            pane.wait_quiet()
            fetched.append(proxy.take())
            screen = pane.screen()
            shows_text = shows_text and "00000000 " + BIG_LINE_TEXT.strip() in screen
            pane.keys("q")
            pane.wait_screen(lambda s: "1 entry" in s, 30, what="the folder again")
            pane.wait_quiet()
        pane.keys("q")
        pane.exited()
    finally:
        pane.close()
    return {"preview_ms": statistics.median(times), "preview_max_ms": max(times),
            "preview_bytes": max(fetched), "preview_runs": runs, "preview_text": shows_text}


def upload_keys(kodo, browse_env, scratch, path, keys, progress):
    """(g): `u` of the file at `path` into bucket `up`; while it runs, `i` (the details pane
    shown, hidden) up to `keys` times, each sent once the one before was answered: ms from each
    key to its frame."""
    pane = Pane(kodo, ["up/"], browse_env, scratch)
    try:
        pane.wait_frame(lambda f: f["event"] == "page", what="the empty folder")
        pane.wait_quiet()
        pane.keys("u")
        pane.wait_screen(lambda s: "upload here" in s, 30, what="the upload prompt")
        pane.keys("-l", path)
        pane.read_frames()
        progress("browse: keys during the upload of the big file")
        started = time.monotonic()
        pane.keys("Enter")
        pane.wait_frame(lambda f: f["event"] == "upload", what="the upload's progress")
        times = []
        finished = None
        for _ in range(keys):
            sent = time.time()
            pane.keys("i")
            frame = None
            end = time.monotonic() + 60
            while frame is None and time.monotonic() < end:
                for candidate in pane.read_frames():
                    if candidate["event"] == "uploaded" and finished is None:
                        finished = time.monotonic()
                    if candidate["event"] == "key" and frame is None:
                        frame = candidate
                time.sleep(0.001)
            if frame is None:
                raise SystemExit("bench: browse: a key during the upload was not answered")
            # Only keys answered while the upload still ran count.
            if finished is not None:
                break
            times.append((frame["t"] - sent) * 1000)
            # The next key once the upload has moved on (a part held by the service).
            while finished is None and time.monotonic() < end:
                new = pane.read_frames()
                if any(f["event"] == "uploaded" for f in new):
                    finished = time.monotonic()
                elif any(f["event"] == "upload" for f in new):
                    break
                time.sleep(0.001)
            if finished is not None:
                break
        if finished is None:
            pane.wait_frame(lambda f: f["event"] == "uploaded", seconds=1800,
                            what="the upload's end")
            finished = time.monotonic()
        screen = pane.wait_screen(lambda s: "uploaded big.log" in s or "failed" in s, 60,
                                  what="the upload's message")
        landed = "uploaded big.log: 1 object" in screen
        pane.keys("q")
        pane.exited()
    finally:
        pane.close()
    if not times:
        raise SystemExit("bench: browse: the upload ended before a key was answered")
    return {"upload_key_ms": statistics.median(times), "upload_key_max_ms": max(times),
            "upload_keys": len(times), "upload_seconds": finished - started,
            "upload_landed": landed}


def run(progress, emulator_class, emulator_binary, kodo, env, scratch, big=1_000_000,
        mid=100_000, keys=200, startup_runs=20, object_size=1 << 30, previews=5,
        upload_keys_sent=20):
    """Measures the browser's rows; returns (rows, checks, ok)."""
    if shutil.which("tmux") is None:
        raise SystemExit("bench: browse: tmux is missing (make deps installs it)")
    start_ms = startup(kodo, emulator_class, emulator_binary, env, scratch, startup_runs,
                       progress)
    typed = keystrokes(kodo, emulator_class, emulator_binary, env, scratch, mid, keys, progress)
    large = million(kodo, emulator_class, emulator_binary, env, scratch, big, progress)
    slow = latency(kodo, emulator_class, emulator_binary, env, scratch, progress)
    huge = big_object(kodo, emulator_class, emulator_binary, env, scratch, object_size, previews,
                      upload_keys_sent, progress)

    m, n = count_text(mid), count_text(big)
    size = size_text(object_size)
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
        ("9. browse: a filter keystroke in %s loaded entries: kodo CPU per key (%d keys)"
         % (n, large["filter_keys"]), "%.2f ms" % large["filter_cpu_ms"], "", None, "≤ 16 ms",
         large["filter_cpu_ms"] <= 16),
        ("9. … of which update + view + diff: median / slowest frame",
         "%.2f / %.2f ms" % (large["filter_frame_ms"], large["filter_frame_max_ms"]), "", None,
         "", None),
        ("9. browse: preview (`Enter`) of a %s text object: key → first screen (median of %d)"
         % (size, huge["preview_runs"]), "%.1f ms" % huge["preview_ms"], "", None, "≤ 150 ms",
         huge["preview_text"] and huge["preview_ms"] <= 150),
        ("9. … bytes fetched for it", "%s B" % count_text(huge["preview_bytes"]), "",
         None, "≤ 1 MiB", huge["preview_bytes"] <= 1 << 20),
        ("9. browse: a keystroke during a %s upload (`u`): key → frame, median / slowest of %d"
         % (size, huge["upload_keys"]),
         "%.1f / %.1f ms" % (huge["upload_key_ms"], huge["upload_key_max_ms"]), "", None,
         "≤ 20 ms", huge["upload_key_ms"] <= 20),
    ]
    checks = [
        "browse: %d keys in %s entries drew %d frames; the key during the load came with %s of "
        "%s entries loaded" % (keys, m, typed["frames"], count_text(large["during_loaded"]), n),
        "browse at 800 ms latency: the key and `q` came while the page was still loading: %s; "
        "`q` exited %d" % ("yes" if slow["loading"] else "**NO**", slow["status"]),
    ]
    checks += [
        "browse: the filter `%s` typed in %s entries showed %s rows, key by key"
        % (FILTER_TEXT, n, " → ".join(count_text(rows) for rows in large["filter_rows"])),
        "browse: the preview of the %s object showed its first line: %s; the %s upload took "
        "%.1f s and landed whole: %s"
        % (size, "yes" if huge["preview_text"] else "**NO**", size, huge["upload_seconds"],
           "yes" if huge["upload_landed"] else "**NO**"),
    ]
    ok = (slow["loading"] and slow["status"] == 0 and large["status"] == 0
          and huge["preview_text"] and huge["upload_landed"])
    return rows, checks, ok
