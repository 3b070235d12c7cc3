#!/usr/bin/env bash
# make demo: starts kodo-emulator on the sample buckets and browses them with kodo.
set -euo pipefail
echo "kodo demo: the emulator and the command line are not built yet; this demo will browse sample buckets once they land."
