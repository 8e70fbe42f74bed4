/* The compiled core of the AFINN engine: ``scoring.tone.afinn.comparative``'s ASCII fast path, in C.
 *
 * The fast path takes ASCII text whose only JavaScript whitespace is the space and the line feed (a tab, \v,
 * \f or \r makes ``comparative`` return None here, and the caller runs ``analyze``). On it the Python code
 *     tokens = text.encode("ascii").lower().translate(_ASCII_PUNCT_TO_SPACE).split()
 * lower-cases A-Z, turns the ``sentiment`` package's punctuation and the line feed into spaces and splits on
 * runs of spaces (\x1c-\x1f and the other control bytes stay in words, as ``bytes.split`` keeps them); this
 * core reads the same tokens in one scan, without building them. The score is the sum of the tokens' lexicon
 * values, each negated when the token before it is a negator ("not good": -3), and the result the same
 * ``score / (len(tokens) or 1)``: the score and the count are exact integers below 2^53 (|value| <= 127 per
 * token, and a longer text than 2^46 bytes is left to Python), so the one division of two exact doubles is the
 * correctly rounded quotient that Python's int / int gives, to the bit.
 *
 * The lexicon (AFINN-165 and the emoji scores) and the negators come from the Python module when a Scorer is
 * made (never copied here), into a word table (scoring/text/_word_table.h); words no token can equal (upper
 * case, a space or punctuation in them, not ASCII) are left out. tests/scoring/tone/test_afinn_core.py
 * compares this core with the Python code and with ``analyze``.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

#include "../text/_word_table.h"

enum { LEXICON = 1, NEGATOR = 2 }; /* a slot's flags */

/* What a byte of the text is on the fast path: its lower-case form (a word byte) or one of these flags. */
enum { WORD = 0, SEPARATOR = 0x100, OFF_PATH = 0x200 };

#define MAX_TEXT ((Py_ssize_t)1 << 46) /* longer texts: the Python code (the exact-integer bound above) */

typedef struct {
    PyObject_HEAD
    Slot *table; /* NULL until __init__ succeeds */
    size_t size; /* slots, a power of two, at least twice the words */
    uint16_t byte[256]; /* each byte's lower-case form (A-Z to a-z), or SEPARATOR, or OFF_PATH */
} Scorer;

/* 1 when some token can equal ``word`` (so it goes in the table), 0 when none can, -1 with ValueError when it
 * could but the table cannot hold it. */
static int
matchable(const Scorer *self, const char *field, PyObject *word, const char *s, Py_ssize_t n)
{
    if (n == 0) {
        return 0;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        uchar c = (uchar)s[i];
        if (self->byte[c] != c) {
            return 0; /* tokens are lower case and hold no separator */
        }
    }
    if (n > KEY_MAX) {
        PyErr_Format(PyExc_ValueError, "%s: words must have at most %d characters; got %R.", field, KEY_MAX, word);
        return -1;
    }
    return 1;
}

static void
table_put(Scorer *self, const char *s, Py_ssize_t n, int flag, int value)
{
    Slot *slot = table_add(self->table, self->size, NULL, s, n); /* sized for every word in __init__ */
    slot->flags |= (uchar)flag;
    if (flag == LEXICON) {
        slot->value = (signed char)value;
    }
}

/* Add the words of ``words`` (a list of str) with ``flag``; with ``lexicon``, each with its value there. */
static int
add_words(Scorer *self, const char *field, PyObject *words, PyObject *lexicon, int flag)
{
    for (Py_ssize_t k = 0; k < PyList_GET_SIZE(words); k++) {
        PyObject *word = PyList_GET_ITEM(words, k);
        if (!PyUnicode_Check(word)) {
            PyErr_Format(PyExc_TypeError, "%s must hold str words; got %R.", field, word);
            return -1;
        }
        int value = 0;
        if (lexicon != NULL) {
            PyObject *v = PyDict_GetItemWithError(lexicon, word); /* borrowed */
            if (v == NULL) {
                if (!PyErr_Occurred()) {
                    PyErr_Format(PyExc_KeyError, "%R", word);
                }
                return -1;
            }
            int overflow = 0;
            long number = PyLong_Check(v) ? PyLong_AsLongAndOverflow(v, &overflow) : 0;
            if (!PyLong_Check(v) || overflow || number < -127 || number > 127) {
                PyErr_Format(PyExc_ValueError, "%s[%R] must be an int from -127 to 127; got %R.", field, word, v);
                return -1;
            }
            value = (int)number;
        }
        if (!PyUnicode_IS_ASCII(word)) {
            continue; /* ASCII text never holds it: the Python code scores the text that can */
        }
        Py_ssize_t n = PyUnicode_GET_LENGTH(word);
        const char *s = (const char *)PyUnicode_DATA(word);
        int ok = matchable(self, field, word, s, n);
        if (ok < 0) {
            return -1;
        }
        if (ok) {
            table_put(self, s, n, flag, value);
        }
    }
    return 0;
}

