/* The counting loop of word_first.WordsFirst._count, compiled: add the pieces of counted units to a table.
 *
 *   accumulate(counted, known, pieces_of, into, room) -> room left
 *
 * For each (unit, n) of *counted* in order: its pieces are known[unit], or pieces_of(unit) (then remembered in
 * *known* while room > 0); each piece's count in *into* grows by n (a new piece is appended: first-seen order).
 * Exactly the Python loop it replaces (which stays the fallback); it splits nothing itself.
 *
 *   count_fields(text, into) -> None
 *
 * The fields of the fast split counted into a dict: exactly ``Counter.update(into, text.split(" "))`` (the
 * same counts, new fields appended in first-seen order), but a str is made once per distinct field, not once
 * per field: the fields are told apart in the text itself, by an open-addressing hash of (start, length).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

static PyObject *accumulate(PyObject *Py_UNUSED(module), PyObject *args) {
    PyObject *counted, *known, *pieces_of, *into;
    Py_ssize_t room;
    if (!PyArg_ParseTuple(args, "O!O!OO!n", &PyDict_Type, &counted, &PyDict_Type, &known, &pieces_of,
                          &PyDict_Type, &into, &room))
        return NULL;
    Py_ssize_t pos = 0;
    PyObject *unit, *n;
    while (PyDict_Next(counted, &pos, &unit, &n)) {
        Py_INCREF(unit);
        Py_INCREF(n);
        PyObject *pieces = PyDict_GetItemWithError(known, unit);
        if (pieces != NULL) {
            Py_INCREF(pieces);
        } else if (PyErr_Occurred()) {
            goto fail;
        } else {
            pieces = PyObject_CallOneArg(pieces_of, unit);
            if (pieces == NULL) goto fail;
            if (room > 0) {
                if (PyDict_SetItem(known, unit, pieces) < 0) goto fail_pieces;
                room--;
            }
        }
        PyObject *seq = PySequence_Fast(pieces, "pieces_of returns a list of pieces");
        if (seq == NULL) goto fail_pieces;
        Py_ssize_t m = PySequence_Fast_GET_SIZE(seq);
        PyObject **items = PySequence_Fast_ITEMS(seq);
        for (Py_ssize_t i = 0; i < m; i++) {
            PyObject *old = PyDict_GetItemWithError(into, items[i]);
            PyObject *sum;
            if (old != NULL) {
                sum = PyNumber_Add(old, n);
            } else if (PyErr_Occurred()) {
                sum = NULL;
            } else {
                sum = n;
                Py_INCREF(sum);
            }
            if (sum == NULL || PyDict_SetItem(into, items[i], sum) < 0) {
                Py_XDECREF(sum);
                Py_DECREF(seq);
                goto fail_pieces;
            }
            Py_DECREF(sum);
        }
        Py_DECREF(seq);
        Py_DECREF(pieces);
        Py_DECREF(unit);
        Py_DECREF(n);
        continue;
    fail_pieces:
        Py_DECREF(pieces);
    fail:
        Py_DECREF(unit);
        Py_DECREF(n);
        return NULL;
    }
    return PyLong_FromSsize_t(room);
}

typedef struct {
    Py_ssize_t start, len, n;
} Field;

static inline uint64_t hash_units(const unsigned char *p, size_t nbytes) {
    uint64_t h = 0x9e3779b97f4a7c15ULL ^ nbytes; /* eight bytes at a time, multiply-xorshift */
    size_t i = 0;
    for (; i + 8 <= nbytes; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        h = (h ^ w) * 0xff51afd7ed558ccdULL;
        h ^= h >> 32;
    }
    if (i < nbytes) {
        uint64_t w = 0;
        memcpy(&w, p + i, nbytes - i);
        h = (h ^ w) * 0xc4ceb9fe1a85ec53ULL;
    }
    h ^= h >> 29;
    h *= 0xbf58476d1ce4e5b9ULL;
    return h ^ (h >> 32);
}

/* Where the field starting at *start* ends: the next space, or n. */
static inline Py_ssize_t field_end(int kind, const unsigned char *data, Py_ssize_t start, Py_ssize_t n) {
    if (kind == PyUnicode_1BYTE_KIND) {
        const unsigned char *sp = memchr(data + start, ' ', (size_t)(n - start));
        return sp == NULL ? n : (Py_ssize_t)(sp - data);
    }
    Py_ssize_t i = start;
    while (i < n && PyUnicode_READ(kind, data, i) != ' ') i++;
    return i;
}

