#!/usr/bin/env python3
"""The official SDKs' side of the write rows of `make bench` (bench/write_bench.py).

Each subcommand does with the SDK what one kodo command does, the way the SDK's documentation
shows it, and prints nothing on success:

    python sdk_write.py kodo-put UC_BASE BUCKET KEY FILE        # qiniu.put_file_v2, v2, 4 MiB parts
    python sdk_write.py oss-put ENDPOINT BUCKET KEY FILE        # oss2.resumable_upload, 4 threads
    python sdk_write.py kodo-put-tree UC_BASE BUCKET PREFIX DIR THREADS
                                                                # put_file_v2 per file, a thread pool
    python sdk_write.py kodo-rm UC_BASE BUCKET PREFIX           # list + 1,000-key batch deletes
    python sdk_write.py kodo-mv UC_BASE BUCKET FROM TO          # list + 1,000-key batch moves
"""

import concurrent.futures
import os
import sys
import tempfile

# The SDKs cache region answers and records under the temp directory; keep this run's private.
os.environ["TMPDIR"] = tempfile.mkdtemp(prefix="kodo-bench-sdk-")

AK = "kodo-emulator-access-key"
SK = "kodo-emulator-secret-key"
REGION = "cn-hangzhou"
MIB = 1024 * 1024


def fail(message):
    sys.stderr.write("sdk_write: %s\n" % message)
    sys.exit(1)


def qiniu_manager(base):
    from qiniu import Auth, BucketManager, config
    config.set_default(default_uc_host=base, connection_retries=1)
    auth = Auth(AK, SK)
    return auth, BucketManager(auth)


def kodo_put(base, bucket, key, path):
    from qiniu import put_file_v2
    auth, _ = qiniu_manager(base)
    ret, info = put_file_v2(auth.upload_token(bucket, key, 3600), key, path, version="v2",
                            part_size=4 * MIB)
    if ret is None or "hash" not in ret:
        fail("put_file_v2 %s: %s" % (key, info))


def oss_put(endpoint, bucket_name, key, path):
    import oss2
    bucket = oss2.Bucket(oss2.AuthV4(AK, SK), endpoint, bucket_name, region=REGION)
    store = oss2.ResumableStore(root=os.environ["TMPDIR"])
    result = oss2.resumable_upload(bucket, key, path, store=store, part_size=8 * MIB,
                                   num_threads=4)
    if result.status != 200:
        fail("resumable_upload %s: %s" % (key, result.status))


def kodo_put_tree(base, bucket, prefix, directory, threads):
    from qiniu import put_file_v2
    auth, _ = qiniu_manager(base)
    paths = []
    for folder, folders, files in os.walk(directory):
        folders.sort()
        for name in sorted(files):
            paths.append(os.path.join(folder, name))

    def upload(path):
        key = prefix + os.path.relpath(path, directory)
        ret, info = put_file_v2(auth.upload_token(bucket, key, 3600), key, path)
        return None if ret is not None and "hash" in ret else "%s: %s" % (key, info)

    with concurrent.futures.ThreadPoolExecutor(max_workers=threads) as pool:
        failures = [failure for failure in pool.map(upload, paths) if failure]
    if failures:
        fail("%d uploads failed, first %s" % (len(failures), failures[0]))


def kodo_pages(manager, bucket, prefix):
    """Every key under `prefix`, a page of at most 1,000 at a time."""
    marker = None
    while True:
        ret, eof, info = manager.list(bucket, prefix=prefix, marker=marker, limit=1000)
        if ret is None:
            fail("list %s: %s" % (prefix, info))
        keys = [item["key"] for item in ret.get("items", [])]
        if keys:
            yield keys
        marker = ret.get("marker")
        if eof or not marker:
            return


def kodo_batches(manager, operations):
    ret, info = manager.batch(operations)
    if info.status_code != 200 or any(item.get("code") != 200 for item in ret or []):
        fail("batch: %s" % info)


def kodo_rm(base, bucket, prefix):
    from qiniu import build_batch_delete
    _, manager = qiniu_manager(base)
    for keys in kodo_pages(manager, bucket, prefix):
        kodo_batches(manager, build_batch_delete(bucket, keys))


def kodo_mv(base, bucket, source, destination):
    from qiniu import build_batch_move
    _, manager = qiniu_manager(base)
    for keys in kodo_pages(manager, bucket, source):
        moves = {key: destination + key[len(source):] for key in keys}
        kodo_batches(manager, build_batch_move(bucket, moves, bucket, force="false"))


def main():
    if len(sys.argv) < 2:
        fail("a subcommand is needed (see the module's docstring)")
    command, arguments = sys.argv[1], sys.argv[2:]
    if command == "kodo-put" and len(arguments) == 4:
        kodo_put(*arguments)
    elif command == "oss-put" and len(arguments) == 4:
        oss_put(*arguments)
    elif command == "kodo-put-tree" and len(arguments) == 5:
        kodo_put_tree(*arguments[:4], int(arguments[4]))
    elif command == "kodo-rm" and len(arguments) == 3:
        kodo_rm(*arguments)
    elif command == "kodo-mv" and len(arguments) == 4:
        kodo_mv(*arguments)
    else:
        fail("unknown subcommand or wrong arguments: %s" % " ".join(sys.argv[1:]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
