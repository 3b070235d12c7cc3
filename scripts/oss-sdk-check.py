#!/usr/bin/env python3
"""Drive Aliyun's two official Python SDKs, unmodified, against `kodo-emulator --protocol oss`.

oss2 (the classic SDK) and alibabacloud-oss-v2 (the new one), each with signature V1 and V4:
ListBuckets (with paging), ListObjects and ListObjectsV2 (delimiter, small pages, hostile keys:
space, +, %, ~, CJK, emoji, a trailing space), HeadObject, GetObjectMeta, GetObject whole and by
range (with and without `x-oss-range-behavior: standard`), presigned URLs fetched over plain HTTP,
a wrong secret, a missing key and bucket, private versus public-read buckets, STS tokens, and
the clock-skew answer. What the SDKs list and download is compared with the files on disk (and
their CRC-64 with oss2's own).

Not part of `make test`; `make sdk-check` installs the SDKs into a git-ignored virtualenv and
runs this. Usage: python scripts/oss-sdk-check.py [path/to/kodo-emulator]
"""

import datetime
import http.client
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import urllib.error
import urllib.parse
import urllib.request

import alibabacloud_oss_v2 as ossv2
import oss2

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
AK = "oss-check-access-key"
SK = "oss-check-secret-key"
TOKEN = "CAISexampleSTS+token/with=base64chars"
REGION = "cn-hangzhou"
failures = []
passes = 0

# Keys a careless client breaks on; the trailing-space and `%` ones also test strict decoding.
HOSTILE = [
    "plain.txt", "a b/space file.txt", "a b/plus+sign.txt", "percent%41.txt", "100%.txt",
    "tilde~name.txt", "中文/文件 名.txt", "emoji/😀.txt", "trailing space ", "dir/sub/deep.txt",
    "dir/sub/deeper/x.txt", "dir/a.txt", "dir/b.txt", "q?x#y&z=1.txt", "semi;colon,comma.txt",
] + ["page/%02d.txt" % n for n in range(12)]


def check(condition, message):
    global passes
    if condition:
        passes += 1
        print("ok   " + message)
    else:
        print("FAIL " + message)
        failures.append(message)


def body_of(key):
    return ("content of %s\n" % key).encode() * (1 + len(key) % 7)


def crc64(data):
    crc = oss2.utils.Crc64()
    crc.update(data)
    return crc.crc


def expected_listing(keys, prefix="", delimiter=""):
    """(objects, prefixes) as OSS lists them: byte order, folders rolled up at the delimiter."""
    objects, prefixes = [], []
    for key in sorted(keys, key=lambda k: k.encode()):
        if not key.startswith(prefix):
            continue
        rest = key[len(prefix):]
        if delimiter and delimiter in rest:
            folder = prefix + rest[: rest.index(delimiter) + len(delimiter)]
            if folder not in prefixes:
                prefixes.append(folder)
        else:
            objects.append(key)
    return objects, prefixes


class Emulator:
    def __init__(self, binary, args):
        self.process = subprocess.Popen(
            [binary, "--protocol", "oss", "--host", "127.0.0.1", "--port", "0",
             "--access-key", AK, "--secret-key", SK] + args,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        first = self.process.stdout.readline().strip()
        prefix = "kodo-emulator listening on "
        if not first.startswith(prefix):
            raise SystemExit("emulator did not start: %r %s" % (first, self.process.stderr.read()))
        self.endpoint = first[len(prefix):]

    def control(self, method, path, body=None):
        request = urllib.request.Request(
            self.endpoint + "/_emulator/" + path, method=method,
            headers={"Content-Type": "application/json"},
            data=json.dumps(body).encode() if body is not None else None)
        with urllib.request.urlopen(request, timeout=10) as response:
            return json.loads(response.read())

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        return self.process.wait(timeout=10)


def fetch(url, headers=None):
    """(status, body) of a plain HTTP GET."""
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers or {}), timeout=10) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


# MARK: oss2

def oss2_auth(version, secret=SK, token=None):
    if token:
        return (oss2.StsAuth(AK, secret, token, auth_version="v4" if version == "v4" else "v1"))
    return oss2.AuthV4(AK, secret) if version == "v4" else oss2.Auth(AK, secret)


