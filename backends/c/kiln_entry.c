/* kiln's native call path: one CPython extension shared by every compiled function.
 *
 * An `Entry` is a callable (vectorcall, as cheap as METH_FASTCALL) bound to one compiled
 * kernel through its packed trampoline `const char *kiln_packed_<name>(void *const *slots)`
 * (backends/c/pyext.py appends it to the kernel's C). Calling it with NumPy arrays checks
 * each argument (exact ndarray, dtype, rank, static sizes, C-contiguous and aligned; or, for
 * a 0-d input, a NumPy scalar of its dtype, passed by value),
 * allocates the outputs, runs the kernel and returns the output (a tuple for several,
 * None for none); a failed run-time check in the kernel (its message returned by the
 * trampoline) raises ValueError, or the builtin exception its message names (raise_failed).
 * Any argument that does not fit returns NotImplemented, so Python can convert it or retrace;
 * only allocation failures raise. Built once per machine and cached (kiln.backends.c.pyext),
 * so no kernel compile ever includes Python.h. `Entry.retarget(address)` points an entry at the
 * trampoline of another build of the same source (kiln.backends.c.tiering: the -O2 build replacing
 * the quick one a first call ran). A `Form` is an Entry called with the arguments of one
 * structured call (keywords, lists or tuples of arrays, Python constants), and `HotPath` is
 * kiln.Function's __call__ (both below).
 *
 * Large outputs (>= POOL_MIN_BYTES) come from an output pool: a NumPy memory handler
 * (PyDataMem_Handler) set around their allocation. NumPy keeps a reference to it in each
 * such array and hands the buffer back to it when the array dies; the pool keeps up to
 * POOL_BLOCKS freed buffers (POOL_MAX_BYTES in all) and gives one to the next output of the
 * same size. When a freed buffer does not fit, the pool drops the buffers cached longest ago to
 * make room: the sizes a program makes now replace those it made once (a pool that kept its first
 * buffers forever would fault in every later large result afresh). A fresh 40 MB buffer costs
 * ~4 ms in mmap and first-touch page faults, as much as a memory-bound kernel over it; a pooled
 * one is already mapped. A buffer is reused only after NumPy freed it, so results never share
 * memory with a live array.
 */
#define PY_SSIZE_T_CLEAN
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <Python.h>
#include <structmember.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <numpy/arrayobject.h>

typedef const char *(*packed_fn)(void *const *slots); /* the message of a failed check, or NULL */

/* Raises ``kind(text[:len])``, with the note kiln.dialects.graph.where_note writes when ``where``
 * (a user's own raise or assert: their text, the line a note). */
static void raise_text(PyObject *kind, const char *text, Py_ssize_t len, const char *where) {
    PyObject *error = PyObject_CallFunction(kind, "s#", text, len);
    if (!error) return;
    if (where) {
        PyObject *done = PyObject_CallMethod(error, "add_note", "N",
                                             PyUnicode_FromFormat("raised at %s (a run-time check of a kiln.function)", where));
        if (!done) {
            Py_DECREF(error);
            return;
        }
        Py_DECREF(done);
    }
    PyErr_SetObject((PyObject *)Py_TYPE(error), error);
    Py_DECREF(error);
}

/* Raises the exception of a failed run-time check: the builtin exception its message starts
 * with ("IndexError: index ...", graph.error_prefix; the rest is its text), else
 * ValueError(message); the line after a graph.WHERE_SEPARATOR ('\x1e') as a note.
 * kiln.dialects.graph.check_error decodes it the same way. */
static void raise_failed(const char *failed) {
    const char *separator = strchr(failed, '\x1e');
    const char *where = separator ? separator + 1 : NULL;
    Py_ssize_t len = separator ? (Py_ssize_t)(separator - failed) : (Py_ssize_t)strlen(failed);
    Py_ssize_t n = 0;
    while (n < len && (failed[n] == '_' || (failed[n] >= 'A' && failed[n] <= 'Z') || (failed[n] >= 'a' && failed[n] <= 'z') ||
                       (n > 0 && failed[n] >= '0' && failed[n] <= '9')))
        n++;
    if (n > 0 && n < 64 && n + 1 < len && failed[n] == ':' && failed[n + 1] == ' ') {
        char name[64];
        memcpy(name, failed, (size_t)n);
        name[n] = '\0';
        PyObject *kind = PyDict_GetItemString(PyEval_GetBuiltins(), name); /* borrowed */
        if (kind && PyExceptionClass_Check(kind) && PyObject_IsSubclass(kind, PyExc_Exception) == 1) {
            raise_text(kind, failed + n + 2, len - n - 2, where);
            return;
        }
        PyErr_Clear();
    }
    raise_text(PyExc_ValueError, failed, len, where);
}

typedef struct {
    PyArray_Descr *descr;
    int ndim;
    npy_intp dims[NPY_MAXDIMS]; /* -1: dynamic, passed to the kernel after the pointer */
    int kind;                   /* an output's: one of the OUTPUT_* below */
    Py_ssize_t flag;            /* an OUTPUT_PER_CALL output's: the index of its OUTPUT_KIND_FLAG output */
} ArgSpec;

/* what an output is returned as (kiln.backends.targets): NumPy gives scalars, not 0-d arrays,
 * for `x.sum()` (a NumPy scalar) and `float(s)` (a Python number); OUTPUT_BOOL .. OUTPUT_COMPLEX,
 * a Python number of that type, are the values of a kind flag. An OUTPUT_PER_CALL output is
 * returned as its kind flag says per call (the value a staged `if` merged from two kinds: the
 * n-th such output takes the n-th OUTPUT_KIND_FLAG output, a 0-d int8 not returned itself). */
