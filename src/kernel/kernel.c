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

// One conversion of a robot, sample by sample: the linear rows, then each mechanism with the
// maps every mechanism derives from its position map and Jacobian (core/mechanism.py states the
// same rules for the Python mechanisms users write):
//
//   velocity   qdot = J thetadot          thetadot = K qdot (the joints it reads)
//   effort     tau = J^-T u               u = K^-T tau
//
// with J = dq/dtheta and K = dtheta/dq = J^-1 (square maps; the PR2 gripper, the one that is
// not, has its own velocity and effort rules).  A direction a mechanism leaves out is solved by
// Newton's method, warm-started from the previous sample of the same mechanism when asked to.

#include "kernel.h"

#include <math.h>
#include <string.h>

static int all_finite(int64_t n, const double * x)
{
  for (int64_t i = 0; i < n; ++i) {
    if (!isfinite(x[i])) {
      return 0;
    }
  }
  return 1;
}

static void fill(int64_t n, double * x, double value)
{
  for (int64_t i = 0; i < n; ++i) {
    x[i] = value;
  }
}

// x = A^-1 b for 2 x 2: the elimination below, unrolled
static int solve_2(const double * a, const double * b, double * x)
{
  const int swap = fabs(a[2]) > fabs(a[0]);
  const double a00 = swap ? a[2] : a[0];
  const double a01 = swap ? a[3] : a[1];
  const double a10 = swap ? a[0] : a[2];
  const double a11 = swap ? a[1] : a[3];
  const double b0 = swap ? b[1] : b[0];
  const double b1 = swap ? b[0] : b[1];
  if (a00 == 0.0) {
    x[0] = x[1] = NAN;
    return 0;
  }
  const double f = a10 / a00;
  const double u11 = a11 - f * a01;
  if (u11 == 0.0) {
    x[0] = x[1] = NAN;
    return 0;
  }
  x[1] = (b1 - f * b0) / u11;
  x[0] = (b0 - a01 * x[1]) / a00;
  return 1;
}

int64_t kernel_segment(const double * values, int64_t n, double v)
{
  int64_t lo = 0;
  int64_t hi = n;
  if (isnan(v)) {
    lo = n;
  }
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    if (values[mid] > v) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  const int64_t k = lo - 1;
  return k < 0 ? 0 : (k > n - 2 ? n - 2 : k);
}

int kernel_solve(int64_t n, const double * a, const double * b, double * x, double * work)
{
  // Gaussian elimination with partial pivoting on a copy: [A | b] in work (n x (n + 1))
  const int64_t w = n + 1;
  if (!all_finite(n * n, a)) {
    fill(n, x, NAN);
    return 0;
  }
  if (n == 1) {
    if (a[0] == 0.0) {
      x[0] = NAN;
      return 0;
    }
    x[0] = b[0] / a[0];
    return 1;
  }
  if (n == 2) {
    return solve_2(a, b, x);
  }
  for (int64_t i = 0; i < n; ++i) {
    memcpy(work + i * w, a + i * n, (size_t)n * sizeof(double));
    work[i * w + n] = b[i];
  }
  for (int64_t c = 0; c < n; ++c) {
    int64_t pivot = c;
    for (int64_t r = c + 1; r < n; ++r) {
      if (fabs(work[r * w + c]) > fabs(work[pivot * w + c])) {
        pivot = r;
      }
    }
    if (work[pivot * w + c] == 0.0) {
      fill(n, x, NAN);
      return 0;
    }
    if (pivot != c) {
      for (int64_t k = 0; k < w; ++k) {
        double t = work[c * w + k];
        work[c * w + k] = work[pivot * w + k];
        work[pivot * w + k] = t;
      }
    }
    for (int64_t r = c + 1; r < n; ++r) {
      double f = work[r * w + c] / work[c * w + c];
      for (int64_t k = c; k < w; ++k) {
        work[r * w + k] -= f * work[c * w + k];
      }
    }
  }
  for (int64_t r = n - 1; r >= 0; --r) {
    double s = work[r * w + n];
    for (int64_t k = r + 1; k < n; ++k) {
      s -= work[r * w + k] * x[k];
    }
    x[r] = s / work[r * w + r];
  }
  return 1;
}

