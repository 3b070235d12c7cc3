#!/usr/bin/env bash
# ensure-venv.sh VENV MODULES PURPOSE PACKAGE...: makes the git-ignored virtualenv VENV with the
# PyPI PACKAGEs unless its python already imports MODULES (comma-separated), installing
# python3-venv from apt when it is missing. PURPOSE names the make target in messages.
set -euo pipefail
venv=$1 modules=$2 purpose=$3
shift 3
if [ -x "$venv/bin/python" ] && "$venv/bin/python" -c "import $modules" 2>/dev/null; then
  exit 0
fi
if ! python3 -m venv --help >/dev/null 2>&1 || ! python3 -c "import ensurepip" 2>/dev/null; then
  if command -v apt-get >/dev/null 2>&1; then
    SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
    echo "kodo: installing python3-venv for $purpose"
    $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq python3 python3-venv >/dev/null
  else
    echo "kodo: $purpose needs python3 with venv (e.g. apt-get install python3-venv)" >&2
    exit 1
  fi
fi
rm -rf "$venv" && python3 -m venv "$venv"
"$venv/bin/pip" install -q --disable-pip-version-check "$@"
