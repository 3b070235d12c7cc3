#!/usr/bin/env python3
"""`make bench`: kodo against Qiniu's official Python SDK, on one kodo-emulator, in one run.

Prints a Markdown table and writes it, with the machine, the date and the commit, to
bench/results.md, followed by bench/NOTES.md (what profiling showed and what changed).

    python3 bench/run.py --bin .build/release --python bench/.venv/bin/python [--runs 3]

Every timing is the median of --runs runs (start-up: of --startup-runs). CPU time comes from
wait4(2) on the measured process alone, peak RSS from its VmHWM; the emulator's CPU time is read from
/proc/PID/stat around each run. Outputs go to /dev/null while timed; separate untimed runs on a
100,000-object bucket check that kodo and the SDK script write byte-identical output.
"""

import argparse
import datetime
import hashlib
import json
import os
import platform
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

import browse_bench
import oss_bench
import verbs_bench
import write_bench

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCH = os.path.join(ROOT, "bench")
OUT = os.path.join(BENCH, "out")
AK = "kodo-emulator-access-key"
SK = "kodo-emulator-secret-key"
TICKS = os.sysconf("SC_CLK_TCK")
# The parts of the results file, in order; `--only` measures some and keeps the others.
PARTS = ("main", "write", "browse")
PART_TITLES = {"main": "Reading: listing, signing, start-up, OSS and the read verbs",
               "write": "Writing: put, put -r, rm -r, mv -r, sync (issues 20 and 21)",
               "browse": "The browser"}


# ---------------------------------------------------------------------------------------------
# Processes


class Emulator:
    """A kodo-emulator process and what it costs."""

    def __init__(self, binary, arguments):
        self.process = subprocess.Popen([binary, "--port", "0"] + arguments,
                                        stdout=subprocess.PIPE, text=True)
        first = self.process.stdout.readline().strip()
        prefix = "kodo-emulator listening on "
        if not first.startswith(prefix):
            raise SystemExit("bench: the emulator did not start: %r" % first)
        self.base = first[len(prefix):]

    def cpu_seconds(self):
        with open("/proc/%d/stat" % self.process.pid) as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / TICKS

    def control(self, method):
        # Straight to 127.0.0.1: no proxy from the environment.
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        request = urllib.request.Request(self.base + "/_emulator/stats", method=method)
        with opener.open(request, timeout=10) as answer:
            return json.loads(answer.read())

    def stats(self):
        return self.control("GET")

    def reset_stats(self):
        self.control("DELETE")

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        self.process.wait(timeout=10)


class Run:
    """One measured process: wall seconds, CPU seconds (user + sys), peak RSS in MiB."""

    def __init__(self, wall, cpu, rss_mib, emulator_cpu, output_hash=None):
        self.wall, self.cpu, self.rss, self.emulator_cpu = wall, cpu, rss_mib, emulator_cpu
        self.output_hash = output_hash


def measure(command, env, stdin_path=None, emulator=None, capture=False):
    """Runs `command` to completion and measures it alone (wait4 gives its own rusage)."""
    stdin = open(stdin_path, "rb") if stdin_path else subprocess.DEVNULL
    before = emulator.cpu_seconds() if emulator else 0.0
    digest = hashlib.sha256() if capture else None
    start = time.perf_counter()
    # Standard error goes to a file, not a pipe read after the process exits: a command that
    # writes more than a pipe holds (an error line per failed object) would block on it.
    errors_file = tempfile.TemporaryFile()
    process = subprocess.Popen(command, env=env, stdin=stdin,
                               stdout=subprocess.PIPE if capture else subprocess.DEVNULL,
                               stderr=errors_file)
    # Peak RSS is the kernel's high-water mark of the process's own memory (VmHWM), read every
    # 5 ms until it exits. Not wait4's ru_maxrss: Linux carries the forking parent's size (this
    # Python process) across exec into it.
    peak_kib = [0]
    finished = threading.Event()

    def watch():
        path = "/proc/%d/status" % process.pid
        while not finished.is_set():
            try:
                with open(path) as status_file:
                    for line in status_file:
                        if line.startswith("VmHWM:"):
                            peak_kib[0] = max(peak_kib[0], int(line.split()[1]))
                            break
            except OSError:
                return
            finished.wait(0.005)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    if capture:
        while True:
            block = process.stdout.read(1 << 20)
            if not block:
                break
            digest.update(block)
    _, status, usage = os.wait4(process.pid, 0)
    finished.set()
    watcher.join()
    wall = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    errors_file.seek(0)
    errors = errors_file.read().decode("utf-8", "replace")[-4000:]
    errors_file.close()
    if stdin_path:
        stdin.close()
    if process.returncode != 0:
        raise SystemExit("bench: %s exited %d:\n%s" % (" ".join(command), process.returncode, errors))
    after = emulator.cpu_seconds() if emulator else 0.0
    return Run(wall, usage.ru_utime + usage.ru_stime, peak_kib[0] / 1024, after - before,
               digest.hexdigest() if capture else None)


