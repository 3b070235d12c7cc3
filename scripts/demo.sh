#!/usr/bin/env bash
# make demo: start kodo-emulator on the sample buckets in demo/buckets twice (the Kodo protocol and
# the OSS one), take kodo for a short tour of each as the README's Getting started does (paste the
# emulator's export line, run short commands), browse the buckets when this runs on a terminal, and
# stop the emulators.
set -euo pipefail
bin="${1:?usage: demo.sh BIN_DIR}"
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
pids=()
cleanup() {
  for pid in ${pids[@]+"${pids[@]}"}; do
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  rm -rf "$work"
}
trap cleanup EXIT

# Short command names, as after `export PATH="$(swift build --show-bin-path):$PATH"`. Nothing of
# the user's own configuration takes part: no config file, no credentials from the environment.
export PATH="$bin:$PATH" XDG_CONFIG_HOME="$work/config" XDG_CACHE_HOME="$work/cache"
unset KODO_CONFIG KODO_PROFILE KODO_PROVIDER KODO_ENDPOINT QINIU_ACCESS_KEY QINIU_SECRET_KEY \
  OSS_ACCESS_KEY_ID OSS_ACCESS_KEY_SECRET OSS_SESSION_TOKEN OSS_REGION OSS_ENDPOINT

bold() { printf '\n\033[1m%s\033[0m\n' "$*"; }
# A word as a person types it: plain, or in single quotes.
quoted() {
  if [[ "$1" =~ ^[A-Za-z0-9_./:=@%+,-]+$ ]]; then
    printf '%s' "$1"
  else
    printf "'%s'" "${1//\'/\'\\\'\'}"
  fi
}
run() {
  local shown="\$" word
  for word in "$@"; do shown+=" $(quoted "$word")"; done
  bold "$shown"
  "$@"
}

# start NAME ARGS…: runs `kodo-emulator ARGS…` from the repository (the README's relative paths),
# shows what it prints, and waits for its export line.
start() {
  local name="$1"
  shift
  bold "\$ kodo-emulator $*"
  (cd "$root" && exec kodo-emulator "$@") >"$work/$name.out" 2>"$work/$name.err" &
  pids+=($!)
  for _ in $(seq 1 600); do
    if grep -q '^export ' "$work/$name.out" 2>/dev/null; then break; fi
    if ! kill -0 "${pids[-1]}" 2>/dev/null; then cat "$work/$name.err" >&2; exit 1; fi
    sleep 0.05
  done
  grep -q '^export ' "$work/$name.out" || {
    echo "demo: kodo-emulator did not start" >&2
    cat "$work/$name.err" >&2
    exit 1
  }
  cat "$work/$name.out"
}

# paste NAME: what a person does with the emulator's last line: paste it into the shell.
paste_export() {
  local line
  line="$(grep '^export ' "$work/$1.out" | head -n 1)"
  bold "\$ $line"
  eval "$line"
}

buckets=(--bucket photos=demo/buckets/photos --bucket logs=demo/buckets/logs --private logs --bucket scratch)
start kodo "${buckets[@]}"
start oss --protocol oss "${buckets[@]}"
cd "$work"

echo
echo "── Qiniu Kodo: the emulator's export line pasted into a shell"
(
  paste_export kodo
  run kodo buckets
  run kodo ls photos
  run kodo ls photos/2024/
  run kodo ls -r -l logs
  run kodo ls -r --json --limit 3 photos
  run kodo stat photos "中文/文件.txt"
  run kodo url --expires 15m logs 2024-06-01/app.log
  bold "\$ kodo cat logs 2024-06-01/app.log | grep ERROR"
  kodo cat logs 2024-06-01/app.log | grep ERROR
  run kodo get logs 2024-06-02/error.log
  run kodo find photos --name '*.png'
  echo
  echo "── Writes go to scratch, an empty bucket in memory (the sample buckets are read-only)"
  printf 'hello\n' > hello.txt
  run kodo put hello.txt scratch/docs/
  printf 'hello again\n' > hello.txt
  bold "\$ kodo put hello.txt scratch/docs/   # other bytes: the existing object is not replaced"
  kodo put hello.txt scratch/docs/ || true
  run kodo cp scratch/docs/hello.txt scratch/docs/copy.txt
  run kodo ls -r scratch
  run kodo rm -r --yes scratch/docs
)

echo
echo "── Aliyun OSS: the same buckets through kodo-emulator --protocol oss"
(
  paste_export oss
  run kodo buckets
  run kodo ls -r -l logs/2024-06-01/
  run kodo stat photos "2024/summer trip/sunset.png"
  run kodo url --expires 15m logs 2024-06-01/app.log
  run kodo du logs
  run kodo cat --range 0-99 photos index.html
  echo
)

if [ -t 0 ] && [ -t 1 ]; then
  echo
  read -r -p "Press Enter to browse the Kodo buckets with kodo browse (q quits, ? shows the keys) " _
  (
    eval "$(grep '^export ' "$work/kodo.out" | head -n 1)"
    kodo browse photos || true
  )
else
  echo
  echo "(On a terminal, make demo ends in kodo browse photos; not here: no terminal.)"
fi

echo
echo "The emulators stop now. To keep one: export PATH=\"\$(swift build --show-bin-path):\$PATH\","
echo "run kodo-emulator ${buckets[*]}"
echo "and paste the export line it prints into another shell (README.md, Getting started)."