def oss2_error(call):
    try:
        call()
    except oss2.exceptions.OssError as error:
        return error
    return None


def check_oss2(emulator, version, keys, buckets):
    tag = "oss2 %s: " % version
    endpoint = emulator.endpoint
    auth = oss2_auth(version)
    service = oss2.Service(auth, endpoint, region=REGION)
    names = [b.name for b in oss2.BucketIterator(service, max_keys=1)]
    check(names == sorted(buckets), tag + "ListBuckets pages of 1 give every bucket: %s" % names)
    names = [b.name for b in service.list_buckets(prefix="pub").buckets]
    check(names == ["public"], tag + "ListBuckets with a prefix")

    bucket = oss2.Bucket(auth, endpoint, "public", region=REGION)
    info = bucket.get_bucket_info()
    check(info.name == "public" and info.acl.grant == "public-read", tag + "GetBucketInfo")
    check(bucket.get_bucket_location().location == "oss-" + REGION, tag + "GetBucketLocation")
    check(oss2.Bucket(auth, endpoint, "private", region=REGION).get_bucket_acl().acl == "private",
          tag + "GetBucketAcl")
    check(bucket.get_object_acl("plain.txt").acl == "default", tag + "GetObjectAcl")

    listed = [o.key for o in oss2.ObjectIterator(bucket, max_keys=3)]
    check(listed == expected_listing(keys)[0], tag + "ListObjects, pages of 3, every hostile key")
    listed = [o.key for o in oss2.ObjectIteratorV2(bucket, max_keys=2)]
    check(listed == expected_listing(keys)[0], tag + "ListObjectsV2, pages of 2, every hostile key")
    for prefix in ["", "dir/", "a b/", "中文/"]:
        want_objects, want_prefixes = expected_listing(keys, prefix, "/")
        want = sorted(want_objects + want_prefixes, key=lambda k: k.encode())
        got = [o.key for o in oss2.ObjectIterator(bucket, prefix=prefix, delimiter="/", max_keys=2)]
        check(got == want, tag + "ListObjects delimiter / prefix %r, pages of 2" % prefix)
        got = [o.key for o in oss2.ObjectIteratorV2(bucket, prefix=prefix, delimiter="/", max_keys=2)]
        check(got == want, tag + "ListObjectsV2 delimiter / prefix %r, pages of 2" % prefix)
    page = bucket.list_objects_v2(max_keys=1000, fetch_owner=True)
    check(all(o.owner and o.owner.id for o in page.object_list), tag + "ListObjectsV2 fetch-owner")
    page = bucket.list_objects(max_keys=5, marker="dir/")
    check([o.key for o in page.object_list] == [k for k in expected_listing(keys)[0] if k.encode() > b"dir/"][:5],
          tag + "ListObjects marker")

    for key in keys:
        data = body_of(key)
        head = bucket.head_object(key)
        ok = (head.content_length == len(data) and head.server_crc == crc64(data)
              and head.object_type == "Normal" and head.etag)
        got = bucket.get_object(key).read()  # oss2 checks the CRC-64 itself (enable_crc)
        if not (ok and got == data):
            check(False, tag + "head/get %r" % key)
            break
    else:
        check(True, tag + "HeadObject and GetObject (CRC-64 checked by oss2) of every hostile key")
    key = "中文/文件 名.txt"
    data = body_of(key)
    meta = bucket.get_object_meta(key)
    check(meta.content_length == len(data) and meta.etag, tag + "GetObjectMeta")
    check(bucket.get_object(key, byte_range=(2, 5)).read() == data[2:6], tag + "GetObject range 2-5")
    result = bucket.get_object(key, byte_range=(len(data), len(data) + 10))
    check(result.status == 200 and result.read() == data,
          tag + "GetObject out-of-range without range-behavior: 200 and the whole object")
    error = oss2_error(lambda: bucket.get_object(
        key, byte_range=(len(data), None), headers={"x-oss-range-behavior": "standard"}))
    check(error is not None and error.status == 416 and error.code == "InvalidRange",
          tag + "GetObject out-of-range with x-oss-range-behavior: standard: 416 InvalidRange")

    etag = '"%s"' % bucket.head_object(key).etag
    error = oss2_error(lambda: bucket.get_object(key, headers={"If-None-Match": etag}))
    check(isinstance(error, oss2.exceptions.NotModified), tag + "If-None-Match with the ETag: 304 NotModified")
    error = oss2_error(lambda: bucket.get_object(key, headers={"If-Match": '"0"'}))
    check(error is not None and error.status == 412, tag + "If-Match with another ETag: 412")

    for slash_safe in [False, True]:
        url = bucket.sign_url("GET", "a b/plus+sign.txt", 300, slash_safe=slash_safe)
        status, got = fetch(url)
        check(status == 200 and got == body_of("a b/plus+sign.txt"),
              tag + "presigned URL (slash_safe=%s) over plain HTTP" % slash_safe)
    private = oss2.Bucket(auth, endpoint, "private", region=REGION)
    url = private.sign_url("GET", "100%.txt", 300)
    status, got = fetch(url)
    check(status == 200 and got == body_of("100%.txt"), tag + "presigned URL to a private bucket")
    status, _ = fetch(url.replace("Signature=", "Signature=x").replace("x-oss-signature=", "x-oss-signature=0"))
    check(status == 403, tag + "tampered presigned URL: 403")

    wrong = oss2.Bucket(oss2_auth(version, secret="wrong-secret"), endpoint, "public", region=REGION)
    error = oss2_error(lambda: wrong.list_objects())
    check(error is not None and error.status == 403 and error.code == "SignatureDoesNotMatch"
          and "StringToSign" in error.details, tag + "wrong secret: 403 SignatureDoesNotMatch with StringToSign")
    error = oss2_error(lambda: wrong.head_object("plain.txt"))
    check(error is not None and error.status == 403 and error.code == "SignatureDoesNotMatch",
          tag + "wrong secret on HEAD: the error decoded from x-oss-err")
    error = oss2_error(lambda: bucket.get_object("no/such key"))
    check(isinstance(error, oss2.exceptions.NoSuchKey) and error.status == 404, tag + "missing key: NoSuchKey")
    error = oss2_error(lambda: bucket.head_object("no/such key"))
    check(error is not None and error.status == 404, tag + "missing key on HEAD: 404")
    nobucket = oss2.Bucket(auth, endpoint, "nosuchbucket", region=REGION)
    error = oss2_error(lambda: nobucket.list_objects())
    check(isinstance(error, oss2.exceptions.NoSuchBucket), tag + "missing bucket: NoSuchBucket")

    anonymous = oss2.AnonymousAuth()
    public = oss2.Bucket(anonymous, endpoint, "public")
    check(public.get_object("plain.txt").read() == body_of("plain.txt"), tag + "anonymous GET on public-read")
    check(public.head_object("plain.txt").content_length == len(body_of("plain.txt")),
          tag + "anonymous HEAD on public-read")
    error = oss2_error(lambda: oss2.Bucket(anonymous, endpoint, "private").get_object("plain.txt"))
    check(error is not None and error.status == 403 and error.code == "AccessDenied",
          tag + "anonymous GET on private: 403 AccessDenied")
    error = oss2_error(lambda: public.list_objects())
    check(error is not None and error.status == 403, tag + "anonymous listing: 403")
    check(private.get_object("plain.txt").read() == body_of("plain.txt"), tag + "signed GET on private")

    synthetic = oss2.Bucket(auth, endpoint, "synthetic", region=REGION)
    objects = [o for o in oss2.ObjectIteratorV2(synthetic, max_keys=1000)]
    classes = {o.storage_class for o in objects}
    types = {o.type for o in objects}
    check({"Standard", "IA", "Archive", "ColdArchive"} <= classes, tag + "synthetic storage classes %s" % sorted(classes))
    check({"Normal", "Multipart", "Appendable"} <= types, tag + "synthetic object types %s" % sorted(types))
    multipart = next(o for o in objects if o.type == "Multipart")
    check("-" in multipart.etag, tag + "a Multipart ETag ends in -N: " + multipart.etag)
    restored = [o for o in objects if o.storage_class in ("Archive", "ColdArchive")]
    heads = [synthetic.head_object(o.key) for o in restored[:40]]
    check(any("x-oss-restore" in h.headers for h in heads), tag + "archive objects carry x-oss-restore")
    normal = next(o for o in objects if o.storage_class == "Standard" and o.size < 100000)
    check(synthetic.get_object(normal.key).read() is not None, tag + "synthetic GET (CRC-64 checked by oss2)")

    emulator.control("POST", "faults", {"mode": "skewed-date", "skew": 3600, "count": 1})
    error = oss2_error(lambda: bucket.list_objects())
    check(error is not None and error.code == "RequestTimeTooSkewed" and "ServerTime" in error.details,
          tag + "skewed server clock: 403 RequestTimeTooSkewed with ServerTime")


