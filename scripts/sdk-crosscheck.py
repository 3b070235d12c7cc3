#!/usr/bin/env python3
"""Cross-check kodo-emulator against Qiniu's official Python SDK.

Starts the emulator on the demo buckets (plus a synthetic one), points the SDK at it through
its uc host only (so the SDK discovers rs/rsf with /v4/query), and checks that what the SDK
lists, stats and downloads matches the files on disk, hashed with the SDK's own qetag.

Not part of `make test`. Needs the SDK:

    python3 -m venv /tmp/qn && /tmp/qn/bin/pip install qiniu
    swift build
    /tmp/qn/bin/python scripts/sdk-crosscheck.py [path/to/kodo-emulator]
"""

import io
import os
import signal
import subprocess
import sys
import tempfile
import urllib.parse

# The SDK caches region answers under tempfile.gettempdir(); keep this run's cache private.
os.environ["TMPDIR"] = tempfile.mkdtemp(prefix="kodo-sdk-crosscheck-")

import qiniu  # noqa: E402
import requests  # noqa: E402
from qiniu import Auth, BucketManager, config, utils  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
AK = "kodo-emulator-access-key"
SK = "kodo-emulator-secret-key"
failures = []


def check(condition, message):
    if condition:
        print("ok   " + message)
    else:
        print("FAIL " + message)
        failures.append(message)


def disk_objects(directory):
    """key -> path for every regular file under directory (symlinks not followed)."""
    result = {}
    for base, dirs, files in os.walk(directory):
        for name in files:
            path = os.path.join(base, name)
            if os.path.islink(path):
                continue
            result[os.path.relpath(path, directory).replace(os.sep, "/")] = path
    return result


def list_all(manager, bucket, prefix=None, delimiter=None, limit=None):
    """Every page through the SDK; returns (items, common prefixes, pages)."""
    items, prefixes, marker, pages = [], [], None, 0
    while True:
        ret, eof, info = manager.list(bucket, prefix=prefix, marker=marker, limit=limit,
                                      delimiter=delimiter)
        if ret is None:
            raise RuntimeError("list failed: %s" % info)
        pages += 1
        items += ret.get("items", [])
        prefixes += ret.get("commonPrefixes", [])
        marker = ret.get("marker")
        if eof:
            return items, prefixes, pages


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        subprocess.check_output(["swift", "build", "--show-bin-path"], cwd=ROOT, text=True).strip(),
        "kodo-emulator")
    photos_dir = os.path.join(ROOT, "demo", "buckets", "photos")
    logs_dir = os.path.join(ROOT, "demo", "buckets", "logs")
    emulator = subprocess.Popen(
        [binary, "--bucket", "photos=" + photos_dir, "--bucket", "logs=" + logs_dir,
         "--private", "logs", "--synthetic", "big=100000", "--seed", "3", "--bucket", "scratch"],
        stdout=subprocess.PIPE, text=True)
    try:
        first = emulator.stdout.readline().strip()
        check(first.startswith("kodo-emulator listening on http://127.0.0.1:"), "start-up line: " + first)
        base = first.rsplit(" ", 1)[1]
        run_checks(base)
    finally:
        emulator.send_signal(signal.SIGTERM)
        status = emulator.wait(timeout=10)
        check(status == 0, "emulator exits 0 on SIGTERM (got %s)" % status)
    print()
    print("qiniu %s: %d failure(s)" % (qiniu.__version__, len(failures)))
    return 1 if failures else 0


