/* The Dice score's compiled core: a C twin of the bigram count in scoring/similarity/scorer.py.
 *
 * `shared_bigrams(a, b)` is the size of the multiset intersection of the two strings' bigrams (pairs of adjacent
 * characters), what `dice` sums from two Counters: a bigram found twice in a and three times in b counts twice.
 * The caller passes whitespace-free texts whose characters are UTF-16 code units (`_without_whitespace`), so the
 * count is string-similarity's; the core itself counts any str's characters, of every width CPython stores.
 * It counts a's bigrams, then takes each of b's bigrams out of the count while it lasts. Two one-byte strings (every
 * character below 256: ASCII and Latin-1 text) count in a table indexed by the bigram itself, reset after each call;
 * other text in an open-addressing table (a power of two, at most half full; on the stack up to STACK_SLOTS / 2
 * bigrams).
 * tests/scoring/similarity/test_dice_core.py compares it with the Counter code.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define STACK_SLOTS 1024

typedef struct {
    uint64_t key; /* (first << 21 | second) + 1: 0 marks an empty slot; a code point has 21 bits */
    Py_ssize_t count;
} Slot;

static inline uint64_t bigram(int kind, const void *data, Py_ssize_t i) {
    return (((uint64_t)PyUnicode_READ(kind, data, i) << 21) | (uint64_t)PyUnicode_READ(kind, data, i + 1)) + 1;
}

/* The slot holding key, or the empty slot where it would go (linear probing; the table is at most half full). */
static inline Slot *find_slot(Slot *table, size_t mask, uint64_t key) {
    size_t h = (size_t)((key * 0x9E3779B97F4A7C15ull) >> 32) & mask; /* Fibonacci hashing: bigrams differ in low bits */
    while (table[h].key != 0 && table[h].key != key) {
        h = (h + 1) & mask;
    }
    return &table[h];
}

/* The counts of every one-byte bigram. Always all zero between calls: the GIL is held from filling to resetting. */
static Py_ssize_t byte_counts[1 << 16]; /* a count as wide as a length: no text overflows it */

static Py_ssize_t shared_one_byte(const Py_UCS1 *a, Py_ssize_t na, const Py_UCS1 *b, Py_ssize_t nb) {
    for (Py_ssize_t i = 0; i < na; i++) {
        byte_counts[a[i] << 8 | a[i + 1]]++;
    }
    Py_ssize_t shared = 0;
    for (Py_ssize_t i = 0; i < nb; i++) {
        Py_ssize_t *count = &byte_counts[b[i] << 8 | b[i + 1]];
        if (*count > 0) {
            --*count;
            shared++;
        }
    }
    for (Py_ssize_t i = 0; i < na; i++) {
        byte_counts[a[i] << 8 | a[i + 1]] = 0;
    }
    return shared;
}

PyDoc_STRVAR(shared_bigrams_doc,
             "shared_bigrams(a, b, /)\n--\n\n"
             "The size of the multiset intersection of the bigrams of a and b (each a str).");

static PyObject *shared_bigrams(PyObject *Py_UNUSED(module), PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2 || !PyUnicode_Check(args[0]) || !PyUnicode_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "shared_bigrams takes two str.");
        return NULL;
    }
    PyObject *a = args[0], *b = args[1];
    Py_ssize_t na = PyUnicode_GET_LENGTH(a) - 1, nb = PyUnicode_GET_LENGTH(b) - 1; /* bigrams in each */
    if (na < 1 || nb < 1) {
        return PyLong_FromLong(0);
    }
    if (PyUnicode_KIND(a) == PyUnicode_1BYTE_KIND && PyUnicode_KIND(b) == PyUnicode_1BYTE_KIND) {
        return PyLong_FromSsize_t(shared_one_byte(PyUnicode_1BYTE_DATA(a), na, PyUnicode_1BYTE_DATA(b), nb));
    }
    size_t size = 16;
    while (size < 2 * (size_t)na) {
        size <<= 1;
    }
    Slot stack[STACK_SLOTS];
    Slot *table = stack;
    if (size > STACK_SLOTS) {
        table = PyMem_Calloc(size, sizeof(Slot));
        if (table == NULL) {
            return PyErr_NoMemory();
        }
    } else {
        memset(table, 0, size * sizeof(Slot));
    }
    size_t mask = size - 1;
    int kind_a = PyUnicode_KIND(a), kind_b = PyUnicode_KIND(b);
    const void *data_a = PyUnicode_DATA(a), *data_b = PyUnicode_DATA(b);
    for (Py_ssize_t i = 0; i < na; i++) {
        uint64_t key = bigram(kind_a, data_a, i);
        Slot *slot = find_slot(table, mask, key);
        slot->key = key;
        slot->count++;
    }
    Py_ssize_t shared = 0;
    for (Py_ssize_t i = 0; i < nb; i++) {
        Slot *slot = find_slot(table, mask, bigram(kind_b, data_b, i));
        if (slot->count > 0) { /* an empty slot's count is 0 */
            slot->count--;
            shared++;
        }
    }
    if (table != stack) {
        PyMem_Free(table);
    }
    return PyLong_FromSsize_t(shared);
}

static PyMethodDef methods[] = {
    {"shared_bigrams", (PyCFunction)(void (*)(void))shared_bigrams, METH_FASTCALL, shared_bigrams_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    "_dice_core",
    "The Dice score's compiled core (shared bigrams of two texts): see scoring/similarity/scorer.py.",
    -1,
    methods,
    NULL,
    NULL,
    NULL,
    NULL,
};

PyMODINIT_FUNC PyInit__dice_core(void) { return PyModule_Create(&module_def); }