def median_run(runs):
    median = Run(statistics.median(r.wall for r in runs), statistics.median(r.cpu for r in runs),
                 max(r.rss for r in runs), statistics.median(r.emulator_cpu for r in runs))
    median.runs = list(runs)
    return median


def spread(run, field="cpu"):
    """The median and the range of `field` over a median run's runs: `1.23 s (1.20–1.31)`."""
    values = [getattr(r, field) for r in getattr(run, "runs", [run])]
    return "%.2f s (%.2f–%.2f)" % (getattr(run, field), min(values), max(values))


def worst_ratio(ours, theirs, field="cpu"):
    """The largest ratio of one of our runs to the SDK run made beside it (runs alternate)."""
    pairs = zip(getattr(ours, "runs", [ours]), getattr(theirs, "runs", [theirs]))
    return max(getattr(a, field) / getattr(b, field) for a, b in pairs)


def overlap_row(label, run):
    """Issue 23: the next page is fetched while this one is written, so the wall time is near
    the larger of kodo's and the emulator's CPU (not their sum); goal ≤ 1.2× that."""
    bound = max(run.cpu, run.emulator_cpu)
    return ("%s: wall against max(kodo CPU, emulator CPU)" % label, "%.2f s" % run.wall,
            "%.2f s (kodo %.2f, emulator %.2f)" % (bound, run.cpu, run.emulator_cpu),
            run.wall / bound, "≤ 1.2", run.wall / bound <= 1.2)


def load_average():
    try:
        with open("/proc/loadavg") as load:
            return " ".join(load.read().split()[:3])
    except OSError:
        return "unknown"


def sha256_of(command, env, stdin_path=None):
    return measure(command, env, stdin_path=stdin_path, capture=True).output_hash


def write_config(path, base, domains):
    with open(path, "w") as config:
        json.dump({"accessKey": AK, "secretKey": SK, "domains": domains,
                   "hosts": {"uc": base, "rs": base, "rsf": base, "api": base}}, config)
    os.chmod(path, 0o600)


def progress(message):
    sys.stderr.write("bench: %s\n" % message)
    sys.stderr.flush()


# ---------------------------------------------------------------------------------------------
# The benchmarks


def listing(kodo, python, emulator, env, runs, objects):
    sdk_list = [python, os.path.join(BENCH, "sdk_list.py"), emulator.base]
    progress("checking that kodo and the SDK write the same 100,000 lines")
    same = (sha256_of([kodo, "ls", "-r", "--json", "mid"], env)
            == sha256_of(sdk_list + ["mid"], env))
    kodo_runs, sdk_runs, small_runs = [], [], []
    for index in range(runs):
        progress("listing %d objects, run %d of %d" % (objects, index + 1, runs))
        emulator.reset_stats()
        kodo_runs.append(measure([kodo, "ls", "-r", "--json", "big"], env, emulator=emulator))
        pages = emulator.stats()["list"]
        sdk_runs.append(measure(sdk_list + ["big"], env, emulator=emulator))
        small_runs.append(measure([kodo, "ls", "-r", "--json", "mid"], env))
    return median_run(kodo_runs), median_run(sdk_runs), median_run(small_runs), pages, same


