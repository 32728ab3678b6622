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

// TableTransmission: monotone cubic interpolation of joint against actuator position.  The maths
// is the class docstring's (transmission_plugins/transmissions/table_transmission.py): on segment
// k, q = y_k + (y_k+1 - y_k) s_k(t), t = (theta - x_k) / h_k, a cubic with s_k' > 0 on [0, 1];
// the inverse solves the segment's cubic by Newton's method kept inside the bracket of the root.
// Outside the table: NaN, or the end tangents.
//
// Parameters (as TableTransmission.kernel_record() packs them), with n points:
//   [0] n  [1] 1 to continue along the end tangents outside the table, 0 for NaN
//   [2] the sign of the joint positions' order  [3] [4] the slopes at the first and last point
//   then x (n), y (n), y times the sign (n), and per segment (n - 1 each):
//   x_k, h_k, y_k, y_k+1 - y_k, delta_k, c1, c2, c3 (s_k(t) = t (c1 + t (c2 + t c3)))

#include <float.h>
#include <math.h>

#include "kernel.h"

// Safeguarded Newton steps of the inverse on one segment (bisection alone would reach 2^-60),
// and the step (a few units in the last place of t in [0, 1]) that ends its search.
#define INVERSE_STEPS 60
#define ULPS (4.0 * DBL_EPSILON)
#define MAX_POINTS 10000000

enum { N = 0, LINEAR = 1, SIGN = 2, SLOPE0 = 3, SLOPE1 = 4, HEAD = 5 };
enum { X0, H, Y0, DY, DELTA, C1, C2, C3, SEGMENT_ARRAYS };

static int64_t points(const Mechanism * m)
{
  if (m->n_parameters < HEAD) {
    return -1;
  }
  const double n = m->p[N];
  if (!(n >= 2.0 && n <= MAX_POINTS && n == floor(n))) {
    return -1;
  }
  return (int64_t)n;
}

static int64_t parameter_count(const Mechanism * m)
{
  const int64_t n = points(m);
  if (n < 0 || m->nj != 1 || m->na != 1) {
    return -1;
  }
  return HEAD + 3 * n + SEGMENT_ARRAYS * (n - 1);
}

typedef struct {
  int64_t n;
  const double * x;
  const double * y;
  const double * ys;
  const double * seg;   // SEGMENT_ARRAYS arrays of n - 1
} Table;

static Table table(const Mechanism * m)
{
  Table t;
  t.n = (int64_t)m->p[N];
  t.x = m->p + HEAD;
  t.y = t.x + t.n;
  t.ys = t.y + t.n;
  t.seg = t.ys + t.n;
  return t;
}

static double segment(const Table * t, int which, int64_t k)
{
  return t->seg[which * (t->n - 1) + k];
}

static double clip(double v, double lo, double hi)
{
  return v < lo ? lo : (v > hi ? hi : v);   // NaN stays NaN
}

// t in [0, 1] with t (c1 + t (c2 + t c3)) = u, an increasing cubic
static double solve_cubic(double u, double c1, double c2, double c3)
{
  if (isnan(u)) {
    return NAN;
  }
  double t = u;
  double low = 0.0;
  double high = 1.0;
  for (int i = 0; i < INVERSE_STEPS; ++i) {
    const double r = t * (c1 + t * (c2 + t * c3)) - u;
    if (r < 0.0) {
      low = t;
    }
    if (r > 0.0) {
      high = t;
    }
    const double newton = t - r / (c1 + t * (2.0 * c2 + 3.0 * t * c3));
    const double step = r == 0.0 ? 0.0 :
      ((newton > low && newton < high) ? newton : 0.5 * (low + high)) - t;
    t = t + step;
    if (fabs(step) <= ULPS) {
      break;
    }
  }
  return t;
}

static void to_joint(const Mechanism * m, const double * theta, double * q, double * jac)
{
  const Table t = table(m);
  const double v = theta[0];
  const int64_t k = kernel_segment(t.x, t.n, v);
  const double c1 = segment(&t, C1, k);
  const double c2 = segment(&t, C2, k);
  const double c3 = segment(&t, C3, k);
  const double s = (v - segment(&t, X0, k)) / segment(&t, H, k);
  double value = segment(&t, Y0, k) + segment(&t, DY, k) * (s * (c1 + s * (c2 + s * c3)));
  double slope = segment(&t, DELTA, k) * (c1 + s * (2.0 * c2 + 3.0 * s * c3));
  if (!(v >= t.x[0] && v <= t.x[t.n - 1])) {
    if (m->p[LINEAR] == 0.0) {
      value = slope = NAN;
    } else {
      const int low = v < t.x[0];
      const int64_t end = low ? 0 : t.n - 1;
      slope = low ? m->p[SLOPE0] : m->p[SLOPE1];
      value = t.y[end] + slope * (v - t.x[end]);
    }
  }
  q[0] = value;
  if (jac != NULL) {
    jac[0] = slope;
  }
}

static void to_actuator(const Mechanism * m, const double * q, double * theta, double * jac)
{
  const Table t = table(m);
  const double v = q[0];
  const double along = v * m->p[SIGN];
  const int64_t k = kernel_segment(t.ys, t.n, along);
  const double c1 = segment(&t, C1, k);
  const double c2 = segment(&t, C2, k);
  const double c3 = segment(&t, C3, k);
  const double u = clip((v - segment(&t, Y0, k)) / segment(&t, DY, k), 0.0, 1.0);
  const double s = solve_cubic(u, c1, c2, c3);
  double value = segment(&t, X0, k) + segment(&t, H, k) * s;
  double slope = 1.0 / (segment(&t, DELTA, k) * (c1 + s * (2.0 * c2 + 3.0 * s * c3)));
  if (!(along >= t.ys[0] && along <= t.ys[t.n - 1])) {
    if (m->p[LINEAR] == 0.0) {
      value = slope = NAN;
    } else {
      const int low = along < t.ys[0];
      const int64_t end = low ? 0 : t.n - 1;
      slope = low ? 1.0 / m->p[SLOPE0] : 1.0 / m->p[SLOPE1];
      value = t.x[end] + slope * (v - t.y[end]);
    }
  }
  theta[0] = value;
  if (jac != NULL) {
    jac[0] = slope;
  }
}

const MechanismType table_type = {
  "TableTransmission", parameter_count, to_actuator, to_joint, NULL, NULL, NULL, NULL};
