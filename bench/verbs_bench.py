"""The verbs rows of `make bench` (issue 15's "Performance"), on kodo-emulator, in the same run as
the Kodo rows (bench/run.py calls `run`).

9. `kodo find` (a filter every object passes, so the output is `ls -r --json`'s, checked) and
   `kodo du` of the synthetic bucket against `kodo ls -r --json` of it; goal: CPU and wall within
   10 % (the filter is not the bottleneck).
10. `kodo ls -r --json --sort size` against `kodo ls -r --json | LC_ALL=C sort` run by the shell;
    goal: wall within 2×, kodo's peak RSS ≤ 256 MiB.
11. `kodo get -r` of 10,000 objects of 1–8 KiB from an emulator answering every request 20 ms
    late (`--latency-ms 20 --download-latency-ms 20`): `--parallel 16` against `--parallel 1`;
    goal: ≤ 1/8 of the sequential time. Each run writes into a new directory, removed after. The
    objects are put into an in-memory bucket by `kodo put -r` before anything is timed: a
    synthetic bucket holds archived objects, whose downloads Kodo refuses until restored.
"""

import hashlib
import os
import shutil
import subprocess
import tempfile


def _emulator_env(env, base, scratch, name):
    """`env` pointed at the emulator at `base` through a config file of its own."""
    config = os.path.join(scratch, name)
    with open(config, "w") as out:
        out.write('{"accessKey":"kodo-emulator-access-key","secretKey":"kodo-emulator-secret-key",'
                  '"hosts":{"uc":"%s","rs":"%s","rsf":"%s","api":"%s"}}' % ((base,) * 4))
    os.chmod(config, 0o600)
    changed = dict(env)
    changed["KODO_CONFIG"] = config
    return changed


def _files_digest(directory):
    """A digest of every file under `directory` (relative path and bytes), in path order."""
    digest = hashlib.sha256()
    count = 0
    for folder, folders, files in os.walk(directory):
        folders.sort()
        for name in sorted(files):
            path = os.path.join(folder, name)
            digest.update(os.path.relpath(path, directory).encode() + b"\0")
            with open(path, "rb") as data:
                digest.update(data.read())
            count += 1
    return digest.hexdigest(), count