def text_listing(kodo, emulator, env, runs):
    """The human renderer's cost: `ls -r` to a pipe (exact sizes, local times, escaped names),
    and `-0`'s."""
    text_runs, nul_runs = [], []
    for index in range(runs):
        progress("text and -0 listings, run %d of %d" % (index + 1, runs))
        text_runs.append(measure([kodo, "ls", "-r", "big"], env, emulator=emulator))
        nul_runs.append(measure([kodo, "ls", "-r", "-0", "big"], env, emulator=emulator))
    return median_run(text_runs), median_run(nul_runs)


def huge_listing(kodo, emulator_binary, env, scratch, objects):
    """Issue 23: memory stays flat at 10,000,000 objects too (one run: it is a memory figure;
    the emulator serving it is started for it alone and stopped after)."""
    if objects <= 0:
        return None
    progress("listing %d objects once, for kodo's peak RSS" % objects)
    emulator = Emulator(emulator_binary, ["--synthetic", "huge=%d" % objects, "--seed", "5"])
    try:
        config = os.path.join(scratch, "huge.json")
        write_config(config, emulator.base, {})
        huge_env = dict(env)
        huge_env["KODO_CONFIG"] = config
        return measure([kodo, "ls", "-r", "--json", "huge"], huge_env, emulator=emulator)
    finally:
        emulator.stop()


def compare_builds(kodo, other, emulator, env, runs, keys_path):
    """This build against another one (`--compare-bin`), side by side on one emulator."""
    results = {}
    for label, command in (("list", ["ls", "-r", "--json", "big"]),
                           ("sign", ["url", "--stdin", "big"])):
        ours, theirs = [], []
        for index in range(runs):
            progress("comparing builds: %s, run %d of %d" % (label, index + 1, runs))
            stdin = keys_path if label == "sign" else None
            theirs.append(measure([other] + command, env, stdin_path=stdin, emulator=emulator))
            ours.append(measure([kodo] + command, env, stdin_path=stdin, emulator=emulator))
        results[label] = (median_run(ours), median_run(theirs))
    return results


def signing(kodo, python, emulator, env, runs, keys_path, sample_path):
    domain = emulator.base + "/dl/big"
    sdk_sign = [python, os.path.join(BENCH, "sdk_sign.py"), domain]
    progress("checking that kodo and the SDK sign the same 100,000 URLs")
    now = int(time.time())
    sdk_hash = sha256_of(sdk_sign + [str(now)], env, stdin_path=sample_path)
    kodo_hash = sha256_of([kodo, "url", "--stdin", "--deadline", str(now + 3600), "big"], env,
                          stdin_path=sample_path)
    kodo_runs, sdk_runs = [], []
    for index in range(runs):
        progress("signing 1,000,000 URLs, run %d of %d" % (index + 1, runs))
        kodo_runs.append(measure([kodo, "url", "--stdin", "big"], env, stdin_path=keys_path))
        sdk_runs.append(measure(sdk_sign, env, stdin_path=keys_path))
    return median_run(kodo_runs), median_run(sdk_runs), kodo_hash == sdk_hash


def parallel(kodo, emulator, env, runs):
    sequential_runs, parallel_runs = [], []
    hashes = set()
    for index in range(runs):
        progress("latency-bound listing, run %d of %d" % (index + 1, runs))
        run = measure([kodo, "ls", "-r", "--json", "lat"], env, capture=True)
        sequential_runs.append(run)
        hashes.add(run.output_hash)
        run = measure([kodo, "ls", "-r", "--json", "--parallel", "16", "lat"], env, capture=True)
        parallel_runs.append(run)
        hashes.add(run.output_hash)
    return median_run(sequential_runs), median_run(parallel_runs), len(hashes) == 1


def startup(kodo, env, runs):
    progress("start-up, %d runs each" % runs)

    def median_ms(command):
        times = []
        for _ in range(runs):
            start = time.perf_counter()
            subprocess.run(command, env=env, stdout=subprocess.DEVNULL, check=True)
            times.append(time.perf_counter() - start)
        return statistics.median(times) * 1000

    return (median_ms([kodo, "--version"]), median_ms([kodo, "url", "big", "dir-000/a.txt"]),
            median_ms(["/bin/true"]))


# ---------------------------------------------------------------------------------------------
# The report


