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

# The venv as a ROS 2 prefix holding this package, as `colcon build --symlink-install` installs
# it into a workspace: the ament index entries and share/transmission_plugins (links into this
# tree), the executables in lib/transmission_plugins (setup.cfg's script_dir), so that
# `ros2 launch` and `ros2 run` find the package; and bin/activate puts the venv on
# AMENT_PREFIX_PATH, as a workspace's install/setup.bash does (doc/launch.md). Idempotent; run
# on every call, so that a venv made before it gets it too.
register_in_venv() {
  local index="$venv/share/ament_index/resource_index" share="$venv/share/transmission_plugins"
  local plugin="transmission_plugins__pluginlib__plugin" f exe
  mkdir -p "$index/packages" "$index/$plugin" "$share"
  ln -sfn "$root/resource/transmission_plugins" "$index/packages/transmission_plugins"
  ln -sfn "$root/resource/$plugin/transmission_plugins" "$index/$plugin/transmission_plugins"
  # files linked one by one, as colcon does (ros2 launch walks the share directory and does
  # not follow a linked directory); the lists are setup.py's data_files
  rm -rf "${share:?}"/launch "$share"/config "$share"/urdf
  mkdir -p "$share/launch" "$share/config" "$share/urdf"
  (cd "$root" && for f in package.xml transmission_plugins.xml launch/*.launch.* config/*.yaml \
                          urdf/*; do
     if [ -f "$f" ]; then ln -sfn "$root/$f" "$share/$f"; fi
   done)
  for exe in hardware_interface_node mock_actuators_node sim_interface_node \
             transmission_hardware_launch transmission_plugins; do
    [ -x "$venv/lib/transmission_plugins/$exe" ] || {
      echo "setup_env: $venv/lib/transmission_plugins/$exe is missing (ros2 run needs it)" >&2
      return 1; }
  done
  grep -q '^# >>> transmission_plugins' "$venv/bin/activate" || cat >> "$venv/bin/activate" <<'EOF'
# >>> transmission_plugins (scripts/setup_env.sh): this venv is a ROS 2 prefix holding the
# package; ros2 launch and ros2 run find packages on AMENT_PREFIX_PATH (deactivate keeps it)
case ":${AMENT_PREFIX_PATH:-}:" in
  *":$VIRTUAL_ENV:"*) ;;
  *) AMENT_PREFIX_PATH="$VIRTUAL_ENV${AMENT_PREFIX_PATH:+:$AMENT_PREFIX_PATH}"
     export AMENT_PREFIX_PATH ;;
esac
# <<< transmission_plugins
EOF
}

if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && [ -x "$venv/bin/python" ]; then
  register_in_venv
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
register_in_venv
echo "$want" > "$stamp"