// x = A^-T b
static int solve_transposed(int64_t n, const double * a, const double * b, double * x, double * work)
{
  double * t = work;
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      t[j * n + i] = a[i * n + j];
    }
  }
  return kernel_solve(n, t, b, x, work + n * n);
}

// y = A x for A rows x cols
static void times(int64_t rows, int64_t cols, const double * a, const double * x, double * y)
{
  for (int64_t i = 0; i < rows; ++i) {
    double s = a[i * cols] * x[0];
    for (int64_t j = 1; j < cols; ++j) {
      s += a[i * cols + j] * x[j];
    }
    y[i] = s;
  }
}

// y = A^T x for A rows x cols
static void times_transposed(
  int64_t rows, int64_t cols, const double * a, const double * x, double * y)
{
  for (int64_t j = 0; j < cols; ++j) {
    double s = a[j] * x[0];
    for (int64_t i = 1; i < rows; ++i) {
      s += a[i * cols + j] * x[i];
    }
    y[j] = s;
  }
}

// ------------------------------------------------------------------------ Newton's method

typedef struct {
  double * x;     // the iterate (M)
  double * r;     // residual g(x) - theta (N = M)
  double * k;     // K at x
  double * xn;    // the trial iterate and its residual and K
  double * rn;
  double * kn;
  double * step;
  double * work;  // kernel_solve's
} NewtonScratch;

static int converged(int64_t n, const double * r, const double * limit)
{
  for (int64_t i = 0; i < n; ++i) {
    if (!(fabs(r[i]) <= limit[i])) {
      return 0;
    }
  }
  return 1;
}

// the residual of g(x) = theta at x and its Jacobian: the type's own (from `target`), or
// g(x) - theta and K
static void residual(
  Mechanism * m, const double * theta, const double * target, const double * x, double * r,
  double * k)
{
  ++m->evaluations;
  if (m->type->newton_residual != NULL) {
    m->type->newton_residual(m, x, target, r, k);
    return;
  }
  m->type->to_actuator(m, x, r, k);
  for (int64_t i = 0; i < m->na; ++i) {
    r[i] -= theta[i];
  }
}

// Solve g(x) = theta from s->x within `budget` evaluations of g; on success s->x and s->k hold
// the solution and K there.  `anchored`: a start outside the domain of g is moved halfway to the
// neutral pose (the origin), as often as it takes, first.
static int iterate(
  Mechanism * m, const double * theta, const double * target, const double * limit,
  int64_t budget, int anchored, NewtonScratch * s)
{
  const int64_t n = m->nj;
  int64_t evaluations = 1;
  residual(m, theta, target, s->x, s->r, s->k);
  if (anchored) {
    for (int h = 0; h < NEWTON_HALVINGS && !all_finite(n, s->r); ++h) {
      if (evaluations >= budget) {
        return 0;
      }
      for (int64_t i = 0; i < n; ++i) {
        s->x[i] *= 0.5;
      }
      residual(m, theta, target, s->x, s->r, s->k);
      ++evaluations;
    }
  }
  for (int it = 0; it < NEWTON_ITERATIONS; ++it) {
    if (converged(n, s->r, limit)) {
      return 1;
    }
    if (!all_finite(n, s->r) || evaluations >= budget) {
      return 0;
    }
    if (!kernel_solve(n, s->k, s->r, s->step, s->work)) {
      return 0;
    }
    for (int h = 0;; ++h) {
      for (int64_t i = 0; i < n; ++i) {
        s->xn[i] = s->x[i] - s->step[i];
      }
      residual(m, theta, target, s->xn, s->rn, s->kn);
      ++evaluations;
      if (all_finite(n, s->rn) || h == NEWTON_HALVINGS) {
        break;
      }
      if (evaluations >= budget) {
        return 0;
      }
      for (int64_t i = 0; i < n; ++i) {
        s->step[i] *= 0.5;
      }
    }
    double * t;
    t = s->x; s->x = s->xn; s->xn = t;
    t = s->r; s->r = s->rn; s->rn = t;
    t = s->k; s->k = s->kn; s->kn = t;
  }
  return converged(n, s->r, limit);
}

