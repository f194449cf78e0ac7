/* tiktoken's rank rule on one piece, compiled: the ids of the tokens it splits the piece into.
 *
 *   encode(ranks, data, max_rank) -> list[int]
 *
 * *ranks* maps token bytes to rank; only ranks below *max_rank* are used.  Exactly
 * ``[ranks[p] for p in rank_bpe.byte_pair_ranks(ranks, data, max_rank)]`` (which stays the definition and the
 * fallback): start from single bytes, repeatedly merge the adjacent pair whose concatenation has the lowest
 * rank, leftmost on ties, until no pair's rank is below *max_rank*.  It leaves out the whole-piece shortcut
 * and caching (the caller's).  A part missing from *ranks* raises KeyError, as the Python does.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

/* *out = the rank of data[a:b], or max_rank when it is not a token (or above max_rank); -1 on error */
static int rank_of(PyObject *ranks, const char *data, Py_ssize_t a, Py_ssize_t b, long long max_rank,
                   long long *out) {
    PyObject *key = PyBytes_FromStringAndSize(data + a, b - a);
    if (key == NULL) return -1;
    PyObject *r = PyDict_GetItemWithError(ranks, key);
    Py_DECREF(key);
    if (r == NULL) {
        if (PyErr_Occurred()) return -1;
        *out = max_rank;
        return 0;
    }
    long long v = PyLong_AsLongLong(r);
    if (v == -1 && PyErr_Occurred()) return -1;
    *out = v > max_rank ? max_rank : v;  /* as the Python: r > max_rank counts as max_rank */
    return 0;
}

static PyObject *encode(PyObject *Py_UNUSED(module), PyObject *args) {
    PyObject *ranks;
    const char *data;
    Py_ssize_t n;
    long long max_rank;
    if (!PyArg_ParseTuple(args, "O!y#L", &PyDict_Type, &ranks, &data, &n, &max_rank)) return NULL;
    PyObject *out = NULL;
    /* bound[0..m]: the parts' start offsets and the end; pr[i]: rank of parts i and i + 1 joined */
    Py_ssize_t m = n;
    Py_ssize_t *bound = PyMem_Malloc(sizeof(Py_ssize_t) * (size_t)(n + 1));
    long long *pr = PyMem_Malloc(sizeof(long long) * (size_t)(n > 0 ? n : 1));
    if (bound == NULL || pr == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i <= n; i++) bound[i] = i;
    for (Py_ssize_t i = 0; i + 1 < m; i++) {
        if (rank_of(ranks, data, bound[i], bound[i + 2], max_rank, &pr[i]) < 0) goto done;
    }
    while (m > 1) {
        Py_ssize_t best_i = 0;
        long long best = pr[0];
        for (Py_ssize_t i = 1; i + 1 < m; i++)
            if (pr[i] < best) {
                best = pr[i];
                best_i = i;
            }
        if (best >= max_rank) break;
        Py_ssize_t i = best_i;  /* merge parts i and i + 1: drop boundary i + 1 and pair rank i */
        memmove(bound + i + 1, bound + i + 2, sizeof(Py_ssize_t) * (size_t)(m - i - 1));
        if (i + 1 < m - 1) memmove(pr + i, pr + i + 1, sizeof(long long) * (size_t)(m - i - 2));
        m--;
        if (i + 1 < m) {
            if (rank_of(ranks, data, bound[i], bound[i + 2], max_rank, &pr[i]) < 0) goto done;
        }
        if (i > 0) {
            if (rank_of(ranks, data, bound[i - 1], bound[i + 1], max_rank, &pr[i - 1]) < 0) goto done;
        }
    }
    out = PyList_New(m);
    if (out == NULL) goto done;
    for (Py_ssize_t i = 0; i < m; i++) {
        PyObject *key = PyBytes_FromStringAndSize(data + bound[i], bound[i + 1] - bound[i]);
        if (key == NULL) goto fail;
        PyObject *r = PyDict_GetItemWithError(ranks, key);
        if (r == NULL) {
            if (!PyErr_Occurred()) PyErr_SetObject(PyExc_KeyError, key);
            Py_DECREF(key);
            goto fail;
        }
        Py_DECREF(key);
        Py_INCREF(r);
        PyList_SET_ITEM(out, i, r);
    }
    goto done;
fail:
    Py_CLEAR(out);
done:
    PyMem_Free(bound);
    PyMem_Free(pr);
    return out;
}

static PyMethodDef methods[] = {
    {"encode", encode, METH_VARARGS, "encode(ranks, data, max_rank) -> the ids tiktoken's rank rule gives."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_rank_bpe", "tiktoken's rank rule, compiled.", -1,
                                    methods};

PyMODINIT_FUNC PyInit__rank_bpe(void) { return PyModule_Create(&module); }
