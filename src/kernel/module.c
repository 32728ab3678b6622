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

// The CPython module transmission_plugins.core.kernel: the type Maps, a flat description loaded
// once (every index and length checked, everything copied), and its conversion.  Arrays cross as
// buffers (numpy arrays): float64 or int64, C-contiguous; nothing else is accepted.

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdlib.h>
#include <string.h>

#include "kernel.h"

// The largest mechanism side, and the most joints or actuators a robot may have.
#define SIDE_LIMIT 1024
#define SIZE_LIMIT ((int64_t)1 << 31)

static const MechanismType * const TYPES[KIND_COUNT] = {
  NULL, &parallel_ankle_type, &slider_crank_type, &table_type, &pr2_gripper_type,
  &series_elastic_type};

typedef struct {
  PyObject_HEAD
  Description d;
  char * memory;
  double * scratch;
  int64_t * plans;   // the rows' plans (Rows: single, multi, zero)
  double * plan_values;
} MapsObject;

// ------------------------------------------------------------------------ buffers

static int format_is(const char * format, char code)
{
  if (format == NULL) {
    return 0;
  }
  if (format[0] == '@' || format[0] == '=' || format[0] == '<') {
    ++format;
  }
  return format[0] == code && format[1] == '\0';
}

// A C-contiguous buffer of float64 ('d'), int64 ('l' or 'q', 8 bytes) or bytes ('?' or 'B').
static int get_buffer(PyObject * obj, Py_buffer * view, char kind, int writable, const char * what)
{
  int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
  if (PyObject_GetBuffer(obj, view, flags) < 0) {
    PyErr_Format(
      PyExc_TypeError, "%s must be a C-contiguous%s array", what, writable ? " writeable" : "");
    return -1;
  }
  int ok;
  if (kind == 'd') {
    ok = view->itemsize == 8 && format_is(view->format, 'd');
  } else if (kind == 'q') {
    ok = view->itemsize == 8 && (format_is(view->format, 'l') || format_is(view->format, 'q'));
  } else {
    ok = view->itemsize == 1 && (format_is(view->format, '?') || format_is(view->format, 'B'));
  }
  if (!ok) {
    PyErr_Format(
      PyExc_TypeError, "%s must hold %s, not format '%s'", what,
      kind == 'd' ? "float64" : (kind == 'q' ? "int64" : "bool or uint8"),
      view->format != NULL ? view->format : "?");
    PyBuffer_Release(view);
    return -1;
  }
  return 0;
}

static int64_t count(const Py_buffer * view)
{
  return (int64_t)(view->len / view->itemsize);
}

// ------------------------------------------------------------------------ loading

typedef struct {
  Py_buffer view[4][3];   // rows: (ptr, col, val) of the four matrices
  Py_buffer offset;
  Py_buffer * mech;       // (parameters, joints, actuators) per mechanism
  int64_t n_mech;
  int64_t * kind;
  int64_t * inputs;
  int * owner;
  int n_views;            // views held, for release
} Loading;

static void release_loading(Loading * l)
{
  for (int i = 0; i < 12 && i < l->n_views; ++i) {
    PyBuffer_Release(&l->view[i / 3][i % 3]);
  }
  if (l->n_views > 12) {
    PyBuffer_Release(&l->offset);
  }
  for (int64_t i = 0; 13 + i < l->n_views; ++i) {
    PyBuffer_Release(&l->mech[i]);
  }
  free(l->mech);
  free(l->kind);
  free(l->inputs);
  free(l->owner);
}

