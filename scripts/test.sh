#!/usr/bin/env bash
# Copyright 2026 The transmission_plugins Authors
# SPDX-License-Identifier: Apache-2.0
#
# Set up the pinned environment and run the test suite (unit, lint, ROS integration, and the
# real ROS 2 tools and ros2_control when ../shared/ros2_cli and ../shared/ros2_control are there
# to install them).
#
#   scripts/test.sh [OPTIONS]      the whole suite in three stages (test/stages.py): lint, then
#                                  the in-process unit tests, then the tests that start
#                                  processes; the first failing stage ends the run.  OPTIONS
#                                  (e.g. --durations=30, -x, --cov=...) go to every stage;
#                                  coverage is appended across the stages.
#   scripts/test.sh PATHS|-k EXPR  one pytest run with those arguments (also --stage NAME, -m)
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
pytest=("$venv/bin/python" -m pytest -p no:cacheprovider -q)

# pytest's exit status, 5 (no tests collected) made a failure
run_pytest() {
  local rc=0
  "${pytest[@]}" "$@" || rc=$?
  if [ "$rc" -eq 5 ]; then
    echo "test.sh: pytest collected no tests; treating that as a failure" >&2
    rc=1
  fi
  return "$rc"
}

# arguments that choose tests (a path, -k, -m, --stage, a node id) make one pytest run
selects=0 paths=0
for arg in "$@"; do
  case "$arg" in
    -k|-k?*|-m|-m?*|--stage|--stage=*|--deselect|--deselect=*|--lf|--last-failed) selects=1 ;;
    -*) ;;
    *) if [ -e "${arg%%::*}" ]; then selects=1 paths=1; fi ;;
  esac
done
if [ "$selects" -eq 1 ]; then
  # two workers, each test module on one of them (test/conftest.py); -n 0 runs serially
  if [ "$paths" -eq 1 ]; then
    run_pytest -n 2 --dist loadfile "$@"
  else
    run_pytest -n 2 --dist loadfile "$@" test
  fi
  exit
fi

# the stages: each collects the whole suite and keeps its own tests; the ledgers they write
# prove that together they ran every test exactly once (test/stages.py)
ledger="$(mktemp -d "${TMPDIR:-/tmp}/tp_stages.XXXXXX")"
trap 'rm -rf "$ledger"' EXIT
export TP_STAGE_LEDGER="$ledger"
coverage=()
for arg in "$@"; do
  case "$arg" in --cov|--cov=*) coverage=(--cov-append) ;; esac
done
start=$SECONDS
for stage in lint unit process; do
  echo "=== test.sh: stage $stage (test/stages.py)"
  begun=$SECONDS
  rc=0
  # lint and unit first: a style, type, layering or unit failure ends the run in minutes
  extra=()
  if [ "$stage" != lint ]; then extra=("${coverage[@]}"); fi
  # the tests that start processes mostly wait on them (with two workers the two cores were
  # half idle): four workers for them, two for the rest
  workers=2
  if [ "$stage" = process ]; then workers=4; fi
  run_pytest -n "$workers" --dist loadfile --stage "$stage" "${extra[@]}" "$@" test || rc=$?
  echo "=== test.sh: stage $stage: exit $rc in $(( SECONDS - begun )) s"
  if [ "$rc" -ne 0 ]; then
    echo "test.sh: stage $stage failed; the later stages were not run" >&2
    exit "$rc"
  fi
done
"$venv/bin/python" "$root/test/stages.py" check "$ledger"
echo "=== test.sh: all stages passed in $(( SECONDS - start )) s"