def run_checks(base):
    config.set_default(default_uc_host=base, connection_retries=1)
    auth = Auth(AK, SK)
    manager = BucketManager(auth)

    ret, info = manager.buckets()
    check(ret == ["big", "logs", "photos", "scratch"],
          "buckets() = %s (reqid %s)" % (ret, info.req_id))

    ret, info = manager.list_domains("photos")
    domain = base + "/dl/photos"
    check(ret == [domain], "list_domains(photos) = %s" % ret)
    ret, info = manager.bucket_info("logs")
    check(ret is not None and ret.get("private") == 1, "bucket_info(logs).private = 1")

    for bucket, directory in [("photos", os.path.join(ROOT, "demo", "buckets", "photos")),
                              ("logs", os.path.join(ROOT, "demo", "buckets", "logs"))]:
        on_disk = disk_objects(directory)
        items, prefixes, pages = list_all(manager, bucket)
        keys = [item["key"] for item in items]
        check(keys == sorted(on_disk, key=lambda k: k.encode("utf-8")),
              "list(%s): %d keys in byte order, %d page(s)" % (bucket, len(keys), pages))
        small, _, small_pages = list_all(manager, bucket, limit=3)
        check([i["key"] for i in small] == keys,
              "list(%s, limit=3): same keys over %d pages" % (bucket, small_pages))
        for item in items:
            path = on_disk.get(item["key"])
            if path is None:
                continue
            expected = utils.etag(path)
            check(item["hash"] == expected and item["fsize"] == os.path.getsize(path),
                  "%s/%s: hash %s, fsize %d" % (bucket, item["key"], item["hash"], item["fsize"]))
            stat, info = manager.stat(bucket, item["key"])
            check(stat is not None and stat["hash"] == expected
                  and stat["putTime"] == item["putTime"] and stat["mimeType"] == item["mimeType"],
                  "stat(%s, %r)" % (bucket, item["key"]))

    # One level, with the delimiter, and a prefix with a space (the SDK sends it as '+').
    items, prefixes, _ = list_all(manager, "photos", delimiter="/")
    check(prefixes == ["2024/", "albums/", "special/", "中文/"] and
          [i["key"] for i in items] == ["index.html"],
          "list(photos, delimiter='/') = %s + %s" % (prefixes, [i["key"] for i in items]))
    items, _, _ = list_all(manager, "photos", prefix="2024/summer trip/")
    check([i["key"] for i in items] == ["2024/summer trip/beach day.txt",
                                         "2024/summer trip/sunset.png"],
          "list(photos, prefix='2024/summer trip/')")
    items, _, _ = list_all(manager, "photos", prefix="special/a+b & c")
    check([i["key"] for i in items] == ["special/a+b & c (1).txt"], "list(photos, prefix='special/a+b & c')")

    ret, info = manager.stat("photos", "nope.txt")
    check(info.status_code == 612, "stat of a missing key: %s %s" % (info.status_code, info.error))
    # For an unknown bucket the SDK's region query already fails (the emulator answers 631).
    try:
        ret, info = manager.stat("nope", "a")
        check(info.status_code == 631, "stat in a missing bucket: %s %s" % (info.status_code, info.error))
    except RuntimeError as error:
        check("631" in str(error), "stat in a missing bucket: region query says %s" % error)

    # Downloads: public with the recommended key encoding, private through the SDK's signer.
    photos = disk_objects(os.path.join(ROOT, "demo", "buckets", "photos"))
    for key, path in sorted(photos.items()):
        url = domain + "/" + urllib.parse.quote(key)
        response = requests.get(url)
        with open(path, "rb") as handle:
            expected = handle.read()
        check(response.status_code == 200 and response.content == expected
              and response.headers.get("X-Reqid"),
              "GET %s (%d bytes)" % (url[len(base):], len(response.content)))
    logs = disk_objects(os.path.join(ROOT, "demo", "buckets", "logs"))
    logs_domain = base + "/dl/logs"
    for key, path in sorted(logs.items()):
        url = auth.private_download_url(logs_domain + "/" + urllib.parse.quote(key), expires=3600)
        response = requests.get(url)
        with open(path, "rb") as handle:
            expected = handle.read()
        check(response.status_code == 200 and response.content == expected,
              "private GET %s" % url[len(base):].split("?")[0])
    unsigned = requests.get(logs_domain + "/summary.json")
    check(unsigned.status_code == 401 and unsigned.json() == {"error": "download token not specified"},
          "unsigned private GET -> %d %s" % (unsigned.status_code, unsigned.text))
    expired = requests.get(auth.private_download_url(logs_domain + "/summary.json", expires=-10))
    check(expired.status_code == 401 and expired.json() == {"error": "token out of date"},
          "expired private GET -> %d %s" % (expired.status_code, expired.text))
    forged = requests.get(Auth(AK, "wrong").private_download_url(logs_domain + "/summary.json"))
    check(forged.status_code == 401 and forged.json() == {"error": "download token auth failed"},
          "forged private GET -> %d %s" % (forged.status_code, forged.text))

    # Synthetic objects: the SDK's qetag of each downloaded body equals the listed hash.
    items, _, _ = list_all(manager, "big", prefix="dir-000/sub-00/", limit=40)
    big = [i for i in items if i["fsize"] > 4 * 1024 * 1024]
    items, _, _ = list_all(manager, "big", prefix="dir-001/", limit=1000)
    big += [i for i in items if i["fsize"] > 4 * 1024 * 1024][:2]
    sample = items[:40] + big
    matches = 0
    for item in sample:
        body = requests.get(base + "/dl/big/" + urllib.parse.quote(item["key"])).content
        if utils.etag_stream(io.BytesIO(body)) == item["hash"] and len(body) == item["fsize"]:
            matches += 1
    check(matches == len(sample) and len(big) > 0,
          "synthetic: %d/%d bodies hash to the listed qetag (%d over 4 MiB)"
          % (matches, len(sample), len(big)))
    ret, eof, info = manager.list("big", limit=0)
    check(info.status_code == 400, "list limit 0 -> %s" % info.status_code)

    run_write_checks(base, auth, manager)


