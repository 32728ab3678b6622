#!/usr/bin/env bash
# Copyright 2026 The transmission_plugins Authors
# SPDX-License-Identifier: Apache-2.0
#
# Run the conversion tests against the compiled kernel built with AddressSanitizer and
# UndefinedBehaviorSanitizer (any report ends the run with a failure): the kernel's fuzz test,
# every transmission's tests and the robot's flat description.  The sanitized build goes to a
# temporary copy of the repository's files, never to the source tree, with ../shared beside it
# when the repository has it.
# Usage: scripts/sanitize.sh [pytest arguments]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="${TP_VENV:-$root/.venv}"
top="$(mktemp -d /tmp/tp_sanitize.XXXXXX)"
trap 'rm -rf "$top"' EXIT
tmp="$top/repo"
mkdir "$tmp"
if [ -d "$root/../shared" ]; then ln -s "$(cd "$root/../shared" && pwd)" "$top/shared"; fi
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
# the runtimes are preloaded into pytest's Python only: a child process (xacro's, under a memory
# bound that ASan's shadow memory does not fit in) starts without them
"$venv/bin/python" -c 'import os, sys, pytest; del os.environ["LD_PRELOAD"]; sys.exit(pytest.main(sys.argv[1:]))' \
  -p no:cacheprovider -q -n 0 test/core test/transmissions \
  test/robot/test_flat_description.py test/robot/test_out_buffers.py "$@"
