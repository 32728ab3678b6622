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

// The compiled conversion of the built-in transmissions (doc/performance.md, "The kernel").
//
// A robot is a flat description made once at load: the linear transmissions as compressed rows
// (one matrix per direction and kind), and one record per nonlinear mechanism: its type, its
// parameters (numbers the Python constructor prepared) and where it sits in the robot's joint and
// actuator vectors.  kernel_convert() maps a batch of samples in one direction, position,
// velocity and effort together; one sample is a batch of one.  Every index and length was checked
// when the description was loaded (module.c), so nothing here checks them again.

#ifndef TRANSMISSION_KERNEL_KERNEL_H_
#define TRANSMISSION_KERNEL_KERNEL_H_

#include <stddef.h>
#include <stdint.h>

// Newton's method (the actuator-to-joint map of a mechanism that defines only the other
// direction) stops when every residual is within NEWTON_TOLERANCE * (1 + |target|); a step that
// leaves the domain of the residual is halved at most NEWTON_HALVINGS times; a sample is NaN
// after NEWTON_ITERATIONS steps or NEWTON_EVALUATIONS evaluations of the map without converging
// (outside the workspace: a fixed, small budget).  A warm start (the previous solution plus J
// times the actuator step) gets WARM_EVALUATIONS before the cold start from the neutral pose.
#define NEWTON_TOLERANCE 1e-13
#define NEWTON_ITERATIONS 50
#define NEWTON_HALVINGS 30
#define NEWTON_EVALUATIONS 64
#define WARM_EVALUATIONS 6
// The round trip q -> theta -> q' of a joint-to-actuator conversion leaves a joint position
// outside its mechanism's range when |q' - q| > REACH_TOLERANCE * (1 + |q|).
#define REACH_TOLERANCE 1e-9

// Mechanism types: the codes the Python classes name in their records.
enum {
  KIND_PARALLEL_ANKLE = 1,
  KIND_SLIDER_CRANK = 2,
  KIND_TABLE = 3,
  KIND_PR2_GRIPPER = 4,
  KIND_SERIES_ELASTIC = 5,
  KIND_COUNT = 6
};

// The largest mechanism, joints and actuators each (a PR2 gripper with many passive joints).
#define MAX_SIDE 64

typedef struct Mechanism Mechanism;

// What a mechanism type defines; a NULL entry is derived (kernel.c).  Jacobians are row-major:
// K = d(theta)/dq is N x M, J = dq/d(theta) is M x N.  A `jac` argument may be NULL (position
// only).  Every function gets non-finite inputs too and must not fail on them: NaN and inf are
// results.
typedef struct {
  const char * name;
  // the parameter count the record must have, given the record (sizes, table points)
  int64_t (* parameter_count)(const Mechanism * m);
  // joint to actuator: theta = g(q) and K there
  void (* to_actuator)(const Mechanism * m, const double * q, double * theta, double * jac);
  // actuator to joint: q = f(theta) and J there; NULL: Newton's method on to_actuator
  void (* to_joint)(const Mechanism * m, const double * theta, double * q, double * jac);
  // the type's own velocity and effort maps where they are not the derived ones (NULL); the
  // actuator-to-joint effort map also gets the mechanism's actuator positions `theta` (the
  // state) and velocities `thetadot` (NULL when the conversion has none), for a type whose joint
  // efforts come from its actuators' motion (a spring's deflection) rather than their efforts
  void (* velocity_to_joint)(const Mechanism * m, const double * jac, const double * v, double * out);
  void (* effort_to_joint)(
    const Mechanism * m, const double * jac, const double * u, const double * theta,
    const double * thetadot, double * out);
  void (* effort_to_actuator)(
    const Mechanism * m, const double * jac, const double * tau, double * out);
  // the terms the Python class words its workspace problems with, at one position; returns
  // how many it wrote (at most MAX_TERMS)
  int64_t (* terms)(const Mechanism * m, int to_joint, const double * x, double * out);
  // Newton's method on to_actuator, the type's own way (NULL: g(q) - theta): `target` is
  // prepared once per solve from theta (0: theta is outside the map's range), then `residual`
  // gives a residual that vanishes where g(q) = theta, and its Jacobian, at q
  int (* newton_target)(const Mechanism * m, const double * theta, double * target);
  void (* newton_residual)(
    const Mechanism * m, const double * q, const double * target, double * r, double * jac);
} MechanismType;

