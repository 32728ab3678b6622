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

// SliderCrankTransmission: a rod from a crank or a slider to a lever on the joint.  The maths is
// the class docstring's (transmission_plugins/transmissions/slider_crank_transmission.py): the
// loop |A - P| = l closes in closed form in both directions (a circle, or a line, meets a circle),
// on the branch of the neutral pose, with K = (A - P).P' / (A - P).A' and J = 1 / K.
//
// Angles come out of atan2 in (-pi, pi] from their neutral direction; on the neutral branch a
// joint (and a crank) moves within an interval between its dead points that may reach past pi
// on one side, so each angle is taken into that interval (q_lo, q_hi; t_lo, t_hi: +-inf where
// the branch goes all round), and a joint position is read modulo a turn.
//
// Parameters (as SliderCrankTransmission.kernel_record() packs them):
//   [0] 1 for a crank (rotary actuator), 0 for a slider (linear actuator)
//   [1] [2] M, the crank pivot (0 for a slider)   [3] [4] A0, the rod's actuator end
//   [5] [6] u, the crank's neutral direction or the slider's axis (unit)
//   [7] r_a, the crank length   [8] r_j, the lever length   [9] l, the rod length
//   [10] [11] the lever's neutral direction
//   [12] s_a, [13] s_j: the branches of the circles met; [14], [15] the signs of the rod's
//   projections on the actuator's and the joint's motion at the neutral pose
//   [16] q_lo [17] q_hi [18] t_lo [19] t_hi

#include <math.h>

#include "kernel.h"

#define TWO_PI 6.283185307179586

enum { ROTARY = 0, MX = 1, MY = 2, A0X = 3, A0Y = 4, UX = 5, UY = 6, RA = 7, RJ = 8, LEN = 9,
  LX = 10, LY = 11, SA = 12, SJ = 13, NEUTRAL_A = 14, NEUTRAL_P = 15, Q_LO = 16, Q_HI = 17,
  T_LO = 18, T_HI = 19, COUNT = 20 };

static int64_t parameter_count(const Mechanism * m)
{
  return m->nj == 1 && m->na == 1 ? COUNT : -1;
}

// A rod end and its derivative along its motion.
typedef struct {
  double x, y, dx, dy;
} End;

static End lever(const double * p, double c, double s)
{
  const double x = p[RJ] * c;
  const double y = p[RJ] * s;
  End e = {x, y, -y, x};
  return e;
}

static End lever_at(const double * p, double q)
{
  const double c = cos(q);
  const double s = sin(q);
  return lever(p, c * p[LX] - s * p[LY], s * p[LX] + c * p[LY]);
}

static End crank(const double * p, double c, double s)
{
  const double x = p[RA] * c;
  const double y = p[RA] * s;
  End e = {p[MX] + x, p[MY] + y, -y, x};
  return e;
}

static End actuator(const double * p, double theta)
{
  if (p[ROTARY] == 0.0) {
    End e = {p[A0X] + theta * p[UX], p[A0Y] + theta * p[UY], p[UX], p[UY]};
    return e;
  }
  const double c = cos(theta);
  const double s = sin(theta);
  return crank(p, c * p[UX] - s * p[UY], s * p[UX] + c * p[UY]);
}

// Where a circle about the origin is `length` from the point D: rho^2 cos(psi), rho^2 sin(psi)
static void on_circle(
  double dx, double dy, double radius, double length, double sign, double * c2, double * s2,
  double * rho2)
{
  *rho2 = dx * dx + dy * dy;
  const double e = (*rho2 + radius * radius - length * length) / (2.0 * radius);
  const double w = sign * sqrt(*rho2 - e * e);
  *c2 = dx * e - dy * w;
  *s2 = dy * e + dx * w;
}

// The angle of (cos_r2, sin_r2) from the direction (n0, n1), in (-pi, pi]
static double angle(double sin_r2, double cos_r2, double n0, double n1)
{
  return atan2(sin_r2 * n0 - cos_r2 * n1, cos_r2 * n0 + sin_r2 * n1);
}

