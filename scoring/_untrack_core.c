/* The records core: tells CPython's cyclic garbage collector to stop walking a kept run_evals record.

A record is a tree of plain dicts and lists holding strings and numbers: it cannot be part of a reference
cycle, yet the collector walks every container of every kept record at each full collection (21-30% of a
run_evals over 23,703 texts). CPython already stops tracking tuples and dicts that hold only such values
(gc.is_tracked is then False); it never does it for lists, nor for a dict holding a list. untrack_plain does
it for the whole tree, with one rule that keeps it safe: a list is untracked only when the tree is the only
holder of it (reference count 1 all the way up), so a list the caller shares (an item's output) is never
touched; a tuple or dict the caller shares is untracked only as CPython's own collector would untrack it.
A dict untracked here is tracked again by CPython as soon as a container is put in it.
*/
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#define MAX_DEPTH 64 /* deeper than any record: below it, containers are left tracked (and so are their parents) */

/* Untrack obj if it is plain: an exact dict, list or tuple holding only strings, numbers and other plain
   containers. Returns whether obj is now untracked (or never was walked). ``owned``: nothing but this tree holds
   obj (reference count 1 all the way down). Only then are its lists entered: a list others hold may be given
   a container later, and CPython never tracks a list again. A tuple or dict others hold is untracked only as
   CPython itself would (a tuple cannot change; a dict is tracked again when a container goes in). Every child
   is visited even after one is found not plain, so the plain branches of a mixed tree are untracked. */
static int untrack_tree(PyObject *obj, int depth, int owned) {
    if (!PyObject_GC_IsTracked(obj)) {
        return 1; /* a string, a number, or a container CPython has untracked already */
    }
    int is_list = PyList_CheckExact(obj);
    if (depth > MAX_DEPTH || !(is_list || PyTuple_CheckExact(obj) || PyDict_CheckExact(obj)) || (is_list && !owned)) {
        return 0; /* too deep, another type (its own rules decide what it holds), or a list others hold */
    }
    int plain = 1;
    if (is_list || PyTuple_CheckExact(obj)) {
        Py_ssize_t n = PySequence_Fast_GET_SIZE(obj);
        PyObject **items = PySequence_Fast_ITEMS(obj);
        for (Py_ssize_t i = 0; i < n; i++) {
            plain &= untrack_tree(items[i], depth + 1, owned && Py_REFCNT(items[i]) == 1);
        }
    } else {
        Py_ssize_t pos = 0;
        PyObject *key, *value;
        while (PyDict_Next(obj, &pos, &key, &value)) {
            plain &= untrack_tree(key, depth + 1, 0);
            plain &= untrack_tree(value, depth + 1, owned && Py_REFCNT(value) == 1);
        }
    }
    if (plain) {
        PyObject_GC_UnTrack(obj);
    }
    return plain;
}

static PyObject *untrack_plain(PyObject *module, PyObject *record) {
    (void)module;
    if (!PyDict_CheckExact(record) && !PyList_CheckExact(record)) {
        PyErr_Format(PyExc_TypeError, "untrack_plain takes a dict or a list; got %.100s", Py_TYPE(record)->tp_name);
        return NULL;
    }
    if (!PyObject_GC_IsTracked(record)) {
        Py_RETURN_TRUE;
    }
    return PyBool_FromLong(untrack_tree(record, 0, 1));
}

static PyMethodDef methods[] = {
    {"untrack_plain", untrack_plain, METH_O,
     "untrack_plain(record, /) -> bool\n--\n\n"
     "Stop the garbage collector walking ``record`` (a dict or list) and the plain dicts, lists and tuples only it "
     "holds; returns whether ``record`` itself is now untracked."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    "_untrack_core",
    "The records core (kept run_evals records, untracked by the garbage collector): see scoring/evals.py.",
    -1,
    methods,
    NULL,
    NULL,
    NULL,
    NULL,
};

PyMODINIT_FUNC PyInit__untrack_core(void) { return PyModule_Create(&module_def); }
