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
The compiled kernel against the numpy references, on random robots and hostile inputs.

A property test (hypothesis, derandomised) builds robots of random transmissions (every built-in
kind, the mechanisms with random geometry or tables) placed at random in the robot's vectors,
and feeds batches of random values through the robot's flat description, both directions:

* inside the mechanisms' ranges, every output agrees with the numpy reference of its
  transmission (``numpy_references.py``: the package's numpy maths before the kernel) to 1e-9
  relative, the linear rows to the last bit (they sum the same terms in the same order), and NaN
  appears exactly where the reference has it;
* anywhere (NaN, infinities, huge and tiny numbers), the process survives and every output is
  a number or NaN where the reference says so (a value outside a mechanism's workspace is NaN,
  in bounded time).

Then the loader: every malformed description (indices out of range, lengths that disagree,
wrong types, wrong parameter counts) is refused with an error, never a crash.
"""

import math

from hypothesis import given
from hypothesis import HealthCheck
from hypothesis import settings
from hypothesis import strategies as st
import numpy as np
from numpy_references import linear_reference
from numpy_references import reference
import pytest

from transmission_plugins import CouplingTransmission
from transmission_plugins import DifferentialTransmission
from transmission_plugins import FourBarLinkageTransmission
from transmission_plugins import ParallelAnkleTransmission
from transmission_plugins import PR2GripperTransmission
from transmission_plugins import SeriesElasticTransmission
from transmission_plugins import SimpleTransmission
from transmission_plugins import SliderCrankTransmission
from transmission_plugins import TableTransmission
from transmission_plugins.core import kernel
from transmission_plugins.core.flat_description import Block
from transmission_plugins.core.flat_description import FlatDescription
from transmission_plugins.core.mechanism import Mechanism

FUZZ = settings(max_examples=120, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
FIELDS = ('position', 'velocity', 'effort')
GRIPPER = {'screw_reduction': 0.004, 'gear_ratio': 40.095, 'theta0': 0.0628824676201037,
           'phi0': 0.5185181221457433, 't0': -0.0001914, 'L0': 0.0375528, 'h': 0.0,
           'a': 0.0683698, 'b': 0.0433849, 'r': 0.0915, 'mechanical_reduction': 1.0}
HOSTILE = (math.nan, math.inf, -math.inf, 1e300, -1e300, 5e-324, 0.0, -0.0)


@st.composite
def transmissions(draw):
    """Draw one transmission of any built-in kind, with random parameters."""
    kind = draw(st.sampled_from(('simple', 'differential', 'four_bar', 'coupling', 'ankle',
                                 'slider', 'crank', 'table', 'gripper', 'series_elastic')))
    reduction = st.floats(0.1, 200.0).map(lambda x: x * draw(st.sampled_from((-1.0, 1.0))))
    if kind == 'simple':
        return SimpleTransmission(draw(reduction), draw(st.floats(-2.0, 2.0)))
    if kind in ('differential', 'four_bar'):
        cls = DifferentialTransmission if kind == 'differential' else FourBarLinkageTransmission
        return cls([draw(reduction), draw(reduction)], [draw(reduction), draw(reduction)],
                   [draw(st.floats(-1.0, 1.0)), draw(st.floats(-1.0, 1.0))])
    if kind == 'coupling':
        m = draw(st.integers(1, 3))
        rng = np.random.default_rng(draw(st.integers(0, 1000)))
        return CouplingTransmission(rng.normal(size=(m, m)) + 3.0 * np.eye(m))
    if kind == 'ankle':
        ankle = ParallelAnkleTransmission.example()[0]
        if draw(st.booleans()):   # the mirror image: the other side's ankle
            flip = np.array([1.0, -1.0, 1.0])
            ankle = ParallelAnkleTransmission(
                **{k: (np.array(v) * flip)[::-1] for k, v in ankle.parameters().items()})
        return ankle
    if kind == 'slider':
        return SliderCrankTransmission(
            lever_tip=[0.05, 0.0], slider_tip=[draw(st.floats(0.04, 0.08)), 0.25],
            slider_axis=[draw(st.floats(-0.2, 0.2)), 1.0])
    if kind == 'crank':   # a crank-rocker whose joint travels past pi on one side
        return SliderCrankTransmission(lever_tip=[0.1, 0.0], crank_pivot=[0.0, 0.3],
                                       crank_tip=[draw(st.floats(0.03, 0.06)), 0.3])
    if kind == 'table':
        n = draw(st.integers(2, 8))
        rng = np.random.default_rng(draw(st.integers(0, 1000)))
        x = np.cumsum(rng.uniform(0.1, 1.0, n)) - 2.0
        y = np.cumsum(rng.uniform(0.05, 1.0, n)) * draw(st.sampled_from((-1.0, 1.0)))
        return TableTransmission(x, y, draw(st.sampled_from(('nan', 'linear'))))
    if kind == 'series_elastic':
        spring = {'stiffness': draw(st.floats(10.0, 5000.0))}
        if draw(st.booleans()):   # a measured table, not through the origin
            n = draw(st.integers(2, 6))
            rng = np.random.default_rng(draw(st.integers(0, 1000)))
            spring = {'deflections': np.cumsum(rng.uniform(0.005, 0.05, n)) - 0.06,
                      'torques': np.cumsum(rng.uniform(1.0, 100.0, n)) - 150.0}
        return SeriesElasticTransmission(draw(reduction), damping=draw(st.floats(0.0, 20.0)),
                                         joint_offset=draw(st.floats(-1.0, 1.0)), **spring)
    return PR2GripperTransmission(**GRIPPER, num_passive_joints=draw(st.integers(0, 3)),
                                  num_simulated_joints=draw(st.integers(0, 2)))


@st.composite
def robots(draw):
    """Draw transmissions placed at random in the robot's joint and actuator vectors."""
    parts = draw(st.lists(transmissions(), min_size=1, max_size=5))
    nj = sum(t.num_joints() for t in parts)
    na = sum(t.num_actuators() for t in parts)
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    joints, actuators = rng.permutation(nj), rng.permutation(na)
    blocks, j, a = [], 0, 0
    for t in parts:
        blocks.append(Block(t, joints[j:j + t.num_joints()],
                            actuators[a:a + t.num_actuators()]))
        j += t.num_joints()
        a += t.num_actuators()
    return blocks, nj, na


def _inside(block, samples, rng):
    """Return joint positions inside the block's mechanism (its range), ``(samples, M)``."""
    t = block.transmission
    if isinstance(t, ParallelAnkleTransmission):
        return rng.uniform([-0.6, -0.25], [0.4, 0.25], (samples, 2))
    if isinstance(t, SliderCrankTransmission):
        low, high = t.joint_range()
        return rng.uniform(low + 0.05 * (high - low), high - 0.05 * (high - low), (samples, 1))
    if isinstance(t, TableTransmission):
        y = np.array(t.parameters()['joint_position'])
        return rng.uniform(y.min(), y.max(), (samples, 1))
    if isinstance(t, PR2GripperTransmission):
        q = np.zeros((samples, t.num_joints()))
        q[:, 0] = rng.uniform(0.005, 0.08, samples)
        return q
    return rng.uniform(-1.0, 1.0, (samples, t.num_joints()))


def _expected(block, values, to_joint):
    """Return what the block's numpy reference gives for its slice of ``values``."""
    t = block.transmission
    src = block.actuators if to_joint else block.joints
    mine = {k: v[..., src] for k, v in values.items()}
    if t.is_linear():
        jac, inv, q0 = t.linear_map()
        out = {}
        for k, x in mine.items():
            if to_joint:
                m = inv.T if k == 'effort' else jac
                out[k] = linear_reference(m, x) + (q0 if k == 'position' else 0.0)
            else:
                m = jac.T if k == 'effort' else inv
                out[k] = linear_reference(m, x - q0 if k == 'position' else x)
        return out
    ref = reference(t)
    with np.errstate(all='ignore'):
        return ref.actuator_to_joint(mine) if to_joint else ref.joint_to_actuator(mine)


def _compare(flat, values, to_joint, exact_nan=True):
    got = flat.convert(values, to_joint)
    for block in flat.blocks:
        expected = _expected(block, values, to_joint)
        dst = block.joints if to_joint else block.actuators
        for k, want in expected.items():
            have = got[k][..., dst]
            if exact_nan:
                np.testing.assert_array_equal(np.isnan(have), np.isnan(want), err_msg=(
                    f'{block.transmission!r} {k} to_joint={to_joint}'))
            ok = np.isfinite(want) & np.isfinite(have)
            np.testing.assert_allclose(have[ok], want[ok], rtol=1e-9, atol=1e-12, err_msg=(
                f'{block.transmission!r} {k} to_joint={to_joint}'))
            assert np.array_equal(np.isinf(have) & ~ok, np.isinf(want) & ~ok) or not exact_nan
    return got


@FUZZ
@given(robots(), st.integers(1, 6), st.integers(0, 2**16), st.booleans())
def test_the_kernel_gives_the_numpy_references_numbers(robot, samples, seed, warm):
    blocks, nj, na = robot
    rng = np.random.default_rng(seed)
    flat = FlatDescription(blocks, nj, na, warm=warm)
    q = np.zeros((samples, nj))
    for b in blocks:
        q[:, b.joints] = _inside(b, samples, rng)
    joints = {'position': q, 'velocity': rng.normal(size=q.shape),
              'effort': rng.normal(size=q.shape)}
    actuators = _compare(flat, joints, False)
    # back: the actuator states of those joint positions, with velocities and efforts
    states = {'position': actuators['position'], 'velocity': rng.normal(size=(samples, na)),
              'effort': rng.normal(size=(samples, na))}
    for b in blocks:   # a spring deflected, within its table and beyond it
        if isinstance(b.transmission, SeriesElasticTransmission):
            states['position'][:, b.actuators[0]] += rng.normal(scale=0.1, size=samples)
    _compare(flat, states, True)


@FUZZ
@given(robots(), st.integers(1, 4), st.integers(0, 2**16),
       st.lists(st.sampled_from(HOSTILE), min_size=1, max_size=12))
def test_hostile_values_never_crash_and_are_numbers_or_nan(robot, samples, seed, hostile):
    blocks, nj, na = robot
    rng = np.random.default_rng(seed)
    flat = FlatDescription(blocks, nj, na)
    for to_joint, n in ((True, na), (False, nj)):
        values = {k: rng.normal(scale=10.0 ** rng.integers(-3, 4), size=(samples, n))
                  for k in FIELDS}
        for k in FIELDS:
            flat_view = values[k].reshape(-1)
            spots = rng.integers(0, flat_view.size, len(hostile))
            flat_view[spots] = hostile
        unreachable = np.zeros((samples, na), dtype=bool) if not to_joint else None
        got = flat.convert(values, to_joint, unreachable=unreachable)
        for k, y in got.items():
            assert y.shape == (samples, nj if to_joint else na)
            assert y.dtype == np.float64
        # a NaN reaches the linear transmissions' outputs that depend on it, and only those
        # (their other outputs are what the references give); the mechanisms give a number,
        # inf or NaN (their references may stop elsewhere on such values: a different Newton
        # start, a clamp): never a crash
        for block in blocks:
            if block.transmission.is_linear():
                want = _expected(block, values, to_joint)
                dst = block.joints if to_joint else block.actuators
                for k in FIELDS:
                    np.testing.assert_array_equal(np.isnan(got[k][..., dst]), np.isnan(want[k]))


def test_a_reading_outside_the_workspace_costs_a_bounded_budget():
    """G-6: a sample outside a mechanism's workspace is NaN after a fixed, small budget."""
    ankle = ParallelAnkleTransmission.example()[0]
    for warm in (False, True):
        flat = FlatDescription(ankle.description().blocks, 2, 2, warm=warm)
        inside = ankle.actuator_position(np.array([[0.1, 0.05], [0.12, 0.04]]))
        flat.convert({'position': inside}, True)   # a warm start to begin from
        for glitch in ([2.5, 2.5], [0.3, -2.9], [1e9, 0.0], [0.0, math.nan]):
            before = flat.kernel.evaluations
            out = flat.convert({'position': np.array([glitch])}, True)['position']
            assert np.isnan(out).all()
            assert flat.kernel.evaluations - before <= (kernel.NEWTON_EVALUATIONS
                                                        + kernel.WARM_EVALUATIONS)
        before = flat.kernel.evaluations
        assert np.isfinite(flat.convert({'position': inside}, True)['position']).all()
        assert flat.kernel.evaluations - before <= 2 * 8   # inside: a few steps each


def test_a_python_mechanism_outside_its_domain_costs_a_bounded_budget():
    """G-6, the numpy path: Newton's method of a Mechanism written in Python has the budget."""
    calls = []

    class Cubic(Mechanism):
        def num_actuators(self):
            return 1

        def num_joints(self):
            return 1

        def actuator_position_and_jacobian(self, q):
            calls.append(1)
            q = np.asarray(q, dtype=float)
            with np.errstate(all='ignore'):   # defined on q > -1 only
                return q + np.sqrt(q + 1.0) - 1.0, (1.0 + 0.5 / np.sqrt(q + 1.0))[..., None]

    t = Cubic()
    np.testing.assert_allclose(t.joint_position(t.actuator_position([[0.5]])), [[0.5]])
    calls.clear()
    assert np.isnan(t.joint_position([[-5.0]])).all()   # no q maps there
    assert len(calls) <= kernel.NEWTON_EVALUATIONS


def _mechanism(kind, parameters, joints, actuators, inputs):
    return ((kind, parameters, np.array(joints, np.int64), np.array(actuators, np.int64), inputs,
             True),)


_EMPTY = (np.zeros(4, np.int64), np.zeros(0, np.int64), np.zeros(0))
BAD_LOADS = [
    ('rows must be', {'rows': ()}),
    ('row pointers', {'rows': ((np.zeros(3, np.int64), np.zeros(0, np.int64), np.zeros(0)),)
                      * 4}),
    ('column', {'rows': ((np.array([0, 1, 1, 1], np.int64), np.array([7], np.int64),
                          np.array([1.0])),) + (_EMPTY,) * 3}),
    ('float64', {'offset': np.zeros(3, np.int64)}),
    ('joint_offset', {'offset': np.zeros(2)}),
    ('unknown kind', {'mechanisms': _mechanism(99, np.zeros(31), [0, 1], [0, 1], 2)}),
    ('joint index', {'mechanisms': _mechanism(kernel.PARALLEL_ANKLE, np.zeros(31), [0, 5],
                                              [0, 1], 2)}),
    ('twice', {'mechanisms': _mechanism(kernel.PARALLEL_ANKLE, np.zeros(31), [0, 0], [0, 1],
                                        2)}),
    ('parameters', {'mechanisms': _mechanism(kernel.PARALLEL_ANKLE, np.zeros(30), [0, 1],
                                             [0, 1], 2)}),
    ('parameters', {'mechanisms': _mechanism(kernel.TABLE, np.array([1e300] + [0.0] * 40), [0],
                                             [0], 1)}),
    ('parameters', {'mechanisms': _mechanism(kernel.PR2_GRIPPER, np.zeros(25), [0, 1], [0],
                                             1)}),
    ('parameters', {'mechanisms': _mechanism(kernel.SERIES_ELASTIC,
                                             np.array([50.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0]),
                                             [0], [0, 1], 1)}),
    ('parameters', {'mechanisms': _mechanism(kernel.SERIES_ELASTIC, np.zeros(5), [0, 1],
                                             [0, 1], 2)}),
    ('parameters', {'mechanisms': _mechanism(kernel.SERIES_ELASTIC, np.zeros(4), [0], [0, 1],
                                             1)}),
    ('reads', {'mechanisms': _mechanism(kernel.SLIDER_CRANK, np.zeros(20), [0], [0], 0)}),
    ('tuple', {'mechanisms': ((kernel.SLIDER_CRANK,),)}),
]


@pytest.mark.parametrize('match, change', BAD_LOADS)
def test_a_malformed_description_is_refused_never_loaded(match, change):
    args = {'rows': (_EMPTY,) * 4, 'offset': np.zeros(3), 'mechanisms': ()}
    args.update(change)
    with pytest.raises((ValueError, TypeError), match=match):
        kernel.Maps(3, 3, args['rows'], args['offset'], args['mechanisms'])


def test_a_conversion_with_wrong_buffers_is_refused():
    flat = SimpleTransmission(2.0).description()
    x, y = np.zeros(4), np.zeros(4)
    k = flat.kernel
    with pytest.raises(ValueError, match='expected 4'):
        k.convert(True, 4, x, None, None, np.zeros(3), None, None, None, None, None, False)
    with pytest.raises(ValueError, match='go together'):
        k.convert(True, 4, x, None, None, None, None, None, None, None, None, False)
    with pytest.raises(ValueError, match='overlaps'):
        k.convert(True, 4, x, None, None, x, None, None, None, None, None, False)
    with pytest.raises(TypeError, match='float64'):
        k.convert(True, 4, np.zeros(4, np.int64), None, None, y, None, None, None, None, None,
                  False)
    with pytest.raises(TypeError, match='writeable'):
        ro = np.zeros(4)
        ro.setflags(write=False)
        k.convert(True, 4, x, None, None, ro, None, None, None, None, None, False)
    with pytest.raises(ValueError, match='too large or negative'):
        k.convert(True, -5, x, None, None, y, None, None, None, None, None, False)
    with pytest.raises(ValueError, match='joint-to-actuator'):
        k.convert(True, 4, x, None, None, y, None, None, None, np.zeros(4, bool), None, False)
    with pytest.raises(TypeError, match='12 arguments'):
        k.convert(True, 4, x)