// the largest difference of two vectors
static double distance(int64_t n, const double * a, const double * b)
{
  double d = 0.0;
  for (int64_t i = 0; i < n; ++i) {
    d = fmax(d, fabs(a[i] - b[i]));
  }
  return d;
}

// q = f(theta) for a mechanism without its own actuator-to-joint map, and K at q; NaN where
// Newton's method does not converge within its budget.
static void newton(Mechanism * m, const double * theta, double * q, double * k, int warm,
  double * scratch)
{
  const int64_t n = m->nj;
  const int64_t nn = n * n;
  double * limit = scratch;
  NewtonScratch s = {
    scratch + n, scratch + 2 * n, scratch + 3 * n, scratch + 3 * n + nn, scratch + 4 * n + nn,
    scratch + 5 * n + nn, scratch + 5 * n + 2 * nn, scratch + 6 * n + 2 * nn};
  const NewtonScratch start = s;
  double * target = scratch + 7 * n + 3 * nn;
  if (!all_finite(n, theta) ||
    (m->type->newton_target != NULL && !m->type->newton_target(m, theta, target)))
  {
    fill(n, q, NAN);
    fill(nn, k, NAN);
    return;
  }
  for (int64_t i = 0; i < n; ++i) {
    limit[i] = NEWTON_TOLERANCE * (1.0 + fabs(theta[i]));
  }
  int done = 0;
  if (warm && m->warm_valid && distance(n, theta, m->warm_theta) <
    distance(n, theta, m->neutral_theta))
  {
    // the first-order warm start, from the previous solution when it is the nearer of the two
    // linearisation points: q_prev + J_prev (theta - theta_prev), J_prev = K_prev^-1
    for (int64_t i = 0; i < n; ++i) {
      s.rn[i] = theta[i] - m->warm_theta[i];
    }
    if (kernel_solve(n, m->warm_k, s.rn, s.step, s.work)) {
      for (int64_t i = 0; i < n; ++i) {
        s.x[i] = m->warm_q[i] + s.step[i];
      }
      done = iterate(m, theta, target, limit, WARM_EVALUATIONS, 0, &s);
    }
  }
  if (!done) {
    // the cold start: the linearisation at the neutral pose
    s = start;
    for (int64_t i = 0; i < n; ++i) {
      s.rn[i] = theta[i] - m->neutral_theta[i];
    }
    times(n, n, m->neutral_slope, s.rn, s.x);
    done = iterate(m, theta, target, limit, NEWTON_EVALUATIONS, 1, &s);
  }
  if (!done) {
    fill(n, q, NAN);
    fill(nn, k, NAN);
    return;
  }
  memcpy(q, s.x, (size_t)n * sizeof(double));
  memcpy(k, s.k, (size_t)nn * sizeof(double));
  if (warm) {
    memcpy(m->warm_q, q, (size_t)n * sizeof(double));
    memcpy(m->warm_theta, theta, (size_t)n * sizeof(double));
    memcpy(m->warm_k, k, (size_t)nn * sizeof(double));
    m->warm_valid = 1;
  }
}