def run(measure, median_run, sha256_of, progress, emulator_class, emulator_binary, kodo, env,
        runs, objects, scratch, get_objects=10_000, latency_ms=20):
    """Measures the verbs rows; returns (rows, checks, ok)."""
    progress("verbs: starting kodo-emulator with %d synthetic objects" % objects)
    emulator = emulator_class(emulator_binary, ["--synthetic", "verbs=%d" % objects,
                                                "--seed", "3"])
    slow = emulator_class(emulator_binary, [
        "--bucket", "small", "--latency-ms", str(latency_ms),
        "--download-latency-ms", str(latency_ms)])
    try:
        fast_env = _emulator_env(env, emulator.base, scratch, "verbs.json")
        slow_env = _emulator_env(env, slow.base, scratch, "verbs-slow.json")
        import write_bench  # here, not at the top: write_bench imports this module
        progress("verbs: putting %d files of 1-8 KiB into the bucket get -r reads" % get_objects)
        tree = tempfile.mkdtemp(prefix="kodo-bench-tree-", dir=scratch)
        write_bench._make_tree(os.path.join(tree, "t"), get_objects, seed=11)
        subprocess.run([kodo, "put", "-r", "--parallel", "16", os.path.join(tree, "t"),
                        "small/t/"], env=slow_env, capture_output=True, check=True)
        shutil.rmtree(tree, ignore_errors=True)
        listing = [kodo, "ls", "-r", "--json", "verbs"]
        find = [kodo, "find", "--json", "--name", "*", "verbs"]
        usage = [kodo, "du", "--json", "verbs"]
        sort = [kodo, "ls", "-r", "--json", "--sort", "size", "verbs"]
        shell_sort = ["/bin/sh", "-c", '"$0" ls -r --json verbs | LC_ALL=C sort', kodo]

        progress("verbs: checking that find with a filter every object passes writes ls -r's output")
        same_find = sha256_of(find, fast_env) == sha256_of(listing, fast_env)

        list_runs, find_runs, du_runs, sort_runs, shell_runs = [], [], [], [], []
        for index in range(runs):
            progress("verbs: find, du, ls and sorting %d objects, run %d of %d"
                     % (objects, index + 1, runs))
            list_runs.append(measure(listing, fast_env, emulator=emulator))
            find_runs.append(measure(find, fast_env, emulator=emulator))
            du_runs.append(measure(usage, fast_env, emulator=emulator))
            sort_runs.append(measure(sort, fast_env, emulator=emulator))
            shell_runs.append(measure(shell_sort, fast_env, emulator=emulator))

        sequential_runs, parallel_runs = [], []
        digests = set()
        counts = set()
        # The sequential run is bound by latency (about 2 round trips of latency_ms an object,
        # minutes for 10,000) and varies little, so it runs once; the parallel one is a median.
        plan = [("1", sequential_runs, 0, 1)] + [("16", parallel_runs, i, runs) for i in range(runs)]
        for parallel, bucket, index, total in plan:
            progress("verbs: get -r of %d objects at %d ms, --parallel %s, run %d of %d"
                     % (get_objects, latency_ms, parallel, index + 1, total))
            target = tempfile.mkdtemp(prefix="kodo-bench-get-", dir=scratch)
            try:
                bucket.append(measure([kodo, "get", "-r", "--parallel", parallel, "small/t/",
                                       target], slow_env))
                digest, count = _files_digest(target)
                digests.add(digest)
                counts.add(count)
            finally:
                shutil.rmtree(target, ignore_errors=True)
        listed = subprocess.run([kodo, "ls", "-r", "-0", "small/t/"], env=slow_env,
                                capture_output=True, check=True).stdout.count(b"\0")
    finally:
        emulator.stop()
        slow.stop()

    ls_run, find_run, du_run = median_run(list_runs), median_run(find_runs), median_run(du_runs)
    sort_run, shell_run = median_run(sort_runs), median_run(shell_runs)
    sequential, concurrent = median_run(sequential_runs), median_run(parallel_runs)
    n = "{:,}".format(objects)
    rows = []
    for label, measured in (("find --name '*'", find_run), ("du", du_run)):
        rows.append(("9. %s of %s objects vs `ls -r --json`: CPU" % (label, n),
                     "%.2f s" % measured.cpu, "%.2f s (`ls -r --json`)" % ls_run.cpu,
                     measured.cpu / ls_run.cpu, "≤ 1.10", measured.cpu / ls_run.cpu <= 1.10))
        rows.append(("9. … wall", "%.2f s" % measured.wall, "%.2f s (`ls -r --json`)" % ls_run.wall,
                     measured.wall / ls_run.wall, "≤ 1.10", measured.wall / ls_run.wall <= 1.10))
    rows += [
        ("10. `ls -r --json --sort size` of %s vs `ls -r --json | sort`: wall" % n,
         "%.2f s" % sort_run.wall, "%.2f s (shell sort)" % shell_run.wall,
         sort_run.wall / shell_run.wall, "≤ 2", sort_run.wall / shell_run.wall <= 2),
        ("10. … CPU (user + sys; the shell's is kodo's and sort's)", "%.2f s" % sort_run.cpu,
         "%.2f s (shell sort)" % shell_run.cpu, sort_run.cpu / shell_run.cpu, "", None),
        ("10. … kodo's peak RSS", "%.1f MiB" % sort_run.rss, "", None, "≤ 256 MiB",
         sort_run.rss <= 256),
        ("11. `get -r` %s objects at %d ms: `--parallel 16` vs `--parallel 1`"
         % ("{:,}".format(get_objects), latency_ms), "%.2f s" % concurrent.wall,
         "%.2f s (`--parallel 1`, one run)" % sequential.wall, concurrent.wall / sequential.wall, "≤ 0.125",
         concurrent.wall / sequential.wall <= 1 / 8),
    ]
    same_get = len(digests) == 1 and counts == {listed}
    checks = [
        "`find --name '*'` wrote byte-identical output to `ls -r --json` for %s objects: %s"
        % (n, "yes" if same_find else "**NO**"),
        "`get -r` wrote the same %s files (paths and bytes) in every run, sequential or "
        "parallel: %s" % ("{:,}".format(listed), "yes" if same_get else "**NO**"),
    ]
    return rows, checks, same_find and same_get
