#!/usr/bin/env bash
# make demo: start kodo-emulator on the sample buckets in demo/buckets, browse them with kodo, stop it.
set -euo pipefail
bin="${1:?usage: demo.sh BIN_DIR}"
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
emulator_pid=""
cleanup() {
  if [ -n "$emulator_pid" ]; then kill "$emulator_pid" 2>/dev/null || true; wait "$emulator_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

"$bin/kodo-emulator" --port 0 --access-key demo-access-key --secret-key demo-secret-key \
  --bucket "photos=$root/demo/buckets/photos" --bucket "logs=$root/demo/buckets/logs" --private logs \
  >"$work/emulator.out" 2>"$work/emulator.err" &
emulator_pid=$!
for _ in $(seq 1 200); do
  if grep -q '^kodo-emulator listening on ' "$work/emulator.out" 2>/dev/null; then break; fi
  if ! kill -0 "$emulator_pid" 2>/dev/null; then cat "$work/emulator.err" >&2; exit 1; fi
  sleep 0.05
done
url="$(sed -n 's/^kodo-emulator listening on //p' "$work/emulator.out" | head -n 1)"
[ -n "$url" ] || { echo "demo: the emulator did not start" >&2; cat "$work/emulator.err" >&2; exit 1; }

cat >"$work/config.json" <<JSON
{"accessKey": "demo-access-key", "secretKey": "demo-secret-key", "bucket": "photos",
 "hosts": {"uc": "$url", "rs": "$url", "rsf": "$url", "api": "$url"}}
JSON
chmod 600 "$work/config.json"
export KODO_CONFIG="$work/config.json" XDG_CACHE_HOME="$work/cache"

run() {
  printf '\n\033[1m$ %s\033[0m\n' "$*"
  "$@"
}
echo "kodo-emulator is serving demo/buckets at $url"
run "$bin/kodo" buckets
run "$bin/kodo" ls photos
run "$bin/kodo" ls photos/2024/
run "$bin/kodo" ls -r -l logs
run "$bin/kodo" ls -r --json --limit 3 photos
run "$bin/kodo" stat photos "中文/文件.txt"
run "$bin/kodo" url --expires 15m logs 2024-06-01/app.log
printf '\n\033[1m$ %s\033[0m\n' "$bin/kodo cat logs 2024-06-01/app.log | head -n 5"
"$bin/kodo" cat logs 2024-06-01/app.log | head -n 5
run "$bin/kodo" get logs 2024-06-02/error.log -o "$work/error.log"
echo
echo "The emulator stops now. Start your own: kodo-emulator --bucket NAME=DIR, then point a config's hosts at it (README.md)."