void kernel_prepare(Mechanism * m, double * scratch)
{
  // Newton's cold start for a mechanism without its own actuator-to-joint map:
  // q0 = K(0)^-1 (theta - g(0)) (zeros when K(0) or g(0) is not finite)
  const int64_t n = m->nj;
  m->warm_valid = 0;
  if (m->type->to_joint != NULL || m->nj != m->na) {
    return;
  }
  double * zero = scratch;
  double * k = scratch + n;
  double * e = scratch + n + n * n;
  double * column = e + n;
  double * work = column + n;
  fill(n, zero, 0.0);
  m->type->to_actuator(m, zero, m->neutral_theta, k);
  int ok = all_finite(n, m->neutral_theta);
  for (int64_t c = 0; c < n && ok; ++c) {
    fill(n, e, 0.0);
    e[c] = 1.0;
    ok = kernel_solve(n, k, e, column, work) && all_finite(n, column);
    for (int64_t r = 0; r < n; ++r) {
      m->neutral_slope[r * n + c] = column[r];
    }
  }
  if (!ok) {
    fill(n, m->neutral_theta, 0.0);
    fill(n * n, m->neutral_slope, 0.0);
  }
}

int64_t kernel_scratch_size(const Description * d)
{
  const int64_t s = d->max_side;
  return 24 * s + 8 * s * s + 16;
}

// ------------------------------------------------------------------------ one conversion

// The linear rows of one kind over a batch: y_r = sum_k v_rk x_c(rk) (+ q0_r for joint
// positions; joint to actuator positions map q - q0).  Rows without entries are 0, unless a
// mechanism writes them.  The rows of one entry are taken four samples at a time (their
// indices loaded once for four).
static void linear_rows(
  const Description * d, int to_joint, int kind, const double * x, double * y, int64_t batch,
  int64_t n_in, int64_t n_out)
{
  const Rows * rows = &d->rows[to_joint][kind == 2];
  const double * q0 = d->joint_offset;
  const int64_t * row = rows->single_row;
  const int64_t * col = rows->single_col;
  const double * val = rows->single_val;
  const int64_t n = rows->n_single;
  const int mode = kind != 0 ? 0 : (to_joint ? 1 : 2);
  int64_t b = 0;
  for (; b + 4 <= batch; b += 4) {
    const double * x0 = x + b * n_in;
    const double * x1 = x0 + n_in;
    const double * x2 = x1 + n_in;
    const double * x3 = x2 + n_in;
    double * y0 = y + b * n_out;
    double * y1 = y0 + n_out;
    double * y2 = y1 + n_out;
    double * y3 = y2 + n_out;
    for (int64_t i = 0; i < n; ++i) {
      const int64_t r = row[i];
      const int64_t c = col[i];
      const double v = val[i];
      if (mode == 0) {
        y0[r] = x0[c] * v;
        y1[r] = x1[c] * v;
        y2[r] = x2[c] * v;
        y3[r] = x3[c] * v;
      } else if (mode == 1) {
        const double o = q0[r];
        y0[r] = x0[c] * v + o;
        y1[r] = x1[c] * v + o;
        y2[r] = x2[c] * v + o;
        y3[r] = x3[c] * v + o;
      } else {
        const double o = q0[c];
        y0[r] = (x0[c] - o) * v;
        y1[r] = (x1[c] - o) * v;
        y2[r] = (x2[c] - o) * v;
        y3[r] = (x3[c] - o) * v;
      }
    }
  }
  for (; b < batch; ++b) {
    const double * xb = x + b * n_in;
    double * yb = y + b * n_out;
    for (int64_t i = 0; i < n; ++i) {
      const double xc = mode == 2 ? xb[col[i]] - q0[col[i]] : xb[col[i]];
      yb[row[i]] = mode == 1 ? xc * val[i] + q0[row[i]] : xc * val[i];
    }
  }
  for (b = 0; b < batch; ++b) {
    const double * xb = x + b * n_in;
    double * yb = y + b * n_out;
    for (int64_t i = 0; i < rows->n_multi; ++i) {
      const int64_t r = rows->multi_row[i];
      int64_t k = rows->ptr[r];
      const int64_t end = rows->ptr[r + 1];
      double sum;
      if (mode == 2) {
        sum = (xb[rows->col[k]] - q0[rows->col[k]]) * rows->val[k];
        for (++k; k < end; ++k) {
          sum += (xb[rows->col[k]] - q0[rows->col[k]]) * rows->val[k];
        }
      } else {
        sum = xb[rows->col[k]] * rows->val[k];
        for (++k; k < end; ++k) {
          sum += xb[rows->col[k]] * rows->val[k];
        }
        if (mode == 1) {
          sum += q0[r];
        }
      }
      yb[r] = sum;
    }
    for (int64_t i = 0; i < rows->n_zero; ++i) {
      yb[rows->zero_row[i]] = 0.0;
    }
  }
}