// An angle taken into the interval [lo, hi] of its branch (shorter than a turn)
static double unwrapped(double a, double lo, double hi)
{
  if (a < lo) {
    return a + TWO_PI;
  }
  if (a > hi) {
    return a - TWO_PI;
  }
  return a;
}

// Close the loop from one rod end: the other side's position and both ends.
static double loop(const double * p, End end, int from_lever, End * a, End * lv)
{
  double c2;
  double s2;
  double rho2;
  if (!from_lever) {
    on_circle(end.x, end.y, p[RJ], p[LEN], p[SJ], &c2, &s2, &rho2);
    *a = end;
    *lv = lever(p, c2 / rho2, s2 / rho2);
    return angle(s2, c2, p[LX], p[LY]);
  }
  *lv = end;
  if (p[ROTARY] != 0.0) {
    on_circle(end.x - p[MX], end.y - p[MY], p[RA], p[LEN], p[SA], &c2, &s2, &rho2);
    *a = crank(p, c2 / rho2, s2 / rho2);
    return angle(s2, c2, p[UX], p[UY]);
  }
  const double gx = p[A0X] - end.x;
  const double gy = p[A0Y] - end.y;
  const double h = gx * p[UX] + gy * p[UY];
  const double c = gx * gx + gy * gy - p[LEN] * p[LEN];
  const double theta = -c / (h + p[SA] * sqrt(h * h - c));
  *a = actuator(p, theta);
  return theta;
}

// (A - P).P' and (A - P).A'
static void projections(End a, End lv, double * on_p, double * on_a)
{
  const double rx = a.x - lv.x;
  const double ry = a.y - lv.y;
  *on_p = rx * lv.dx + ry * lv.dy;
  *on_a = rx * a.dx + ry * a.dy;
}

static void closed(
  const double * p, double target, End a, End lv, int to_joint, double * out, double * jac)
{
  double on_p;
  double on_a;
  projections(a, lv, &on_p, &on_a);
  const int inside = on_p * p[NEUTRAL_P] > 0.0 && on_a * p[NEUTRAL_A] > 0.0;
  *out = inside ? target : NAN;
  if (jac != NULL) {
    *jac = inside ? (to_joint ? on_a / on_p : on_p / on_a) : NAN;
  }
}

static void to_actuator(const Mechanism * m, const double * q, double * theta, double * jac)
{
  const double * p = m->p;
  End a;
  End lv;
  double t = loop(p, lever_at(p, q[0]), 1, &a, &lv);
  if (p[ROTARY] != 0.0) {
    t = unwrapped(t, p[T_LO], p[T_HI]);
  }
  closed(p, t, a, lv, 0, theta, jac);
}

static void to_joint(const Mechanism * m, const double * theta, double * q, double * jac)
{
  const double * p = m->p;
  End a;
  End lv;
  const double joint = loop(p, actuator(p, theta[0]), 0, &a, &lv);
  closed(p, unwrapped(joint, p[Q_LO], p[Q_HI]), a, lv, 1, q, jac);
}

// At one position of either side: the other side's position (not checked against the branch),
// and the rod's projections on the joint's and the actuator's motion over their lengths.
static int64_t terms(const Mechanism * m, int to_joint, const double * x, double * out)
{
  const double * p = m->p;
  End a;
  End lv;
  const End end = to_joint ? actuator(p, x[0]) : lever_at(p, x[0]);
  out[0] = loop(p, end, !to_joint, &a, &lv);
  projections(a, lv, &out[1], &out[2]);
  out[1] /= p[LEN] * p[RJ];
  out[2] /= p[LEN] * (p[ROTARY] != 0.0 ? p[RA] : 1.0);
  return 3;
}

const MechanismType slider_crank_type = {
  "SliderCrankTransmission", parameter_count, to_actuator, to_joint, NULL, NULL, NULL, terms};