static int check_rows(const Loading * l, int which, int64_t n_out, int64_t n_in)
{
  static const char * const names[4] = {
    "the actuator-to-joint position rows", "the actuator-to-joint effort rows",
    "the joint-to-actuator position rows", "the joint-to-actuator effort rows"};
  const int64_t * ptr = l->view[which][0].buf;
  const int64_t * col = l->view[which][1].buf;
  const int64_t nnz = count(&l->view[which][1]);
  if (count(&l->view[which][0]) != n_out + 1 || count(&l->view[which][2]) != nnz) {
    PyErr_Format(
      PyExc_ValueError, "%s: %lld row pointers and %lld values for %lld rows and %lld entries",
      names[which], (long long)count(&l->view[which][0]), (long long)count(&l->view[which][2]),
      (long long)n_out, (long long)nnz);
    return -1;
  }
  if (ptr[0] != 0 || ptr[n_out] != nnz) {
    PyErr_Format(PyExc_ValueError, "%s: row pointers must run from 0 to %lld", names[which],
      (long long)nnz);
    return -1;
  }
  for (int64_t r = 0; r < n_out; ++r) {
    if (ptr[r + 1] < ptr[r]) {
      PyErr_Format(PyExc_ValueError, "%s: row pointer %lld decreases", names[which],
        (long long)(r + 1));
      return -1;
    }
  }
  for (int64_t k = 0; k < nnz; ++k) {
    if (col[k] < 0 || col[k] >= n_in) {
      PyErr_Format(PyExc_ValueError, "%s: column %lld outside 0..%lld", names[which],
        (long long)col[k], (long long)(n_in - 1));
      return -1;
    }
  }
  return 0;
}

static int check_indices(const int64_t * index, int64_t n, int64_t limit, const char * what,
  int64_t mechanism)
{
  if (n < 1 || n > SIDE_LIMIT) {
    PyErr_Format(PyExc_ValueError, "mechanism %lld: %lld %s, expected 1..%d",
      (long long)mechanism, (long long)n, what, SIDE_LIMIT);
    return -1;
  }
  for (int64_t i = 0; i < n; ++i) {
    if (index[i] < 0 || index[i] >= limit) {
      PyErr_Format(PyExc_ValueError, "mechanism %lld: %s index %lld outside 0..%lld",
        (long long)mechanism, what, (long long)index[i], (long long)(limit - 1));
      return -1;
    }
    for (int64_t j = 0; j < i; ++j) {
      if (index[j] == index[i]) {
        PyErr_Format(PyExc_ValueError, "mechanism %lld: %s index %lld twice",
          (long long)mechanism, what, (long long)index[i]);
        return -1;
      }
    }
  }
  return 0;
}

// Read the arguments into buffers; checks their types and the mechanisms' tuples.
static int read_arguments(Loading * l, PyObject * rows, PyObject * offset, PyObject * mechanisms)
{
  static const char * const parts[3] = {"row pointers", "columns", "values"};
  if (!PyTuple_Check(rows) || PyTuple_GET_SIZE(rows) != 4) {
    PyErr_SetString(PyExc_TypeError, "rows must be a tuple of four (ptr, col, val) tuples");
    return -1;
  }
  for (int i = 0; i < 4; ++i) {
    PyObject * r = PyTuple_GET_ITEM(rows, i);
    if (!PyTuple_Check(r) || PyTuple_GET_SIZE(r) != 3) {
      PyErr_SetString(PyExc_TypeError, "rows must be a tuple of four (ptr, col, val) tuples");
      return -1;
    }
    for (int j = 0; j < 3; ++j) {
      if (get_buffer(PyTuple_GET_ITEM(r, j), &l->view[i][j], j == 2 ? 'd' : 'q', 0,
        parts[j]) < 0)
      {
        return -1;
      }
      ++l->n_views;
    }
  }
  if (get_buffer(offset, &l->offset, 'd', 0, "joint_offset") < 0) {
    return -1;
  }
  ++l->n_views;
  if (!PyTuple_Check(mechanisms)) {
    PyErr_SetString(PyExc_TypeError, "mechanisms must be a tuple");
    return -1;
  }
  l->n_mech = PyTuple_GET_SIZE(mechanisms);
  const size_t n = (size_t)(l->n_mech > 0 ? l->n_mech : 1);
  l->mech = calloc(3 * n, sizeof(Py_buffer));
  l->kind = calloc(n, sizeof(int64_t));
  l->inputs = calloc(n, sizeof(int64_t));
  l->owner = calloc(n, sizeof(int));
  if (l->mech == NULL || l->kind == NULL || l->inputs == NULL || l->owner == NULL) {
    PyErr_NoMemory();
    return -1;
  }
  for (int64_t i = 0; i < l->n_mech; ++i) {
    PyObject * t = PyTuple_GET_ITEM(mechanisms, i);
    if (!PyTuple_Check(t) || PyTuple_GET_SIZE(t) != 6) {
      PyErr_Format(PyExc_TypeError, "mechanism %lld must be a tuple (kind, parameters, joints, "
        "actuators, inputs, owner)", (long long)i);
      return -1;
    }
    l->kind[i] = PyLong_AsLongLong(PyTuple_GET_ITEM(t, 0));
    l->inputs[i] = PyLong_AsLongLong(PyTuple_GET_ITEM(t, 4));
    l->owner[i] = PyObject_IsTrue(PyTuple_GET_ITEM(t, 5));
    if (PyErr_Occurred()) {
      return -1;
    }
    for (int j = 0; j < 3; ++j) {
      if (get_buffer(PyTuple_GET_ITEM(t, 1 + j), &l->mech[3 * i + j], j == 0 ? 'd' : 'q', 0,
        j == 0 ? "parameters" : (j == 1 ? "joints" : "actuators")) < 0)
      {
        return -1;
      }
      ++l->n_views;
    }
  }
  return 0;
}