static void linear_jacobian(const Description * d, int to_joint, double * jac)
{
  const Rows * rows = &d->rows[to_joint][0];
  const int64_t n_out = to_joint ? d->nj : d->na;
  const int64_t n_in = to_joint ? d->na : d->nj;
  for (int64_t r = 0; r < n_out; ++r) {
    for (int64_t k = rows->ptr[r]; k < rows->ptr[r + 1]; ++k) {
      jac[r * n_in + rows->col[k]] = rows->val[k];
    }
  }
}

// The scratch of one mechanism conversion.
typedef struct {
  double * src[3];
  double * out[3];
  double * at;       // the state
  double * image;    // the target positions at the state
  double * back;     // the round trip
  double * jac;      // J (to joint) or K (to actuator) at the state
  double * spare;    // K at a position that is not the state
  double * newton;   // Newton's scratch (and kernel_solve's)
  int64_t n_in;      // sources of the conversion (the Jacobian's columns)
} MechanismScratch;

static void gather(int64_t n, const int64_t * index, const double * from, double * to)
{
  for (int64_t i = 0; i < n; ++i) {
    to[i] = from[index[i]];
  }
}

static void scatter(int64_t n, const int64_t * index, const double * from, double * to)
{
  for (int64_t i = 0; i < n; ++i) {
    to[index[i]] = from[i];
  }
}

static void scatter_nan(int64_t n, const int64_t * index, double * to)
{
  for (int64_t i = 0; i < n; ++i) {
    to[index[i]] = NAN;
  }
}

// Without a state, the velocity, effort and Jacobian of a mechanism are unknown (NaN).
static void unknown_motion(
  const int64_t * targets, int64_t n_targets, const int64_t * sources, int64_t n_sources,
  const double * const * src, double * const * dst, double * jacobian, int64_t n_in)
{
  for (int k = 1; k < 3; ++k) {
    if (src[k] != NULL) {
      scatter_nan(n_targets, targets, dst[k]);
    }
  }
  if (jacobian != NULL) {
    for (int64_t i = 0; i < n_targets; ++i) {
      for (int64_t j = 0; j < n_sources; ++j) {
        jacobian[targets[i] * n_in + sources[j]] = NAN;
      }
    }
  }
}

