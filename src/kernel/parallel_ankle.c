// Copyright 2026 The transmission_plugins Authors
//
// Licensed under the Apache License, Version 2.0 (the "License");
// you may not use this file except in compliance with the License.
// You may obtain a copy of the License at
//
//     http://www.apache.org/licenses/LICENSE-2.0
//
// Unless required by applicable law or agreed to in writing, software
// distributed under the License is distributed on an "AS IS" BASIS,
// WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
// See the License for the specific language governing permissions and
// limitations under the License.

// ParallelAnkleTransmission: two cranks and two rods move a pitch-roll ankle.  The maths is the
// class docstring's (transmission_plugins/transmissions/parallel_ankle_transmission.py): the
// joint-to-actuator map closes each leg's loop in closed form, with K = dtheta/dq by implicit
// differentiation; the actuator-to-joint map is Newton's method on it (kernel.c).
//
// Parameters, per leg i = 0, 1 (as ParallelAnkleTransmission.kernel_record() packs them):
//   [0] cx  [2] cy  [4] cz     the crank circle's centre c'_i
//   [6] ux  [8] uy  [10] uz    c'_i / r_i
//   [12] px [14] py [16] pz    the rod's foot end p_i
//   [18] E0 = (|p|^2 + |c'|^2 + r^2 - l^2) / (2 r)
//   [20] s  the assembly mode (sign of w at the neutral pose)
//   [22] cos(phi0)  [24] sin(phi0)  the crank's neutral angle
//   [26] r  the crank length  [28] l  the rod length
//   [30] the sign of det K at the neutral pose (0: not known yet, no check)

#include <math.h>

#include "kernel.h"

// pi, rounded up: the largest angle atan2 returns
#define M_PI_CLOSED 3.1415926535897936

enum { CX = 0, CY = 2, CZ = 4, UX = 6, UY = 8, UZ = 10, PX = 12, PY = 14, PZ = 16, E0 = 18,
  S = 20, COS0 = 22, SIN0 = 24, R = 26, L = 28, DET_SIGN = 30, COUNT = 31 };

static int64_t parameter_count(const Mechanism * m)
{
  return m->nj == 2 && m->na == 2 ? COUNT : -1;
}

typedef struct {
  double theta[2];
  double x[2];    // rho^2 cos(theta), rho^2 sin(theta): theta without the arctangent
  double y[2];
  double k[4];    // rows: legs; columns: pitch, roll
  double rho2[2];
  double e[2];
  double w[2];
  double det;
} Legs;

static void legs(const double * p, const double * q, Legs * out, int angles)
{
  const double cp = cos(q[0]);
  const double sp = sin(q[0]);
  const double cr = cos(q[1]);
  const double sr = sin(q[1]);
  for (int i = 0; i < 2; ++i) {
    const double vy = p[PY + i] * cr - p[PZ + i] * sr;   // R_x(roll) p
    const double vz = p[PY + i] * sr + p[PZ + i] * cr;
    const double ax = cp * p[PX + i] + sp * vz;   // a = R_y(pitch) R_x(roll) p
    const double az = cp * vz - sp * p[PX + i];
    const double dx = ax - p[CX + i];
    const double dz = az - p[CZ + i];
    const double e = p[E0 + i] - (ax * p[UX + i] + vy * p[UY + i] + az * p[UZ + i]);
    const double rho2 = dx * dx + dz * dz;
    const double w = p[S + i] * sqrt(rho2 - e * e);   // NaN where the rod cannot reach
    const double cos_r2 = e * dx + w * dz;   // rho^2 cos(phi)
    const double sin_r2 = w * dx - e * dz;   // rho^2 sin(phi)
    out->y[i] = sin_r2 * p[COS0 + i] - cos_r2 * p[SIN0 + i];
    out->x[i] = cos_r2 * p[COS0 + i] + sin_r2 * p[SIN0 + i];
    if (angles) {
      out->theta[i] = atan2(out->y[i], out->x[i]);
    }
    const double scale = p[R + i] / rho2;
    const double bx = p[CX + i] + scale * cos_r2;   // the crank tip
    const double bz = p[CZ + i] - scale * sin_r2;
    const double rw = p[R + i] * w;
    out->k[2 * i] = (bx * az - bz * ax) / rw;
    out->k[2 * i + 1] = (vy * (sp * bx + cp * bz) - vz * p[CY + i]) / rw;
    out->rho2[i] = rho2;
    out->e[i] = e;
    out->w[i] = w;
  }
  out->det = out->k[0] * out->k[3] - out->k[1] * out->k[2];
}