def run_write_checks(base, auth, manager):
    """The SDK's write calls against the in-memory bucket `scratch` and read-only `photos`."""
    from qiniu import (build_batch_copy, build_batch_delete, put_data, put_file_v2)

    # Form upload, with the SDK's own qetag compared to the answer and to stat.
    data = "你好, kodo\n".encode("utf-8") * 100
    token = auth.upload_token("scratch", "form/数据.txt", 3600)
    ret, info = put_data(token, "form/数据.txt", data)
    check(ret is not None and ret.get("hash") == utils.etag_stream(io.BytesIO(data)),
          "put_data -> %s %s" % (info.status_code, ret))
    ret, info = put_data(auth.upload_token("photos", "x", 3600), "x", b"nope")
    check(info.status_code == 403, "put_data into a read-only bucket -> %s" % info.status_code)
    ret, info = put_data(auth.upload_token("scratch"), "form/数据.txt", b"other content")
    check(info.status_code == 614, "put_data onto an existing key, bucket scope -> %s"
          % info.status_code)

    # Resumable uploads (v1 and v2) of a file above the form threshold.
    path = os.path.join(os.environ["TMPDIR"], "big.bin")
    with open(path, "wb") as handle:
        handle.write(os.urandom(9 * 1024 * 1024 + 123))
    for version in ["v1", "v2"]:
        key = "resumable/%s.bin" % version
        ret, info = put_file_v2(auth.upload_token("scratch", key, 3600), key, path,
                                version=version, part_size=4 * 1024 * 1024)
        check(ret is not None and ret.get("hash") == utils.etag(path),
              "put_file_v2(version=%s) -> %s %s" % (version, info.status_code, ret))
        with open(path, "rb") as handle:
            expected = handle.read()
        body = requests.get(base + "/dl/scratch/" + urllib.parse.quote(key)).content
        check(body == expected, "download of the %s upload: %d bytes" % (version, len(body)))

    # rs: copy, move, metadata, status, class, delete, batch (298 when some ops fail).
    ret, info = manager.copy("scratch", "form/数据.txt", "scratch", "copy.txt")
    check(info.status_code == 200, "copy -> %s %s" % (info.status_code, info.text_body))
    ret, info = manager.copy("scratch", "form/数据.txt", "scratch", "copy.txt")
    check(info.status_code == 614, "copy onto an existing key -> %s" % info.status_code)
    ret, info = manager.move("scratch", "copy.txt", "scratch", "moved.txt")
    check(info.status_code == 200, "move -> %s %s" % (info.status_code, info.text_body))
    ret, info = manager.change_mime("scratch", "moved.txt", "text/x-sdk")
    check(info.status_code == 200, "change_mime -> %s" % info.status_code)
    ret, info = manager.change_type("scratch", "moved.txt", 1)
    check(info.status_code == 200, "change_type -> %s" % info.status_code)
    ret, info = manager.change_status("scratch", "moved.txt", 1, None)
    check(info.status_code == 200, "change_status -> %s" % info.status_code)
    stat, info = manager.stat("scratch", "moved.txt")
    check(stat is not None and stat.get("mimeType") == "text/x-sdk" and stat.get("type") == 1
          and stat.get("status") == 1, "stat after the changes: %s" % stat)
    ops = build_batch_copy("scratch", {"moved.txt": "batch-copy.txt"}, "scratch")
    ret, info = manager.batch(ops)
    check(info.status_code == 200, "batch copy -> %s %s" % (info.status_code, info.text_body))
    ops = build_batch_delete("scratch", ["moved.txt", "missing.txt", "batch-copy.txt"])
    ret, info = manager.batch(ops)
    codes = [item.get("code") for item in (info.json() if info.text_body else [])]
    check(info.status_code == 298 and codes == [200, 612, 200],
          "batch delete with a missing key -> %s %s" % (info.status_code, codes))
    ret, info = manager.delete("scratch", "form/数据.txt")
    check(info.status_code == 200, "delete -> %s" % info.status_code)
    ret, info = manager.delete("scratch", "form/数据.txt")
    check(info.status_code == 612, "delete again -> %s" % info.status_code)


if __name__ == "__main__":
    sys.exit(main())