// The actuator-to-joint maps of one mechanism at one sample.
static void mechanism_to_joint(
  Mechanism * m, int warm, const double * const * src, const double * state,
  double * const * dst, double * jacobian, MechanismScratch * s)
{
  const int64_t na = m->na;
  const int64_t nj = m->nj;
  const int derived = m->type->to_joint == NULL;
  const int same = state != NULL && state == src[0];
  const int moves = src[1] != NULL || src[2] != NULL || jacobian != NULL;
  double * work = s->newton;
  if (state != NULL && (same || moves)) {
    gather(na, m->actuators, state, s->at);
    if (derived) {
      newton(m, s->at, s->image, s->jac, warm, work);
    } else {
      m->type->to_joint(m, s->at, s->image, s->jac);
    }
  }
  if (src[0] != NULL) {
    if (same) {
      memcpy(s->out[0], s->image, (size_t)nj * sizeof(double));
    } else {
      gather(na, m->actuators, src[0], s->src[0]);
      if (derived) {
        newton(m, s->src[0], s->out[0], s->spare, warm, work);
      } else {
        m->type->to_joint(m, s->src[0], s->out[0], NULL);
      }
    }
    scatter(nj, m->joints, s->out[0], dst[0]);
  }
  if (state == NULL) {
    unknown_motion(m->joints, nj, m->actuators, na, src, dst, jacobian, s->n_in);
    return;
  }
  if (src[1] != NULL) {
    gather(na, m->actuators, src[1], s->src[1]);
    if (m->type->velocity_to_joint != NULL) {
      m->type->velocity_to_joint(m, s->jac, s->src[1], s->out[1]);
    } else if (derived) {
      kernel_solve(nj, s->jac, s->src[1], s->out[1], work);   // qdot = K^-1 thetadot
    } else {
      times(nj, na, s->jac, s->src[1], s->out[1]);   // qdot = J thetadot
    }
    scatter(nj, m->joints, s->out[1], dst[1]);
  }
  if (src[2] != NULL) {
    gather(na, m->actuators, src[2], s->src[2]);
    if (m->type->effort_to_joint != NULL) {
      m->type->effort_to_joint(
        m, s->jac, s->src[2], s->at, src[1] != NULL ? s->src[1] : NULL, s->out[2]);
    } else if (derived) {
      times_transposed(na, nj, s->jac, s->src[2], s->out[2]);   // tau = K^T u
    } else {
      solve_transposed(nj, s->jac, s->src[2], s->out[2], work);   // tau = J^-T u
    }
    scatter(nj, m->joints, s->out[2], dst[2]);
  }
  if (jacobian != NULL) {   // J, or K^-1 column by column
    for (int64_t j = 0; j < na; ++j) {
      if (derived) {
        fill(na, s->back, 0.0);
        s->back[j] = 1.0;
        kernel_solve(nj, s->jac, s->back, s->out[1], work);
      }
      for (int64_t i = 0; i < nj; ++i) {
        jacobian[m->joints[i] * s->n_in + m->actuators[j]] =
          derived ? s->out[1][i] : s->jac[i * na + j];
      }
    }
  }
}

// Whether the joint positions q a mechanism reads come back from the round trip q -> theta -> q'.
static int far(const Mechanism * m, const double * q, const double * theta, double * back)
{
  if (m->type->to_joint == NULL) {
    // Newton's method started at q itself converges at once wherever g(q) is defined
    if (all_finite(m->na, theta)) {
      return 0;
    }
    for (int64_t i = 0; i < m->inputs; ++i) {
      if (!isnan(q[i])) {
        return 1;
      }
    }
    return 0;
  }
  m->type->to_joint(m, theta, back, NULL);
  for (int64_t i = 0; i < m->inputs; ++i) {
    if (fabs(back[i] - q[i]) > REACH_TOLERANCE * (1.0 + fabs(q[i])) ||
      (isnan(back[i]) && !isnan(q[i])))
    {
      return 1;
    }
  }
  return 0;
}

