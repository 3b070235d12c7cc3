"""The emulator's uploads: what a 1 GiB multipart upload costs the emulator (CPU, peak RSS above
idle), beside what hashing the same file once costs (`openssl md5`, `sha1sum`).

`measure(binary, path, protocol, bucket)` is the helper `make bench` can call; run alone:

    python3 bench/emulator_upload.py --bin .build/release --size-mib 1024

The client is this script (Python's http.client, streaming each part from the file), so only the
emulator's own CPU is measured, read from /proc/PID/stat before and after the upload.
"""

import argparse
import base64
import email.utils
import hashlib
import hmac
import http.client
import json
import os
import resource
import shutil
import subprocess
import tempfile
import time
import urllib.parse

AK = "kodo-emulator-access-key"
SK = "kodo-emulator-secret-key"
TICKS = os.sysconf("SC_CLK_TCK")
KODO_PART = 4 << 20
OSS_PART = 8 << 20


def urlsafe(data):
    return base64.urlsafe_b64encode(data).decode()


class Emulator:
    """A kodo-emulator process: its port, CPU seconds and memory."""

    def __init__(self, binary, arguments):
        self.process = subprocess.Popen(
            [binary, "--port", "0", "--access-key", AK, "--secret-key", SK] + arguments,
            stdout=subprocess.PIPE, text=True)
        first = self.process.stdout.readline().strip()
        prefix = "kodo-emulator listening on "
        if not first.startswith(prefix):
            raise SystemExit("bench: the emulator did not start: %r" % first)
        self.port = urllib.parse.urlsplit(first[len(prefix):]).port

    def cpu_seconds(self):
        with open("/proc/%d/stat" % self.process.pid) as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / TICKS

    def memory_kib(self, field):
        with open("/proc/%d/status" % self.process.pid) as status:
            for line in status:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
        return 0

    def connection(self):
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=600, blocksize=1 << 20)

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=30)


def send(emulator, method, target, headers=None, body=None):
    connection = emulator.connection()
    connection.request(method, target, body=body, headers=headers or {})
    answer = connection.getresponse()
    data = answer.read()
    connection.close()
    if answer.status != 200:
        raise SystemExit("bench: %s %s: %d %r" % (method, target, answer.status, data[:300]))
    return answer, data


def parts(path, size):
    total = os.path.getsize(path)
    offset = 0
    number = 1
    while offset < total:
        length = min(size, total - offset)
        yield number, offset, length
        offset += length
        number += 1


class Slice:
    """`length` bytes of a file from `offset`, read by http.client a block at a time."""

    def __init__(self, path, offset, length):
        self.file = open(path, "rb")
        self.file.seek(offset)
        self.left = length

    def read(self, size=-1):
        if self.left <= 0:
            self.file.close()
            return b""
        size = self.left if size < 0 else min(size, self.left)
        data = self.file.read(size)
        self.left -= len(data)
        return data


def kodo_upload(emulator, path, bucket, key):
    """Kodo resumable v2, 4 MiB parts (the SDKs' size): returns the `hash` answered."""
    policy = urlsafe(json.dumps({"scope": "%s:%s" % (bucket, key),
                                 "deadline": int(time.time()) + 3600}).encode())
    sign = urlsafe(hmac.new(SK.encode(), policy.encode(), hashlib.sha1).digest())
    auth = {"Authorization": "UpToken %s:%s:%s" % (AK, sign, policy)}
    base = "/buckets/%s/objects/%s/uploads" % (bucket, urlsafe(key.encode()))
    _, data = send(emulator, "POST", base, auth)
    upload = json.loads(data)["uploadId"]
    listed = []
    for number, offset, length in parts(path, KODO_PART):
        headers = dict(auth, **{"Content-Length": str(length)})
        _, data = send(emulator, "PUT", "%s/%s/%d" % (base, upload, number), headers,
                       Slice(path, offset, length))
        listed.append({"etag": json.loads(data)["etag"], "partNumber": number})
    _, data = send(emulator, "POST", "%s/%s" % (base, upload), auth,
                   json.dumps({"parts": listed}).encode())
    return json.loads(data)["hash"]


def oss_signed(method, bucket, key, subresource="", content_type=""):
    date = email.utils.formatdate(usegmt=True)
    resource_path = "/%s/%s%s" % (bucket, key, subresource)
    text = "%s\n\n%s\n%s\n%s" % (method, content_type, date, resource_path)
    signature = base64.b64encode(hmac.new(SK.encode(), text.encode(), hashlib.sha1).digest())
    headers = {"Date": date, "Authorization": "OSS %s:%s" % (AK, signature.decode())}
    if content_type:
        headers["Content-Type"] = content_type
    return headers


