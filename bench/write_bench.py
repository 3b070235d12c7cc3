"""The write rows of `make bench` (the Performance sections of issues 20 and 21), on
kodo-emulator, in the same run as the other rows (bench/run.py calls `run`).

12. `kodo put` of one 1 GiB file into a `--writable` directory bucket, against
    `qiniu.put_file_v2` (resumable v2, 4 MiB parts, the SDK's only mode: one part at a time) and,
    on `--protocol oss`, `oss2.resumable_upload` with 4 threads and 8 MiB parts (kodo's defaults:
    `--parallel 4`, 4 MiB parts on Kodo, 8 MiB on OSS). Goals: wall ≤ 1/3, CPU ≤ 1/5, kodo's
    peak RSS ≤ 64 MiB + parallel × part size. Issue 20's rows come from the same runs: kodo's CPU
    against the digests the protocol demands computed alone by the system's C tools
    (`openssl md5` and `sha1sum` of the file for Kodo's per-part MD5 and qetag; `openssl md5` and
    a CRC-64 for OSS), goal ≤ 1.3×; the emulator's CPU for the upload against hashing the file
    once (`openssl md5` + `sha1sum`), goal ≤ 1.5×, and its peak RSS above idle, goal ≤ 64 MiB.
    Each run starts a new emulator on a new directory, so every run writes a new object and
    the emulator's high-water mark is the upload's.
13. `kodo put -r` of 10,000 files of 1–8 KiB into an in-memory bucket whose API answers 20 ms
    late: `--parallel 16` against the SDK driven by a 16-thread pool (put_file_v2 per file, form
    uploads) and against kodo's own `--parallel 1` (latency-bound, one run). Goals ≤ 1/3 and
    ≤ 1/10.
14. `kodo rm -r` of 100,000 objects against the SDK's loop of a listing page and one 1,000-key
    `batch` of deletes; `kodo mv -r` of 10,000 objects against the same loop of batch moves.
    The objects are copied on the service before each run, by `kodo cp -r` from 100,000 objects
    of 64 bytes uploaded once (not timed).
    Goals: wall ≤ 1/2, CPU ≤ 1/5.
15. `kodo sync` of an unchanged 10,000-file tree against its parts measured alone: the listing
    (`kodo ls -r --json` of the prefix) plus hashing every file once (`sha1sum`, Kodo's qetag of
    a file under 4 MiB is one SHA-1); goal ≤ 1.2× their CPU. `--size-only` against the listing
    alone, the same goal.
"""

import os
import random
import shutil
import subprocess
import tempfile

from verbs_bench import _emulator_env

MIB = 1024 * 1024
KODO_PART_MIB, OSS_PART_MIB, PARALLEL = 4, 8, 4


class Bench:
    """What every measurement needs: the measuring functions of run.py and the paths."""

    def __init__(self, measure, median_run, progress, emulator_class, emulator_binary, kodo,
                 python, env, runs, scratch, bench, spread):
        self.measure, self.median_run, self.progress = measure, median_run, progress
        self.spread = spread
        self.emulator_class, self.emulator_binary = emulator_class, emulator_binary
        self.kodo, self.python, self.env, self.runs = kodo, python, env, runs
        self.scratch, self.sdk = scratch, os.path.join(bench, "sdk_write.py")

    def emulator(self, arguments):
        return self.emulator_class(self.emulator_binary, arguments)

    def kodo_env(self, emulator, name):
        return _emulator_env(self.env, emulator.base, self.scratch, name)

    def oss_env(self, emulator):
        env = {name: value for name, value in self.env.items()
               if not name.startswith("OSS_") and name != "KODO_CONFIG"}
        env.update({"KODO_PROVIDER": "oss", "OSS_ENDPOINT": emulator.base,
                    "OSS_REGION": "cn-hangzhou", "OSS_ACCESS_KEY_ID": "kodo-emulator-access-key",
                    "OSS_ACCESS_KEY_SECRET": "kodo-emulator-secret-key"})
        return env

    def cpu_of(self, command):
        """The CPU seconds of a helper command (hashing alone), run once."""
        return self.measure(command, self.env).cpu


def _memory_mib(pid, field):
    with open("/proc/%d/status" % pid) as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    return 0.0


def _make_file(path, size):
    """`size` bytes that do not compress, written in 16 MiB blocks."""
    seed = random.Random(12)
    with open(path, "wb") as out:
        block = seed.randbytes(16 * MIB)
        written = 0
        while written < size:
            count = min(len(block), size - written)
            out.write(block[:count])
            written += count
            block = block[1:] + block[:1]