// The joint-to-actuator maps of one mechanism at one sample (its owner writes them).
static void mechanism_to_actuator(
  Mechanism * m, const double * const * src, const double * state, double * const * dst,
  uint8_t * unreachable, double * jacobian, MechanismScratch * s)
{
  const int64_t na = m->na;
  const int64_t nj = m->nj;
  const int same = state != NULL && state == src[0];
  const int moves = src[1] != NULL || src[2] != NULL || jacobian != NULL;
  if (state != NULL && (same || moves)) {
    gather(nj, m->joints, state, s->at);
    m->type->to_actuator(m, s->at, s->image, s->jac);
  }
  if (src[0] != NULL) {
    const double * q = s->at;
    if (same) {
      memcpy(s->out[0], s->image, (size_t)na * sizeof(double));
    } else {
      gather(nj, m->joints, src[0], s->src[0]);
      m->type->to_actuator(m, s->src[0], s->out[0], NULL);
      q = s->src[0];
    }
    scatter(na, m->actuators, s->out[0], dst[0]);
    if (unreachable != NULL && far(m, q, s->out[0], s->back)) {
      for (int64_t i = 0; i < na; ++i) {
        unreachable[m->actuators[i]] = 1;
      }
    }
  }
  if (state == NULL) {
    unknown_motion(m->actuators, na, m->joints, nj, src, dst, jacobian, s->n_in);
    return;
  }
  if (src[1] != NULL) {
    gather(nj, m->joints, src[1], s->src[1]);
    for (int64_t i = 0; i < na; ++i) {   // thetadot = K qdot over the joints it reads
      double v = s->jac[i * nj] * s->src[1][0];
      for (int64_t j = 1; j < m->inputs; ++j) {
        v += s->jac[i * nj + j] * s->src[1][j];
      }
      s->out[1][i] = v;
    }
    scatter(na, m->actuators, s->out[1], dst[1]);
  }
  if (src[2] != NULL) {
    gather(nj, m->joints, src[2], s->src[2]);
    if (m->type->effort_to_actuator != NULL) {
      m->type->effort_to_actuator(m, s->jac, s->src[2], s->out[2]);
    } else {
      solve_transposed(na, s->jac, s->src[2], s->out[2], s->newton);   // u = K^-T tau
    }
    scatter(na, m->actuators, s->out[2], dst[2]);
  }
  if (jacobian != NULL) {
    for (int64_t i = 0; i < na; ++i) {
      for (int64_t j = 0; j < nj; ++j) {
        jacobian[m->actuators[i] * s->n_in + m->joints[j]] = s->jac[i * nj + j];
      }
    }
  }
}

void kernel_convert(Description * d, int to_joint, const Conversion * c, double * scratch)
{
  const int64_t n_in = to_joint ? d->na : d->nj;
  const int64_t n_out = to_joint ? d->nj : d->na;
  const int64_t side = d->max_side;
  MechanismScratch s;
  s.n_in = n_in;
  for (int k = 0; k < 3; ++k) {
    s.src[k] = scratch + k * side;
    s.out[k] = scratch + (3 + k) * side;
  }
  s.at = scratch + 6 * side;
  s.image = scratch + 7 * side;
  s.back = scratch + 8 * side;
  s.jac = scratch + 9 * side;
  s.spare = scratch + 9 * side + side * side;
  s.newton = scratch + 9 * side + 2 * side * side;
  for (int k = 0; k < 3; ++k) {
    if (c->source[k] != NULL) {
      linear_rows(d, to_joint, k, c->source[k], c->target[k], c->batch, n_in, n_out);
    }
  }
  for (int64_t b = 0; b < c->batch && (d->n_mechanisms > 0 || c->unreachable != NULL ||
    c->jacobian != NULL); ++b)
  {
    const double * src[3];
    double * dst[3];
    for (int k = 0; k < 3; ++k) {
      src[k] = c->source[k] != NULL ? c->source[k] + b * n_in : NULL;
      dst[k] = c->target[k] != NULL ? c->target[k] + b * n_out : NULL;
    }
    const double * state = c->state != NULL ? c->state + b * n_in : NULL;
    uint8_t * unreachable = c->unreachable != NULL ? c->unreachable + b * n_out : NULL;
    double * jacobian = c->jacobian != NULL ? c->jacobian + b * n_out * n_in : NULL;
    if (unreachable != NULL) {
      memset(unreachable, 0, (size_t)n_out);
    }
    if (jacobian != NULL) {
      fill(n_out * n_in, jacobian, 0.0);
      linear_jacobian(d, to_joint, jacobian);
    }
    for (int64_t i = 0; i < d->n_mechanisms; ++i) {
      Mechanism * m = &d->mechanisms[i];
      if (to_joint) {
        mechanism_to_joint(m, c->warm, src, state, dst, jacobian, &s);
      } else if (m->owner) {
        mechanism_to_actuator(m, src, state, dst, unreachable, jacobian, &s);
      }
    }
  }
}