static int
Scorer_init(Scorer *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"lexicon", "negators", "separators", NULL};
    PyObject *lexicon = NULL, *negators = NULL, *separators = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|$O!OU:Scorer", kwlist, &PyDict_Type, &lexicon, &negators,
                                     &separators)) {
        return -1;
    }
    PyObject *required[] = {lexicon, negators, separators};
    for (int k = 0; k < 3; k++) {
        if (required[k] == NULL) {
            PyErr_Format(PyExc_TypeError, "Scorer() missing the keyword argument %s", kwlist[k]);
            return -1;
        }
    }
    if (self->table != NULL) {
        PyErr_SetString(PyExc_RuntimeError, "Scorer is already initialised");
        return -1;
    }
    if (!PyUnicode_IS_ASCII(separators)) {
        PyErr_Format(PyExc_ValueError, "separators must be ASCII; got %R.", separators);
        return -1;
    }
    for (int c = 0; c < 256; c++) {
        self->byte[c] = (uint16_t)(c >= 'A' && c <= 'Z' ? c + 32 : c);
    }
    self->byte[' '] = SEPARATOR;
    const char *seps = (const char *)PyUnicode_DATA(separators);
    for (Py_ssize_t k = 0; k < PyUnicode_GET_LENGTH(separators); k++) {
        self->byte[(uchar)seps[k]] = SEPARATOR;
    }
    /* JavaScript whitespace that the fast path does not take: its collapse-trim-split would differ. */
    self->byte['\t'] = self->byte['\v'] = self->byte['\f'] = self->byte['\r'] = OFF_PATH;

    PyObject *words = PyDict_Keys(lexicon), *negator_list = PySequence_List(negators);
    if (words == NULL || negator_list == NULL) {
        goto error;
    }
    size_t count = (size_t)PyList_GET_SIZE(words) + (size_t)PyList_GET_SIZE(negator_list);
    self->size = 8;
    while (self->size < 2 * count + 2) {
        self->size <<= 1;
    }
    self->table = PyMem_Calloc(self->size, sizeof(Slot));
    if (self->table == NULL) {
        PyErr_NoMemory();
        goto error;
    }
    if (add_words(self, "lexicon", words, lexicon, LEXICON) < 0 ||
        add_words(self, "negators", negator_list, NULL, NEGATOR) < 0) {
        goto error;
    }
    Py_DECREF(words);
    Py_DECREF(negator_list);
    return 0;
error:
    Py_XDECREF(words);
    Py_XDECREF(negator_list);
    PyMem_Free(self->table);
    self->table = NULL;
    return -1;
}

static void
Scorer_dealloc(Scorer *self)
{
    PyMem_Free(self->table);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

PyDoc_STRVAR(comparative_doc,
"comparative($self, text, /)\n--\n\n"
"Return ``afinn.comparative(text)`` for text on its ASCII fast path (ASCII, no tab, \\v, \\f or \\r), else None.");

static PyObject *
Scorer_comparative(Scorer *self, PyObject *text)
{
    if (self->table == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "Scorer is not initialised");
        return NULL;
    }
    if (!PyUnicode_Check(text)) {
        PyErr_Format(PyExc_TypeError, "text must be a str; got %.100s.", Py_TYPE(text)->tp_name);
        return NULL;
    }
    Py_ssize_t len = PyUnicode_GET_LENGTH(text);
    if (!PyUnicode_IS_ASCII(text) || len > MAX_TEXT) {
        Py_RETURN_NONE;
    }
    const uchar *s = (const uchar *)PyUnicode_DATA(text), *end = s + len;
    const uint16_t *byte = self->byte;
    const Slot *table = self->table;
    size_t size = self->size;
    long long score = 0;
    Py_ssize_t tokens = 0;
    int after_negator = 0;
    char word[KEY_MAX + 1];
    while (s < end) {
        uint16_t b = byte[*s];
        if (b & (SEPARATOR | OFF_PATH)) {
            if (b & OFF_PATH) {
                Py_RETURN_NONE;
            }
            s++;
            continue;
        }
        /* a token: its lower-case bytes (the first KEY_MAX, enough for any word in the table) and their hash */
        Py_ssize_t n = 0;
        size_t h = HASH_START;
        do {
            uchar c = (uchar)b;
            word[n & KEY_MAX] = (char)c; /* past KEY_MAX bytes the word is in no table: no look-up below */
            h = hash_step(h, c);
            n++;
            s++;
        } while (s < end && !((b = byte[*s]) & (SEPARATOR | OFF_PATH)));
        tokens++;
        const Slot *slot = n <= KEY_MAX ? table_find(table, size, h, word, n) : NULL;
        if (slot == NULL) {
            after_negator = 0;
            continue;
        }
        score += after_negator ? -slot->value : slot->value; /* a word right after a negator counts negated */
        after_negator = slot->flags & NEGATOR;
    }
    return PyFloat_FromDouble((double)score / (double)(tokens ? tokens : 1));
}

static PyMethodDef Scorer_methods[] = {
    {"comparative", (PyCFunction)Scorer_comparative, METH_O, comparative_doc},
    {NULL, NULL, 0, NULL},
};

PyDoc_STRVAR(Scorer_doc,
"Scorer(*, lexicon, negators, separators)\n--\n\n"
"The ``sentiment`` package's comparative for ASCII text, with its lexicon and negators passed in once.");

static PyTypeObject ScorerType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "scoring.tone._afinn_core.Scorer",
    .tp_basicsize = sizeof(Scorer),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = Scorer_doc,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Scorer_init,
    .tp_dealloc = (destructor)Scorer_dealloc,
    .tp_methods = Scorer_methods,
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    .m_name = "scoring.tone._afinn_core",
    .m_doc = "The compiled core of the AFINN engine (the sentiment package's comparative of ASCII text).",
    .m_size = -1,
};

PyMODINIT_FUNC
PyInit__afinn_core(void)
{
    if (PyType_Ready(&ScorerType) < 0) {
        return NULL;
    }
    PyObject *m = PyModule_Create(&module_def);
    if (m == NULL) {
        return NULL;
    }
    Py_INCREF(&ScorerType);
    if (PyModule_AddObject(m, "Scorer", (PyObject *)&ScorerType) < 0) {
        Py_DECREF(&ScorerType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
