#!/usr/bin/env bash
# Copyright 2026 The transmission_plugins Authors
# SPDX-License-Identifier: Apache-2.0
#
# Set up the pinned environment and run the whole test suite (unit, lint, ROS integration).
# Extra arguments go to pytest, e.g. scripts/test.sh -k gripper
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/setup_env.sh"
venv="${TP_VENV:-$root/.venv}"
export AMENT_PREFIX_PATH="$venv${AMENT_PREFIX_PATH:+:$AMENT_PREFIX_PATH}"
export ROS_AUTOMATIC_DISCOVERY_RANGE="${ROS_AUTOMATIC_DISCOVERY_RANGE:-LOCALHOST}"
export PYTHONDONTWRITEBYTECODE=1
cd "$root"
set +e
"$venv/bin/python" -m pytest -p no:cacheprovider -q -rs "$@" test
rc=$?
set -e
if [ "$rc" -eq 5 ]; then
  echo "test.sh: pytest collected no tests; treating that as a failure" >&2
  exit 1
fi
exit "$rc"
