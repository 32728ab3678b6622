#!/usr/bin/env bash
# Copyright 2026 The transmission_plugins Authors
# SPDX-License-Identifier: Apache-2.0
#
# The check before a release: the ROS integration tests (test/ros) and the stop tests of the
# real ROS 2 tools (test/ros_cli/test_stop_cli.py, every way of stopping repeated 5 times) run N
# times in a row (default 5) while one busy loop keeps a core loaded, as the product promises
# (nodes stop cleanly on an idle machine and with one busy loop running).  Each run's log is
# kept in a temporary directory; the script prints one line per run and exits non-zero when any
# run failed.  TP_STRESS_LOOPS sets the number of busy loops (default 1).
# Usage: scripts/stress_ros.sh [N] [extra pytest arguments]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
runs="${1:-5}"
shift || true
"$root/scripts/setup_env.sh"
venv="${TP_VENV:-$root/.venv}"
ros2_cli="$root/../shared/ros2_cli/install.sh"
if [ -f "$ros2_cli" ]; then
  bash "$ros2_cli" "$venv"
fi
export AMENT_PREFIX_PATH="$venv${AMENT_PREFIX_PATH:+:$AMENT_PREFIX_PATH}"
export ROS_AUTOMATIC_DISCOVERY_RANGE="${ROS_AUTOMATIC_DISCOVERY_RANGE:-LOCALHOST}"
# bytecode cached beside the venv, outside the source tree: the tree stays clean and the
# hundreds of node and tool processes the tests start do not each recompile the package
unset PYTHONDONTWRITEBYTECODE
export PYTHONPYCACHEPREFIX="$venv/pycache"
export TP_ROS_CLI_REPEATS="${TP_ROS_CLI_REPEATS:-5}"
logs="$(mktemp -d "${TMPDIR:-/tmp}/stress_ros.XXXXXX")"
hogs=()
for _ in $(seq "${TP_STRESS_LOOPS:-1}"); do
  "$venv/bin/python" -c 'while True: pass' &
  hogs+=("$!")
done
trap 'kill "${hogs[@]}" 2>/dev/null || true' EXIT
cd "$root"
failed=0
for i in $(seq "$runs"); do
  start=$(date +%s)
  set +e
  "$venv/bin/python" -m pytest -p no:cacheprovider -q "$@" test/ros \
    test/ros_cli/test_stop_cli.py > "$logs/run_$i.log" 2>&1
  rc=$?
  set -e
  [ "$rc" -eq 0 ] || failed=$((failed + 1))
  echo "run $i/$runs: exit $rc in $(( $(date +%s) - start )) s," \
    "load $(cut -d' ' -f1 /proc/loadavg): $(tail -n 1 "$logs/run_$i.log")"
done
echo "stress_ros: $failed of $runs runs failed; logs in $logs"
[ "$failed" -eq 0 ]
