/* The counting loop of word_first.WordsFirst._count, compiled: add the pieces of counted units to a table.
 *
 *   accumulate(counted, known, pieces_of, into, room) -> room left
 *
 * For each (unit, n) of *counted* in order: its pieces are known[unit], or pieces_of(unit) (then remembered in
 * *known* while room > 0); each piece's count in *into* grows by n (a new piece is appended: first-seen order).
 * Exactly the Python loop it replaces (which stays the fallback); it splits nothing itself.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

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

static PyMethodDef methods[] = {
    {"accumulate", accumulate, METH_VARARGS, "accumulate(counted, known, pieces_of, into, room) -> room left"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_accumulate", "The compiled counting loop (see word_first.py).", -1, methods,
};

PyMODINIT_FUNC PyInit__accumulate(void) { return PyModule_Create(&module); }