enum { OUTPUT_KIND_FLAG = -2, OUTPUT_PER_CALL = -1, OUTPUT_ARRAY = 0, OUTPUT_NUMPY_SCALAR = 1, OUTPUT_PYTHON_NUMBER = 2,
       OUTPUT_BOOL = 3, OUTPUT_INT = 4, OUTPUT_FLOAT = 5, OUTPUT_COMPLEX = 6 };

typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    packed_fn fn; /* read and replaced atomically: retarget() may swap it while a call runs without the GIL */
    Py_ssize_t n_in, n_out, n_slots;
    int release_gil;
    ArgSpec *specs; /* n_in inputs, then n_out outputs */
} Entry;

/* ---- output pool ---- */
#define POOL_MIN_BYTES ((size_t)1 << 20)
#define POOL_BLOCKS 4
#define POOL_MAX_BYTES ((size_t)1 << 30)
#define POOL_ALIGN 64 /* a cache line: aligned vector loads and stores */

typedef struct {
    pthread_mutex_t lock; /* frees may come from any thread holding an array's last reference */
    void *ptr[POOL_BLOCKS];
    size_t size[POOL_BLOCKS];
    unsigned long long stamp[POOL_BLOCKS]; /* when each block was cached: the oldest goes first */
    unsigned long long clock;
    size_t cached_bytes;
    unsigned long long hits, misses, evictions;
} Pool;

static Pool pool = {.lock = PTHREAD_MUTEX_INITIALIZER};

static size_t pool_round(size_t size) { return (size + 4095) & ~(size_t)4095; }

static void *pool_malloc(void *Py_UNUSED(ctx), size_t size) {
    size_t want = pool_round(size);
    pthread_mutex_lock(&pool.lock);
    for (int i = 0; i < POOL_BLOCKS; i++) {
        if (pool.ptr[i] && pool.size[i] == want) {
            void *p = pool.ptr[i];
            pool.ptr[i] = NULL;
            pool.cached_bytes -= want;
            pool.hits++;
            pthread_mutex_unlock(&pool.lock);
            return p;
        }
    }
    pool.misses++;
    pthread_mutex_unlock(&pool.lock);
    void *p = NULL;
    return posix_memalign(&p, POOL_ALIGN, want ? want : 1) ? NULL : p;
}

/* Every block handed out holds at least pool_round(size) bytes, where size is what NumPy later
 * passes to pool_free: the rounded size is the block's class in the cache. */
static void *pool_calloc(void *Py_UNUSED(ctx), size_t nelem, size_t elsize) {
    if (elsize && nelem > SIZE_MAX / 2 / elsize) return NULL;
    return calloc(1, pool_round(nelem * elsize));
}

static void *pool_realloc(void *Py_UNUSED(ctx), void *ptr, size_t size) { return realloc(ptr, pool_round(size)); }

/* The slot of the block cached longest ago, or -1 when the pool is empty. Called with the lock. */
static int pool_oldest(void) {
    int oldest = -1;
    for (int i = 0; i < POOL_BLOCKS; i++)
        if (pool.ptr[i] && (oldest < 0 || pool.stamp[i] < pool.stamp[oldest])) oldest = i;
    return oldest;
}

static void pool_free(void *Py_UNUSED(ctx), void *ptr, size_t size) {
    size_t have = pool_round(size);
    if (!ptr || have < POOL_MIN_BYTES || have > POOL_MAX_BYTES) {
        free(ptr);
        return;
    }
    void *dropped[POOL_BLOCKS];
    int n_dropped = 0;
    pthread_mutex_lock(&pool.lock);
    int slot;
    for (;;) {
        slot = -1;
        for (int i = 0; i < POOL_BLOCKS && slot < 0; i++)
            if (!pool.ptr[i]) slot = i;
        if (slot >= 0 && pool.cached_bytes + have <= POOL_MAX_BYTES) break;
        int oldest = pool_oldest(); /* >= 0: a full or over-budget pool holds a block */
        dropped[n_dropped++] = pool.ptr[oldest];
        pool.cached_bytes -= pool.size[oldest];
        pool.ptr[oldest] = NULL;
        pool.evictions++;
    }
    pool.ptr[slot] = ptr;
    pool.size[slot] = have;
    pool.stamp[slot] = ++pool.clock;
    pool.cached_bytes += have;
    pthread_mutex_unlock(&pool.lock);
    for (int i = 0; i < n_dropped; i++) free(dropped[i]); /* unmapping outside the lock */
}

static PyDataMem_Handler pool_handler = {
    "kiln_output_pool",
    1,
    {NULL, pool_malloc, pool_calloc, pool_realloc, pool_free},
};

static PyObject *pool_capsule; /* the handler, as NumPy wants it (a "mem_handler" capsule) */

/* A new C-contiguous array of `spec`, its buffer from the pool when it is large. */
static PyObject *new_output(const ArgSpec *spec) {
    npy_intp bytes = PyDataType_ELSIZE(spec->descr);
    for (int k = 0; k < spec->ndim; k++) bytes *= spec->dims[k];
    PyObject *old = NULL;
    if ((size_t)bytes >= POOL_MIN_BYTES && !(old = PyDataMem_SetHandler(pool_capsule))) return NULL;
    Py_INCREF(spec->descr); /* stolen by PyArray_NewFromDescr */
    PyObject *out = PyArray_NewFromDescr(&PyArray_Type, spec->descr, spec->ndim, (npy_intp *)spec->dims, NULL, NULL, 0, NULL);
    if (old) {
        PyObject *mine = PyDataMem_SetHandler(old);
        Py_DECREF(old);
        if (!mine) {
            Py_XDECREF(out);
            return NULL;
        }
        Py_DECREF(mine);
    }
    return out;
}

