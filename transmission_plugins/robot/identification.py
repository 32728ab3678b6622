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

r"""
Identify a transmission's URDF parameters from actuator positions and measured joint positions.

**Linear transmissions** (:math:`q = K\theta + q_0`).  The samples of one transmission are kept
as sufficient statistics (:class:`Samples`: :math:`X^TX`, :math:`X^Ty`, :math:`y^Ty` with
:math:`X = [\theta, 1]`), so a recording of any length costs constant memory.  Least squares
(``numpy.linalg.lstsq``) gives the free fit :math:`\hat K, \hat q_0`, its residual and its
covariance :math:`\sigma^2 (X^TX)^{-1}`.  The URDF's parameters are then fitted to it: the
reductions its class declares (Simple: one; Differential, FourBarLinkage, PR2 wrist: two actuator
and two joint reductions) are scaled by factors :math:`f` (Levenberg-Marquardt on
:math:`\lVert \sqrt{S}\,L^T (K(f) - \hat K)^T \rVert^2`, the extra residual of the data over the
free fit, :math:`LL^T` the covariance of :math:`\theta`), with the offsets free.  The fewest
reductions that explain the recording (an extra residual below 10 % of the free fit's) are the
corrected ones: a single flipped sign or wrong factor shows as that one parameter, the others
keep the URDF's values.  The offsets are :math:`q_0 = \bar q - K\bar\theta`.  Uncertainties are
one standard deviation: :math:`\sigma^2 (J^TJ)^{-1}` for the factors (:math:`J` the Jacobian of
the fit), :math:`\sigma^2 (1 + \bar\theta^T \Sigma_\theta^{-1} \bar\theta) / S` for an offset.

A reduction is *not excited* when the recorded motion cannot tell it: its relative uncertainty in
the free fit is above :data:`EXCITATION` (or its actuator hardly moved);
:class:`NotExcitedError` names every such parameter.  A transmission with too few samples to
tell the noise (fewer than its unknowns plus :data:`MIN_RESIDUAL`: two samples fit a line
exactly, with an uncertainty of 0) is :class:`TooFewSamplesError`.  A sample holding a position
beyond :data:`MAX_POSITION` is not a position (a glitch): it is left out and counted, so that
one such sample cannot overflow the sums.

**Nonlinear transmissions** (the PR2 gripper): only the actuator zero is identified (Gauss-Newton
on :math:`f(\theta - c) = q` over the joints its map reads); it goes to the calibration file, the
URDF has no such parameter.  The words for what is found are :mod:`~.findings`'.
"""

import itertools
from typing import Any
from typing import Callable
from typing import NamedTuple
from typing import Sequence

import numpy as np

from transmission_plugins.core.exceptions import TransmissionInputError
from transmission_plugins.robot.suspected_mistakes import corrected_value
from transmission_plugins.robot.suspected_mistakes import offset_finding
from transmission_plugins.robot.suspected_mistakes import reduction_finding

#: the largest relative standard uncertainty of an identified reduction
EXCITATION = 0.01
#: a model explains the recording when its residual exceeds the free fit's by at most this
EXPLAINS = 0.1
#: nonlinear transmissions keep at most this many samples
MAX_RAW = 20_000
#: the samples a transmission needs beyond the unknowns of its fit, to tell the noise (and so
#: the uncertainties) at all
MIN_RESIDUAL = 10
#: the largest position taken as one (rad or m); a sample beyond is left out
MAX_POSITION = 1e9


class NotExcitedError(TransmissionInputError):
    """The recorded motion does not identify some parameters (the message names them)."""


class TooFewSamplesError(NotExcitedError):
    """A transmission has too few samples to identify anything (the message says how many)."""


def _enough(t: Any, count: int, unknowns: int, what: str) -> None:
    """Raise :class:`TooFewSamplesError` unless ``count`` samples can identify ``t``."""
    need = unknowns + MIN_RESIDUAL
    if count < need:
        raise TooFewSamplesError(
            f'transmission {t.name!r}: {count} sample{"s" if count != 1 else ""} cannot '
            f'identify it: it needs at least {need} ({what}, and {MIN_RESIDUAL} more to tell '
            'the noise and the uncertainties); record a longer motion')