def oss_upload(emulator, path, bucket, key):
    """OSS multipart, 8 MiB parts: returns the CRC-64 answered."""
    _, data = send(emulator, "POST", "/%s/%s?uploads" % (bucket, key),
                   oss_signed("POST", bucket, key, "?uploads"))
    upload = data.decode().split("<UploadId>")[1].split("</UploadId>")[0]
    items = []
    for number, offset, length in parts(path, OSS_PART):
        sub = "?partNumber=%d&uploadId=%s" % (number, upload)
        headers = oss_signed("PUT", bucket, key, sub, "application/octet-stream")
        headers["Content-Length"] = str(length)
        answer, _ = send(emulator, "PUT", "/%s/%s%s" % (bucket, key, sub), headers,
                         Slice(path, offset, length))
        items.append("<Part><PartNumber>%d</PartNumber><ETag>%s</ETag></Part>"
                     % (number, answer.getheader("ETag")))
    sub = "?uploadId=%s" % upload
    body = ("<CompleteMultipartUpload>%s</CompleteMultipartUpload>" % "".join(items)).encode()
    answer, _ = send(emulator, "POST", "/%s/%s%s" % (bucket, key, sub),
                     oss_signed("POST", bucket, key, sub, "application/xml"), body)
    return answer.getheader("x-oss-hash-crc64ecma")


def qetag(path):
    """Kodo's hash of the file: the SHA-1 of each 4 MiB block, combined."""
    blocks = []
    with open(path, "rb") as source:
        while True:
            block = source.read(4 << 20)
            if not block:
                break
            blocks.append(hashlib.sha1(block).digest())
    if len(blocks) <= 1:
        return urlsafe(b"\x16" + (blocks[0] if blocks else hashlib.sha1(b"").digest()))
    return urlsafe(b"\x96" + hashlib.sha1(b"".join(blocks)).digest())


def child_cpu(command):
    """CPU seconds (user + sys) of running `command` to its end."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def measure(binary, path, protocol, bucket):
    """One upload of `path` into a fresh emulator: `bucket` is "memory" or "directory"."""
    folder = tempfile.mkdtemp(prefix="kodo-upload-bench-")
    try:
        arguments = ["--protocol", protocol, "--memory-limit", "4096"]
        if bucket == "memory":
            arguments += ["--bucket", "bench"]
        else:
            arguments += ["--bucket", "bench=" + folder, "--writable", "bench"]
        emulator = Emulator(binary, arguments)
        try:
            time.sleep(1)
            idle_kib = emulator.memory_kib("VmRSS")
            cpu_before = emulator.cpu_seconds()
            started = time.monotonic()
            if protocol == "kodo":
                digest = kodo_upload(emulator, path, "bench", "big.bin")
            else:
                digest = oss_upload(emulator, path, "bench", "big.bin")
            wall = time.monotonic() - started
            cpu = emulator.cpu_seconds() - cpu_before
            peak_kib = emulator.memory_kib("VmHWM")
        finally:
            emulator.stop()
        return {"protocol": protocol, "bucket": bucket, "cpu": cpu, "wall": wall,
                "idle_mib": idle_kib / 1024, "peak_above_idle_mib": (peak_kib - idle_kib) / 1024,
                "digest": digest}
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True, help="folder with kodo-emulator")
    parser.add_argument("--size-mib", type=int, default=1024)
    options = parser.parse_args()
    binary = os.path.join(options.bin, "kodo-emulator")
    with tempfile.NamedTemporaryFile(prefix="kodo-upload-bench-", suffix=".bin") as source:
        remaining = options.size_mib << 20
        while remaining > 0:
            chunk = os.urandom(min(remaining, 64 << 20))
            source.write(chunk)
            remaining -= len(chunk)
        source.flush()
        md5 = child_cpu(["openssl", "md5", source.name])
        sha1 = child_cpu(["sha1sum", source.name])
        print("file: %d MiB; openssl md5: %.2f s CPU; sha1sum: %.2f s CPU"
              % (options.size_mib, md5, sha1))
        expected = qetag(source.name)
        for protocol in ["kodo", "oss"]:
            for bucket in ["directory", "memory"]:
                row = measure(binary, source.name, protocol, bucket)
                if protocol == "kodo" and row["digest"] != expected:
                    raise SystemExit("bench: the emulator's hash %s is not the file's %s"
                                     % (row["digest"], expected))
                print("%-4s %-9s emulator CPU %.2f s (%.2fx md5, %.2fx md5+sha1), wall %.1f s, "
                      "idle RSS %.0f MiB, peak above idle %.0f MiB"
                      % (protocol, bucket, row["cpu"], row["cpu"] / md5, row["cpu"] / (md5 + sha1),
                         row["wall"], row["idle_mib"], row["peak_above_idle_mib"]))


if __name__ == "__main__":
    main()