static PyObject *count_fields(PyObject *Py_UNUSED(module), PyObject *args) {
    PyObject *text, *into;
    if (!PyArg_ParseTuple(args, "UO!", &text, &PyDict_Type, &into)) return NULL;
    const int kind = PyUnicode_KIND(text);
    const unsigned char *data = PyUnicode_DATA(text);
    const Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    Field *fields = NULL;
    Py_ssize_t nfields = 0, capfields = 0;
    Py_ssize_t *slots = NULL, capslots = 1024; /* power of two, at most half full; -1 empty */
    slots = PyMem_Malloc((size_t)capslots * sizeof(Py_ssize_t));
    if (slots == NULL) return PyErr_NoMemory();
    memset(slots, 0xff, (size_t)capslots * sizeof(Py_ssize_t));
    for (Py_ssize_t start = 0; start <= n;) {
        const Py_ssize_t i = field_end(kind, data, start, n);
        const Py_ssize_t len = i - start;
        const unsigned char *p = data + (size_t)start * kind;
        uint64_t mask = (uint64_t)capslots - 1, h = hash_units(p, (size_t)len * kind) & mask;
        for (;;) {
            Py_ssize_t f = slots[h];
            if (f < 0) break;
            if (fields[f].len == len && memcmp(data + (size_t)fields[f].start * kind, p, (size_t)len * kind) == 0)
                break;
            h = (h + 1) & mask;
        }
        if (slots[h] >= 0) {
            fields[slots[h]].n++;
        } else {
            if (nfields == capfields) {
                Py_ssize_t cap = capfields ? capfields * 2 : 256;
                Field *q = PyMem_Realloc(fields, (size_t)cap * sizeof(Field));
                if (q == NULL) goto nomem;
                fields = q;
                capfields = cap;
            }
            fields[nfields] = (Field){start, len, 1};
            slots[h] = nfields++;
            if (nfields * 2 > capslots) { /* rehash into twice the slots */
                Py_ssize_t cap = capslots * 2, *t = PyMem_Malloc((size_t)cap * sizeof(Py_ssize_t));
                if (t == NULL) goto nomem;
                memset(t, 0xff, (size_t)cap * sizeof(Py_ssize_t));
                uint64_t m2 = (uint64_t)cap - 1;
                for (Py_ssize_t f = 0; f < nfields; f++) {
                    uint64_t g = hash_units(data + (size_t)fields[f].start * kind, (size_t)fields[f].len * kind) & m2;
                    while (t[g] >= 0) g = (g + 1) & m2;
                    t[g] = f;
                }
                PyMem_Free(slots);
                slots = t;
                capslots = cap;
            }
        }
        start = i + 1; /* past the space; past n when the text ends here */
    }
    PyMem_Free(slots);
    slots = NULL;
    for (Py_ssize_t f = 0; f < nfields; f++) { /* first-seen order: as Counter.update meets them */
        PyObject *key = PyUnicode_FromKindAndData(kind, data + (size_t)fields[f].start * kind, fields[f].len);
        if (key == NULL) goto fail;
        PyObject *old = PyDict_GetItemWithError(into, key), *sum;
        if (old != NULL) {
            PyObject *add = PyLong_FromSsize_t(fields[f].n);
            sum = add == NULL ? NULL : PyNumber_Add(old, add);
            Py_XDECREF(add);
        } else {
            sum = PyErr_Occurred() ? NULL : PyLong_FromSsize_t(fields[f].n);
        }
        if (sum == NULL || PyDict_SetItem(into, key, sum) < 0) {
            Py_XDECREF(sum);
            Py_DECREF(key);
            goto fail;
        }
        Py_DECREF(sum);
        Py_DECREF(key);
    }
    PyMem_Free(fields);
    Py_RETURN_NONE;
nomem:
    PyErr_NoMemory();
fail:
    PyMem_Free(slots);
    PyMem_Free(fields);
    return NULL;
}

static PyMethodDef methods[] = {
    {"count_fields", count_fields, METH_VARARGS, "count_fields(text, into): Counter.update(into, text.split(' '))"},
    {"accumulate", accumulate, METH_VARARGS, "accumulate(counted, known, pieces_of, into, room) -> room left"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_accumulate", "The compiled counting loop (see word_first.py).", -1, methods,
};

PyMODINIT_FUNC PyInit__accumulate(void) { return PyModule_Create(&module); }
