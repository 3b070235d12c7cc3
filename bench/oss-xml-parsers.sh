#!/usr/bin/env bash
# CPU per ListObjectsV2 page (1000 objects, encoding-type=url, hostile keys) for OSSCore's XML
# pull reader, libxml2's xmlTextReader and FoundationXML's XMLParser, and CRC-64 throughput.
# Release build of the tests (with testing enabled, which the other test targets need, and the
# cross-module optimisation `make release` uses); XMLParserComparisonTests prints the numbers.
# Usage: bench/oss-xml-parsers.sh [ROUNDS]   (default 200)
set -euo pipefail
cd "$(dirname "$0")/.."
flags=(-c release -Xswiftc -enable-testing -Xswiftc -cross-module-optimization)
swift build "${flags[@]}" --build-tests -j "${JOBS:-2}"
OSS_XML_BENCH=1 OSS_XML_BENCH_ROUNDS="${1:-200}" \
  swift test "${flags[@]}" --skip-build --filter 'OSSCoreTests.XMLParserComparisonTests/measure' 2>&1 |
  grep -E '^(page|OSSCore|libxml2|FoundationXML|CRC-64)'