def oss_page_row(oss_page, kodo_page_ms):
    """Row 5's OSS line: the emulator's CPU per ListObjectsV2 page of kodo's OSS listing (1,000
    keys, `encoding-type=url`), against its CPU per Kodo page; goal: no more (issue 12)."""
    page_ms = oss_page[0]
    ratio = page_ms / kodo_page_ms if kodo_page_ms > 0 else float("inf")
    return ("5. … OSS ListObjectsV2 page (`--protocol oss`, `encoding-type=url`): emulator CPU "
            "per 1,000-item page (median run)", "%.2f ms" % page_ms,
            "%.2f ms (Kodo page)" % kodo_page_ms, ratio, "≤ 1.00 (the Kodo page)", ratio <= 1.0)


def machine():
    model = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as info:
            for line in info:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return "%s, %d cores, %.0f GiB, %s %s" % (model, os.cpu_count(), memory, platform.system(),
                                             platform.release())


def git(*arguments):
    try:
        return subprocess.run(["git"] + list(arguments), cwd=ROOT, capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def verdict(ok):
    return "met" if ok else "**not met**"


def measure_main(options, kodo, emulator_binary, env, scratch):
    """The reading rows (listing, signing, start-up, OSS, the verbs); returns (rows, checks, ok)."""
    env = dict(env)
    progress("starting kodo-emulator with %d + 100,000 synthetic objects" % options.objects)
    main_emulator = Emulator(emulator_binary, ["--synthetic", "big=%d" % options.objects,
                                               "--synthetic", "mid=100000", "--seed", "1"])
    slow_emulator = Emulator(emulator_binary, ["--synthetic", "lat=100000", "--seed", "2",
                                               "--latency-ms", "20"])
    try:
        config = os.path.join(scratch, "config.json")
        write_config(config, main_emulator.base, {"big": main_emulator.base + "/dl/big"})
        env["KODO_CONFIG"] = config
        slow_env = dict(env)
        slow_config = os.path.join(scratch, "slow.json")
        write_config(slow_config, slow_emulator.base, {})
        slow_env["KODO_CONFIG"] = slow_config

        progress("writing the keys to sign")
        keys_path = os.path.join(scratch, "keys.txt")
        sample_path = os.path.join(scratch, "sample.txt")
        listed = subprocess.run([kodo, "ls", "-r", "-0", "big"], env=env, capture_output=True,
                                check=True).stdout.split(b"\0")[:-1]
        with open(keys_path, "wb") as keys:
            keys.write(b"\n".join(listed) + b"\n")
        with open(sample_path, "wb") as keys:
            keys.write(b"\n".join(listed[:100_000]) + b"\n")

        kodo_list, sdk_list, kodo_small, pages, same_list = listing(
            kodo, options.python, main_emulator, env, options.runs, options.objects)
        kodo_text, kodo_nul = text_listing(kodo, main_emulator, env, options.runs)
        compared = (compare_builds(kodo, os.path.join(options.compare_bin, "kodo"), main_emulator,
                                   env, options.runs, keys_path) if options.compare_bin else None)
        kodo_sign, sdk_sign, same_urls = signing(
            kodo, options.python, main_emulator, env, options.runs, keys_path, sample_path)
        sequential, concurrent, same_parallel = parallel(kodo, slow_emulator, slow_env,
                                                         options.runs)
        version_ms, url_ms, true_ms = startup(kodo, env, options.startup_runs)
    finally:
        main_emulator.stop()
        slow_emulator.stop()
    huge = huge_listing(kodo, emulator_binary, env, scratch, options.huge_objects)
    oss_rows, oss_checks, oss_ok, oss_page = [], [], True, None
    if not options.no_oss:
        oss_rows, oss_checks, oss_ok, oss_page = oss_bench.run(
            measure, median_run, sha256_of, progress, Emulator, emulator_binary, kodo,
            options.python, env, options.runs, options.objects, scratch, BENCH, spread,
            worst_ratio, overlap_row)

    verbs_rows, verbs_checks, verbs_ok = verbs_bench.run(
        measure, median_run, sha256_of, progress, Emulator, emulator_binary, kodo, env,
        options.runs, options.objects, scratch)
    n = "{:,}".format(options.objects)
    per_page_ms = kodo_list.emulator_cpu / max(pages, 1) * 1000
    per_item_count = options.objects / max(pages, 1)
    rows = [
        ("1. list %s objects, `ls -r --json`: wall" % n, "%.2f s" % kodo_list.wall,
         "%.2f s" % sdk_list.wall, kodo_list.wall / sdk_list.wall, "≤ 0.33",
         kodo_list.wall / sdk_list.wall <= 1 / 3),
        ("1. … CPU (user + sys), median (range of %d runs)" % options.runs, spread(kodo_list),
         spread(sdk_list), kodo_list.cpu / sdk_list.cpu, "≤ 0.10 in every run",
         worst_ratio(kodo_list, sdk_list) <= 1 / 10),
        ("1. … the worst run's CPU ratio (each kodo run against the SDK run beside it)", "", "",
         worst_ratio(kodo_list, sdk_list), "≤ 0.10", worst_ratio(kodo_list, sdk_list) <= 1 / 10),
        overlap_row("1. …", kodo_list),
        ("1. … peak RSS (%s objects)" % n, "%.1f MiB" % kodo_list.rss, "%.1f MiB" % sdk_list.rss,
         kodo_list.rss / sdk_list.rss, "≤ 64 MiB", kodo_list.rss <= 64),
        ("1. … peak RSS, 100,000 objects → %s" % n,
         "%.1f → %.1f MiB" % (kodo_small.rss, kodo_list.rss), "", kodo_list.rss / kodo_small.rss,
         "flat (≤ 1.25×)", kodo_list.rss <= kodo_small.rss * 1.25),
    ]
    if huge:
        rows.append(("1. … peak RSS at %s objects (one run; its CPU %.2f s, wall %.2f s)"
                     % ("{:,}".format(options.huge_objects), huge.cpu, huge.wall),
                     "%.1f MiB" % huge.rss, "", None, "≤ 64 MiB", huge.rss <= 64))
    rows += [
        ("1. … text `ls -r` (piped) against `--json`: CPU", spread(kodo_text),
         "%.2f s (`--json`)" % kodo_list.cpu, kodo_text.cpu / kodo_list.cpu, "≤ 1.2",
         kodo_text.cpu / kodo_list.cpu <= 1.2),
        ("1. … `ls -r -0` against `--json`: CPU", spread(kodo_nul),
         "%.2f s (`--json`)" % kodo_list.cpu, kodo_nul.cpu / kodo_list.cpu, "≤ 1.2",
         kodo_nul.cpu / kodo_list.cpu <= 1.2),
        ("2. sign 1,000,000 URLs from stdin: wall", "%.2f s" % kodo_sign.wall,
         "%.2f s" % sdk_sign.wall, kodo_sign.wall / sdk_sign.wall, "≤ 0.33",
         kodo_sign.wall / sdk_sign.wall <= 1 / 3),
        ("2. … CPU (user + sys)", "%.2f s" % kodo_sign.cpu, "%.2f s" % sdk_sign.cpu,
         kodo_sign.cpu / sdk_sign.cpu, "", None),
        ("3. 100,000 objects at 20 ms latency: `--parallel 16` vs sequential",
         "%.2f s" % concurrent.wall, "%.2f s (sequential kodo)" % sequential.wall,
         concurrent.wall / sequential.wall, "≤ 0.17", concurrent.wall / sequential.wall <= 1 / 6),
        ("4. start-up, `kodo --version` (median of %d)" % options.startup_runs,
         "%.1f ms" % version_ms, "", None, "< 20 ms", version_ms < 20),
        ("4. start-up, `kodo url BUCKET KEY` (median of %d)" % options.startup_runs,
         "%.1f ms" % url_ms, "", None, "< 20 ms", url_ms < 20),
        ("5. emulator CPU per 1,000-item page (median run)", "%.2f ms" % per_page_ms, "", None,
         "", None),
        ("5. … emulator CPU over the whole kodo listing", "%.2f s" % kodo_list.emulator_cpu,
         "%.2f s" % sdk_list.emulator_cpu, None, "", None),
    ]
    if oss_page:
        rows.append(oss_page_row(oss_page, per_page_ms))
    rows += oss_rows + verbs_rows
    if compared:
        for label, name in (("list", "1. list, `ls -r --json`"), ("sign", "2. sign, `url --stdin`")):
            ours, theirs = compared[label]
            for measure_name, mine, other in (("wall", ours.wall, theirs.wall),
                                              ("CPU", ours.cpu, theirs.cpu)):
                rows.append(("6. this build against %s: %s, %s" % (
                    options.compare_bin, name, measure_name), "%.2f s" % mine,
                    "%.2f s (other build)" % other, mine / other, "≤ 1.05", mine / other <= 1.05))
    checks = [
        "kodo and the SDK script wrote byte-identical JSON Lines for 100,000 objects: %s"
        % ("yes" if same_list else "**NO**"),
        "kodo and the SDK signed byte-identical URLs for 100,000 keys (same deadline): %s"
        % ("yes" if same_urls else "**NO**"),
        "`--parallel 16` wrote exactly the sequential output in every run: %s"
        % ("yes" if same_parallel else "**NO**"),
        "the emulator served the %s-object listing in %d pages, %.0f items a page, %.3f ms of "
        "its CPU per 100 items" % (n, pages, per_item_count, per_page_ms / per_item_count * 100),
        "the emulator's CPU during kodo's listing was %.0f%% of kodo's wall time (both share %d "
        "cores)" % (kodo_list.emulator_cpu / kodo_list.wall * 100, os.cpu_count()),
        "a process that does nothing (`/bin/true`) takes %.1f ms to start from this script"
        % true_ms,
    ] + oss_checks + verbs_checks
    ok = same_list and same_urls and same_parallel and oss_ok and verbs_ok
    return rows, checks, ok


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bin", required=True, help="folder with release kodo and kodo-emulator")
    parser.add_argument("--python", required=True, help="a python with the qiniu SDK installed")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--startup-runs", type=int, default=50)
    parser.add_argument("--objects", type=int, default=1_000_000)
    parser.add_argument("--huge-objects", type=int, default=10_000_000,
                        help="objects of the one listing measured for memory alone (0: skip)")
    parser.add_argument("--output", default=os.path.join(BENCH, "results.md"))
    parser.add_argument("--compare-bin", help="another build's folder, measured side by side")
    parser.add_argument("--no-oss", action="store_true", help="skip the OSS rows (oss2 needed)")
    parser.add_argument("--only", default=",".join(PARTS),
                        help="the parts to measure, comma-separated, of: %s; the other parts of "
                        "the results file are kept as they were" % ", ".join(PARTS))
    options = parser.parse_args()
    only = [part.strip() for part in options.only.split(",") if part.strip()]
    unknown = [part for part in only if part not in PARTS]
    if unknown:
        parser.error("--only: unknown part %s (the parts: %s)" % (", ".join(unknown),
                                                                 ", ".join(PARTS)))

    # The commit the binaries were just built from (read now: edits made during the run do not
    # change what is measured).
    commit = git("rev-parse", "--short", "HEAD")
    # The results file itself does not count: a part measured again after another one left it
    # changed was still built from the commit.
    if git("status", "--porcelain", "--untracked-files=no", "--", ".",
           ":(exclude)bench/results.md"):
        commit += " (with uncommitted changes)"
    kodo = os.path.join(options.bin, "kodo")
    emulator_binary = os.path.join(options.bin, "kodo-emulator")
    os.makedirs(OUT, exist_ok=True)
    sdk_version = subprocess.run(
        [options.python, "-c", "import qiniu; print(qiniu.__version__)"], capture_output=True,
        text=True, check=True).stdout.strip()
    oss2_version = "not measured" if options.no_oss else subprocess.run(
        [options.python, "-c", "import oss2; print(oss2.__version__)"], capture_output=True,
        text=True, check=True).stdout.strip()
    swift_version = subprocess.run(["swift", "--version"], capture_output=True,
                                   text=True).stdout.splitlines()[0]
    python_version = subprocess.run([options.python, "--version"], capture_output=True,
                                    text=True).stdout.strip()

    scratch = tempfile.mkdtemp(prefix="kodo-bench-")
    env = dict(os.environ)
    # Neither side may find a proxy, a real config or a cached region answer.
    for name in list(env):
        if name.lower().endswith("_proxy") or name.startswith("QINIU_") or name.startswith("KODO_"):
            del env[name]
    env.update({"HOME": scratch, "XDG_CACHE_HOME": scratch, "XDG_CONFIG_HOME": scratch,
                "XDG_STATE_HOME": scratch, "NO_COLOR": "1"})

    header = [
        "- date: %s" % datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "- commit: %s" % commit,
        "- machine: %s" % machine(),
        "- %s; %s; qiniu SDK %s; oss2 %s" % (swift_version, python_version, sdk_version,
                                              oss2_version),
        "- runs: median of %d (start-up: of %d); server: kodo-emulator (release build) on "
        "127.0.0.1" % (options.runs, options.startup_runs),
    ]
    measured, ok = {}, True
    for part in only:
        part_load = load_average()
        if part == "main":
            rows, checks, part_ok = measure_main(options, kodo, emulator_binary, env, scratch)
        elif part == "write":
            rows, checks, part_ok = write_bench.run(
                measure, median_run, progress, Emulator, emulator_binary, kodo, options.python,
                env, options.runs, scratch, BENCH, spread)
        else:
            rows, checks, part_ok = browse_bench.run(
                progress, Emulator, emulator_binary, kodo, env, scratch, big=options.objects)
        load = ("- load average (1, 5, 15 min) at the start: %s; at the end: %s. On a busy "
                "machine the CPU figures (user + sys) hold; wall times and the overlap row do not"
                % (part_load, load_average()))
        measured[part] = part_text(part, header + [load], rows, checks)
        ok = ok and part_ok
        print(table_text(rows))
        print()
        for check in checks:
            print("- " + check)
        print()

    kept = read_parts(options.output)
    report = "\n".join([
        "# kodo benchmarks",
        "",
        "Written by `make bench` (bench/run.py); do not edit by hand: the notes at the end come "
        "from bench/NOTES.md. Each part below says when, on which commit and under which load it "
        "was measured (`--only PART` measures one part again and keeps the others).",
        "",
    ] + [measured.get(part) or kept.get(part, "") for part in PARTS if part in measured
         or part in kept])
    notes_path = os.path.join(BENCH, "NOTES.md")
    if os.path.exists(notes_path):
        with open(notes_path) as notes:
            report += "\n" + notes.read()
    with open(options.output, "w") as results:
        results.write(report)
    print("bench: wrote %s" % os.path.relpath(options.output, ROOT))
    return 0 if ok else 1


def table_text(rows):
    lines = ["| benchmark | kodo | Python SDK | ratio | goal | |", "|---|---:|---:|---:|---|---|"]
    for name, ours, theirs, ratio, goal, ok in rows:
        lines.append("| %s | %s | %s | %s | %s | %s |" % (
            name, ours, theirs, "" if ratio is None else "%.2f" % ratio, goal,
            "" if ok is None else verdict(ok)))
    return "\n".join(lines)


def part_text(part, header, rows, checks):
    """One part of the results file, between markers that `read_parts` finds again."""
    return "\n".join(["<!-- part %s -->" % part, "## " + PART_TITLES[part], ""] + header + [
        "", table_text(rows), "", "Checks:", ""] + ["- " + check for check in checks] + [
        "", "<!-- end %s -->" % part, ""])


def read_parts(path):
    """The parts of an earlier results file, by name. A file written before the parts existed
    is one table: its reading rows are kept as the main part (its browse rows are dropped:
    they are measured again with the browse part)."""
    try:
        with open(path) as earlier:
            text = earlier.read()
    except OSError:
        return {}
    parts = {}
    for part in PARTS:
        begin, end = "<!-- part %s -->" % part, "<!-- end %s -->" % part
        if begin in text and end in text:
            parts[part] = text[text.index(begin):text.index(end) + len(end)] + "\n"
    if parts or "- date:" not in text:
        return parts
    legacy = text[text.index("- date:"):text.index("\n## ") if "\n## " in text else len(text)]
    kept, in_browse = [], False
    for line in legacy.splitlines():
        if line.startswith("| 9. browse") or line.startswith("- browse"):
            in_browse = True
            continue
        if in_browse and line.startswith("| 9. …"):
            continue
        in_browse = False
        kept.append(line)
    parts["main"] = "\n".join(["<!-- part main -->", "## " + PART_TITLES["main"], ""] + kept
                              + ["<!-- end main -->", ""])
    return parts

if __name__ == "__main__":
    sys.exit(main())
