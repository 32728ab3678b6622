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

// SeriesElasticTransmission: a motor and gear drive the joint through a spring; a joint-side
// encoder reads the joint.  The maths is the class docstring's
// (transmission_plugins/transmissions/series_elastic_transmission.py).  Actuator 1 is the motor
// (theta_m), actuator 2 the joint-side encoder channel (theta_e); with n the motor's reduction
// and the deflection delta = theta_m / n - theta_e:
//
//   actuator to joint   q = theta_e + q0, qdot = thetadot_e,
//                       tau = s(delta) + d deltadot   (from positions and velocities: the
//                       actuator efforts are not read; NaN without velocities)
//   joint to actuator   theta_m = n (q - q0), theta_e = q - q0 (the unloaded pose),
//                       thetadot_m = n qdot, thetadot_e = qdot, u_m = tau / n, u_e = 0
//
// s is k delta (a linear spring) or the piecewise-linear interpolation of a measured table of
// (deflection, torque) points, both increasing, its end segments extended beyond the table.
// terms() gives the spring itself: at actuator positions, (delta, s(delta), s'(delta)); on the
// joint side the value is read as a joint torque tau: (s^-1(tau), s'(s^-1(tau))).
//
// Parameters (as SeriesElasticTransmission.kernel_record() packs them), with P table points:
//   [0] n, the motor's reduction   [1] q0, the joint offset   [2] d, the damping
//   [3] k, the stiffness (a linear spring; unused with a table)
//   [4] P: 0 for a linear spring, else the table's points (2 or more)
//   then the deflections (P, strictly increasing) and the torques (P, strictly increasing)

#include <math.h>

#include "kernel.h"

#define MAX_POINTS 10000000

enum { REDUCTION = 0, OFFSET = 1, DAMPING = 2, STIFFNESS = 3, POINTS = 4, HEAD = 5 };
enum { MOTOR = 0, ENCODER = 1 };

static int64_t parameter_count(const Mechanism * m)
{
  if (m->nj != 1 || m->na != 2 || m->n_parameters < HEAD) {
    return -1;
  }
  const double points = m->p[POINTS];
  if (!(points == 0.0 || (points >= 2.0 && points <= MAX_POINTS && points == floor(points)))) {
    return -1;
  }
  return HEAD + 2 * (int64_t)points;
}

// s(delta) and s'(delta): the linear spring, or the table's segment (extended at both ends)
static double spring(const double * p, double delta, double * slope)
{
  const int64_t n = (int64_t)p[POINTS];
  if (n == 0) {
    *slope = p[STIFFNESS];
    return p[STIFFNESS] * delta;
  }
  const double * x = p + HEAD;
  const double * t = x + n;
  const int64_t k = kernel_segment(x, n, delta);
  *slope = (t[k + 1] - t[k]) / (x[k + 1] - x[k]);
  return t[k] + *slope * (delta - x[k]);
}

// s^-1(tau) and s'(s^-1(tau))
static double inverse_spring(const double * p, double tau, double * slope)
{
  const int64_t n = (int64_t)p[POINTS];
  if (n == 0) {
    *slope = p[STIFFNESS];
    return tau / p[STIFFNESS];
  }
  const double * x = p + HEAD;
  const double * t = x + n;
  const int64_t k = kernel_segment(t, n, tau);
  *slope = (t[k + 1] - t[k]) / (x[k + 1] - x[k]);
  return x[k] + (tau - t[k]) * ((x[k + 1] - x[k]) / (t[k + 1] - t[k]));
}

static void to_actuator(const Mechanism * m, const double * q, double * theta, double * jac)
{
  const double e = q[0] - m->p[OFFSET];
  theta[MOTOR] = m->p[REDUCTION] * e;
  theta[ENCODER] = e;
  if (jac != NULL) {   // K, 2 x 1
    jac[MOTOR] = m->p[REDUCTION];
    jac[ENCODER] = 1.0;
  }
}

static void to_joint(const Mechanism * m, const double * theta, double * q, double * jac)
{
  q[0] = theta[ENCODER] + m->p[OFFSET];
  if (jac != NULL) {   // J, 1 x 2
    jac[MOTOR] = 0.0;
    jac[ENCODER] = 1.0;
  }
}

// qdot = thetadot_e: the motor's velocity, NaN included, does not reach the joint's
static void velocity_to_joint(
  const Mechanism * m, const double * jac, const double * v, double * out)
{
  (void)m;
  (void)jac;
  out[0] = v[ENCODER];
}

// tau = s(delta) + d deltadot, from the actuator positions and velocities (not the efforts u)
static void effort_to_joint(
  const Mechanism * m, const double * jac, const double * u, const double * theta,
  const double * thetadot, double * out)
{
  (void)jac;
  (void)u;
  if (thetadot == NULL) {
    out[0] = NAN;
    return;
  }
  const double * p = m->p;
  const double n = p[REDUCTION];
  double slope;
  const double delta = theta[MOTOR] / n - theta[ENCODER];
  const double rate = thetadot[MOTOR] / n - thetadot[ENCODER];
  out[0] = spring(p, delta, &slope) + p[DAMPING] * rate;
}

// u_m = tau / n holds the spring at tau; the encoder takes no effort (0)
static void effort_to_actuator(
  const Mechanism * m, const double * jac, const double * tau, double * out)
{
  (void)jac;
  out[MOTOR] = tau[0] / m->p[REDUCTION];
  out[ENCODER] = 0.0;
}

static int64_t terms(const Mechanism * m, int to_joint, const double * x, double * out)
{
  const double * p = m->p;
  if (to_joint) {
    out[0] = x[MOTOR] / p[REDUCTION] - x[ENCODER];
    out[1] = spring(p, out[0], &out[2]);
    return 3;
  }
  out[0] = inverse_spring(p, x[0], &out[1]);
  return 2;
}

const MechanismType series_elastic_type = {
  "SeriesElasticTransmission", parameter_count, to_actuator, to_joint, velocity_to_joint,
  effort_to_joint, effort_to_actuator, terms};
