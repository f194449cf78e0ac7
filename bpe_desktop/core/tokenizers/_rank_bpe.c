/* tiktoken's rank rule on one piece, compiled: the ids of the tokens it splits the piece into.
 *
 *   encode(ranks, data, max_rank) -> list[int]
 *   comparisons() -> int   (pair comparisons made so far, for the tests that count work)
 *
 * *ranks* maps token bytes to rank; only ranks below *max_rank* are used.  Exactly
 * ``[ranks[p] for p in rank_bpe.byte_pair_ranks(ranks, data, max_rank)]`` (which stays the definition and the
 * fallback): start from single bytes, repeatedly merge the adjacent pair whose concatenation has the lowest
 * rank, leftmost on ties, until no pair's rank is below *max_rank*.  As rank_bpe._by_heap: the parts are a
 * linked list over byte offsets (a part keeps the offset it starts at), and a binary heap holds
 * (rank, offset) for every rank a pair took; a popped entry whose rank is no longer the pair's is stale and
 * skipped.  O(n log n) in the piece's length.  It leaves out the whole-piece shortcut and caching (the
 * caller's).  A part missing from *ranks* raises KeyError, as the Python does.
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

typedef struct {
    long long rank;
    Py_ssize_t at;
} entry;

static unsigned long long n_comparisons = 0;

static int before(const entry *a, const entry *b) {
    n_comparisons++;
    return a->rank < b->rank || (a->rank == b->rank && a->at < b->at);
}

static void sift_down(entry *heap, Py_ssize_t size, Py_ssize_t i) {
    entry e = heap[i];
    for (;;) {
        Py_ssize_t c = 2 * i + 1;
        if (c >= size) break;
        if (c + 1 < size && before(&heap[c + 1], &heap[c])) c++;
        if (!before(&heap[c], &e)) break;
        heap[i] = heap[c];
        i = c;
    }
    heap[i] = e;
}

static void push(entry *heap, Py_ssize_t *size, long long rank, Py_ssize_t at) {
    entry e = {rank, at};
    Py_ssize_t i = (*size)++;
    while (i > 0) {
        Py_ssize_t p = (i - 1) / 2;
        if (!before(&e, &heap[p])) break;
        heap[i] = heap[p];
        i = p;
    }
    heap[i] = e;
}

static PyObject *encode(PyObject *Py_UNUSED(module), PyObject *args) {
    PyObject *ranks;
    const char *data;
    Py_ssize_t n;
    long long max_rank;
    if (!PyArg_ParseTuple(args, "O!y#L", &PyDict_Type, &ranks, &data, &n, &max_rank)) return NULL;
    PyObject *out = NULL;
    /* part i is data[i:nxt[i]] while live; prv links back (-1: none); pair[i]: rank of part i joined with
     * the next, max_rank when they do not merge or part i was merged away.  Each merge pushes at most two
     * entries: the heap never holds more than 3n. */
    size_t cells = (size_t)(n > 0 ? n : 1);
    /* one block: the heap's entries, then nxt, prv and pair (all 8-byte aligned) */
    entry *heap = PyMem_Malloc((sizeof(entry) * 3 + sizeof(Py_ssize_t) * 2 + sizeof(long long)) * cells);
    if (heap == NULL) return PyErr_NoMemory();
    Py_ssize_t *nxt = (Py_ssize_t *)(heap + 3 * cells);
    Py_ssize_t *prv = nxt + cells;
    long long *pair = (long long *)(prv + cells);
    Py_ssize_t size = 0, m = n;
    for (Py_ssize_t i = 0; i < n; i++) {
        nxt[i] = i + 1;
        prv[i] = i - 1;
        pair[i] = max_rank;
    }
    for (Py_ssize_t i = 0; i + 1 < n; i++) {
        if (rank_of(ranks, data, i, i + 2, max_rank, &pair[i]) < 0) goto done;
        if (pair[i] < max_rank) heap[size++] = (entry){pair[i], i};
    }
    for (Py_ssize_t i = size / 2 - 1; i >= 0; i--) sift_down(heap, size, i);
    while (size > 0) {
        entry top = heap[0];
        heap[0] = heap[--size];
        if (size > 0) sift_down(heap, size, 0);
        Py_ssize_t i = top.at;
        if (pair[i] != top.rank) continue; /* stale */
        Py_ssize_t j = nxt[i], k = nxt[j];  /* merge part j into part i */
        pair[j] = max_rank;
        nxt[i] = k;
        pair[i] = max_rank;
        m--;
        if (k < n) {
            prv[k] = i;
            if (rank_of(ranks, data, i, nxt[k], max_rank, &pair[i]) < 0) goto done;
            if (pair[i] < max_rank) push(heap, &size, pair[i], i);
        }
        Py_ssize_t h = prv[i];
        if (h >= 0) {
            if (rank_of(ranks, data, h, k, max_rank, &pair[h]) < 0) goto done;
            if (pair[h] < max_rank) push(heap, &size, pair[h], h);
        }
    }
    out = PyList_New(m);
    if (out == NULL) goto done;
    for (Py_ssize_t i = 0, at = 0; at < n; i++, at = nxt[at]) {
        PyObject *key = PyBytes_FromStringAndSize(data + at, nxt[at] - at);
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
    PyMem_Free(heap);
    return out;
}

static PyObject *comparisons(PyObject *Py_UNUSED(module), PyObject *Py_UNUSED(args)) {
    return PyLong_FromUnsignedLongLong(n_comparisons);
}

static PyMethodDef methods[] = {
    {"encode", encode, METH_VARARGS, "encode(ranks, data, max_rank) -> the ids tiktoken's rank rule gives."},
    {"comparisons", comparisons, METH_NOARGS, "comparisons() -> heap comparisons made so far (work counter)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_rank_bpe", "tiktoken's rank rule, compiled.", -1,
                                    methods};

PyMODINIT_FUNC PyInit__rank_bpe(void) { return PyModule_Create(&module); }