def check_oss2_sts(emulator, version):
    tag = "oss2 %s STS: " % version
    bucket = oss2.Bucket(oss2_auth(version, token=TOKEN), emulator.endpoint, "private", region=REGION)
    check(bucket.get_object("plain.txt").read() == body_of("plain.txt"), tag + "GET with the token")
    check(len(bucket.list_objects().object_list) > 0, tag + "listing with the token")
    url = bucket.sign_url("GET", "plain.txt", 300)
    check(fetch(url) == (200, body_of("plain.txt")), tag + "presigned URL with the token")
    error = oss2_error(lambda: oss2.Bucket(oss2_auth(version), emulator.endpoint, "private", region=REGION).list_objects())
    check(error is not None and error.status == 403, tag + "without the token: 403 " + (error.code if error else ""))
    bad = oss2.Bucket(oss2_auth(version, token="other-token"), emulator.endpoint, "private", region=REGION)
    error = oss2_error(lambda: bad.list_objects())
    check(error is not None and error.status == 403, tag + "a wrong token: 403")


# MARK: alibabacloud-oss-v2

def v2_client(emulator, version, secret=SK, token=None, anonymous=False):
    config = ossv2.config.load_default()
    if anonymous:
        config.credentials_provider = ossv2.credentials.AnonymousCredentialsProvider()
    else:
        config.credentials_provider = ossv2.credentials.StaticCredentialsProvider(AK, secret, token)
    config.region = REGION
    config.endpoint = emulator.endpoint
    config.use_path_style = True
    config.signature_version = version
    return ossv2.Client(config)