class Samples:
    """
    The samples of one transmission: sufficient statistics, or raw rows (nonlinear).

    :param actuators: its actuator count
    :param joints: its (measured) joint count
    :param raw: keep the rows themselves (at most :data:`MAX_RAW`, evenly thinned)
    """

    def __init__(self, actuators: int, joints: int, raw: bool = False) -> None:
        n = actuators + 1
        self.count = 0
        #: rows left out: a position beyond :data:`MAX_POSITION`
        self.left_out = 0
        self.gram = np.zeros((n, n))
        self.cross = np.zeros((n, joints))
        self.squares = np.zeros(joints)
        self.reference: tuple[np.ndarray, np.ndarray] | None = None
        self._raw: list[tuple[np.ndarray, np.ndarray]] | None = [] if raw else None
        self._stride = 1

    def add(self, theta: np.ndarray, q: np.ndarray) -> None:
        """Add rows of actuator positions ``(S, N)`` and joint positions ``(S, M)``."""
        ok = np.isfinite(theta).all(axis=1) & np.isfinite(q).all(axis=1)
        theta, q = theta[ok], q[ok]
        sane = (np.abs(theta) <= MAX_POSITION).all(axis=1) & (np.abs(q) <= MAX_POSITION).all(
            axis=1)
        self.left_out += int(np.count_nonzero(~sane))
        theta, q = theta[sane], q[sane]
        if not len(theta):
            return
        if self.reference is None:   # shifted, so that large positions do not cancel
            self.reference = (theta[0].copy(), q[0].copy())
        x = np.hstack([theta - self.reference[0], np.ones((len(theta), 1))])
        y = q - self.reference[1]
        self.gram += x.T @ x
        self.cross += x.T @ y
        self.squares += np.einsum('ij,ij->j', y, y)
        self.count += len(theta)
        if self._raw is not None:
            self._raw.append((theta[::self._stride], q[::self._stride]))
            if sum(len(t) for t, _ in self._raw) > MAX_RAW:
                self._raw = [(t[::2], y_[::2]) for t, y_ in self._raw]
                self._stride *= 2

    def rows(self) -> tuple[np.ndarray, np.ndarray]:
        """Return the raw rows kept (nonlinear transmissions)."""
        assert self._raw is not None
        if not self._raw:
            return np.zeros((0, self.gram.shape[0] - 1)), np.zeros((0, self.cross.shape[1]))
        return (np.vstack([t for t, _ in self._raw]), np.vstack([q for _, q in self._raw]))

    def rss(self, k: np.ndarray, q0: np.ndarray) -> np.ndarray:
        """Return each joint's residual sum of squares for ``q = k theta + q0``."""
        assert self.reference is not None
        tr, qr = self.reference
        b = np.vstack([k.T, (q0 + k @ tr - qr)[None, :]])
        return np.maximum(self.squares - 2.0 * np.einsum('ij,ij->j', b, self.cross)
                          + np.einsum('ij,ik,kj->j', b, self.gram, b), 0.0)

    def moments(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Return the mean actuator and joint positions and the actuator covariance."""
        assert self.reference is not None
        n = self.gram.shape[0] - 1
        mean_x = self.gram[n, :n] / self.count
        cov = self.gram[:n, :n] / self.count - np.outer(mean_x, mean_x)
        return mean_x + self.reference[0], self.cross[n] / self.count + self.reference[1], cov


class Parameter(NamedTuple):
    """One identified parameter, in words and numbers."""

    #: ``actuator_reduction``, ``joint_reduction``, ``joint_offset`` or ``actuator_offset``
    name: str
    #: its place among the transmission's parameters of that name (role order)
    slot: int
    #: the actuator or joint it belongs to
    end: str
    urdf: float
    value: float
    #: one standard deviation
    uncertainty: float
    #: the value differs from the URDF's (beyond its uncertainty)
    changed: bool
    #: the suspected mistake in words ('' when none)
    finding: str
    #: the value to write: the URDF's when unchanged, else the identified one (a simple factor
    #: exactly, else rounded to a tenth of its uncertainty: :func:`~.findings.corrected_value`)
    corrected: float


class TransmissionFit(NamedTuple):
    """What the recording says about one transmission."""

    name: str
    type: str  # noqa: A003
    samples: int
    parameters: list[Parameter]
    #: per joint: RMS residual with the URDF's parameters, with the identified ones, free fit
    rms_before: dict[str, float]
    rms_after: dict[str, float]
    rms_free: dict[str, float]
    #: per actuator: the calibration-file offset (measured minus calibrated position) that
    #: makes the URDF's offsets right with the identified reductions
    actuator_offsets: dict[str, float]
    notes: list[str]


class ScaleModel(NamedTuple):
    """The reductions a linear class declares and how to rebuild its map from them."""

    names: list[tuple[str, int, str]]          # (parameter, index, end)
    values: np.ndarray
    build: Callable[[np.ndarray], np.ndarray]   # reductions -> K


def scale_model(t: Any) -> ScaleModel | None:
    """Return the reductions of a Simple or 2x2 transmission (None: another class)."""
    from transmission_plugins.transmissions.coupled_transmission import CoupledTransmission
    from transmission_plugins.transmissions.simple_transmission import SimpleTransmission
    tr = t.transmission
    if isinstance(tr, SimpleTransmission):
        return ScaleModel([('actuator_reduction', 0, t.actuator_names[0])],
                          np.array([tr.get_actuator_reduction()]),
                          lambda p: type(tr)(float(p[0])).linear_map()[0])
    if isinstance(tr, CoupledTransmission):
        names = ([('actuator_reduction', i, a) for i, a in enumerate(t.actuator_names)]
                 + [('joint_reduction', i, j) for i, j in enumerate(t.joint_names)])
        return ScaleModel(names, np.array(tr.get_actuator_reduction()
                                          + tr.get_joint_reduction()),
                          lambda p: type(tr)(list(p[:2]), list(p[2:])).linear_map()[0])
    return None


def _levenberg(residual: Callable[[np.ndarray], np.ndarray], x0: np.ndarray,
               iterations: int = 60) -> tuple[np.ndarray, np.ndarray]:
    """Minimise ``|residual(x)|^2`` from ``x0``; return x and the Jacobian there."""
    x = np.array(x0, dtype=np.float64)
    lam = 1e-3

    def jacobian(x: np.ndarray) -> np.ndarray:
        cols = []
        for i in range(len(x)):
            h = 1e-7 * max(1.0, abs(x[i]))
            e = np.zeros_like(x)
            e[i] = h
            cols.append((residual(x + e) - residual(x - e)) / (2 * h))
        return np.array(cols).T

    r = residual(x)
    for _ in range(iterations):
        j = jacobian(x)
        a = j.T @ j
        step = np.linalg.lstsq(a + lam * np.diag(np.diag(a) + 1e-12), -j.T @ r, rcond=None)[0]
        r_new = residual(x + step)
        if r_new @ r_new < r @ r:
            x, r, lam = x + step, r_new, lam / 3
            if np.all(np.abs(step) <= 1e-13 * (1 + np.abs(x))):
                break
        else:
            lam *= 10
            if lam > 1e12:
                break
    return x, jacobian(x)


def identify(t: Any, samples: Samples) -> TransmissionFit:
    """
    Identify the parameters of robot transmission ``t`` (a ``RobotTransmission``).

    :param samples: its samples: the actuators in ``t.actuator_names`` order and its joints
        (linear: all of them; nonlinear: those its map reads)
    :raises NotExcitedError: a reduction the recorded motion does not identify, or samples
        that cannot be fitted
    :raises TooFewSamplesError: fewer samples than the fit's unknowns plus :data:`MIN_RESIDUAL`
    """
    try:
        if not t.transmission.is_linear():
            fit = _identify_nonlinear(t, samples)
        else:
            fit = _identify_linear(t, samples, np.asarray(t.transmission.linear_map()[2],
                                                          dtype=np.float64))
    except np.linalg.LinAlgError as e:   # sums that overflow, whatever the guards above miss
        raise NotExcitedError(f'transmission {t.name!r}: its {samples.count} samples cannot be '
                              f'fitted ({e}): are they positions?') from e
    if samples.left_out:
        fit.notes.append(f'{samples.left_out} sample{"s" if samples.left_out > 1 else ""} left '
                         f'out: a position beyond +-{MAX_POSITION:g} (rad or m) is not one (a '
                         'glitch?)')
    return fit


def _identify_linear(t: Any, s: Samples, q0_urdf: np.ndarray) -> TransmissionFit:
    tr = t.transmission
    k0 = np.asarray(tr.linear_map()[0], dtype=np.float64)
    m, n = k0.shape
    _enough(t, s.count, n + 1, f'{n + 1} unknowns per joint')
    dof = s.count - n - 1
    solution, *_ = np.linalg.lstsq(s.gram, s.cross, rcond=None)
    rss_free = np.maximum(s.squares - np.einsum('ij,ij->j', solution, s.cross), 0.0)
    sigma2 = rss_free / dof
    mean_theta, mean_q, cov = s.moments()
    _check_excitation(t, s, k0, solution[:n].T, sigma2, cov)
    model = scale_model(t)
    notes: list[str] = []
    chol = np.linalg.cholesky(cov + 1e-300 * np.eye(n)) if np.all(
        np.linalg.eigvalsh(cov) > 0) else np.diag(np.sqrt(np.maximum(np.diag(cov), 1e-300)))
    k_free = solution[:n].T
    pooled = float(rss_free.sum() / max(dof * m, 1))

    def deviation(k: np.ndarray) -> np.ndarray:
        """Return the vector whose squared norm is the extra residual of map ``k``."""
        return (np.sqrt(s.count) * ((k - k_free) @ chol)).ravel()

    def excess(k: np.ndarray) -> float:
        d = deviation(k)
        return float(d @ d)

    factors = np.ones(0)
    uncertainty = np.zeros(0)
    chosen: tuple[int, ...] = ()
    alternatives: list[tuple[int, ...]] = []
    if model is not None:
        chosen, factors, uncertainty, alternatives, explained = _choose_reductions(
            model, deviation, float(rss_free.sum()), pooled, s.count)
        if not explained:
            notes.append(f'the recording does not fit a {t.type.rsplit("/", 1)[-1]} with any '
                         f'choice of reductions (free linear fit: RMS '
                         f'{np.sqrt(rss_free.sum() / s.count / m):.3g}); the closest is used')
        reductions = model.values.copy()
        reductions[list(chosen)] = model.values[list(chosen)] / factors
        k = model.build(reductions)
    else:
        k = k0
        if excess(k0) > EXPLAINS * float(rss_free.sum()) + 1e-18 * s.count * m:
            notes.append(f'its map differs from the recording, but {type(tr).__name__} '
                         'declares no reductions this tool can fit: only the offsets are '
                         'identified')
    q0 = mean_q - k @ mean_theta
    try:
        spread = float(mean_theta @ np.linalg.solve(cov, mean_theta))
    except np.linalg.LinAlgError:
        spread = 0.0
    q0_sigma = np.sqrt(sigma2 * (1.0 + spread) / s.count)
    parameters: list[Parameter] = []
    if model is not None:
        for i, (name, index, end) in enumerate(model.names):
            urdf = float(model.values[i])
            if i in chosen:
                at = chosen.index(i)
                value = urdf / float(factors[at])
                sigma = abs(urdf / float(factors[at]) ** 2) * float(uncertainty[at])
                others = [model.names[a[0]] for a in alternatives if a != chosen and len(a) == 1]
                finding = reduction_finding(name, end, urdf, value, sigma, others)
                parameters.append(Parameter(name, index, end, urdf, value, sigma, True, finding,
                                            corrected_value(urdf, value, sigma, True)))
            else:   # kept: its uncertainty is that of fitting it alone
                _, _, g, sg = _fit_subset(model, deviation, (i,), pooled)
                sigma = abs(urdf / float(g[0]) ** 2) * float(sg[0]) if g[0] else np.inf
                parameters.append(Parameter(name, index, end, urdf, urdf, sigma, False, '',
                                            urdf))
    reductions_of = {p.end: p.value for p in parameters if p.name == 'actuator_reduction'}
    for j, joint in enumerate(t.joint_names):
        finding = offset_finding(joint, float(q0_urdf[j]), float(q0[j]), float(q0_sigma[j]),
                                 reductions_of.get(t.actuator_names[0])
                                 if len(t.actuator_names) == 1 else None)
        written = (corrected_value(float(q0_urdf[j]), float(q0[j]), float(q0_sigma[j]), False)
                   if finding else float(q0_urdf[j]))
        parameters.append(Parameter('joint_offset', j, joint, float(q0_urdf[j]), float(q0[j]),
                                    float(q0_sigma[j]), bool(finding), finding, written))
    written_q0 = np.array([p.corrected for p in parameters if p.name == 'joint_offset'])
    try:
        offsets = np.linalg.solve(k, q0_urdf - written_q0) if m == n else np.zeros(n)
    except np.linalg.LinAlgError:
        offsets = np.zeros(n)
    joints = list(t.joint_names)
    return TransmissionFit(
        t.name, t.type, s.count, parameters,
        _rms(joints, s.rss(k0, q0_urdf), s.count), _rms(joints, s.rss(k, q0), s.count),
        _rms(joints, rss_free, s.count), dict(zip(t.actuator_names, map(float, offsets))), notes)


def _rms(names: Sequence[str], rss: np.ndarray, count: int) -> dict[str, float]:
    return {n: float(np.sqrt(r / max(count, 1))) for n, r in zip(names, rss)}


def _check_excitation(t: Any, s: Samples, k0: np.ndarray, k_free: np.ndarray,
                      sigma2: np.ndarray, cov: np.ndarray) -> None:
    """Raise :class:`NotExcitedError` naming the actuators whose motion tells nothing."""
    n = k0.shape[1]
    try:
        inverse = np.linalg.inv(s.gram)[:n, :n]
    except np.linalg.LinAlgError:
        inverse = np.full((n, n), np.inf)
    bad = []
    for a in range(n):
        scale = np.abs(k0[:, a]).max()
        moved = np.sqrt(max(cov[a, a], 0.0)) * scale   # the joint motion it caused (std)
        with np.errstate(invalid='ignore', divide='ignore'):
            rel = np.sqrt(sigma2.max() * max(inverse[a, a], 0.0)) / np.abs(k_free[:, a]).max()
        if not moved > 1e-9 or not rel <= EXCITATION:
            bad.append(f'{t.actuator_names[a]} (it moved its joints by {moved:.3g} standard '
                       f'deviation; relative uncertainty {rel:.2g})')
    if bad:
        raise NotExcitedError(
            f'transmission {t.name!r}: the recorded motion does not identify the reduction of '
            f'{"; ".join(bad)}: move each actuator over a good part of its range, '
            'independently of the others (the maximum relative uncertainty is '
            f'{EXCITATION:g})')


def _choose_reductions(model: ScaleModel, deviation: Callable[[np.ndarray], np.ndarray],
                       rss_free: float, pooled: float, count: int
                       ) -> tuple[tuple[int, ...], np.ndarray, np.ndarray,
                                  list[tuple[int, ...]], bool]:
    """Return the fewest reductions that explain the recording, their factors and sigmas."""
    tolerance = EXPLAINS * rss_free + 1e-18 * count
    fits: list[tuple[float, tuple[int, ...], np.ndarray, np.ndarray]] = []
    for size in range(min(len(model.values), 3) + 1):
        for subset in itertools.combinations(range(len(model.values)), size):
            fits.append(_fit_subset(model, deviation, subset, pooled))
        good = [f for f in fits if len(f[1]) == size and f[0] <= tolerance]
        if good:
            best = min(good, key=lambda f: f[0])
            near = [f[1] for f in good if f[0] <= best[0] + tolerance]
            return best[1], best[2], best[3], near, True
    best = min(fits, key=lambda f: (f[0], len(f[1])))
    return best[1], best[2], best[3], [], False


def _fit_subset(model: ScaleModel, deviation: Callable[[np.ndarray], np.ndarray],
                subset: tuple[int, ...], pooled: float
                ) -> tuple[float, tuple[int, ...], np.ndarray, np.ndarray]:
    """
    Fit the factors ``g`` = URDF / true of the reductions ``subset`` (K is multilinear in g).

    :returns: the extra residual, the subset, ``g`` and its standard deviations
    """
    def residual(g: np.ndarray) -> np.ndarray:
        if np.any(np.abs(g) < 1e-9):
            return np.full_like(deviation(model.build(model.values)), 1e150)
        p = model.values.copy()
        p[list(subset)] = model.values[list(subset)] / g
        return deviation(model.build(p))

    if not subset:
        r = residual(np.ones(0))
        return float(r @ r), subset, np.ones(0), np.zeros(0)
    best: tuple[float, np.ndarray, np.ndarray] | None = None
    for signs in itertools.product((1.0, -1.0), repeat=len(subset)):
        g, jac = _levenberg(residual, np.array(signs))
        r = residual(g)
        if best is None or r @ r < best[0]:
            best = (float(r @ r), g, jac)
    assert best is not None
    value, g, jac = best
    try:
        sigma = np.sqrt(np.maximum(np.diag(pooled * np.linalg.inv(jac.T @ jac)), 0.0))
    except np.linalg.LinAlgError:
        sigma = np.full(len(g), np.inf)
    return value, subset, g, sigma


def _identify_nonlinear(t: Any, s: Samples) -> TransmissionFit:
    tr = t.transmission
    theta, q = s.rows()
    read = list(tr.joint_to_actuator_inputs())
    joints = [t.joint_names[j] for j in read]
    n = tr.num_actuators()
    _enough(t, len(theta), n, f'{n} unknown actuator zero{"s" if n > 1 else ""}')

    def joint_positions(c: np.ndarray) -> np.ndarray:
        with np.errstate(all='ignore'):
            out = np.asarray(tr.actuator_to_joint({'position': theta - c})['position'])
        return out[:, read]

    def residual(c: np.ndarray) -> np.ndarray:
        r = (joint_positions(c) - q).ravel()
        return np.where(np.isfinite(r), r, 1e3)

    c, jac = _levenberg(residual, np.zeros(n))
    r = residual(c)
    dof = max(r.size - n, 1)
    sigma2 = float(r @ r) / dof
    try:
        sigma = np.sqrt(np.maximum(np.diag(sigma2 * np.linalg.inv(jac.T @ jac)), 0.0))
    except np.linalg.LinAlgError:
        sigma = np.full(n, np.inf)
    before = residual(np.zeros(n)).reshape(-1, len(read))
    after = r.reshape(-1, len(read))
    parameters = []
    for a, name in enumerate(t.actuator_names):
        changed = abs(c[a]) > 3 * sigma[a] and abs(c[a]) > 1e-12
        finding = (f'the zero of actuator {name} is off by {c[a]:.6g} (+- {sigma[a]:.2g}); '
                   'a nonlinear transmission has no URDF offset: the calibration file holds it'
                   if changed else '')
        parameters.append(Parameter('actuator_offset', a, name, 0.0, float(c[a]),
                                    float(sigma[a]), bool(changed), finding,
                                    corrected_value(0.0, float(c[a]), float(sigma[a]), False)
                                    if changed else 0.0))
    count = len(theta)
    return TransmissionFit(
        t.name, t.type, count, parameters,
        {j: float(np.sqrt(np.mean(before[:, k] ** 2))) for k, j in enumerate(joints)},
        {j: float(np.sqrt(np.mean(after[:, k] ** 2))) for k, j in enumerate(joints)},
        {j: float(np.sqrt(np.mean(after[:, k] ** 2))) for k, j in enumerate(joints)},
        {p.end: p.corrected for p in parameters},
        [f'nonlinear: only the actuator zero is identified (the other parameters of '
         f'{type(tr).__name__} are not)'])
