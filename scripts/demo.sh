#!/usr/bin/env bash
# Copyright 2026 The transmission_plugins Authors
# SPDX-License-Identifier: Apache-2.0
#
# Set up the pinned environment and run the demo on the bundled example robot.
# Extra arguments go to the demo, e.g. scripts/demo.sh --duration 10
# Exit status (the demo's): 0 the joints tracked every target; 1 a tracking error on a machine
# that kept up, or the nodes failed; 75 targets missed only while the machine was too busy
# (stale mock states, missed cycles): not a transmission error, run it again on an idle machine.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/setup_env.sh"
venv="${TP_VENV:-$root/.venv}"
export AMENT_PREFIX_PATH="$venv${AMENT_PREFIX_PATH:+:$AMENT_PREFIX_PATH}"
export ROS_AUTOMATIC_DISCOVERY_RANGE="${ROS_AUTOMATIC_DISCOVERY_RANGE:-LOCALHOST}"
cd "$root"
exec "$venv/bin/python" -m transmission_plugins demo "$@"