// Copy the checked description into one block of memory owned by the object.
static int load(MapsObject * self, Loading * l, int64_t nj, int64_t na)
{
  Description * d = &self->d;
  size_t doubles = (size_t)nj;
  size_t ints = 0;
  size_t bytes = (size_t)(nj + na);
  int64_t side = 1;
  for (int i = 0; i < 4; ++i) {
    ints += (size_t)(count(&l->view[i][0]) + count(&l->view[i][1]));
    doubles += (size_t)count(&l->view[i][2]);
  }
  for (int64_t i = 0; i < l->n_mech; ++i) {
    const int64_t mj = count(&l->mech[3 * i + 1]);
    const int64_t ma = count(&l->mech[3 * i + 2]);
    doubles += (size_t)(count(&l->mech[3 * i]) + 2 * ma + 2 * mj * ma + mj);
    ints += (size_t)(mj + ma);
    side = mj > side ? mj : side;
    side = ma > side ? ma : side;
  }
  const size_t size = doubles * sizeof(double) + ints * sizeof(int64_t) +
    (size_t)l->n_mech * sizeof(Mechanism) + bytes + 64;
  self->memory = calloc(1, size);
  if (self->memory == NULL) {
    PyErr_NoMemory();
    return -1;
  }
  char * next = self->memory;
  // doubles, then int64s, then mechanisms, then bytes: each kind stays aligned
  double * dp = (double *)next;
  int64_t * ip = (int64_t *)(next + doubles * sizeof(double));
  Mechanism * mp = (Mechanism *)(ip + ints);
  uint8_t * bp = (uint8_t *)(mp + l->n_mech);
  d->nj = nj;
  d->na = na;
  for (int i = 0; i < 4; ++i) {
    Rows * rows = &d->rows[i < 2][i % 2];   // (to_joint, effort): a2j first in the tuple
    const int64_t n_ptr = count(&l->view[i][0]);
    const int64_t nnz = count(&l->view[i][1]);
    memcpy(ip, l->view[i][0].buf, (size_t)n_ptr * sizeof(int64_t));
    rows->ptr = ip;
    ip += n_ptr;
    memcpy(ip, l->view[i][1].buf, (size_t)nnz * sizeof(int64_t));
    rows->col = ip;
    ip += nnz;
    memcpy(dp, l->view[i][2].buf, (size_t)nnz * sizeof(double));
    rows->val = dp;
    dp += nnz;
  }
  memcpy(dp, l->offset.buf, (size_t)nj * sizeof(double));
  d->joint_offset = dp;
  dp += nj;
  d->mechanism_joint = bp;
  d->mechanism_actuator = bp + nj;
  d->n_mechanisms = l->n_mech;
  d->mechanisms = mp;
  d->max_side = side;
  for (int64_t i = 0; i < l->n_mech; ++i) {
    Mechanism * m = &mp[i];
    const int64_t np = count(&l->mech[3 * i]);
    m->nj = count(&l->mech[3 * i + 1]);
    m->na = count(&l->mech[3 * i + 2]);
    m->kind = l->kind[i];
    m->type = TYPES[l->kind[i]];
    m->inputs = l->inputs[i];
    m->owner = l->owner[i];
    m->n_parameters = np;
    memcpy(dp, l->mech[3 * i].buf, (size_t)np * sizeof(double));
    m->p = dp;
    dp += np;
    memcpy(ip, l->mech[3 * i + 1].buf, (size_t)m->nj * sizeof(int64_t));
    m->joints = ip;
    ip += m->nj;
    memcpy(ip, l->mech[3 * i + 2].buf, (size_t)m->na * sizeof(int64_t));
    m->actuators = ip;
    ip += m->na;
    m->neutral_theta = dp;
    dp += m->na;
    m->neutral_slope = dp;
    dp += m->nj * m->na;
    m->warm_theta = dp;
    dp += m->na;
    m->warm_k = dp;
    dp += m->nj * m->na;
    m->warm_q = dp;
    dp += m->nj;
    for (int64_t j = 0; j < m->nj; ++j) {
      ((uint8_t *)d->mechanism_joint)[m->joints[j]] = 1;
    }
    if (m->owner) {
      for (int64_t a = 0; a < m->na; ++a) {
        ((uint8_t *)d->mechanism_actuator)[m->actuators[a]] = 1;
      }
    }
  }
  return 0;
}