/* pool_stats() -> (hits, misses, cached blocks, cached bytes, evictions): for tests and tuning. */
static PyObject *pool_stats(PyObject *Py_UNUSED(module), PyObject *Py_UNUSED(args)) {
    pthread_mutex_lock(&pool.lock);
    int blocks = 0;
    for (int i = 0; i < POOL_BLOCKS; i++) blocks += pool.ptr[i] != NULL;
    PyObject *r = Py_BuildValue("(KKinK)", pool.hits, pool.misses, blocks, (Py_ssize_t)pool.cached_bytes, pool.evictions);
    pthread_mutex_unlock(&pool.lock);
    return r;
}

/* pool_clear(): give the cached buffers back to the system. */
static PyObject *pool_clear(PyObject *Py_UNUSED(module), PyObject *Py_UNUSED(args)) {
    pthread_mutex_lock(&pool.lock);
    for (int i = 0; i < POOL_BLOCKS; i++) {
        free(pool.ptr[i]);
        pool.ptr[i] = NULL;
    }
    pool.cached_bytes = 0;
    pthread_mutex_unlock(&pool.lock);
    Py_RETURN_NONE;
}

/* (dtype, shape) -> spec; shape entries < 0 are dynamic. */
static int parse_spec(PyObject *item, ArgSpec *spec, npy_intp *elements) {
    PyObject *dtype, *shape;
    if (!PyArg_ParseTuple(item, "OO!", &dtype, &PyTuple_Type, &shape)) return -1;
    if (!PyArray_DescrConverter(dtype, &spec->descr)) return -1;
    Py_ssize_t nd = PyTuple_GET_SIZE(shape);
    if (nd > NPY_MAXDIMS) {
        PyErr_SetString(PyExc_ValueError, "too many dimensions");
        return -1;
    }
    spec->ndim = (int)nd;
    for (Py_ssize_t k = 0; k < nd; k++) {
        spec->dims[k] = PyLong_AsSsize_t(PyTuple_GET_ITEM(shape, k));
        if (spec->dims[k] == -1 && PyErr_Occurred()) return -1;
        if (spec->dims[k] < 0) {
            spec->dims[k] = -1;
            *elements = INTPTR_MAX;
        } else if (*elements < INTPTR_MAX / (spec->dims[k] + 1)) {
            *elements *= spec->dims[k] ? spec->dims[k] : 1;
        }
    }
    return 0;
}

static PyObject *entry_call(PyObject *callable, PyObject *const *args, size_t nargsf, PyObject *kwnames);

/* Gives the n-th OUTPUT_PER_CALL output the n-th OUTPUT_KIND_FLAG output; -1 (ValueError) when
 * their counts differ. */
static int pair_flags(Entry *self) {
    ArgSpec *outs = self->specs + self->n_in;
    Py_ssize_t next = 0, flags = 0, per_call = 0;
    for (Py_ssize_t j = 0; j < self->n_out; j++) {
        flags += outs[j].kind == OUTPUT_KIND_FLAG;
        per_call += outs[j].kind == OUTPUT_PER_CALL;
        if (outs[j].kind != OUTPUT_PER_CALL) continue;
        while (next < self->n_out && outs[next].kind != OUTPUT_KIND_FLAG) next++;
        if (next < self->n_out) outs[j].flag = next++;
    }
    if (per_call != flags) {
        PyErr_SetString(PyExc_ValueError, "one OUTPUT_KIND_FLAG output per OUTPUT_PER_CALL output");
        return -1;
    }
    return 0;
}

/* The 0-d `arr` as `kind` says (a new reference; `arr` itself, another reference, for an array or
 * an unknown kind), as kiln.frontend.concrete._AS_KIND makes it: a Python number of its type from
 * the real part of a complex value (but a complex from all of it). */
static PyObject *as_kind(PyArrayObject *arr, int kind) {
    if (kind == OUTPUT_NUMPY_SCALAR) return PyArray_ToScalar(PyArray_DATA(arr), arr);
    if (kind == OUTPUT_PYTHON_NUMBER || kind == OUTPUT_COMPLEX) {
        PyObject *item = PyArray_GETITEM(arr, PyArray_DATA(arr));
        if (!item || kind == OUTPUT_PYTHON_NUMBER) return item;
        PyObject *number = PyObject_CallOneArg((PyObject *)&PyComplex_Type, item);
        Py_DECREF(item);
        return number;
    }
    if (kind < OUTPUT_BOOL || kind > OUTPUT_FLOAT) {
        Py_INCREF(arr);
        return (PyObject *)arr;
    }
    PyObject *item;
    if (PyTypeNum_ISCOMPLEX(PyArray_TYPE(arr))) { /* (the .real view costs 0.15 us: only where it is needed) */
        PyObject *real = PyObject_GetAttrString((PyObject *)arr, "real");
        if (!real) return NULL;
        item = PyArray_Check(real) ? PyArray_GETITEM((PyArrayObject *)real, PyArray_DATA((PyArrayObject *)real)) : NULL;
        Py_DECREF(real);
        if (!item && !PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "the real part of a 0-d output is no array");
    } else {
        item = PyArray_GETITEM(arr, PyArray_DATA(arr));
    }
    if (!item) return NULL;
    PyObject *number;
    if (kind == OUTPUT_BOOL) {
        int truth = PyObject_IsTrue(item);
        number = truth < 0 ? NULL : PyBool_FromLong(truth);
    } else {
        number = kind == OUTPUT_INT ? PyNumber_Long(item) : PyNumber_Float(item);
    }
    Py_DECREF(item);
    return number;
}

/* Entry(address, inputs, outputs[, kinds]): address of the packed trampoline; inputs and outputs
 * are sequences of (dtype, shape); kinds, one int per output (OUTPUT_ARRAY when left out). */
