#!/usr/bin/env bash
# Copyright 2026 The transmission_plugins Authors
# SPDX-License-Identifier: Apache-2.0
#
# Run the ROS integration tests (test/ros) N times in a row (default 10) while busy loops keep
# every core loaded, to find tests that fail under load. Each run's log is kept in a temporary
# directory; the script prints one line per run and exits non-zero when any run failed.
# Usage: scripts/stress_ros.sh [N] [extra pytest arguments]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
runs="${1:-10}"
shift || true
venv="${TP_VENV:-$root/.venv}"
[ -x "$venv/bin/python" ] || "$root/scripts/setup_env.sh"
export AMENT_PREFIX_PATH="$venv${AMENT_PREFIX_PATH:+:$AMENT_PREFIX_PATH}"
export ROS_AUTOMATIC_DISCOVERY_RANGE="${ROS_AUTOMATIC_DISCOVERY_RANGE:-LOCALHOST}"
export PYTHONDONTWRITEBYTECODE=1
logs="$(mktemp -d "${TMPDIR:-/tmp}/stress_ros.XXXXXX")"
hogs=()
for _ in $(seq "$(nproc)"); do
  "$venv/bin/python" -c 'while True: pass' &
  hogs+=("$!")
done
trap 'kill "${hogs[@]}" 2>/dev/null || true' EXIT
cd "$root"
failed=0
for i in $(seq "$runs"); do
  start=$(date +%s)
  set +e
  "$venv/bin/python" -m pytest -p no:cacheprovider -q "$@" test/ros > "$logs/run_$i.log" 2>&1
  rc=$?
  set -e
  [ "$rc" -eq 0 ] || failed=$((failed + 1))
  echo "run $i/$runs: exit $rc in $(( $(date +%s) - start )) s," \
    "load $(cut -d' ' -f1 /proc/loadavg): $(tail -n 1 "$logs/run_$i.log")"
done
echo "stress_ros: $failed of $runs runs failed; logs in $logs"
[ "$failed" -eq 0 ]
