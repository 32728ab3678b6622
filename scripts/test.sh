#!/usr/bin/env bash
# Copyright 2026 The transmission_plugins Authors
# SPDX-License-Identifier: Apache-2.0
#
# Set up the pinned environment and run the whole test suite (unit, lint, ROS integration, and
# the real ROS 2 tools and ros2_control when ../shared/ros2_cli and ../shared/ros2_control are
# there to install them).
# Extra arguments go to pytest, e.g. scripts/test.sh -k gripper
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/setup_env.sh"
venv="${TP_VENV:-$root/.venv}"
# ros2 launch/run/topic/param/lifecycle and ament_copyright for test/ros_cli and
# test/test_copyright.py (idempotent, seconds); without ../shared those tests skip with a reason
ros2_cli="$root/../shared/ros2_cli/install.sh"
if [ -f "$ros2_cli" ]; then
  bash "$ros2_cli" "$venv"
fi
# the real ros2_control C++ stack and tx_probe, for the ros2_control tests (idempotent, seconds);
# without ../shared/ros2_control those tests skip with a reason
ros2_control="$root/../shared/ros2_control/install.sh"
if [ -f "$ros2_control" ]; then
  bash "$ros2_control" "$venv" \
    || echo "test.sh: $ros2_control failed (CPython 3.11, x86_64 only); its tests skip" >&2
fi
export AMENT_PREFIX_PATH="$venv${AMENT_PREFIX_PATH:+:$AMENT_PREFIX_PATH}"
export ROS_AUTOMATIC_DISCOVERY_RANGE="${ROS_AUTOMATIC_DISCOVERY_RANGE:-LOCALHOST}"
# bytecode cached beside the venv, outside the source tree: the tree stays clean and the
# hundreds of node and tool processes the tests start do not each recompile the package
unset PYTHONDONTWRITEBYTECODE
export PYTHONPYCACHEPREFIX="$venv/pycache"
cd "$root"
set +e
# two workers, each test module on one of them (test/conftest.py); -n 0 runs serially
"$venv/bin/python" -m pytest -p no:cacheprovider -q -n 2 --dist loadfile "$@" test
rc=$?
set -e
if [ "$rc" -eq 5 ]; then
  echo "test.sh: pytest collected no tests; treating that as a failure" >&2
  exit 1
fi
exit "$rc"