static PyObject *entry_new(PyTypeObject *type, PyObject *args, PyObject *Py_UNUSED(kwds)) {
    unsigned long long address;
    PyObject *inputs, *outputs, *kinds = NULL;
    if (!PyArg_ParseTuple(args, "KO!O!|O!", &address, &PyTuple_Type, &inputs, &PyTuple_Type, &outputs, &PyTuple_Type, &kinds))
        return NULL;
    if (kinds && PyTuple_GET_SIZE(kinds) != PyTuple_GET_SIZE(outputs)) {
        PyErr_SetString(PyExc_ValueError, "one kind per output");
        return NULL;
    }
    Entry *self = (Entry *)type->tp_alloc(type, 0);
    if (!self) return NULL;
    self->vectorcall = entry_call;
    self->fn = (packed_fn)(uintptr_t)address;
    self->n_in = PyTuple_GET_SIZE(inputs);
    self->n_out = PyTuple_GET_SIZE(outputs);
    self->specs = PyMem_Calloc((size_t)(self->n_in + self->n_out + 1), sizeof(ArgSpec));
    if (!self->specs) {
        Py_DECREF(self);
        return PyErr_NoMemory();
    }
    npy_intp elements = 0;
    self->n_slots = self->n_in + self->n_out;
    for (Py_ssize_t i = 0; i < self->n_in + self->n_out; i++) {
        PyObject *item = i < self->n_in ? PyTuple_GET_ITEM(inputs, i) : PyTuple_GET_ITEM(outputs, i - self->n_in);
        npy_intp n = 1;
        if (parse_spec(item, &self->specs[i], &n) < 0) {
            Py_DECREF(self);
            return NULL;
        }
        elements = (n == INTPTR_MAX || elements > INTPTR_MAX - n) ? INTPTR_MAX : elements + n;
        if (kinds && i >= self->n_in) {
            long kind = PyLong_AsLong(PyTuple_GET_ITEM(kinds, i - self->n_in));
            if (kind == -1 && PyErr_Occurred()) {
                Py_DECREF(self);
                return NULL;
            }
            if ((kind != OUTPUT_ARRAY && self->specs[i].ndim != 0) || kind < OUTPUT_KIND_FLAG || kind > OUTPUT_PYTHON_NUMBER
                || (kind == OUTPUT_KIND_FLAG && self->specs[i].descr->type_num != NPY_INT8)) {
                Py_DECREF(self);
                PyErr_SetString(PyExc_ValueError, "an output kind is OUTPUT_ARRAY, or a scalar kind of a 0-d output "
                                                  "(an int8 one for OUTPUT_KIND_FLAG)");
                return NULL;
            }
            self->specs[i].kind = (int)kind;
        }
        for (int k = 0; k < self->specs[i].ndim; k++) {
            if (self->specs[i].dims[k] >= 0) continue;
            if (i >= self->n_in) {
                Py_DECREF(self);
                PyErr_SetString(PyExc_NotImplementedError, "outputs with dynamic shapes");
                return NULL;
            }
            self->n_slots++;
        }
    }
    if (pair_flags(self) < 0) {
        Py_DECREF(self);
        return NULL;
    }
    /* Releasing the GIL costs ~50 ns: worth it only when the kernel may run long. */
    self->release_gil = elements > 16384;
    return (PyObject *)self;
}