static int check_mechanisms(const Loading * l, int64_t nj, int64_t na)
{
  for (int64_t i = 0; i < l->n_mech; ++i) {
    if (l->kind[i] <= 0 || l->kind[i] >= KIND_COUNT) {
      PyErr_Format(PyExc_ValueError, "mechanism %lld: unknown kind %lld", (long long)i,
        (long long)l->kind[i]);
      return -1;
    }
    const int64_t mj = count(&l->mech[3 * i + 1]);
    const int64_t ma = count(&l->mech[3 * i + 2]);
    if (check_indices(l->mech[3 * i + 1].buf, mj, nj, "joint", i) < 0 ||
      check_indices(l->mech[3 * i + 2].buf, ma, na, "actuator", i) < 0)
    {
      return -1;
    }
    if (l->inputs[i] < 1 || l->inputs[i] > mj) {
      PyErr_Format(PyExc_ValueError, "mechanism %lld: reads %lld joints of %lld", (long long)i,
        (long long)l->inputs[i], (long long)mj);
      return -1;
    }
    const MechanismType * type = TYPES[l->kind[i]];
    Mechanism probe;
    memset(&probe, 0, sizeof(probe));
    probe.type = type;
    probe.p = l->mech[3 * i].buf;
    probe.n_parameters = count(&l->mech[3 * i]);
    probe.nj = mj;
    probe.na = ma;
    const int64_t expected = type->parameter_count(&probe);
    if (expected < 0 || expected != probe.n_parameters) {
      PyErr_Format(PyExc_ValueError, "mechanism %lld (%s): %lld parameters for %lld joints and "
        "%lld actuators do not describe one", (long long)i, type->name,
        (long long)probe.n_parameters, (long long)mj, (long long)ma);
      return -1;
    }
    if (type->to_joint == NULL && mj != ma) {
      PyErr_Format(PyExc_ValueError, "mechanism %lld (%s): Newton's method needs as many joints "
        "as actuators", (long long)i, type->name);
      return -1;
    }
  }
  return 0;
}

