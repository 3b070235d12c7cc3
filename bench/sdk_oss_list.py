#!/usr/bin/env python3
"""The oss2 side of the OSS listing benchmark.

Lists every object of BUCKET through the official SDK's oss2.ObjectIteratorV2 (ListObjectsV2,
1,000 keys a page, the page size kodo uses, V4 signatures) and writes each object as the same JSON
line `kodo ls -r --json` writes on OSS, so both sides do the same work: fetch, decode, convert,
encode, write.

    python sdk_oss_list.py ENDPOINT BUCKET > out.jsonl
"""

import json
import re
import sys
import time

import oss2

AK = "kodo-emulator-access-key"
SK = "kodo-emulator-secret-key"
REGION = "cn-hangzhou"
CLASSES = {"Standard": "standard", "IA": "ia", "Archive": "archive",
           "ColdArchive": "cold_archive", "DeepColdArchive": "deep_cold_archive"}


def storage_class(name):
    name = name or "Standard"
    if name in CLASSES:
        return CLASSES[name]
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).replace(" ", "_").replace("-", "_").lower()


def line(info):
    out = {"type": "object", "key": info.key, "size": info.size}
    if info.etag:
        out["etag"] = info.etag
    out["putTime"] = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(info.last_modified))
    out["storageClass"] = storage_class(info.storage_class)
    if info.type:
        out["objectType"] = info.type.lower()
    restore = getattr(info, "restore_info", None)
    if restore:
        out["restoreStatus"] = "restoring" if 'ongoing-request="true"' in restore else "restored"
    return json.dumps(out, ensure_ascii=False, separators=(",", ":"))


def main():
    endpoint, name = sys.argv[1], sys.argv[2]
    bucket = oss2.Bucket(oss2.AuthV4(AK, SK), endpoint, name, region=REGION)
    write = sys.stdout.write
    for info in oss2.ObjectIteratorV2(bucket, max_keys=1000):
        write(line(info))
        write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
