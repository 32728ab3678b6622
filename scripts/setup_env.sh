#!/usr/bin/env bash
# Copyright 2026 The transmission_plugins Authors
# SPDX-License-Identifier: Apache-2.0
#
# Create (or refresh) the project's virtual environment from the pinned lock file.
# Usage: scripts/setup_env.sh [VENV_DIR]   (default: .venv next to this repository's root)
# Idempotent: re-installs only when requirements.lock.txt or setup.cfg changed.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="${1:-${TP_VENV:-$root/.venv}}"
python="${PYTHON:-python3}"
stamp="$venv/.transmission_plugins.stamp"
want="$(cat "$root/requirements.lock.txt" "$root/setup.cfg" "$root/setup.py" | sha256sum | cut -c1-16)"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && [ -x "$venv/bin/python" ]; then
  exit 0
fi
ver="$("$python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')"
case "$ver" in
  3.10|3.11|3.12|3.13) ;;
  *) echo "setup_env: Python $ver found; the ROS 2 wheels need CPython 3.10-3.13 (set PYTHON=)" >&2
     exit 1 ;;
esac
echo "setup_env: creating $venv with Python $ver (under a minute on a fresh machine)" >&2
[ -x "$venv/bin/python" ] || "$python" -m venv "$venv"
# uv installs the lock: the same pinned distributions as pip, downloaded in parallel and not
# byte-compiled up front (several times faster than pip on a fresh machine); pip bootstraps uv
# at the version the lock pins, and installs the package itself
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
  "$(grep '^uv==' "$root/requirements.lock.txt")" 2>&1 | grep -v '^WARNING: Location' >&2 || true
"$venv/bin/uv" pip install --quiet --python "$venv/bin/python" -r "$root/requirements.lock.txt"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps \
  --no-build-isolation -e "$root" 2>&1 | grep -v '^WARNING: Location' >&2 || true
"$venv/bin/python" -c 'import rclpy, numpy, urdf_parser_py, xacro, transmission_plugins' \
  || { echo "setup_env: the environment is incomplete" >&2; exit 1; }
echo "$want" > "$stamp"
