#!/usr/bin/env python3
"""The Python-SDK side of the signing benchmark.

Reads one key per line on stdin and writes one private download URL per line, as
`kodo url --stdin` does: the key percent-encoded (every byte but A-Z a-z 0-9 - _ . ~ /),
then the SDK's Auth.private_download_url with a one-hour deadline.

    python sdk_sign.py DOMAIN [NOW] < keys.txt > urls.txt

NOW (Unix seconds) freezes the clock the SDK reads, so that a check can compare every URL with
kodo's `--deadline NOW+3600`; timed runs leave the SDK's clock alone.
"""

import sys
from urllib.parse import quote

import qiniu.auth
from qiniu import Auth

AK = "kodo-emulator-access-key"
SK = "kodo-emulator-secret-key"


def main():
    domain = sys.argv[1].rstrip("/")
    if len(sys.argv) > 2:
        now = float(sys.argv[2])

        class FrozenTime:
            @staticmethod
            def time():
                return now

        qiniu.auth.time = FrozenTime
    auth = Auth(AK, SK)
    write = sys.stdout.write
    for raw in sys.stdin:
        key = raw[:-1] if raw.endswith("\n") else raw
        write(auth.private_download_url(domain + "/" + quote(key, safe="/~"), expires=3600))
        write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
