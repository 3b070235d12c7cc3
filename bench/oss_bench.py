"""The OSS rows of `make bench`: kodo's OSS provider against the official oss2 SDK, both on one
`kodo-emulator --protocol oss`, in the same run as the Kodo rows (bench/run.py calls `run`).

1. `kodo ls -r --json` of the synthetic bucket against an oss2.ObjectIteratorV2 script writing the
   same JSON line per object (bench/sdk_oss_list.py); goals: wall ≤ 1/3 and CPU ≤ 1/10 of the
   SDK's in every run (issue 23; the range of the runs is shown), wall ≤ 1.2× the larger of
   kodo's and the emulator's CPU (the next page is on its way while this one is written), peak
   RSS ≤ 64 MiB and flat from 100,000 to all objects. The emulator's CPU over kodo's
   listing, per ListObjectsV2 page (1,000 keys, `encoding-type=url`), is row 5's OSS line: goal,
   no more than a Kodo page costs it (issue 12).
2. `kodo url --stdin` presigning every key (V4, one hour) against an oss2.Bucket.sign_url loop
   (bench/sdk_oss_sign.py); goal: wall ≤ 1/3.
"""

import os
import subprocess


def run(measure, median_run, sha256_of, progress, emulator_class, emulator_binary, kodo, python,
        env, runs, objects, scratch, bench, spread, worst_ratio, overlap_row):
    """Measures the OSS rows; returns (rows, checks, ok, page): `page` is (the emulator's median
    CPU milliseconds per ListObjectsV2 page of kodo's listing, pages, objects per page)."""
    progress("starting kodo-emulator --protocol oss with %d + 100,000 synthetic objects" % objects)
    emulator = emulator_class(emulator_binary, [
        "--protocol", "oss", "--synthetic", "big=%d" % objects, "--synthetic", "mid=100000",
        "--seed", "1"])
    try:
        oss_env = {name: value for name, value in env.items()
                   if not name.startswith("OSS_") and name != "KODO_CONFIG"}
        oss_env.update({
            "KODO_PROVIDER": "oss", "OSS_ENDPOINT": emulator.base, "OSS_REGION": "cn-hangzhou",
            "OSS_ACCESS_KEY_ID": "kodo-emulator-access-key",
            "OSS_ACCESS_KEY_SECRET": "kodo-emulator-secret-key"})
        sdk_list = [python, os.path.join(bench, "sdk_oss_list.py"), emulator.base]
        sdk_sign = [python, os.path.join(bench, "sdk_oss_sign.py"), emulator.base, "big"]

        progress("OSS: checking that kodo and oss2 write the same 100,000 lines")
        same_list = (sha256_of([kodo, "ls", "-r", "--json", "mid"], oss_env)
                     == sha256_of(sdk_list + ["mid"], oss_env))

        progress("OSS: writing the keys to sign")
        keys_path = os.path.join(scratch, "oss-keys.txt")
        listed = subprocess.run([kodo, "ls", "-r", "-0", "big"], env=oss_env, capture_output=True,
                                check=True).stdout.split(b"\0")[:-1]
        with open(keys_path, "wb") as keys:
            keys.write(b"\n".join(listed) + b"\n")

        list_runs, sdk_list_runs, small_runs, sign_runs, sdk_sign_runs = [], [], [], [], []
        pages = 0
        for index in range(runs):
            progress("OSS: listing %d objects, run %d of %d" % (objects, index + 1, runs))
            emulator.reset_stats()
            list_runs.append(measure([kodo, "ls", "-r", "--json", "big"], oss_env,
                                     emulator=emulator))
            pages = emulator.stats()["list"]
            sdk_list_runs.append(measure(sdk_list + ["big"], oss_env, emulator=emulator))
            small_runs.append(measure([kodo, "ls", "-r", "--json", "mid"], oss_env))
            progress("OSS: presigning %d URLs, run %d of %d" % (len(listed), index + 1, runs))
            sign_runs.append(measure([kodo, "url", "--stdin", "big"], oss_env,
                                     stdin_path=keys_path))
            sdk_sign_runs.append(measure(sdk_sign, oss_env, stdin_path=keys_path))
    finally:
        emulator.stop()

    kodo_list, sdk_list_run = median_run(list_runs), median_run(sdk_list_runs)
    kodo_small = median_run(small_runs)
    kodo_sign, sdk_sign_run = median_run(sign_runs), median_run(sdk_sign_runs)
    n = "{:,}".format(objects)
    rows = [
        ("7. OSS: list %s objects, `ls -r --json` vs oss2.ObjectIteratorV2: wall" % n,
         "%.2f s" % kodo_list.wall, "%.2f s" % sdk_list_run.wall,
         kodo_list.wall / sdk_list_run.wall, "≤ 0.33", kodo_list.wall / sdk_list_run.wall <= 1 / 3),
        ("7. … CPU (user + sys), median (range of %d runs)" % runs, spread(kodo_list),
         spread(sdk_list_run), kodo_list.cpu / sdk_list_run.cpu, "≤ 0.10 in every run",
         worst_ratio(kodo_list, sdk_list_run) <= 1 / 10),
        ("7. … the worst run's CPU ratio (each kodo run against the oss2 run beside it)", "", "",
         worst_ratio(kodo_list, sdk_list_run), "≤ 0.10",
         worst_ratio(kodo_list, sdk_list_run) <= 1 / 10),
        overlap_row("7. …", kodo_list),
        ("7. … peak RSS (%s objects)" % n, "%.1f MiB" % kodo_list.rss,
         "%.1f MiB" % sdk_list_run.rss, kodo_list.rss / sdk_list_run.rss, "≤ 64 MiB",
         kodo_list.rss <= 64),
        ("7. … peak RSS, 100,000 objects → %s" % n,
         "%.1f → %.1f MiB" % (kodo_small.rss, kodo_list.rss), "", kodo_list.rss / kodo_small.rss,
         "flat (≤ 1.25×)", kodo_list.rss <= kodo_small.rss * 1.25),
        ("8. OSS: presign %s URLs, `url --stdin` vs oss2.Bucket.sign_url: wall"
         % "{:,}".format(len(listed)), "%.2f s" % kodo_sign.wall, "%.2f s" % sdk_sign_run.wall,
         kodo_sign.wall / sdk_sign_run.wall, "≤ 0.33", kodo_sign.wall / sdk_sign_run.wall <= 1 / 3),
        ("8. … CPU (user + sys)", "%.2f s" % kodo_sign.cpu, "%.2f s" % sdk_sign_run.cpu,
         kodo_sign.cpu / sdk_sign_run.cpu, "", None),
    ]
    page_ms = kodo_list.emulator_cpu / max(pages, 1) * 1000
    checks = [
        "OSS: kodo and the oss2 script wrote byte-identical JSON Lines for 100,000 objects: %s"
        % ("yes" if same_list else "**NO**"),
        "OSS: the emulator served kodo's %s-object listing in %d ListObjectsV2 pages, %.0f "
        "objects a page" % (n, pages, objects / max(pages, 1)),
    ]
    return rows, checks, same_list, (page_ms, pages, objects / max(pages, 1))
