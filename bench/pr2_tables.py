# Copyright 2026 The transmission_plugins Authors
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.

"""
Print the PR2 figures of the README (section "PR2 tables").

* the reflected-inertia matrix of a PR2 wrist (rotor inertia assumed, see ``WRIST_ROTOR``);
* the gripper's gap-to-motor table with the real PR2 parameters;
* the time of the gripper's batch conversions.

Run ``python bench/pr2_tables.py [path/to/pr2.urdf]``; without the shared corpus the PR2 values
written below (copied from pr2.urdf's ``r_wrist_trans`` and ``r_gripper_trans``) are used.
"""

import argparse
from pathlib import Path
import sys
import time

import benchlib  # noqa: F401 - puts the package of a fresh clone on the path
from benchlib import add_log_option
from benchlib import logged
import numpy as np

from transmission_plugins import PR2GripperTransmission
from transmission_plugins import WristTransmission
from transmission_plugins.robot.actuators import ActuatorModel
from transmission_plugins.robot.inertia import reflected_inertia
from transmission_plugins.urdf.records import TransmissionInfo

DEFAULT_URDF = Path(__file__).resolve().parents[1] / '..' / 'shared' / 'urdf_corpus' / 'pr2.urdf'

#: Assumed rotor inertia of a PR2 wrist motor (kg m^2).  PR2's actuator configuration names
#: Maxon RE 30 motors for the wrist; ~33.3 g cm^2 is the order of the RE 30 catalogue value.  It
#: is an assumption for illustration, not a value read from PR2 data.
WRIST_ROTOR = 33.3e-7
WRIST = {'actuator_reduction': (60.17142857142857, 60.17142857142857),
         'joint_reduction': (-1.0, 1.0)}
GRIPPER = {'screw_reduction': 0.004, 'gear_ratio': 40.095, 'theta0': 0.0628824676201037,
           'phi0': 0.5185181221457433, 't0': -0.0001914, 'L0': 0.0375528, 'h': 0.0,
           'a': 0.0683698, 'b': 0.043384900000000004, 'r': 0.0915, 'num_simulated_joints': 2}
GAPS = (0.0, 0.01, 0.03, 0.06, 0.09)


def load(urdf: Path):
    """Return (wrist, gripper, source) read from ``urdf``, or the built-in PR2 values."""
    if urdf.is_file():
        from lxml import etree
        root = etree.parse(str(urdf)).getroot()
        out = []
        for cls, name in ((WristTransmission, 'r_wrist_trans'),
                          (PR2GripperTransmission, 'r_gripper_trans')):
            element = root.find(f"transmission[@name='{name}']")
            info = TransmissionInfo(name=name, type=element.get('type'), element=element,
                                    path=f"/robot/transmission[@name='{name}']")
            out.append(cls.from_info(info).transmission)
        return out[0], out[1], str(urdf)
    return (WristTransmission(**WRIST), PR2GripperTransmission(**GRIPPER),
            'built-in copy of the pr2.urdf values')


def wrist_table(wrist: WristTransmission) -> None:
    """Print the wrist's reflected-inertia matrix, equal motors and a 10 % mismatch."""
    print('## PR2 wrist reflected inertia, M = J^T diag(I_r) J, J = d(motor)/d(flex, roll)')
    print(f'rotor inertia I_r = {WRIST_ROTOR:.3e} kg m^2 per motor (assumed), reductions '
          f'{wrist.get_actuator_reduction()[0]:.6g} (motors), '
          f'{wrist.get_joint_reduction()} (flex, roll)')
    for label, inertias in (('equal motors', [WRIST_ROTOR, WRIST_ROTOR]),
                            ('left motor +10 %', [WRIST_ROTOR, 1.1 * WRIST_ROTOR])):
        models = [ActuatorModel('r', rotor_inertia=inertias[0]),
                  ActuatorModel('l', rotor_inertia=inertias[1])]
        m = reflected_inertia(wrist, models)
        print(f'{label} (kg m^2, rows/cols flex, roll):')
        for row in m:
            print('  [' + ', '.join(f'{x: .6e}' for x in row) + ']')


def gripper_table(gripper: PR2GripperTransmission) -> None:
    """Print motor position, revolutions, finger angle and ratios at the table's gaps."""
    width = gripper.num_joints()
    q = np.zeros((len(GAPS), width))
    q[:, 0] = GAPS
    effort = np.zeros_like(q)
    effort[:, 0] = 1.0
    out = gripper.joint_to_actuator({'position': q, 'effort': effort})
    motor = out['position'][:, 0]
    jac = gripper.joint_to_actuator_jacobian(q)[:, 0, 0]
    finger = gripper.actuator_to_joint({'position': motor[:, None]})['position'][:, 1]
    print('## PR2 gripper gap to motor (r_gripper_trans parameters, mechanical_reduction 1)')
    print('| gap (m) | motor (rad) | motor (rev) | finger joint (rad) | d motor / d gap (rad/m) '
          '| motor torque per N of gap force (N m) | reflected inertia per 1e-6 kg m^2 rotor '
          '(kg) |')
    print('|---|---|---|---|---|---|---|')
    for gap, m, f, j, e in zip(GAPS, motor, finger, jac, out['effort'][:, 0]):
        print(f'| {gap:.2f} | {m:.4f} | {m / (2 * np.pi):.4f} | {f:.5f} | {j:.1f} | {e:.3e} | '
              f'{1e-6 * j * j:.4f} |')


def gripper_timing(gripper: PR2GripperTransmission) -> None:
    """Time batch conversions of position, velocity and effort in both directions."""
    print('## PR2 gripper batch conversion time (position + velocity + effort, best of 5)')
    rng = np.random.default_rng(1234)
    for n in (1_000, 100_000, 1_000_000):
        pa = rng.uniform(0.0, 1405.7, (n, 1))
        act = {'position': pa, 'velocity': pa * 0.1, 'effort': pa * 1e-3}
        joint = gripper.actuator_to_joint(act)
        for label, call, arg in (('actuator->joint', gripper.actuator_to_joint, act),
                                 ('joint->actuator', gripper.joint_to_actuator, joint)):
            best = min(_time(call, arg) for _ in range(5))
            print(f'{label:16s} n={n:>9,d}: {best * 1e3:9.3f} ms, '
                  f'{best / n * 1e9:8.1f} ns/sample')


def _time(call, arg) -> float:
    start = time.perf_counter()
    call(arg)
    return time.perf_counter() - start


def main(argv=None) -> int:
    """Print the three tables."""
    parser = argparse.ArgumentParser(
        description='Print the PR2 tables of doc/performance.md: wrist reflected inertia, '
                    'gripper gap to motor, gripper batch conversion time.')
    parser.add_argument('urdf', nargs='?', type=Path, default=DEFAULT_URDF,
                        help='pr2.urdf to read r_wrist_trans and r_gripper_trans from (default '
                             '../shared/urdf_corpus/pr2.urdf; without it, a built-in copy of '
                             'their values)')
    add_log_option(parser)
    args = parser.parse_args(argv)
    with logged(args, 'PR2 wrist and gripper tables'):
        return _run(args)


def _run(args: argparse.Namespace) -> int:
    """Measure and print (see the module docstring)."""
    wrist, gripper, source = load(args.urdf)
    print(f'PR2 parameters from {source}\n')
    wrist_table(wrist)
    print()
    gripper_table(gripper)
    print()
    gripper_timing(gripper)
    return 0


if __name__ == '__main__':
    sys.exit(main())