def v2_error(call):
    try:
        call()
    except ossv2.exceptions.OperationError as error:
        inner = error.unwrap()
        return inner if isinstance(inner, ossv2.exceptions.ServiceError) else error
    return None


def v2_list(client, v2, **kwargs):
    """Every key and prefix of a listing, following the pages by hand with url encoding."""
    got, token, marker = [], None, None
    while True:
        if v2:
            result = client.list_objects_v2(ossv2.ListObjectsV2Request(
                encoding_type="url", continuation_token=token, **kwargs))
        else:
            result = client.list_objects(ossv2.ListObjectsRequest(
                encoding_type="url", marker=marker, **kwargs))
        page = [o.key for o in result.contents or []] + [p.prefix for p in result.common_prefixes or []]
        got += page
        if not result.is_truncated:
            return sorted(got, key=lambda k: k.encode())
        token = getattr(result, "next_continuation_token", None)
        marker = getattr(result, "next_marker", None)


def check_v2(emulator, version, keys, buckets):
    tag = "oss-v2 %s: " % version
    client = v2_client(emulator, version)
    names = []
    for page in client.list_buckets_paginator(limit=1).iter_page(ossv2.ListBucketsRequest()):
        names += [b.name for b in page.buckets or []]
    check(names == sorted(buckets), tag + "ListBuckets pages of 1 give every bucket: %s" % names)
    info = client.get_bucket_info(ossv2.GetBucketInfoRequest(bucket="private"))
    check(info.bucket_info.name == "private" and info.bucket_info.acl == "private", tag + "GetBucketInfo")
    location = client.get_bucket_location(ossv2.GetBucketLocationRequest(bucket="public"))
    check(location.location == "oss-" + REGION, tag + "GetBucketLocation")
    acl = client.get_bucket_acl(ossv2.GetBucketAclRequest(bucket="public"))
    check(acl.acl == "public-read", tag + "GetBucketAcl")

    for v2 in [False, True]:
        name = "ListObjectsV2" if v2 else "ListObjects"
        got = v2_list(client, v2, bucket="public", max_keys=2)
        check(got == expected_listing(keys)[0], tag + name + ", pages of 2, every hostile key")
        for prefix in ["", "dir/", "a b/", "中文/"]:
            want_objects, want_prefixes = expected_listing(keys, prefix, "/")
            got = v2_list(client, v2, bucket="public", prefix=prefix, delimiter="/", max_keys=3)
            check(got == sorted(want_objects + want_prefixes, key=lambda k: k.encode()),
                  tag + name + " delimiter / prefix %r, pages of 3" % prefix)
    error = v2_error(lambda: client.list_objects_v2(ossv2.ListObjectsV2Request(bucket="public", max_keys=1001)))
    check(error is not None and getattr(error, "code", "") == "InvalidArgument", tag + "max-keys 1001: InvalidArgument")

    for key in keys:
        data = body_of(key)
        head = client.head_object(ossv2.HeadObjectRequest(bucket="public", key=key))
        got = client.get_object(ossv2.GetObjectRequest(bucket="public", key=key)).body.read()
        if not (head.content_length == len(data) and int(head.hash_crc64) == crc64(data) and got == data):
            check(False, tag + "head/get %r" % key)
            break
    else:
        check(True, tag + "HeadObject (CRC-64) and GetObject of every hostile key")
    key = "emoji/😀.txt"
    data = body_of(key)
    meta = client.get_object_meta(ossv2.GetObjectMetaRequest(bucket="public", key=key))
    check(meta.content_length == len(data) and int(meta.hash_crc64) == crc64(data), tag + "GetObjectMeta")
    ranged = client.get_object(ossv2.GetObjectRequest(
        bucket="public", key=key, range_header="bytes=3-6", range_behavior="standard"))
    check(ranged.body.read() == data[3:7] and ranged.content_range == "bytes 3-6/%d" % len(data),
          tag + "GetObject range 3-6 standard: 206 and Content-Range")
    error = v2_error(lambda: client.get_object(ossv2.GetObjectRequest(
        bucket="public", key=key, range_header="bytes=%d-" % len(data), range_behavior="standard")))
    check(error is not None and getattr(error, "status_code", 0) == 416, tag + "unsatisfiable standard range: 416")
    whole = client.get_object(ossv2.GetObjectRequest(bucket="public", key=key, range_header="bytes=%d-" % len(data)))
    check(whole.body.read() == data, tag + "unsatisfiable range without range-behavior: the whole object")

    presigned = client.presign(ossv2.GetObjectRequest(bucket="private", key="trailing space "),
                               expires=datetime.timedelta(minutes=5))
    check(fetch(presigned.url) == (200, body_of("trailing space ")), tag + "presigned URL over plain HTTP (private bucket)")
    presigned = client.presign(ossv2.GetObjectRequest(bucket="public", key="中文/文件 名.txt"))
    check(fetch(presigned.url) == (200, body_of("中文/文件 名.txt")), tag + "presigned URL of a CJK key")

    wrong = v2_client(emulator, version, secret="wrong-secret")
    error = v2_error(lambda: wrong.list_objects(ossv2.ListObjectsRequest(bucket="public")))
    check(error is not None and getattr(error, "code", "") == "SignatureDoesNotMatch" and error.status_code == 403,
          tag + "wrong secret: 403 SignatureDoesNotMatch")
    error = v2_error(lambda: wrong.head_object(ossv2.HeadObjectRequest(bucket="public", key="plain.txt")))
    check(error is not None and getattr(error, "code", "") == "SignatureDoesNotMatch",
          tag + "wrong secret on HEAD: the error decoded from x-oss-err")
    error = v2_error(lambda: client.get_object(ossv2.GetObjectRequest(bucket="public", key="no such key")))
    check(error is not None and getattr(error, "code", "") == "NoSuchKey" and error.ec == "0026-00000001",
          tag + "missing key: NoSuchKey with EC")
    error = v2_error(lambda: client.list_objects_v2(ossv2.ListObjectsV2Request(bucket="nosuchbucket")))
    check(error is not None and getattr(error, "code", "") == "NoSuchBucket", tag + "missing bucket: NoSuchBucket")

    anonymous = v2_client(emulator, version, anonymous=True)
    got = anonymous.get_object(ossv2.GetObjectRequest(bucket="public", key="plain.txt")).body.read()
    check(got == body_of("plain.txt"), tag + "anonymous GET on public-read")
    error = v2_error(lambda: anonymous.get_object(ossv2.GetObjectRequest(bucket="private", key="plain.txt")))
    check(error is not None and getattr(error, "code", "") == "AccessDenied", tag + "anonymous GET on private: AccessDenied")

    # pyv2 retries RequestTimeTooSkewed (re-signing): one skewed answer, then success.
    emulator.control("DELETE", "stats")
    emulator.control("POST", "faults", {"mode": "skewed-date", "skew": 3600, "count": 1})
    result = client.list_objects(ossv2.ListObjectsRequest(bucket="public", max_keys=1))
    stats = emulator.control("GET", "stats")
    check(result.status_code == 200 and stats["list"] == 2 and stats["faults"] == 1,
          tag + "skewed server clock: RequestTimeTooSkewed, retried, then 200")