// Sort each matrix's rows into those of one entry, of several and of none (not written by a
// mechanism), for the conversion's loops (kernel.h, Rows).
static int plan_rows(MapsObject * self)
{
  Description * d = &self->d;
  size_t size = 0;
  for (int i = 0; i < 4; ++i) {
    const int64_t n_out = i < 2 ? d->na : d->nj;   // rows[0][*]: joint to actuator
    size += (size_t)(3 * n_out + 1);
  }
  self->plans = calloc(size, sizeof(int64_t));
  if (self->plans == NULL) {
    PyErr_NoMemory();
    return -1;
  }
  int64_t * next = self->plans;
  double * values = (double *)calloc(size, sizeof(double));
  if (values == NULL) {
    PyErr_NoMemory();
    return -1;
  }
  self->plan_values = values;
  for (int t = 0; t < 2; ++t) {
    for (int e = 0; e < 2; ++e) {
      Rows * rows = &d->rows[t][e];
      const int64_t n_out = t ? d->nj : d->na;
      const uint8_t * written = t ? d->mechanism_joint : d->mechanism_actuator;
      int64_t * single_row = next;
      int64_t * single_col = next + n_out;
      int64_t * multi_row = next + 2 * n_out;
      int64_t * zero_row = multi_row;   // filled from the end of the same n_out slots
      double * single_val = values;
      int64_t n_single = 0;
      int64_t n_multi = 0;
      int64_t n_zero = 0;
      for (int64_t r = 0; r < n_out; ++r) {
        const int64_t entries = rows->ptr[r + 1] - rows->ptr[r];
        if (entries == 1) {
          single_row[n_single] = r;
          single_col[n_single] = rows->col[rows->ptr[r]];
          single_val[n_single] = rows->val[rows->ptr[r]];
          ++n_single;
        } else if (entries > 1) {
          multi_row[n_multi++] = r;
        } else if (!written[r]) {
          zero_row[n_out - 1 - n_zero++] = r;
        }
      }
      rows->single_row = single_row;
      rows->single_col = single_col;
      rows->single_val = single_val;
      rows->n_single = n_single;
      rows->multi_row = multi_row;
      rows->n_multi = n_multi;
      rows->zero_row = zero_row + n_out - n_zero;
      rows->n_zero = n_zero;
      next += 3 * n_out + 1;
      values += n_out + 1;
    }
  }
  return 0;
}

static void maps_dealloc(MapsObject * self)
{
  free(self->memory);
  free(self->scratch);
  free(self->plans);
  free(self->plan_values);
  Py_TYPE(self)->tp_free((PyObject *)self);
}

static int maps_init(MapsObject * self, PyObject * args, PyObject * kwargs)
{
  static char * keywords[] = {"num_joints", "num_actuators", "rows", "joint_offset",
    "mechanisms", NULL};
  long long nj;
  long long na;
  PyObject * rows;
  PyObject * offset;
  PyObject * mechanisms;
  if (self->memory != NULL) {
    PyErr_SetString(PyExc_RuntimeError, "Maps is loaded once");
    return -1;
  }
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "LLOOO", keywords, &nj, &na, &rows, &offset,
    &mechanisms))
  {
    return -1;
  }
  if (nj < 0 || na < 0 || nj > SIZE_LIMIT || na > SIZE_LIMIT) {
    PyErr_Format(PyExc_ValueError, "%lld joints and %lld actuators: expected 0..%lld each", nj, na,
      (long long)SIZE_LIMIT);
    return -1;
  }
  Loading l;
  memset(&l, 0, sizeof(l));
  int result = -1;
  if (read_arguments(&l, rows, offset, mechanisms) < 0 ||
    check_rows(&l, 0, nj, na) < 0 || check_rows(&l, 1, nj, na) < 0 ||
    check_rows(&l, 2, na, nj) < 0 || check_rows(&l, 3, na, nj) < 0 ||
    check_mechanisms(&l, nj, na) < 0)
  {
    goto done;
  }
  if (count(&l.offset) != nj) {
    PyErr_Format(PyExc_ValueError, "joint_offset: %lld values for %lld joints",
      (long long)count(&l.offset), nj);
    goto done;
  }
  if (load(self, &l, nj, na) < 0 || plan_rows(self) < 0) {
    goto done;
  }
  self->scratch = calloc((size_t)kernel_scratch_size(&self->d), sizeof(double));
  if (self->scratch == NULL) {
    PyErr_NoMemory();
    goto done;
  }
  for (int64_t i = 0; i < self->d.n_mechanisms; ++i) {
    kernel_prepare(&self->d.mechanisms[i], self->scratch);
  }
  result = 0;
done:
  release_loading(&l);
  if (result < 0) {
    free(self->memory);
    free(self->plans);
    free(self->plan_values);
    self->memory = NULL;
    self->plans = NULL;
    self->plan_values = NULL;
  }
  return result;
}

// ------------------------------------------------------------------------ converting

static int loaded(const MapsObject * self)
{
  if (self->memory == NULL) {
    PyErr_SetString(PyExc_RuntimeError, "Maps was not loaded");
    return 0;
  }
  return 1;
}

