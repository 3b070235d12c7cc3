#!/usr/bin/env python3
"""The Python-SDK side of the listing benchmark.

Lists every object of BUCKET through the official SDK's BucketManager.list, page by page
(1,000 keys a page, the same page size kodo uses), and writes each item as the same JSON line
`kodo ls -r --json` writes, so both sides do the same work: fetch, decode, convert, encode, write.

    python sdk_list.py UC_BASE_URL BUCKET > out.jsonl
"""

import json
import os
import sys
import tempfile
import time

# The SDK caches region answers under the temp directory; keep this run's cache private.
os.environ["TMPDIR"] = tempfile.mkdtemp(prefix="kodo-bench-sdk-")

from qiniu import Auth, BucketManager, config  # noqa: E402

AK = "kodo-emulator-access-key"
SK = "kodo-emulator-secret-key"
CLASSES = {0: "standard", 1: "ia", 2: "archive", 3: "deep_archive", 4: "archive_ir",
           5: "intelligent_tiering"}
STATUSES = {0: "enabled", 1: "disabled"}
RESTORE = {1: "restoring", 2: "restored"}


def rfc3339(hundred_ns):
    seconds, fraction = divmod(hundred_ns, 10_000_000)
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds)) + ".%07dZ" % fraction


def line(item):
    out = {"type": "object", "key": item["key"], "size": item["fsize"], "hash": item["hash"],
           "mimeType": item["mimeType"], "putTime": rfc3339(item["putTime"]),
           "storageClass": CLASSES.get(item.get("type", 0), "type_%d" % item.get("type", 0)),
           "status": STATUSES.get(item.get("status", 0), "status_%d" % item.get("status", 0))}
    for name in ("md5", "endUser"):
        if name in item:
            out[name] = item[name]
    if "x-qn-meta" in item:
        out["meta"] = dict(sorted(item["x-qn-meta"].items()))  # kodo sorts metadata names
    if "restoreStatus" in item:
        out["restoreStatus"] = RESTORE.get(item["restoreStatus"], "status_%d" % item["restoreStatus"])
    if "lastModify" in item:
        out["lastModified"] = rfc3339(item["lastModify"])
    return json.dumps(out, ensure_ascii=False, separators=(",", ":"))


def main():
    base, bucket = sys.argv[1], sys.argv[2]
    config.set_default(default_uc_host=base)
    manager = BucketManager(Auth(AK, SK))
    write = sys.stdout.write
    marker = None
    while True:
        ret, eof, info = manager.list(bucket, marker=marker, limit=1000)
        if ret is None:
            sys.stderr.write("list failed: %s\n" % info)
            return 1
        for item in ret.get("items", []):
            write(line(item))
            write("\n")
        marker = ret.get("marker")
        if eof:
            return 0


if __name__ == "__main__":
    sys.exit(main())