def check_v2_sts(emulator, version):
    tag = "oss-v2 %s STS: " % version
    client = v2_client(emulator, version, token=TOKEN)
    got = client.get_object(ossv2.GetObjectRequest(bucket="private", key="plain.txt")).body.read()
    check(got == body_of("plain.txt"), tag + "GET with the token")
    presigned = client.presign(ossv2.GetObjectRequest(bucket="private", key="plain.txt"))
    check(fetch(presigned.url) == (200, body_of("plain.txt")), tag + "presigned URL with the token")
    error = v2_error(lambda: v2_client(emulator, version).list_objects(ossv2.ListObjectsRequest(bucket="private")))
    check(error is not None and getattr(error, "status_code", 0) == 403, tag + "without the token: 403")


# MARK: writes

def check_oss2_writes(emulator, version, directory):
    """oss2's write calls against the in-memory bucket `scratch` (and read-only `ro`)."""
    tag = "oss2 %s writes: " % version
    auth = oss2_auth(version)
    bucket = oss2.Bucket(auth, emulator.endpoint, "scratch", region=REGION)
    data = "hello oss 你好\n".encode() * 50
    key = "中文/文件 名 %s.txt" % version
    result = bucket.put_object(key, data, headers={"Content-Type": "text/plain",
                                                    "x-oss-meta-author": "kodo"})
    check(result.status == 200 and result.crc == crc64(data), tag + "put_object (CRC checked)")
    check(bucket.get_object(key).read() == data, tag + "get_object after put_object")
    error = oss2_error(lambda: bucket.put_object(key, b"x", headers={"x-oss-forbid-overwrite": "true"}))
    check(error is not None and error.status == 409 and error.code == "FileAlreadyExists",
          tag + "forbid-overwrite -> %s" % (error and error.code))
    error = oss2_error(lambda: bucket.put_object("md5", b"x", headers={"Content-MD5": "AAAAAAAAAAAAAAAAAAAAAA=="}))
    check(error is not None and error.code == "InvalidDigest", tag + "bad Content-MD5 -> %s"
          % (error and error.code))
    ro = oss2.Bucket(auth, emulator.endpoint, "readonly", region=REGION)
    error = oss2_error(lambda: ro.put_object("x", b"x"))
    check(error is not None and error.status == 403, tag + "read-only bucket -> %s"
          % (error and error.status))

    # resumable_upload with threads and a checkpoint directory (multipart above the threshold).
    path = os.path.join(directory, "big-%s.bin" % version)
    with open(path, "wb") as handle:
        handle.write(os.urandom(3 * 1024 * 1024 + 17))
    store = oss2.ResumableStore(root=directory)
    result = oss2.resumable_upload(bucket, "big/%s.bin" % version, path, store=store,
                                   multipart_threshold=512 * 1024, part_size=512 * 1024,
                                   num_threads=3)
    with open(path, "rb") as handle:
        expected = handle.read()
    head = bucket.head_object("big/%s.bin" % version)
    check(result.status == 200 and head.object_type == "Multipart"
          and int(head.headers["x-oss-hash-crc64ecma"]) == crc64(expected),
          tag + "resumable_upload: Multipart, CRC-64 of the whole")
    check(bucket.get_object("big/%s.bin" % version).read() == expected,
          tag + "resumable_upload: bytes back")

    # Multipart by hand, with list_parts and list_multipart_uploads, then abort.
    upload_id = bucket.init_multipart_upload("manual").upload_id
    part = bucket.upload_part("manual", upload_id, 1, b"a" * 200 * 1024)
    listed = bucket.list_parts("manual", upload_id)
    check(len(listed.parts) == 1 and listed.parts[0].etag == part.etag, tag + "list_parts")
    uploads = bucket.list_multipart_uploads()
    check(any(u.upload_id == upload_id for u in uploads.upload_list), tag + "list_multipart_uploads")
    bucket.abort_multipart_upload("manual", upload_id)
    error = oss2_error(lambda: bucket.list_parts("manual", upload_id))
    check(error is not None and error.code == "NoSuchUpload", tag + "abort -> NoSuchUpload")

    # copy_object, update_object_meta (copy onto itself), upload_part_copy, batch delete.
    bucket.copy_object("scratch", key, "copied.txt")
    check(bucket.get_object("copied.txt").read() == data, tag + "copy_object")
    bucket.update_object_meta("copied.txt", {"Content-Type": "text/x-new", "x-oss-meta-k": "v"})
    meta = bucket.head_object("copied.txt")
    check(meta.content_type == "text/x-new" and meta.headers.get("x-oss-meta-k") == "v",
          tag + "update_object_meta")
    upload_id = bucket.init_multipart_upload("part-copy").upload_id
    copied = bucket.upload_part_copy("scratch", key, (0, 99), "part-copy", upload_id, 1)
    bucket.complete_multipart_upload("part-copy", upload_id, [oss2.models.PartInfo(1, copied.etag)])
    check(bucket.get_object("part-copy").read() == data[:100], tag + "upload_part_copy")
    result = bucket.batch_delete_objects([key, "copied.txt", "missing", "part-copy"])
    check(sorted(result.deleted_keys) == sorted([key, "copied.txt", "missing", "part-copy"]),
          tag + "batch_delete_objects -> %s" % result.deleted_keys)
    error = oss2_error(lambda: bucket.get_object("copied.txt"))
    check(error is not None and error.status == 404, tag + "gone after batch delete")
    url = bucket.sign_url("PUT", "presigned.txt", 600)
    result = bucket.put_object_with_url(url, b"presigned")
    check(result.status == 200, tag + "presigned PUT (put_object_with_url)")
    check(bucket.get_object("presigned.txt").read() == b"presigned", tag + "presigned PUT stored")