static int overlaps(const Py_buffer * a, const Py_buffer * b)
{
  const char * a0 = a->buf;
  const char * b0 = b->buf;
  return a->len > 0 && b->len > 0 && a0 < b0 + b->len && b0 < a0 + a->len;
}

enum { ARG_TO_JOINT, ARG_BATCH, ARG_SOURCE, ARG_TARGET = ARG_SOURCE + 3, ARG_STATE = ARG_TARGET + 3,
  ARG_UNREACHABLE, ARG_JACOBIAN, ARG_WARM, N_ARGS };

static PyObject * maps_convert(MapsObject * self, PyObject * const * args, Py_ssize_t nargs)
{
  static const char * const names[N_ARGS] = {"to_joint", "batch", "position", "velocity",
    "effort", "out_position", "out_velocity", "out_effort", "state", "unreachable", "jacobian",
    "warm"};
  if (!loaded(self)) {
    return NULL;
  }
  if (nargs != N_ARGS) {
    PyErr_Format(PyExc_TypeError, "convert takes %d arguments (%zd given)", N_ARGS, nargs);
    return NULL;
  }
  const int to_joint = PyObject_IsTrue(args[ARG_TO_JOINT]);
  long long batch = PyLong_AsLongLong(args[ARG_BATCH]);
  const int warm = PyObject_IsTrue(args[ARG_WARM]);
  if (to_joint < 0 || warm < 0 || (batch == -1 && PyErr_Occurred())) {
    return NULL;
  }
  const Description * d = &self->d;
  const int64_t n_in = to_joint ? d->na : d->nj;
  const int64_t n_out = to_joint ? d->nj : d->na;
  Py_buffer views[N_ARGS];
  int held[N_ARGS] = {0};
  Conversion c;
  memset(&c, 0, sizeof(c));
  PyObject * result = NULL;
  for (int i = ARG_SOURCE; i < ARG_WARM; ++i) {
    if (args[i] == Py_None) {
      continue;
    }
    if (i == ARG_UNREACHABLE && to_joint) {
      PyErr_SetString(PyExc_ValueError, "unreachable: joint-to-actuator conversions only");
      goto done;
    }
    const int writable = i >= ARG_TARGET && i != ARG_STATE;
    if (get_buffer(args[i], &views[i], i == ARG_UNREACHABLE ? 'b' : 'd', writable,
      names[i]) < 0)
    {
      goto done;
    }
    held[i] = 1;
  }
  if (batch == -1 && n_in > 0) {   // the samples of the first source or state given
    for (int i = ARG_SOURCE; i <= ARG_STATE; ++i) {
      if (held[i] && (i < ARG_TARGET || i == ARG_STATE)) {
        batch = count(&views[i]) / n_in;
        break;
      }
    }
  }
  if (batch < 0 || (n_in > 0 && batch > SIZE_LIMIT / n_in) ||
    (n_out > 0 && batch > SIZE_LIMIT / n_out) ||
    (held[ARG_JACOBIAN] && n_in * n_out > 0 && batch > SIZE_LIMIT / (n_in * n_out)))
  {
    PyErr_Format(PyExc_ValueError, "batch of %lld samples: too large or negative", batch);
    goto done;
  }
  c.batch = batch;
  c.warm = warm;
  for (int i = ARG_SOURCE; i < ARG_WARM; ++i) {
    if (!held[i]) {
      continue;
    }
    int64_t expected = (i < ARG_TARGET || i == ARG_STATE) ? batch * n_in : batch * n_out;
    if (i == ARG_JACOBIAN) {
      expected = batch * n_out * n_in;
    }
    if (count(&views[i]) != expected) {
      PyErr_Format(PyExc_ValueError, "%s: %lld values, expected %lld", names[i],
        (long long)count(&views[i]), (long long)expected);
      goto done;
    }
  }
  for (int k = 0; k < 3; ++k) {
    if (held[ARG_SOURCE + k] != held[ARG_TARGET + k]) {
      PyErr_Format(PyExc_ValueError, "%s and %s go together", names[ARG_SOURCE + k],
        names[ARG_TARGET + k]);
      goto done;
    }
    c.source[k] = held[ARG_SOURCE + k] ? views[ARG_SOURCE + k].buf : NULL;
    c.target[k] = held[ARG_TARGET + k] ? views[ARG_TARGET + k].buf : NULL;
  }
  for (int i = ARG_TARGET; i < ARG_WARM; ++i) {   // outputs overlap nothing
    if (!held[i] || i == ARG_STATE) {
      continue;
    }
    for (int j = ARG_SOURCE; j < ARG_WARM; ++j) {
      if (j != i && held[j] && overlaps(&views[i], &views[j])) {
        PyErr_Format(PyExc_ValueError, "%s overlaps %s", names[i], names[j]);
        goto done;
      }
    }
  }
  // the state is a position array of the sources: the same buffer as position when it is
  c.state = held[ARG_STATE] ? views[ARG_STATE].buf : NULL;
  if (held[ARG_STATE] && held[ARG_SOURCE] && views[ARG_STATE].buf == views[ARG_SOURCE].buf) {
    c.state = c.source[0];
  }
  c.unreachable = held[ARG_UNREACHABLE] ? views[ARG_UNREACHABLE].buf : NULL;
  c.jacobian = held[ARG_JACOBIAN] ? views[ARG_JACOBIAN].buf : NULL;
  kernel_convert(&self->d, to_joint, &c, self->scratch);
  result = Py_None;
  Py_INCREF(result);
done:
  for (int i = 0; i < N_ARGS; ++i) {
    if (held[i]) {
      PyBuffer_Release(&views[i]);
    }
  }
  return result;
}