#define MAX_TERMS 16

// One mechanism instance of the robot.
struct Mechanism {
  const MechanismType * type;
  int64_t kind;
  const double * p;         // its parameters
  int64_t n_parameters;
  int64_t nj;               // joints M
  int64_t na;               // actuators N
  const int64_t * joints;   // robot joint index of each of its joints
  const int64_t * actuators;  // robot actuator index of each of its actuators
  int64_t inputs;           // the joint-to-actuator maps read its first `inputs` joints
  int owner;                // it writes its actuators in joint to actuator conversions
  // Newton's cold start: q0 = S (theta - theta0), S = K(0)^-1 (zeros when not finite)
  double * neutral_theta;   // N
  double * neutral_slope;   // M x N
  // the warm start: the last solution, its actuator positions and K there
  double * warm_q;          // M
  double * warm_theta;      // N
  double * warm_k;          // N x M
  int warm_valid;
  int64_t evaluations;      // of to_actuator by Newton's method, since load (a count to pin)
};

// A linear map as compressed rows: row r holds columns col[ptr[r]] .. col[ptr[r + 1] - 1].
// Made once at load for a tight loop: the rows of one entry apart (most rows: a simple
// transmission's), the rows of several, and the rows of none that no mechanism writes (0).
typedef struct {
  const int64_t * ptr;
  const int64_t * col;
  const double * val;
  int64_t n_single;
  const int64_t * single_row;
  const int64_t * single_col;
  const double * single_val;
  int64_t n_multi;
  const int64_t * multi_row;
  int64_t n_zero;
  const int64_t * zero_row;
} Rows;

// The flat description of a robot.
typedef struct {
  int64_t nj;
  int64_t na;
  // [to_joint][effort]: J and K^T (actuator to joint), K and J^T (joint to actuator, owners)
  Rows rows[2][2];
  const double * joint_offset;  // nj
  // which outputs no linear row writes but a mechanism does (they are not zeroed)
  const uint8_t * mechanism_joint;     // nj
  const uint8_t * mechanism_actuator;  // na
  int64_t n_mechanisms;
  Mechanism * mechanisms;
  int64_t max_side;
} Description;

// The arrays of one conversion: each NULL when not converted; batch-major, `batch` samples.
typedef struct {
  int64_t batch;
  const double * source[3];   // position, velocity, effort (n_in per sample)
  double * target[3];         // (n_out per sample)
  const double * state;       // the positions nonlinear maps are evaluated at (n_in per sample)
  uint8_t * unreachable;      // joint to actuator: targets outside a mechanism's range
  double * jacobian;          // d target / d source at the state, n_out x n_in per sample
  int warm;                   // use and update the mechanisms' warm starts
} Conversion;

void kernel_convert(Description * d, int to_joint, const Conversion * c, double * scratch);
// scratch doubles kernel_convert needs for a description
int64_t kernel_scratch_size(const Description * d);
// derive a mechanism's neutral linearisation (after its parameters are in place)
void kernel_prepare(Mechanism * m, double * scratch);

extern const MechanismType parallel_ankle_type;
extern const MechanismType slider_crank_type;
extern const MechanismType table_type;
extern const MechanismType pr2_gripper_type;
extern const MechanismType series_elastic_type;

// small dense helpers shared by the types
// x = A^-1 b for A n x n (row-major); all NaN where A is singular or not finite; returns 0 then
int kernel_solve(int64_t n, const double * a, const double * b, double * x, double * work);
// the segment of v among `values` (n >= 2, increasing): the last k with values[k] <= v,
// clipped to 0 .. n - 2 (NaN: the last segment); a binary search
int64_t kernel_segment(const double * values, int64_t n, double v);

#endif  // TRANSMISSION_KERNEL_KERNEL_H_