def check_v2_writes(emulator, version, directory):
    """alibabacloud-oss-v2's write calls against the in-memory bucket `scratch`."""
    tag = "alibabacloud-oss-v2 %s writes: " % version
    client = v2_client(emulator, version)
    data = "v2 data 数据\n".encode() * 80
    key = "v2/文件 %s.txt" % version
    result = client.put_object(ossv2.PutObjectRequest(bucket="scratch", key=key, body=data))
    check(result.status_code == 200 and int(result.hash_crc64) == crc64(data),
          tag + "put_object (CRC checked)")
    error = v2_error(lambda: client.put_object(ossv2.PutObjectRequest(
        bucket="scratch", key=key, body=b"x", forbid_overwrite=True)))
    check(error is not None and getattr(error, "code", None) == "FileAlreadyExists",
          tag + "forbid_overwrite -> %s" % getattr(error, "code", error))
    path = os.path.join(directory, "v2-big-%s.bin" % version)
    with open(path, "wb") as handle:
        handle.write(os.urandom(2 * 1024 * 1024 + 5))
    uploader = client.uploader(part_size=512 * 1024, parallel_num=3, enable_checkpoint=True,
                               checkpoint_dir=directory + "/")
    result = uploader.upload_file(
        ossv2.PutObjectRequest(bucket="scratch", key="v2/big-%s.bin" % version), filepath=path)
    with open(path, "rb") as handle:
        expected = handle.read()
    got = client.get_object(ossv2.GetObjectRequest(bucket="scratch", key="v2/big-%s.bin" % version))
    check(got.body.read() == expected and int(result.hash_crc64) == crc64(expected),
          tag + "uploader.upload_file with checkpoints (CRC-64 combined)")
    result = client.copy_object(ossv2.CopyObjectRequest(
        bucket="scratch", key="v2/copy-%s.txt" % version, source_bucket="scratch", source_key=key))
    check(result.status_code == 200, tag + "copy_object")
    result = client.delete_multiple_objects(ossv2.DeleteMultipleObjectsRequest(
        bucket="scratch", objects=[ossv2.DeleteObject(key=key),
                                   ossv2.DeleteObject(key="v2/copy-%s.txt" % version)]))
    check(result.status_code == 200 and len(result.deleted_objects or []) == 2,
          tag + "delete_multiple_objects")
    presigned = client.presign(ossv2.PutObjectRequest(bucket="scratch", key="v2/presigned"))
    # http.client, not urllib: urllib adds a Content-Type the presigned signature did not cover.
    parts = urllib.parse.urlsplit(presigned.url)
    connection = http.client.HTTPConnection(parts.netloc, timeout=10)
    connection.request("PUT", parts.path + "?" + parts.query, body=b"pre",
                       headers=dict(presigned.signed_headers or {}))
    status = connection.getresponse().status
    connection.close()
    stored = client.get_object(ossv2.GetObjectRequest(bucket="scratch", key="v2/presigned"))
    check(status == 200 and stored.body.read() == b"pre", tag + "presigned PUT -> %s" % status)


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, ".build", "debug", "kodo-emulator")
    workspace = tempfile.mkdtemp(prefix="kodo-oss-sdk-check-")
    try:
        directory = os.path.join(workspace, "objects")
        for key in HOSTILE:
            path = os.path.join(directory, key)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "wb") as file:
                file.write(body_of(key))
        buckets = ["public", "private", "synthetic"]
        args = ["--bucket", "public=" + directory, "--bucket", "private=" + directory,
                "--synthetic", "synthetic=3000", "--private", "private", "--private", "synthetic",
                "--seed", "7"]
        emulator = Emulator(binary, args)
        try:
            for version in ["v1", "v4"]:
                check_oss2(emulator, version, HOSTILE, buckets)
                check_v2(emulator, version, HOSTILE, buckets)
        finally:
            check(emulator.stop() == 0, "emulator exits 0 on SIGTERM")
        writer = Emulator(binary, ["--bucket", "scratch", "--bucket", "readonly=" + directory])
        try:
            for version in ["v1", "v4"]:
                check_oss2_writes(writer, version, workspace)
                check_v2_writes(writer, version, workspace)
        finally:
            check(writer.stop() == 0, "writing emulator exits 0 on SIGTERM")
        sts = Emulator(binary, args + ["--security-token", TOKEN])
        try:
            for version in ["v1", "v4"]:
                check_oss2_sts(sts, version)
            # alibabacloud-oss-v2 1.4.1 sends the V1 token in a header named `security-token`,
            # unsigned (oss-protocol.md §4.1): only its V4 STS path is checked.
            check_v2_sts(sts, "v4")
        finally:
            sts.stop()
    finally:
        shutil.rmtree(workspace, ignore_errors=True)
    print("\n%d passed, %d failed" % (passes, len(failures)))
    if failures:
        for failure in failures:
            print("  FAIL " + failure)
        sys.exit(1)


if __name__ == "__main__":
    main()