static PyObject * maps_terms(MapsObject * self, PyObject * args)
{
  long long index;
  int to_joint;
  PyObject * position;
  if (!loaded(self) || !PyArg_ParseTuple(args, "LpO", &index, &to_joint, &position)) {
    return NULL;
  }
  if (index < 0 || index >= self->d.n_mechanisms) {
    PyErr_Format(PyExc_IndexError, "mechanism %lld of %lld", index,
      (long long)self->d.n_mechanisms);
    return NULL;
  }
  const Mechanism * m = &self->d.mechanisms[index];
  Py_buffer view;
  if (get_buffer(position, &view, 'd', 0, "position") < 0) {
    return NULL;
  }
  const int64_t n = to_joint ? m->na : m->nj;
  if (count(&view) != n) {
    PyErr_Format(PyExc_ValueError, "position: %lld values, expected %lld",
      (long long)count(&view), (long long)n);
    PyBuffer_Release(&view);
    return NULL;
  }
  double out[MAX_TERMS];
  const int64_t written = m->type->terms != NULL ? m->type->terms(m, to_joint, view.buf, out) : 0;
  PyBuffer_Release(&view);
  PyObject * result = PyTuple_New((Py_ssize_t)written);
  for (int64_t i = 0; result != NULL && i < written; ++i) {
    PyObject * x = PyFloat_FromDouble(out[i]);
    if (x == NULL) {
      Py_CLEAR(result);
      break;
    }
    PyTuple_SET_ITEM(result, i, x);
  }
  return result;
}

static PyObject * maps_forget(MapsObject * self, PyObject * Py_UNUSED(ignored))
{
  if (!loaded(self)) {
    return NULL;
  }
  for (int64_t i = 0; i < self->d.n_mechanisms; ++i) {
    self->d.mechanisms[i].warm_valid = 0;
  }
  Py_RETURN_NONE;
}

static PyObject * maps_num_joints(MapsObject * self, void * Py_UNUSED(closure))
{
  return PyLong_FromLongLong(self->d.nj);
}

static PyObject * maps_num_actuators(MapsObject * self, void * Py_UNUSED(closure))
{
  return PyLong_FromLongLong(self->d.na);
}

static PyObject * maps_num_mechanisms(MapsObject * self, void * Py_UNUSED(closure))
{
  return PyLong_FromLongLong(self->d.n_mechanisms);
}

static PyObject * maps_evaluations(MapsObject * self, void * Py_UNUSED(closure))
{
  int64_t total = 0;
  for (int64_t i = 0; i < self->d.n_mechanisms; ++i) {
    total += self->d.mechanisms[i].evaluations;
  }
  return PyLong_FromLongLong(total);
}

