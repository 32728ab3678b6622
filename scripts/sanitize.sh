#!/usr/bin/env bash
# Copyright 2026 The transmission_plugins Authors
# SPDX-License-Identifier: Apache-2.0
#
# Run the conversion tests against the compiled kernel built with AddressSanitizer and
# UndefinedBehaviorSanitizer (any report ends the run with a failure): the kernel's fuzz test,
# every transmission's tests and the robot's flat description.  The sanitized build goes to a
# temporary copy of the repository's files, never to the source tree.  Tests that need
# ../shared skip there (they ran against the normal build).
# Usage: scripts/sanitize.sh [pytest arguments]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="${TP_VENV:-$root/.venv}"
tmp="$(mktemp -d /tmp/tp_sanitize.XXXXXX)"
trap 'rm -rf "$tmp"' EXIT
(cd "$root" && git ls-files -z --cached --others --exclude-standard \
  | xargs -0 cp --parents -t "$tmp")
cd "$tmp"
flags="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
CFLAGS="$flags" LDFLAGS="$flags" "$venv/bin/python" setup.py -q build_ext --inplace \
  > "$tmp/build.log" 2>&1 || { cat "$tmp/build.log" >&2; exit 1; }
export ASAN_OPTIONS="detect_leaks=0:abort_on_error=1"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
export LD_PRELOAD="$(gcc -print-file-name=libasan.so) $(gcc -print-file-name=libubsan.so)"
export PYTHONPATH="$tmp" TP_FORBID_SKIPS=0
"$venv/bin/python" -m pytest -p no:cacheprovider -q -n 0 test/core test/transmissions \
  test/robot/test_flat_description.py test/robot/test_out_buffers.py "$@"