def _make_tree(directory, count, seed):
    """`count` files of 1–8 KiB in folders of 100, each with bytes of its own."""
    generator = random.Random(seed)
    for index in range(count):
        folder = os.path.join(directory, "d%03d" % (index // 100))
        if index % 100 == 0:
            os.makedirs(folder)
        with open(os.path.join(folder, "f%05d.bin" % index), "wb") as out:
            out.write(generator.randbytes(generator.randint(1024, 8 * 1024)))


def _crc64_command(python, path):
    """A CRC-64/ECMA of `path` through crcmod's C extension (what oss2 uses), 1 MiB reads."""
    script = ("import crcmod.predefined, sys\n"
              "crc = crcmod.predefined.mkCrcFun('crc-64-we')\n"
              "value = 0\n"
              "with open(sys.argv[1], 'rb') as f:\n"
              "    for block in iter(lambda: f.read(1 << 20), b''):\n"
              "        value = crc(block, value)\n")
    return [python, "-c", script, path]


def put_big(bench, size):
    """Row 12 on both protocols; returns (rows, checks, ok)."""
    big = os.path.join(bench.scratch, "big.bin")
    bench.progress("write: making a %d MiB file" % (size // MIB))
    _make_file(big, size)
    gib = size / (1024 * MIB)
    md5_cpu = bench.cpu_of(["openssl", "md5", big])
    sha1_cpu = bench.cpu_of(["sha1sum", big])
    crc_cpu = bench.cpu_of(_crc64_command(bench.python, big))
    rows, checks, ok = [], [], True
    for protocol, part_mib, digests_cpu, digests_label, sdk_name in (
            ("kodo", KODO_PART_MIB, md5_cpu + sha1_cpu, "MD5 + SHA-1", "qiniu.put_file_v2"),
            ("oss", OSS_PART_MIB, md5_cpu + crc_cpu, "MD5 + CRC-64",
             "oss2.resumable_upload, 4 threads")):
        ours, theirs, idle, peaks, same = [], [], [], [], True
        for index in range(bench.runs):
            for side in ("kodo", "sdk"):
                bench.progress("write: put of %d MiB on %s, %s, run %d of %d"
                               % (size // MIB, protocol, side, index + 1, bench.runs))
                directory = tempfile.mkdtemp(prefix="kodo-bench-wb-", dir=bench.scratch)
                arguments = ["--bucket", "writes=" + directory, "--writable", "writes"]
                if protocol == "oss":
                    arguments = ["--protocol", "oss"] + arguments
                emulator = bench.emulator(arguments)
                try:
                    pid = emulator.process.pid
                    before = _memory_mib(pid, "VmHWM")
                    if protocol == "oss":
                        env = bench.oss_env(emulator)
                        sdk = [bench.python, bench.sdk, "oss-put", emulator.base, "writes", "big", big]
                    else:
                        env = bench.kodo_env(emulator, "write-put.json")
                        sdk = [bench.python, bench.sdk, "kodo-put", emulator.base, "writes", "big",
                               big]
                    command = (sdk if side == "sdk" else
                               [bench.kodo, "put", "--parallel", str(PARALLEL), big, "writes/big"])
                    run = bench.measure(command, env, emulator=emulator)
                    (ours if side == "kodo" else theirs).append(run)
                    if side == "kodo":
                        idle.append(before)
                        peaks.append(_memory_mib(pid, "VmHWM") - before)
                    stored = os.path.join(directory, "big")
                    same = same and os.path.getsize(stored) == size and _same_bytes(stored, big)
                finally:
                    emulator.stop()
                    shutil.rmtree(directory, ignore_errors=True)
        kodo_run, sdk_run = bench.median_run(ours), bench.median_run(theirs)
        rss_goal = 64 + PARALLEL * part_mib
        name = "12. %s: `put` of one %s file vs %s" % (
            "Kodo" if protocol == "kodo" else "OSS", _size_text(size), sdk_name)
        emulator_peak = max(peaks)
        rows += [
            (name + ": wall", "%.2f s" % kodo_run.wall, "%.2f s" % sdk_run.wall,
             kodo_run.wall / sdk_run.wall, "≤ 0.33", kodo_run.wall / sdk_run.wall <= 1 / 3),
            ("12. … CPU (user + sys)", "%.2f s" % kodo_run.cpu, "%.2f s" % sdk_run.cpu,
             kodo_run.cpu / sdk_run.cpu, "≤ 0.20", kodo_run.cpu / sdk_run.cpu <= 1 / 5),
            ("12. … kodo's peak RSS (`--parallel %d`, %d MiB parts)" % (PARALLEL, part_mib),
             "%.1f MiB" % kodo_run.rss, "%.1f MiB" % sdk_run.rss, None,
             "≤ %d MiB" % rss_goal, kodo_run.rss <= rss_goal),
            ("12. … kodo's CPU per GiB against the digests alone (%s, C tools)" % digests_label,
             "%.2f s" % (kodo_run.cpu / gib), "%.2f s" % (digests_cpu / gib),
             kodo_run.cpu / digests_cpu, "≤ 1.3", kodo_run.cpu / digests_cpu <= 1.3),
            ("12. … the emulator's CPU for kodo's upload against hashing the file once "
             "(MD5 + SHA-1), median (range)", bench.spread(kodo_run, "emulator_cpu"),
             "%.2f s" % (md5_cpu + sha1_cpu), kodo_run.emulator_cpu / (md5_cpu + sha1_cpu),
             "≤ 1.5", kodo_run.emulator_cpu / (md5_cpu + sha1_cpu) <= 1.5),
            ("12. … the emulator's peak RSS above idle (%.1f MiB at idle)" % max(idle),
             "%.1f MiB" % emulator_peak, "", None, "≤ 64 MiB", emulator_peak <= 64),
        ]
        checks.append("%s: every %s upload, kodo's and the SDK's, stored the file's exact bytes: "
                      "%s" % ("Kodo" if protocol == "kodo" else "OSS", _size_text(size),
                              "yes" if same else "**NO**"))
        ok = ok and same
    os.remove(big)
    return rows, checks, ok


def _size_text(size):
    return "%g GiB" % (size / (1024 * MIB)) if size >= 1024 * MIB else "%d MiB" % (size // MIB)


def _same_bytes(first, second):
    with open(first, "rb") as one, open(second, "rb") as other:
        while True:
            a, b = one.read(16 * MIB), other.read(16 * MIB)
            if a != b:
                return False
            if not a:
                return True


def put_tree(bench, files, latency_ms):
    """Row 13; returns (rows, checks, ok)."""
    tree = os.path.join(bench.scratch, "tree")
    _make_tree(tree, files, seed=13)
    runs = {"16": [], "sdk": [], "1": []}
    counts = set()
    plan = [(side, index) for index in range(bench.runs) for side in ("16", "sdk")] + [("1", 0)]
    for side, index in plan:
        bench.progress("write: put -r of %d files at %d ms, %s, run %d"
                       % (files, latency_ms, side, index + 1))
        emulator = bench.emulator(["--bucket", "mem", "--latency-ms", str(latency_ms)])
        try:
            env = bench.kodo_env(emulator, "write-tree.json")
            command = ([bench.python, bench.sdk, "kodo-put-tree", emulator.base, "mem", "t/",
                        tree, "16"] if side == "sdk" else
                       [bench.kodo, "put", "-r", "--parallel", side, tree, "mem/t/"])
            runs[side].append(bench.measure(command, env))
            listed = subprocess.run([bench.kodo, "ls", "-r", "-0", "mem/t/"], env=env,
                                    capture_output=True, check=True).stdout.count(b"\0")
            counts.add(listed)
        finally:
            emulator.stop()
    shutil.rmtree(tree, ignore_errors=True)
    parallel, sdk, sequential = (bench.median_run(runs[name]) for name in ("16", "sdk", "1"))
    n = "{:,}".format(files)
    rows = [
        ("13. `put -r` of %s files of 1–8 KiB at %d ms: `--parallel 16` vs the SDK, 16 threads"
         % (n, latency_ms), "%.2f s" % parallel.wall, "%.2f s" % sdk.wall,
         parallel.wall / sdk.wall, "≤ 0.33", parallel.wall / sdk.wall <= 1 / 3),
        ("13. … CPU (user + sys)", "%.2f s" % parallel.cpu, "%.2f s" % sdk.cpu,
         parallel.cpu / sdk.cpu, "", None),
        ("13. … `--parallel 16` vs kodo's `--parallel 1` (one run)", "%.2f s" % parallel.wall,
         "%.2f s (`--parallel 1`)" % sequential.wall, parallel.wall / sequential.wall, "≤ 0.10",
         parallel.wall / sequential.wall <= 1 / 10),
    ]
    ok = counts == {files}
    checks = ["`put -r`: every run, kodo's and the SDK's, left exactly %s objects: %s"
              % (n, "yes" if ok else "**NO** (%s)" % sorted(counts))]
    return rows, checks, ok


def _make_flat(directory, count):
    """`count` files of 64 bytes in folders of 1,000 (the seed of rows 14)."""
    for index in range(count):
        folder = os.path.join(directory, "d%03d" % (index // 1000))
        if index % 1000 == 0:
            os.makedirs(folder)
        with open(os.path.join(folder, "f%06d" % index), "wb") as out:
            out.write(b"%064d" % index)


def remove_and_move(bench, removed, moved):
    """Rows 14; returns (rows, checks, ok)."""
    seed_tree = os.path.join(bench.scratch, "seed-tree")
    _make_flat(seed_tree, removed)
    # The objects to copy from live in a bucket of their own: copies into `mem` then land at the
    # end of its sorted store (keys under a/ copied into a bucket that also held seed/ would each
    # shift the 100,000 seed objects, the emulator's cost and not the client's).
    emulator = bench.emulator(["--bucket", "seed", "--bucket", "mem"])
    results, ok = {}, True
    try:
        env = bench.kodo_env(emulator, "write-rm.json")
        bench.progress("write: uploading %d objects to copy from (not timed)" % removed)
        subprocess.run([bench.kodo, "put", "-r", "--parallel", "16", seed_tree, "seed/"],
                       env=env, capture_output=True, check=True)
        shutil.rmtree(seed_tree, ignore_errors=True)

        def fill(count):
            """`count` (a multiple of 1,000) objects under a/, copied on the service from seed/
            (not timed)."""
            folders = ["d%03d/" % index for index in range(count // 1000)]
            for folder in folders:
                subprocess.run([bench.kodo, "cp", "-r", "--yes", "seed/" + folder,
                                "mem/a/" + folder], env=env, capture_output=True, check=True)

        def count(prefix):
            return subprocess.run([bench.kodo, "ls", "-r", "-0", "mem/%s" % prefix], env=env,
                                  capture_output=True, check=True).stdout.count(b"\0")

        for verb, total in (("rm", removed), ("mv", moved)):
            ours, theirs = [], []
            for index in range(bench.runs):
                for side in ("kodo", "sdk"):
                    bench.progress("write: %s -r of %d objects, %s, run %d of %d"
                                   % (verb, total, side, index + 1, bench.runs))
                    fill(total)
                    filled = count("a/")
                    if verb == "rm":
                        command = ([bench.python, bench.sdk, "kodo-rm", emulator.base, "mem",
                                    "a/"] if side == "sdk" else
                                   [bench.kodo, "rm", "-r", "--yes", "mem/a"])
                    else:
                        command = ([bench.python, bench.sdk, "kodo-mv", emulator.base, "mem",
                                    "a/", "b/"] if side == "sdk" else
                                   [bench.kodo, "mv", "-r", "--yes", "mem/a/", "mem/b/"])
                    (ours if side == "kodo" else theirs).append(
                        bench.measure(command, env, emulator=emulator))
                    left, arrived = count("a/"), count("b/")
                    ok = (ok and filled == total and left == 0
                          and arrived == (total if verb == "mv" else 0))
                    if arrived:
                        subprocess.run([bench.kodo, "rm", "-r", "--yes", "mem/b"], env=env,
                                       capture_output=True, check=True)
            results[verb] = (bench.median_run(ours), bench.median_run(theirs))
    finally:
        emulator.stop()
        shutil.rmtree(seed_tree, ignore_errors=True)
    rows = []
    for verb, total, sdk_name in (("rm", removed, "batch deletes"), ("mv", moved, "batch moves")):
        ours, theirs = results[verb]
        rows += [
            ("14. `%s -r` of %s objects vs the SDK's listing + 1,000-key %s: wall"
             % (verb, "{:,}".format(total), sdk_name), "%.2f s" % ours.wall,
             "%.2f s" % theirs.wall, ours.wall / theirs.wall, "≤ 0.50",
             ours.wall / theirs.wall <= 1 / 2),
            ("14. … CPU (user + sys)", "%.2f s" % ours.cpu, "%.2f s" % theirs.cpu,
             ours.cpu / theirs.cpu, "≤ 0.20", ours.cpu / theirs.cpu <= 1 / 5),
        ]
    checks = ["`rm -r` and `mv -r`, kodo's and the SDK's: every object gone from the source and, "
              "for `mv`, every one at the destination, in every run: %s"
              % ("yes" if ok else "**NO**")]
    return rows, checks, ok


def sync_unchanged(bench, files):
    """Rows 15; returns (rows, checks, ok)."""
    tree = os.path.join(bench.scratch, "sync-tree")
    _make_tree(tree, files, seed=15)
    paths = sorted(os.path.join(folder, name) for folder, _, names in os.walk(tree)
                   for name in names)
    listed = os.path.join(bench.scratch, "sync-files.txt")
    with open(listed, "wb") as out:
        out.write(b"\0".join(path.encode() for path in paths) + b"\0")
    emulator = bench.emulator(["--bucket", "mem"])
    try:
        env = bench.kodo_env(emulator, "write-sync.json")
        subprocess.run([bench.kodo, "sync", tree, "mem/s/"], env=env, capture_output=True,
                       check=True)
        hashing = ["/bin/sh", "-c", 'xargs -0 sha1sum < "$0" > /dev/null', listed]
        sync_runs, size_runs, list_runs, hash_runs = [], [], [], []
        for index in range(bench.runs):
            bench.progress("write: sync of an unchanged %d-file tree, run %d of %d"
                           % (files, index + 1, bench.runs))
            sync_runs.append(bench.measure([bench.kodo, "sync", tree, "mem/s/"], env,
                                           emulator=emulator))
            size_runs.append(bench.measure([bench.kodo, "sync", "--size-only", tree, "mem/s/"],
                                           env, emulator=emulator))
            list_runs.append(bench.measure([bench.kodo, "ls", "-r", "--json", "mem/s/"], env,
                                           emulator=emulator))
            hash_runs.append(bench.measure(hashing, env))
        # An unchanged tree copies nothing: `--json` writes no "uploaded" line.
        lines = subprocess.run([bench.kodo, "sync", "--json", tree, "mem/s/"], env=env,
                               capture_output=True, check=True).stdout
        copied = lines.count(b'"type":"uploaded"')
        uploaded = subprocess.run([bench.kodo, "ls", "-r", "-0", "mem/s/"], env=env,
                                  capture_output=True, check=True).stdout.count(b"\0")
    finally:
        emulator.stop()
    shutil.rmtree(tree, ignore_errors=True)
    sync_run, size_run = bench.median_run(sync_runs), bench.median_run(size_runs)
    list_run, hash_run = bench.median_run(list_runs), bench.median_run(hash_runs)
    parts = list_run.cpu + hash_run.cpu
    n = "{:,}".format(files)
    rows = [
        ("15. `sync` of an unchanged %s-file tree vs listing + hashing the files once: CPU" % n,
         "%.2f s" % sync_run.cpu, "%.2f s (ls %.2f + sha1sum %.2f)"
         % (parts, list_run.cpu, hash_run.cpu), sync_run.cpu / parts, "≤ 1.2",
         sync_run.cpu / parts <= 1.2),
        ("15. … wall", "%.2f s" % sync_run.wall, "%.2f s" % (list_run.wall + hash_run.wall),
         sync_run.wall / (list_run.wall + hash_run.wall), "", None),
        ("15. … `sync --size-only` vs the listing alone: CPU", "%.2f s" % size_run.cpu,
         "%.2f s (`ls -r --json`)" % list_run.cpu, size_run.cpu / list_run.cpu, "≤ 1.2",
         size_run.cpu / list_run.cpu <= 1.2),
    ]
    ok = uploaded == files and copied == 0
    checks = ["`sync` of the unchanged tree copied nothing (checked with `--json`), and the prefix holds "
              "exactly the %s files: %s" % (n, "yes" if ok else "**NO**")]
    return rows, checks, ok


def run(measure, median_run, progress, emulator_class, emulator_binary, kodo, python, env, runs,
        scratch, bench_dir, spread, big_size=1024 * MIB, tree_files=10_000, latency_ms=20,
        removed=100_000, moved=10_000):
    """Measures the write rows; returns (rows, checks, ok)."""
    bench = Bench(measure, median_run, progress, emulator_class, emulator_binary, kodo, python,
                  env, runs, scratch, bench_dir, spread)
    rows, checks, ok = [], [], True
    for part in (lambda: put_big(bench, big_size),
                 lambda: put_tree(bench, tree_files, latency_ms),
                 lambda: remove_and_move(bench, removed, moved),
                 lambda: sync_unchanged(bench, tree_files)):
        part_rows, part_checks, part_ok = part()
        rows += part_rows
        checks += part_checks
        ok = ok and part_ok
    return rows, checks, ok