static PyMethodDef maps_methods[] = {
  {"convert", (PyCFunction)(void (*)(void))maps_convert, METH_FASTCALL,
    "convert(to_joint, batch, position, velocity, effort, out_position, out_velocity, "
    "out_effort, state, unreachable, jacobian, warm)\n--\n\n"
    "Convert a batch of samples in one direction into the output arrays (None: not converted)."},
  {"terms", (PyCFunction)maps_terms, METH_VARARGS,
    "terms(index, to_joint, position)\n--\n\n"
    "Return the terms a mechanism words its workspace problems with, at one position."},
  {"forget", (PyCFunction)maps_forget, METH_NOARGS,
    "forget()\n--\n\nForget the warm starts of Newton's method."},
  {NULL, NULL, 0, NULL}
};

static PyGetSetDef maps_getset[] = {
  {"num_joints", (getter)maps_num_joints, NULL, "joints of the description", NULL},
  {"num_actuators", (getter)maps_num_actuators, NULL, "actuators of the description", NULL},
  {"num_mechanisms", (getter)maps_num_mechanisms, NULL, "mechanism records", NULL},
  {"evaluations", (getter)maps_evaluations, NULL,
    "evaluations of the mechanisms' maps by Newton's method since load", NULL},
  {NULL, NULL, NULL, NULL, NULL}
};

static PyTypeObject MapsType = {
  PyVarObject_HEAD_INIT(NULL, 0)
  .tp_name = "transmission_plugins.core.kernel.Maps",
  .tp_basicsize = sizeof(MapsObject),
  .tp_dealloc = (destructor)maps_dealloc,
  .tp_flags = Py_TPFLAGS_DEFAULT,
  .tp_doc = "Maps(num_joints, num_actuators, rows, joint_offset, mechanisms)\n--\n\n"
    "The flat description of a robot's maths, checked and copied once, and its conversion.",
  .tp_methods = maps_methods,
  .tp_getset = maps_getset,
  .tp_init = (initproc)maps_init,
  .tp_new = PyType_GenericNew,
};

static struct PyModuleDef kernel_module = {
  PyModuleDef_HEAD_INIT,
  .m_name = "transmission_plugins.core.kernel",
  .m_doc = "The compiled conversion of the built-in transmissions (doc/performance.md).",
  .m_size = -1,
};

PyMODINIT_FUNC PyInit_kernel(void)
{
  if (PyType_Ready(&MapsType) < 0) {
    return NULL;
  }
  PyObject * module = PyModule_Create(&kernel_module);
  if (module == NULL) {
    return NULL;
  }
  Py_INCREF(&MapsType);
  if (PyModule_AddObject(module, "Maps", (PyObject *)&MapsType) < 0 ||
    PyModule_AddObject(module, "NEWTON_TOLERANCE", PyFloat_FromDouble(NEWTON_TOLERANCE)) < 0 ||
    PyModule_AddIntConstant(module, "NEWTON_ITERATIONS", NEWTON_ITERATIONS) < 0 ||
    PyModule_AddIntConstant(module, "NEWTON_HALVINGS", NEWTON_HALVINGS) < 0 ||
    PyModule_AddIntConstant(module, "NEWTON_EVALUATIONS", NEWTON_EVALUATIONS) < 0 ||
    PyModule_AddIntConstant(module, "WARM_EVALUATIONS", WARM_EVALUATIONS) < 0 ||
    PyModule_AddObject(module, "REACH_TOLERANCE", PyFloat_FromDouble(REACH_TOLERANCE)) < 0 ||
    PyModule_AddIntConstant(module, "PARALLEL_ANKLE", KIND_PARALLEL_ANKLE) < 0 ||
    PyModule_AddIntConstant(module, "SLIDER_CRANK", KIND_SLIDER_CRANK) < 0 ||
    PyModule_AddIntConstant(module, "TABLE", KIND_TABLE) < 0 ||
    PyModule_AddIntConstant(module, "PR2_GRIPPER", KIND_PR2_GRIPPER) < 0 ||
    PyModule_AddIntConstant(module, "SERIES_ELASTIC", KIND_SERIES_ELASTIC) < 0)
  {
    Py_DECREF(module);
    return NULL;
  }
  return module;
}