static void entry_dealloc(Entry *self) {
    if (self->specs) {
        for (Py_ssize_t i = 0; i < self->n_in + self->n_out; i++) Py_XDECREF(self->specs[i].descr);
        PyMem_Free(self->specs);
    }
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static inline int fits(PyObject *obj, const ArgSpec *spec) {
    if (!PyArray_CheckExact(obj)) return 0;
    PyArrayObject *arr = (PyArrayObject *)obj;
    PyArray_Descr *d = PyArray_DESCR(arr);
    if (d != spec->descr && !PyArray_EquivTypes(d, spec->descr)) return 0;
    if (PyArray_NDIM(arr) != spec->ndim) return 0;
    const int need = NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED;
    if ((PyArray_FLAGS(arr) & need) != need) return 0;
    const npy_intp *shape = PyArray_DIMS(arr);
    for (int k = 0; k < spec->ndim; k++)
        if (spec->dims[k] >= 0 && shape[k] != spec->dims[k]) return 0;
    return 1;
}

/* Storage for one NumPy scalar's value (the widest is a long double or a complex double). */
typedef union {
    long double ld;
    double c[2];
    int64_t i;
} Scalar;

/* A NumPy scalar (np.float32(3.0), np.int64(2)) of the dtype of a 0-d input: it is passed by
 * value, as np.asarray() of it would be, without making that array. */
static int scalar_fits(PyObject *obj, const ArgSpec *spec) {
    if (spec->ndim != 0 || !PyArray_IsScalar(obj, Generic)) return 0;
    PyArray_Descr *d = PyArray_DescrFromScalar(obj);
    if (!d) {
        PyErr_Clear();
        return 0;
    }
    int ok = (d == spec->descr || PyArray_EquivTypes(d, spec->descr)) && PyDataType_ELSIZE(d) <= (npy_intp)sizeof(Scalar);
    Py_XDECREF(d);
    return ok;
}

/* what an input may be: an exact array or a NumPy scalar (a positional call), or only one of them
 * (a call form's leaf: the structured call it stands for was traced with that one) */
enum { TAKE_EITHER = 0, TAKE_ARRAY = 1, TAKE_SCALAR = 2 };

/* Runs the kernel on `args`, the n_in inputs (each as `takes` says; NULL: TAKE_EITHER for all). */
static PyObject *entry_run(Entry *self, PyObject *const *args, const char *takes) {
    void *slots[self->n_slots + 1];
    PyObject *outs[self->n_out + 1];
    Scalar scalars[self->n_in + 1]; /* NumPy scalars' values, passed like 0-d arrays */
    Py_ssize_t s = 0;
    for (Py_ssize_t i = 0; i < self->n_in; i++) {
        const ArgSpec *spec = &self->specs[i];
        int take = takes ? takes[i] : TAKE_EITHER;
        if (take == TAKE_SCALAR || !fits(args[i], spec)) {
            if (take == TAKE_ARRAY || !scalar_fits(args[i], spec)) Py_RETURN_NOTIMPLEMENTED;
            PyArray_ScalarAsCtype(args[i], &scalars[i]);
            slots[s++] = &scalars[i];
            continue;
        }
        PyArrayObject *arr = (PyArrayObject *)args[i];
        slots[s++] = PyArray_DATA(arr);
        for (int k = 0; k < spec->ndim; k++)
            if (spec->dims[k] < 0) slots[s++] = (void *)(intptr_t)PyArray_DIMS(arr)[k];
    }
    for (Py_ssize_t j = 0; j < self->n_out; j++) {
        const ArgSpec *spec = &self->specs[self->n_in + j];
        outs[j] = new_output(spec);
        if (!outs[j]) {
            while (j--) Py_DECREF(outs[j]);
            return NULL;
        }
        slots[s++] = PyArray_DATA((PyArrayObject *)outs[j]);
    }
    const char *failed;
    packed_fn fn = __atomic_load_n(&self->fn, __ATOMIC_ACQUIRE);
    if (self->release_gil) {
        Py_BEGIN_ALLOW_THREADS
        failed = fn(slots);
        Py_END_ALLOW_THREADS
    } else {
        failed = fn(slots);
    }
    if (failed) { /* a run-time check failed: NumPy would have raised */
        for (Py_ssize_t j = 0; j < self->n_out; j++) Py_DECREF(outs[j]);
        raise_failed(failed);
        return NULL;
    }
    const ArgSpec *out_specs = self->specs + self->n_in;
    for (Py_ssize_t j = 0; j < self->n_out; j++) {
        int kind = out_specs[j].kind;
        if (kind == OUTPUT_ARRAY || kind == OUTPUT_KIND_FLAG) continue;
        if (kind == OUTPUT_PER_CALL) kind = *(const int8_t *)PyArray_DATA((PyArrayObject *)outs[out_specs[j].flag]);
        PyObject *scalar = as_kind((PyArrayObject *)outs[j], kind);
        Py_DECREF(outs[j]);
        outs[j] = scalar;
        if (!scalar) {
            for (Py_ssize_t k = 0; k < self->n_out; k++) Py_XDECREF(outs[k]);
            return NULL;
        }
    }
    Py_ssize_t n_result = 0; /* the outputs returned: all but the kind flags, in order */
    for (Py_ssize_t j = 0; j < self->n_out; j++) {
        if (out_specs[j].kind == OUTPUT_KIND_FLAG) Py_DECREF(outs[j]);
        else outs[n_result++] = outs[j];
    }
    if (n_result == 1) return outs[0];
    if (n_result == 0) Py_RETURN_NONE;
    PyObject *result = PyTuple_New(n_result);
    if (!result) {
        for (Py_ssize_t j = 0; j < n_result; j++) Py_DECREF(outs[j]);
        return NULL;
    }
    for (Py_ssize_t j = 0; j < n_result; j++) PyTuple_SET_ITEM(result, j, outs[j]);
    return result;
}

static PyObject *entry_call(PyObject *callable, PyObject *const *args, size_t nargsf, PyObject *kwnames) {
    Entry *self = (Entry *)callable;
    if (PyVectorcall_NARGS(nargsf) != self->n_in || (kwnames && PyTuple_GET_SIZE(kwnames))) Py_RETURN_NOTIMPLEMENTED;
    return entry_run(self, args, NULL);
}

/* retarget(address): call the trampoline at `address` from now on: the same function from another
 * build of its source (kiln.backends.c.tiering swaps a quick build for the optimized one). A
 * call already running finishes in the old one; libraries stay loaded for the process. */
static PyObject *entry_retarget(Entry *self, PyObject *arg) {
    unsigned long long address = PyLong_AsUnsignedLongLong(arg);
    if (address == (unsigned long long)-1 && PyErr_Occurred()) return NULL;
    __atomic_store_n(&self->fn, (packed_fn)(uintptr_t)address, __ATOMIC_RELEASE);
    Py_RETURN_NONE;
}

/* address: the trampoline calls go to now. */
static PyObject *entry_address(Entry *self, void *Py_UNUSED(closure)) {
    return PyLong_FromUnsignedLongLong((unsigned long long)(uintptr_t)__atomic_load_n(&self->fn, __ATOMIC_ACQUIRE));
}

static PyMethodDef entry_methods[] = {
    {"retarget", (PyCFunction)entry_retarget, METH_O, "Call the trampoline at this address from now on."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef entry_getset[] = {
    {"address", (getter)entry_address, NULL, "The address of the trampoline calls go to.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject EntryType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "kiln._kiln_entry.Entry",
    .tp_doc = "A compiled kiln function called with NumPy arrays; NotImplemented when they do not fit.",
    .tp_basicsize = sizeof(Entry),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_new = entry_new,
    .tp_dealloc = (destructor)entry_dealloc,
    .tp_call = PyVectorcall_Call,
    .tp_vectorcall_offset = offsetof(Entry, vectorcall),
    .tp_methods = entry_methods,
    .tp_getset = entry_getset,
};

/* ---- call forms ----
 * A `Form` is the entry of one structured call form (kiln.frontend.call_forms): so many positional
 * arguments, these keywords in this order, and for each argument what it must be: an exact array,
 * a NumPy scalar, an exact list or tuple of so many exact arrays, or a Python constant (bool, int,
 * float, complex, str or None) equal, as the trace cache keys it, to the traced one. It gathers the
 * call's leaves (then its fixed extra leaves, a function's variable buffers) and runs its Entry on
 * them; NotImplemented when the call has another form, as an Entry answers. */
enum { PART_ARRAY = 0, PART_SCALAR = 1, PART_LIST = 2, PART_TUPLE = 3, PART_CONSTANT = 4 };

typedef struct {
    int kind;
    Py_ssize_t len;  /* a list's or tuple's */
    PyObject *value; /* a constant's */
} Part;

typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    Entry *entry;
    Py_ssize_t n_args;
    PyObject *kwnames; /* a tuple of str */
    Py_ssize_t n_parts;
    Part *parts;
    PyObject *extra; /* a tuple */
    char *takes;     /* per input of the entry: TAKE_ARRAY or TAKE_SCALAR */
    unsigned long long calls; /* calls that ran the kernel: the cache hits its caller records (retracing) */
} Form;

/* Whether `x` is the constant `v` as kiln.frontend.signature.constant_key keys it: the same type,
 * and equal; a float zero by its sign, any NaN equal to any NaN. (A complex zero or NaN, keyed
 * by its repr, is never part of a form.) */
static int constant_matches(PyObject *x, PyObject *v) {
    if (Py_TYPE(x) != Py_TYPE(v)) return 0;
    if (x == v) return 1;
    if (PyFloat_CheckExact(v)) {
        double a = PyFloat_AS_DOUBLE(x), b = PyFloat_AS_DOUBLE(v);
        if (b != b) return a != a;
        return a == b && (b != 0 || signbit(a) == signbit(b));
    }
    if (PyComplex_CheckExact(v)) {
        Py_complex a = ((PyComplexObject *)x)->cval, b = ((PyComplexObject *)v)->cval;
        return a.real == b.real && a.imag == b.imag;
    }
    if (PyLong_CheckExact(v) || PyUnicode_CheckExact(v)) {
        int eq = PyObject_RichCompareBool(x, v, Py_EQ);
        if (eq < 0) PyErr_Clear();
        return eq == 1;
    }
    return 0; /* bool and None: only themselves */
}

static PyObject *form_call(PyObject *callable, PyObject *const *args, size_t nargsf, PyObject *kwnames) {
    Form *self = (Form *)callable;
    Py_ssize_t n_kw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    if (PyVectorcall_NARGS(nargsf) != self->n_args || n_kw != PyTuple_GET_SIZE(self->kwnames)) Py_RETURN_NOTIMPLEMENTED;
    for (Py_ssize_t k = 0; k < n_kw; k++) {
        PyObject *got = PyTuple_GET_ITEM(kwnames, k), *want = PyTuple_GET_ITEM(self->kwnames, k);
        if (got != want && PyUnicode_Compare(got, want) != 0) { /* (names are interned: rarely compared) */
            PyErr_Clear();
            Py_RETURN_NOTIMPLEMENTED;
        }
    }
    Py_ssize_t n_in = self->entry->n_in, n = 0;
    PyObject *leaves[n_in + 1];
    for (Py_ssize_t p = 0; p < self->n_parts; p++) {
        const Part *part = &self->parts[p];
        PyObject *x = args[p];
        if (part->kind == PART_ARRAY || part->kind == PART_SCALAR) {
            leaves[n++] = x;
        } else if (part->kind == PART_CONSTANT) {
            if (!constant_matches(x, part->value)) Py_RETURN_NOTIMPLEMENTED;
        } else if (part->kind == PART_LIST) {
            if (!PyList_CheckExact(x) || PyList_GET_SIZE(x) != part->len) Py_RETURN_NOTIMPLEMENTED;
            for (Py_ssize_t i = 0; i < part->len; i++) leaves[n++] = PyList_GET_ITEM(x, i);
        } else {
            if (!PyTuple_CheckExact(x) || PyTuple_GET_SIZE(x) != part->len) Py_RETURN_NOTIMPLEMENTED;
            for (Py_ssize_t i = 0; i < part->len; i++) leaves[n++] = PyTuple_GET_ITEM(x, i);
        }
    }
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(self->extra); i++) leaves[n++] = PyTuple_GET_ITEM(self->extra, i);
    /* a list's items are held for the call: another thread may change the list while the kernel runs */
    for (Py_ssize_t i = 0; i < n; i++) Py_INCREF(leaves[i]);
    PyObject *out = entry_run(self->entry, leaves, self->takes);
    for (Py_ssize_t i = 0; i < n; i++) Py_DECREF(leaves[i]);
    if (out && out != Py_NotImplemented) self->calls++;
    return out;
}

/* Form(entry, n_args, kwnames, parts, extra): parts, one per argument (positional, then keyword),
 * each (kind, len or constant) as PART_*; extra, the leaves appended to the call's. */
static PyObject *form_new(PyTypeObject *type, PyObject *args, PyObject *Py_UNUSED(kwds)) {
    PyObject *entry, *kwnames, *parts, *extra;
    Py_ssize_t n_args;
    if (!PyArg_ParseTuple(args, "O!nO!O!O!", &EntryType, &entry, &n_args, &PyTuple_Type, &kwnames, &PyTuple_Type, &parts,
                          &PyTuple_Type, &extra))
        return NULL;
    Py_ssize_t n_parts = PyTuple_GET_SIZE(parts), n_in = ((Entry *)entry)->n_in;
    if (n_args < 0 || n_args + PyTuple_GET_SIZE(kwnames) != n_parts) {
        PyErr_SetString(PyExc_ValueError, "one part per argument");
        return NULL;
    }
    Form *self = (Form *)type->tp_alloc(type, 0);
    if (!self) return NULL;
    self->vectorcall = form_call;
    Py_INCREF(entry);
    self->entry = (Entry *)entry;
    self->n_args = n_args;
    Py_INCREF(kwnames);
    self->kwnames = kwnames;
    Py_INCREF(extra);
    self->extra = extra;
    self->parts = PyMem_Calloc((size_t)n_parts + 1, sizeof(Part));
    self->takes = PyMem_Calloc((size_t)n_in + 1, 1);
    if (!self->parts || !self->takes) {
        Py_DECREF(self);
        return PyErr_NoMemory();
    }
    self->n_parts = n_parts;
    Py_ssize_t n = 0;
    for (Py_ssize_t p = 0; p < n_parts; p++) {
        Part *part = &self->parts[p];
        PyObject *value;
        if (!PyArg_ParseTuple(PyTuple_GET_ITEM(parts, p), "iO", &part->kind, &value)) {
            Py_DECREF(self);
            return NULL;
        }
        if (part->kind == PART_CONSTANT) {
            Py_INCREF(value);
            part->value = value;
            continue;
        }
        if (part->kind == PART_LIST || part->kind == PART_TUPLE) {
            part->len = PyLong_AsSsize_t(value);
            if (part->len < 0) {
                if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "a negative length");
                Py_DECREF(self);
                return NULL;
            }
        } else if (part->kind != PART_ARRAY && part->kind != PART_SCALAR) {
            PyErr_SetString(PyExc_ValueError, "an unknown part kind");
            Py_DECREF(self);
            return NULL;
        } else {
            part->len = 1;
        }
        for (Py_ssize_t i = 0; i < part->len; i++, n++)
            if (n < n_in) self->takes[n] = part->kind == PART_SCALAR ? TAKE_SCALAR : TAKE_ARRAY;
    }
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(extra); i++, n++)
        if (n < n_in) self->takes[n] = TAKE_EITHER;
    if (n != n_in) {
        PyErr_Format(PyExc_ValueError, "the form has %zd leaves, its entry takes %zd", n, n_in);
        Py_DECREF(self);
        return NULL;
    }
    return (PyObject *)self;
}

