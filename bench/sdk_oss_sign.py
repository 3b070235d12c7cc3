#!/usr/bin/env python3
"""The oss2 side of the OSS signing benchmark.

Reads one key per line on stdin and writes one presigned GET URL per line (V4, one hour), as
`kodo url --stdin` does on OSS, through the official SDK's oss2.Bucket.sign_url.

    python sdk_oss_sign.py ENDPOINT BUCKET < keys.txt > urls.txt
"""

import sys

import oss2

AK = "kodo-emulator-access-key"
SK = "kodo-emulator-secret-key"
REGION = "cn-hangzhou"


def main():
    endpoint, name = sys.argv[1], sys.argv[2]
    bucket = oss2.Bucket(oss2.AuthV4(AK, SK), endpoint, name, region=REGION)
    write = sys.stdout.write
    for raw in sys.stdin:
        key = raw[:-1] if raw.endswith("\n") else raw
        write(bucket.sign_url("GET", key, 3600))
        write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