static void to_actuator(const Mechanism * m, const double * q, double * theta, double * jac)
{
  Legs l;
  legs(m->p, q, &l, 1);
  // outside the workspace: a leg cannot reach, or det K has turned (beyond a singularity)
  const int inside = l.det * m->p[DET_SIGN] >= 0.0;
  for (int i = 0; i < 2; ++i) {
    theta[i] = inside ? l.theta[i] : NAN;
  }
  if (jac != NULL) {
    for (int i = 0; i < 4; ++i) {
      jac[i] = inside ? l.k[i] : NAN;
    }
  }
}

// Joint side (at q): rho^2, E, w of each leg, det K, K (4).  Actuator side (at theta): each
// crank tip's distance from the ankle centre, each rod end's.
static int64_t terms(const Mechanism * m, int to_joint, const double * x, double * out)
{
  const double * p = m->p;
  if (!to_joint) {
    Legs l;
    legs(p, x, &l, 1);
    out[0] = l.rho2[0]; out[1] = l.rho2[1];
    out[2] = l.e[0]; out[3] = l.e[1];
    out[4] = l.w[0]; out[5] = l.w[1];
    out[6] = l.det;
    for (int i = 0; i < 4; ++i) {
      out[7 + i] = l.k[i];
    }
    return 11;
  }
  for (int i = 0; i < 2; ++i) {
    const double c = cos(x[i]);
    const double s = sin(x[i]);
    const double phi_cos = p[COS0 + i] * c - p[SIN0 + i] * s;
    const double phi_sin = p[SIN0 + i] * c + p[COS0 + i] * s;
    const double tx = p[CX + i] + p[R + i] * phi_cos;
    const double tz = p[CZ + i] - p[R + i] * phi_sin;
    out[i] = sqrt(tx * tx + p[CY + i] * p[CY + i] + tz * tz);
    out[2 + i] = sqrt(p[PX + i] * p[PX + i] + p[PY + i] * p[PY + i] + p[PZ + i] * p[PZ + i]);
  }
  return 4;
}

// Newton's method (the actuator-to-joint map) without an arctangent per step: with the
// target's cosine and sine, each leg's residual is tan(theta_i(q) - target_i), the Jacobian
// (1 + r^2) K; where the angles are more than a right angle apart, the angle difference and K.
// The roots are those of theta(q) = target, both angles in (-pi, pi].
static int newton_target(const Mechanism * m, const double * theta, double * target)
{
  (void)m;
  for (int i = 0; i < 2; ++i) {
    const double angle = theta[i];   // one value: its cosine and sine are one sincos call
    if (!(fabs(angle) <= M_PI_CLOSED)) {
      return 0;
    }
    target[2 * i] = cos(angle);
    target[2 * i + 1] = sin(angle);
  }
  return 1;
}

static void newton_residual(
  const Mechanism * m, const double * q, const double * target, double * r, double * jac)
{
  Legs l;
  legs(m->p, q, &l, 0);
  const int inside = l.det * m->p[DET_SIGN] >= 0.0;
  for (int i = 0; i < 2; ++i) {
    const double c = target[2 * i];
    const double s = target[2 * i + 1];
    const double sine = l.y[i] * c - l.x[i] * s;
    const double cosine = l.x[i] * c + l.y[i] * s;
    double scale = 1.0;
    if (cosine > 0.0) {
      r[i] = sine / cosine;
      scale = 1.0 + r[i] * r[i];
    } else {
      r[i] = atan2(sine, cosine);
    }
    if (!inside) {
      r[i] = NAN;
    }
    jac[2 * i] = inside ? scale * l.k[2 * i] : NAN;
    jac[2 * i + 1] = inside ? scale * l.k[2 * i + 1] : NAN;
  }
}

const MechanismType parallel_ankle_type = {
  "ParallelAnkleTransmission", parameter_count, to_actuator, NULL, NULL, NULL, NULL, terms,
  newton_target, newton_residual};
