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

// PR2GripperTransmission: one motor opens the PR2 gripper through a screw and a linkage.  The
// maths is the class docstring's (transmission_plugins/transmissions/pr2_gripper_transmission.py,
// after pr2_mechanism_model's pr2_gripper_transmission.cpp, clamps included).  Joints: the gap,
// the passive fingers, then simulated joints that are always 0.  The efforts keep the C++'s rules:
// every joint reports the whole motor effort through its own ratio, tau_i = E / (m^2 J_i), and
// E = m |m| tau_gap / |K_gap|.
//
// Parameters (as PR2GripperTransmission.kernel_record() packs them): the constants of the
// formulas, named in the enum below, then the numbers of passive and simulated joints.

#include <math.h>

#include "kernel.h"

enum { K_SG = 0, L0, C0, TWO_AB, TWO_R_SD, TWO_R_CD, GAP0, P2M, KAB, DU0, PHI0, Q2S, S0,
  TWO_AB_CD, TWO_AB_SD, M2P_GS, DM_DTHETA, COS_DELTA, SIN_DELTA, R, V_MOTOR, MR, SQRT_TOL,
  PASSIVE, SIMULATED, COUNT };

static int64_t parameter_count(const Mechanism * m)
{
  if (m->n_parameters != COUNT || m->na != 1) {
    return -1;
  }
  const double passive = m->p[PASSIVE];
  const double simulated = m->p[SIMULATED];
  if (!(passive >= 0.0 && passive == floor(passive) && simulated >= 0.0 && simulated <= 2.0 &&
    simulated == floor(simulated) && (double)m->nj == 1.0 + passive + simulated))
  {
    return -1;
  }
  return COUNT;
}

// the minimum and maximum of numpy: NaN propagates
static double lower(double a, double b)
{
  return isnan(a) ? a : (a < b ? a : b);
}

static double upper(double a, double b)
{
  return isnan(a) ? a : (a > b ? a : b);
}

// u (clamped to [-1, 1]) and w = sin(acos u) at mrev motor revolutions
static void uw(const double * p, double mrev, double * u, double * w)
{
  const double length = mrev * p[K_SG] + p[L0];
  *u = lower(upper((p[C0] - length * length) / p[TWO_AB], -1.0), 1.0);
  *w = sqrt((1.0 - *u) * (1.0 + *u));
}

static void joints(const Mechanism * m, double gap, double passive, double * out)
{
  const int64_t n_passive = (int64_t)m->p[PASSIVE];
  out[0] = gap;
  for (int64_t i = 1; i < m->nj; ++i) {
    out[i] = i <= n_passive ? passive : 0.0;
  }
}

static void to_joint(const Mechanism * m, const double * theta, double * q, double * jac)
{
  const double * p = m->p;
  double mrev = theta[0] * p[P2M];
  double u;
  double w;
  uw(p, mrev, &u, &w);
  joints(m, u * p[TWO_R_SD] + w * p[TWO_R_CD] + p[GAP0], acos(u) - p[PHI0], q);
  if (jac == NULL) {
    return;
  }
  if (mrev < 0.0) {   // the Jacobians at M >= 0, as the C++
    mrev = 0.0;
    uw(p, mrev, &u, &w);
  }
  const double dtheta_dm = (mrev * p[KAB] + p[DU0]) / upper(w, p[SQRT_TOL]);
  const double two_dt_dm = (u * p[TWO_R_CD] - w * p[TWO_R_SD]) * dtheta_dm;
  joints(m, two_dt_dm * p[P2M], dtheta_dm * p[P2M], jac);
}

static double passive_ratio(const Mechanism * m, const double * jac)
{
  return jac[m->p[PASSIVE] > 0.0 ? 1 : 0];
}

static void velocity_to_joint(const Mechanism * m, const double * jac, const double * v, double * out)
{
  joints(m, v[0] * jac[0], v[0] * passive_ratio(m, jac), out);
}

static void effort_to_joint(
  const Mechanism * m, const double * jac, const double * u, const double * theta,
  const double * thetadot, double * out)
{
  (void)theta;
  (void)thetadot;
  const double m2 = m->p[MR] * m->p[MR];
  joints(m, u[0] / (m2 * jac[0]), u[0] / (m2 * passive_ratio(m, jac)), out);
}

static void to_actuator(const Mechanism * m, const double * q, double * theta, double * jac)
{
  const double * p = m->p;
  const double sin_t = lower(upper(q[0] * p[Q2S] + p[S0], -1.0), 1.0);
  const double cos_t = sqrt((1.0 - sin_t) * (1.0 + sin_t));
  const double arg = p[C0] - (cos_t * p[TWO_AB_CD] + sin_t * p[TWO_AB_SD]);
  const double root = sqrt(upper(arg, 0.0));
  theta[0] = (root - p[L0]) * p[M2P_GS];
  if (jac == NULL) {
    return;
  }
  const double dm_dtheta = arg <= 0.0 ? 0.0 :
    p[DM_DTHETA] / root * (sin_t * p[COS_DELTA] - cos_t * p[SIN_DELTA]);
  const double rate = dm_dtheta / (upper(cos_t, p[SQRT_TOL]) * p[R]);
  jac[0] = p[V_MOTOR] * rate;
  for (int64_t i = 1; i < m->nj; ++i) {
    jac[i] = 0.0;
  }
}

static void effort_to_actuator(
  const Mechanism * m, const double * jac, const double * tau, double * out)
{
  out[0] = tau[0] * (m->p[MR] * fabs(m->p[MR])) / fabs(jac[0]);
}

const MechanismType pr2_gripper_type = {
  "PR2GripperTransmission", parameter_count, to_actuator, to_joint, velocity_to_joint,
  effort_to_joint, effort_to_actuator, NULL};