static void form_dealloc(Form *self) {
    if (self->parts)
        for (Py_ssize_t p = 0; p < self->n_parts; p++) Py_XDECREF(self->parts[p].value);
    PyMem_Free(self->parts);
    PyMem_Free(self->takes);
    Py_XDECREF(self->entry);
    Py_XDECREF(self->kwnames);
    Py_XDECREF(self->extra);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyMemberDef form_members[] = {
    {"calls", T_ULONGLONG, offsetof(Form, calls), READONLY, "How many calls ran the kernel."},
    {NULL, 0, 0, 0, NULL},
};

static PyTypeObject FormType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "kiln._kiln_entry.Form",
    .tp_doc = "An Entry called with one structured form of arguments; NotImplemented for any other form.",
    .tp_basicsize = sizeof(Form),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_new = form_new,
    .tp_dealloc = (destructor)form_dealloc,
    .tp_call = PyVectorcall_Call,
    .tp_vectorcall_offset = offsetof(Form, vectorcall),
    .tp_members = form_members,
};

/* ---- kiln.Function's call ----
 * A `HotPath` is kiln.Function's __call__ once this extension is loaded (kiln.frontend.function):
 * the steps of the Python one without its frame. It calls the entry the function keeps for the
 * last call (`_last_entry`; `_last_keywords` for a call with keywords) with the call's arguments,
 * and the function's `_call(args, kwargs)` when it keeps none, the entry answers NotImplemented,
 * or one of its switches is on (kiln.config runs functions eagerly, a trace is in progress). */
typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    PyObject *switches; /* a tuple of (namespace dict, name): the hot path is off while one is true */
} HotPath;

static PyObject *str_last_entry, *str_last_keywords, *str_call;

/* 1 when a switch is on, 0 when none is, -1 on an error. A module's globals are read in its dict
 * (a dict lookup; getattr on the module took 20 ns more per switch). */
static int switched_off(HotPath *self) {
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(self->switches); i++) {
        PyObject *pair = PyTuple_GET_ITEM(self->switches, i);
        PyObject *value = PyDict_GetItemWithError(PyTuple_GET_ITEM(pair, 0), PyTuple_GET_ITEM(pair, 1)); /* borrowed */
        if (!value) {
            if (!PyErr_Occurred()) PyErr_SetObject(PyExc_KeyError, PyTuple_GET_ITEM(pair, 1));
            return -1;
        }
        int on = PyObject_IsTrue(value);
        if (on) return on;
    }
    return 0;
}

static PyObject *hot_call(PyObject *callable, PyObject *const *args, size_t nargsf, PyObject *kwnames) {
    HotPath *self = (HotPath *)callable;
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf), n_kw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    if (nargs < 1) {
        PyErr_SetString(PyExc_TypeError, "kiln.Function.__call__ needs the function");
        return NULL;
    }
    PyObject *function = args[0];
    int off = switched_off(self);
    if (off < 0) return NULL;
    if (!off) {
        PyObject *entry = PyObject_GetAttr(function, n_kw ? str_last_keywords : str_last_entry);
        if (!entry) return NULL;
        if (entry != Py_None) {
            PyObject *out = PyObject_Vectorcall(entry, args + 1, (size_t)(nargs - 1), kwnames);
            Py_DECREF(entry);
            if (out != Py_NotImplemented) return out;
            Py_DECREF(out);
        } else {
            Py_DECREF(entry);
        }
    }
    PyObject *positional = PyTuple_New(nargs - 1), *keywords = PyDict_New(), *out = NULL;
    if (positional && keywords) {
        for (Py_ssize_t i = 1; i < nargs; i++) {
            Py_INCREF(args[i]);
            PyTuple_SET_ITEM(positional, i - 1, args[i]);
        }
        Py_ssize_t k = 0;
        while (k < n_kw && PyDict_SetItem(keywords, PyTuple_GET_ITEM(kwnames, k), args[nargs + k]) == 0) k++;
        if (k == n_kw) out = PyObject_CallMethodObjArgs(function, str_call, positional, keywords, NULL);
    }
    Py_XDECREF(positional);
    Py_XDECREF(keywords);
    return out;
}

/* HotPath(switches): ((namespace dict, name), ...) */
static PyObject *hot_new(PyTypeObject *type, PyObject *args, PyObject *Py_UNUSED(kwds)) {
    PyObject *switches;
    if (!PyArg_ParseTuple(args, "O!", &PyTuple_Type, &switches)) return NULL;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(switches); i++) {
        PyObject *pair = PyTuple_GET_ITEM(switches, i);
        if (!PyTuple_Check(pair) || PyTuple_GET_SIZE(pair) != 2 || !PyDict_Check(PyTuple_GET_ITEM(pair, 0)) ||
            !PyUnicode_Check(PyTuple_GET_ITEM(pair, 1))) {
            PyErr_SetString(PyExc_TypeError, "a switch is (namespace dict, name)");
            return NULL;
        }
    }
    HotPath *self = (HotPath *)type->tp_alloc(type, 0);
    if (!self) return NULL;
    self->vectorcall = hot_call;
    Py_INCREF(switches);
    self->switches = switches;
    return (PyObject *)self;
}

static void hot_dealloc(HotPath *self) {
    Py_XDECREF(self->switches);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* a method: `f.__call__` is bound to f */
static PyObject *hot_get(PyObject *self, PyObject *obj, PyObject *Py_UNUSED(type)) {
    if (!obj || obj == Py_None) {
        Py_INCREF(self);
        return self;
    }
    return PyMethod_New(self, obj);
}

static PyTypeObject HotPathType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "kiln._kiln_entry.HotPath",
    .tp_doc = "kiln.Function.__call__: the entry of the last call, else Function._call.",
    .tp_basicsize = sizeof(HotPath),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_VECTORCALL | Py_TPFLAGS_METHOD_DESCRIPTOR,
    .tp_new = hot_new,
    .tp_dealloc = (destructor)hot_dealloc,
    .tp_call = PyVectorcall_Call,
    .tp_vectorcall_offset = offsetof(HotPath, vectorcall),
    .tp_descr_get = hot_get,
};

/* ---- print output ----
 * The `kiln_write_hook` of a library that prints (backends/c/print_runtime.py): one print's text
 * to Python's current sys.stdout, flushed, as kiln.backends.loader's ctypes callback does, without
 * that callback's cost (fizzbuzz's 15 prints a call: 13.5 us through ctypes). A failure is
 * reported as an unraisable exception (where the kernel runs no Python error can propagate), as
 * ctypes reports one in its callback. */
static PyObject *str_write, *str_flush;

static void write_to_python_stdout(const char *data, size_t size) {
    PyGILState_STATE gil = PyGILState_Ensure(); /* a long kernel runs without the GIL */
    PyObject *text = PyUnicode_DecodeUTF8(data, (Py_ssize_t)size, "replace");
    PyObject *out = PySys_GetObject("stdout"); /* borrowed */
    if (text && (!out || out == Py_None)) PyErr_SetString(PyExc_RuntimeError, "kiln.print: lost sys.stdout");
    else if (text) {
        PyObject *done = PyObject_CallMethodOneArg(out, str_write, text);
        if (done) {
            Py_DECREF(done);
            done = PyObject_CallMethodNoArgs(out, str_flush);
            Py_XDECREF(done);
        }
    }
    Py_XDECREF(text);
    if (PyErr_Occurred()) PyErr_WriteUnraisable(NULL);
    PyGILState_Release(gil);
}

/* write_hook() -> address: write_to_python_stdout, for a printing library's `kiln_write_hook`. */
static PyObject *write_hook(PyObject *Py_UNUSED(module), PyObject *Py_UNUSED(args)) {
    return PyLong_FromVoidPtr((void *)(uintptr_t)write_to_python_stdout);
}

/* symbol(path, name) -> address: dlopen (kept open for the process) and dlsym. */
static PyObject *symbol(PyObject *Py_UNUSED(module), PyObject *const *args, Py_ssize_t nargs) {
    const char *path, *name;
    if (nargs != 2 || !(path = PyUnicode_AsUTF8(args[0])) || !(name = PyUnicode_AsUTF8(args[1]))) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "symbol(path: str, name: str)");
        return NULL;
    }
    void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    void *sym = handle ? dlsym(handle, name) : NULL;
    if (!sym) {
        PyErr_Format(PyExc_OSError, "cannot load %s from %s: %s", name, path, dlerror());
        return NULL;
    }
    return PyLong_FromVoidPtr(sym);
}

static PyMethodDef methods[] = {
    {"symbol", (PyCFunction)(void (*)(void))symbol, METH_FASTCALL, "Address of a symbol in a shared object."},
    {"pool_stats", pool_stats, METH_NOARGS, "Output pool: (hits, misses, cached blocks, cached bytes)."},
    {"pool_clear", pool_clear, METH_NOARGS, "Free the output pool's cached buffers."},
    {"write_hook", write_hook, METH_NOARGS, "Address of the print sink that writes to Python's sys.stdout."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {PyModuleDef_HEAD_INIT, "_kiln_entry", NULL, -1, methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__kiln_entry(void) {
    import_array();
    if (PyType_Ready(&EntryType) < 0 || PyType_Ready(&FormType) < 0 || PyType_Ready(&HotPathType) < 0) return NULL;
    if (!(str_last_entry = PyUnicode_InternFromString("_last_entry")) ||
        !(str_last_keywords = PyUnicode_InternFromString("_last_keywords")) ||
        !(str_call = PyUnicode_InternFromString("_call")) ||
        !(str_write = PyUnicode_InternFromString("write")) || !(str_flush = PyUnicode_InternFromString("flush")))
        return NULL;
    if (!pool_capsule && !(pool_capsule = PyCapsule_New(&pool_handler, "mem_handler", NULL))) return NULL;
    PyObject *m = PyModule_Create(&module_def);
    if (!m) return NULL;
    if (PyModule_AddType(m, &EntryType) < 0 || PyModule_AddType(m, &FormType) < 0 || PyModule_AddType(m, &HotPathType) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
