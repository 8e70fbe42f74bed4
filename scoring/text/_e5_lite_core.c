/* e5-lite's compiled core: a C twin of the tokenizer in scoring/text/e5_lite.py (Tokenizer.normalise, _segment,
 * ids, and LiteModel's token rows).
 *
 * A Segmenter holds e5's SentencePiece-unigram vocabulary (its pieces, their scores, the unknown piece's id and
 * score) and the per-code-point normalisation map, passed in once from Python (read from the package data file;
 * nothing is copied here). For a text it does what the Python code does, in the same order:
 *   - each code point replaced by its normalisation (str.translate), runs of two or more spaces collapsed into one,
 *     a space put first when the text does not start with one, every space made a metaspace U+2581;
 *   - each metaspace-led word segmented by Viterbi over the pieces: from each position, every piece starting there
 *     in order of length (score added in double, kept only when strictly better, so ties keep the first found),
 *     then the single-character unknown fallback;
 *   - the best path read back from the end.
 * The pieces are found in an open-addressing hash table keyed by code points that also holds every prefix of
 * every piece (marked as no piece), so the search from a position stops at the first substring that begins no
 * piece; the Python code bounds the search by the longest piece sharing the first two characters. Both try every
 * piece that matches, in the same order, so both find the same path, to the bit of its scores.
 * tests/scoring/text/test_e5_lite_core.py compares the two.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#define META 0x2581u
#define NO_PIECE (-1)
#define STACK_CHARS 256

typedef struct {
    uint32_t offset; /* into the code point pool */
    uint32_t len;
    int32_t id; /* the piece's id, or NO_PIECE for a prefix of pieces that is not itself one */
} Entry;

typedef struct {
    PyObject_HEAD
    uint64_t *slots; /* (hash >> 32) << 32 | (entry index + 1); 0 is an empty slot */
    Entry *entries;
    uint32_t *pool; /* every piece's code points */
    size_t mask;
    Py_ssize_t n_pieces;
    double *scores;
    int32_t unk;
    double unk_score;
    int32_t *norm_index; /* code point -> 1 + its entry in norm_offsets (0: kept as it is), below norm_limit */
    uint32_t norm_limit;
    uint32_t *norm_offsets; /* replacement k is norm_out[norm_offsets[k] : norm_offsets[k + 1]] */
    uint32_t *norm_out;
} Segmenter;

/* A growable array of code points or of ids. */
typedef struct {
    uint32_t *data;
    Py_ssize_t len, cap;
} Chars;

typedef struct {
    int64_t *data;
    Py_ssize_t len, cap;
} Ids;

static inline int chars_reserve(Chars *c, Py_ssize_t more) {
    if (c->len + more <= c->cap) {
        return 0;
    }
    Py_ssize_t cap = c->cap ? c->cap : 64;
    while (cap < c->len + more) {
        cap *= 2;
    }
    uint32_t *data = PyMem_Realloc(c->data, (size_t)cap * sizeof(uint32_t));
    if (data == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    c->data = data;
    c->cap = cap;
    return 0;
}

static inline int ids_reserve(Ids *c, Py_ssize_t more) {
    if (c->len + more <= c->cap) {
        return 0;
    }
    Py_ssize_t cap = c->cap ? c->cap : 64;
    while (cap < c->len + more) {
        cap *= 2;
    }
    int64_t *data = PyMem_Realloc(c->data, (size_t)cap * sizeof(int64_t));
    if (data == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    c->data = data;
    c->cap = cap;
    return 0;
}

/* FNV-1a over code points, one step per code point, so the hash of a[i:e + 1] extends that of a[i:e]. */
#define HASH_START 1469598103934665603ULL
static inline uint64_t hash_step(uint64_t h, uint32_t cp) { return (h ^ cp) * 1099511628211ULL; }

static inline uint64_t hash_mix(uint64_t h) { /* the finaliser of MurmurHash3: FNV's low bits are weak */
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ULL;
    return h ^ (h >> 33);
}

/* The entry whose key is s[0:n] (whose hash, unmixed, is h), or NULL. */
static inline const Entry *find(const Segmenter *self, uint64_t h, const uint32_t *s, uint32_t n) {
    uint64_t m = hash_mix(h), tag = m >> 32;
    for (size_t i = (size_t)m & self->mask;; i = (i + 1) & self->mask) {
        uint64_t slot = self->slots[i];
        if (slot == 0) {
            return NULL;
        }
        if (slot >> 32 == tag) {
            const Entry *e = &self->entries[(uint32_t)slot - 1];
            if (e->len == n && memcmp(self->pool + e->offset, s, n * sizeof(uint32_t)) == 0) {
                return e;
            }
        }
    }
}

/* Append the best segmentation of word[0:n] to out. */
static int segment(const Segmenter *self, const uint32_t *word, Py_ssize_t n, Ids *out) {
    double best_stack[STACK_CHARS + 1];
    int32_t id_stack[STACK_CHARS + 1];
    Py_ssize_t start_stack[STACK_CHARS + 1];
    double *best = best_stack;
    int32_t *back_id = id_stack;
    Py_ssize_t *back_start = start_stack;
    if (n > STACK_CHARS) {
        best = PyMem_Malloc(sizeof(double) * (size_t)(n + 1));
        back_id = PyMem_Malloc(sizeof(int32_t) * (size_t)(n + 1));
        back_start = PyMem_Malloc(sizeof(Py_ssize_t) * (size_t)(n + 1));
        if (best == NULL || back_id == NULL || back_start == NULL) {
            PyMem_Free(best);
            PyMem_Free(back_id);
            PyMem_Free(back_start);
            PyErr_NoMemory();
            return -1;
        }
    }
    for (Py_ssize_t k = 0; k <= n; k++) {
        best[k] = -1e30;
        back_id[k] = -1;
        back_start[k] = 0;
    }
    best[0] = 0.0;
    for (Py_ssize_t i = 0; i < n; i++) {
        double here = best[i];
        uint64_t h = HASH_START;
        for (Py_ssize_t e = i + 1; e <= n; e++) {
            h = hash_step(h, word[e - 1]);
            const Entry *entry = find(self, h, word + i, (uint32_t)(e - i));
            if (entry == NULL) {
                break; /* no piece starts with word[i:e] */
            }
            if (entry->id != NO_PIECE) {
                double s = here + self->scores[entry->id];
                if (s > best[e]) {
                    best[e] = s;
                    back_id[e] = entry->id;
                    back_start[e] = i;
                }
            }
        }
        double s = here + self->unk_score;
        if (s > best[i + 1]) {
            best[i + 1] = s;
            back_id[i + 1] = -1;
            back_start[i + 1] = i;
        }
    }
    Py_ssize_t count = 0;
    for (Py_ssize_t i = n; i > 0; i = back_start[i]) {
        count++;
    }
    int failed = ids_reserve(out, count);
    if (!failed) {
        Py_ssize_t at = out->len + count;
        for (Py_ssize_t i = n; i > 0; i = back_start[i]) {
            out->data[--at] = back_id[i] < 0 ? self->unk : back_id[i];
        }
        out->len += count;
    }
    if (best != best_stack) {
        PyMem_Free(best);
        PyMem_Free(back_id);
        PyMem_Free(back_start);
    }
    return failed ? -1 : 0;
}

/* Append the token ids of text to out (normalised, split into metaspace-led words, each segmented). */
static int text_ids(const Segmenter *self, PyObject *text, Chars *norm, Ids *out) {
    if (!PyUnicode_Check(text)) {
        PyErr_Format(PyExc_TypeError, "text must be a str; got %.100s.", Py_TYPE(text)->tp_name);
        return -1;
    }
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    Py_ssize_t length = PyUnicode_GET_LENGTH(text);
    norm->len = 0;
    if (chars_reserve(norm, length + 1) < 0) {
        return -1;
    }
    norm->data[norm->len++] = ' '; /* the leading space: a text's own first space collapses into it */
    for (Py_ssize_t k = 0; k < length; k++) {
        uint32_t cp = PyUnicode_READ(kind, data, k);
        const uint32_t *with = &cp;
        Py_ssize_t n = 1;
        if (cp < self->norm_limit && self->norm_index[cp] != 0) {
            int32_t r = self->norm_index[cp] - 1;
            with = self->norm_out + self->norm_offsets[r];
            n = (Py_ssize_t)(self->norm_offsets[r + 1] - self->norm_offsets[r]);
        }
        if (chars_reserve(norm, n) < 0) {
            return -1;
        }
        for (Py_ssize_t j = 0; j < n; j++) {
            if (with[j] == ' ' && norm->data[norm->len - 1] == ' ') {
                continue; /* a run of spaces becomes one */
            }
            norm->data[norm->len++] = with[j];
        }
    }
    /* Each space or metaspace starts a word: the metaspace and the characters up to the next one. */
    Py_ssize_t start = 0;
    while (start < norm->len) {
        Py_ssize_t end = start + 1;
        while (end < norm->len && norm->data[end] != ' ' && norm->data[end] != META) {
            end++;
        }
        norm->data[start] = META;
        if (segment(self, norm->data + start, end - start, out) < 0) {
            return -1;
        }
        start = end;
    }
    return 0;
}

static PyObject *ids_list(const Ids *ids, Py_ssize_t from) {
    PyObject *list = PyList_New(ids->len - from);
    if (list == NULL) {
        return NULL;
    }
    for (Py_ssize_t k = from; k < ids->len; k++) {
        PyObject *item = PyLong_FromLongLong(ids->data[k]);
        if (item == NULL) {
            Py_DECREF(list);
            return NULL;
        }
        PyList_SET_ITEM(list, k - from, item);
    }
    return list;
}

static int check_ready(const Segmenter *self) {
    if (self->slots == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "Segmenter is not initialised");
        return -1;
    }
    return 0;
}

PyDoc_STRVAR(ids_doc, "ids(text, /)\n--\n\n"
                      "The content token ids of text (a str), as Tokenizer.ids gives them.");

static PyObject *Segmenter_ids(Segmenter *self, PyObject *text) {
    if (check_ready(self) < 0) {
        return NULL;
    }
    Chars norm = {0};
    Ids out = {0};
    PyObject *result = text_ids(self, text, &norm, &out) < 0 ? NULL : ids_list(&out, 0);
    PyMem_Free(norm.data);
    PyMem_Free(out.data);
    return result;
}

PyDoc_STRVAR(rows_doc,
             "rows(texts, row_of, /)\n--\n\n"
             "(flat, lengths): the table rows of every text's tokens, in order, as native int64 bytes, and each "
             "text's count of them (int64 bytes). row_of maps each token id to its table row, -1 for a token the "
             "table lacks (left out); it is an int64 buffer with one item per piece.");

static PyObject *Segmenter_rows(Segmenter *self, PyObject *const *args, Py_ssize_t nargs) {
    if (check_ready(self) < 0) {
        return NULL;
    }
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "rows takes texts and row_of.");
        return NULL;
    }
    PyObject *texts = PySequence_Fast(args[0], "texts must be a sequence of str.");
    if (texts == NULL) {
        return NULL;
    }
    Py_buffer view;
    if (PyObject_GetBuffer(args[1], &view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) {
        Py_DECREF(texts);
        return NULL;
    }
    PyObject *result = NULL;
    Chars norm = {0};
    Ids flat = {0}, lengths = {0};
    const char *format = view.format ? view.format : "B";
    if (view.itemsize != 8 || (strcmp(format, "q") != 0 && strcmp(format, "l") != 0 && strcmp(format, "=q") != 0 &&
                               strcmp(format, "<q") != 0 && strcmp(format, "@q") != 0)) {
        PyErr_Format(PyExc_TypeError, "row_of must be an int64 buffer; got format %s.", format);
        goto done;
    }
    if (view.len / 8 != self->n_pieces) {
        PyErr_Format(PyExc_ValueError, "row_of must have one item per piece (%zd); got %zd.", self->n_pieces,
                     view.len / 8);
        goto done;
    }
    const int64_t *row_of = view.buf;
    Py_ssize_t count = PySequence_Fast_GET_SIZE(texts);
    PyObject **items = PySequence_Fast_ITEMS(texts);
    if (ids_reserve(&lengths, count) < 0) {
        goto done;
    }
    for (Py_ssize_t t = 0; t < count; t++) {
        Py_ssize_t before = flat.len;
        if (text_ids(self, items[t], &norm, &flat) < 0) {
            goto done;
        }
        Py_ssize_t kept = before;
        for (Py_ssize_t k = before; k < flat.len; k++) { /* ids to rows, in place, the table's tokens only */
            int64_t row = row_of[flat.data[k]];
            if (row >= 0) {
                flat.data[kept++] = row;
            }
        }
        flat.len = kept;
        lengths.data[lengths.len++] = kept - before;
    }
    PyObject *a = PyBytes_FromStringAndSize((const char *)flat.data, flat.len * (Py_ssize_t)sizeof(int64_t));
    PyObject *b = a == NULL ? NULL
                            : PyBytes_FromStringAndSize((const char *)lengths.data,
                                                        lengths.len * (Py_ssize_t)sizeof(int64_t));
    if (a != NULL && b != NULL) {
        result = PyTuple_Pack(2, a, b);
    }
    Py_XDECREF(a);
    Py_XDECREF(b);
done:
    PyMem_Free(norm.data);
    PyMem_Free(flat.data);
    PyMem_Free(lengths.data);
    PyBuffer_Release(&view);
    Py_DECREF(texts);
    return result;
}

static void Segmenter_free_tables(Segmenter *self) {
    PyMem_Free(self->slots);
    PyMem_Free(self->entries);
    PyMem_Free(self->pool);
    PyMem_Free(self->scores);
    PyMem_Free(self->norm_index);
    PyMem_Free(self->norm_offsets);
    PyMem_Free(self->norm_out);
    self->slots = NULL;
    self->entries = NULL;
    self->pool = NULL;
    self->scores = NULL;
    self->norm_index = NULL;
    self->norm_offsets = NULL;
    self->norm_out = NULL;
}

/* Read the normalisation map (dict: int code point -> str replacement). */
static int fill_normalisation(Segmenter *self, PyObject *normalisation) {
    Py_ssize_t count = PyDict_Size(normalisation), total = 0, pos = 0;
    PyObject *key, *value;
    long limit = 0;
    while (PyDict_Next(normalisation, &pos, &key, &value)) {
        long cp = PyLong_Check(key) ? PyLong_AsLong(key) : -1;
        if (cp < 0 || cp > 0x10FFFF || !PyUnicode_Check(value)) {
            if (!PyErr_Occurred()) {
                PyErr_Format(PyExc_ValueError,
                             "normalisation must map code points (int 0..0x10FFFF) to str; got %R: %R.", key, value);
            }
            return -1;
        }
        limit = cp + 1 > limit ? cp + 1 : limit;
        total += PyUnicode_GET_LENGTH(value);
    }
    self->norm_limit = (uint32_t)limit;
    self->norm_index = PyMem_Calloc((size_t)limit + 1, sizeof(int32_t));
    self->norm_offsets = PyMem_Malloc(sizeof(uint32_t) * (size_t)(count + 1));
    self->norm_out = PyMem_Malloc(sizeof(uint32_t) * (size_t)(total + 1));
    if (self->norm_index == NULL || self->norm_offsets == NULL || self->norm_out == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    Py_ssize_t k = 0, at = 0;
    pos = 0;
    self->norm_offsets[0] = 0;
    while (PyDict_Next(normalisation, &pos, &key, &value)) {
        long cp = PyLong_AsLong(key);
        int kind = PyUnicode_KIND(value);
        const void *data = PyUnicode_DATA(value);
        for (Py_ssize_t j = 0; j < PyUnicode_GET_LENGTH(value); j++) {
            self->norm_out[at++] = PyUnicode_READ(kind, data, j);
        }
        self->norm_index[cp] = (int32_t)(k + 1);
        self->norm_offsets[++k] = (uint32_t)at;
    }
    return 0;
}

/* Double the hash table and put its entries back. */
static int grow(Segmenter *self, size_t *entries_cap) {
    size_t cap = (self->mask + 1) * 2;
    uint64_t *slots = PyMem_Calloc(cap, sizeof(uint64_t));
    Entry *entries = PyMem_Realloc(self->entries, sizeof(Entry) * cap);
    if (slots == NULL || entries == NULL) {
        PyMem_Free(slots);
        if (entries != NULL) {
            self->entries = entries;
        }
        PyErr_NoMemory();
        return -1;
    }
    self->entries = entries;
    *entries_cap = cap;
    for (size_t k = 0; k <= self->mask; k++) {
        uint64_t slot = self->slots[k];
        if (slot == 0) {
            continue;
        }
        const Entry *e = &entries[(uint32_t)slot - 1];
        uint64_t h = HASH_START;
        for (uint32_t j = 0; j < e->len; j++) {
            h = hash_step(h, self->pool[e->offset + j]);
        }
        size_t at = (size_t)hash_mix(h) & (cap - 1);
        while (slots[at] != 0) {
            at = (at + 1) & (cap - 1);
        }
        slots[at] = slot;
    }
    PyMem_Free(self->slots);
    self->slots = slots;
    self->mask = cap - 1;
    return 0;
}

/* Put every piece but the unknown one and every prefix of it in the hash table (a later duplicate piece wins, as
 * in the Python code's dict). The table grows to stay at most three quarters full. */
static int fill_pieces(Segmenter *self, PyObject *pieces) {
    Py_ssize_t count = PyList_GET_SIZE(pieces), total = 0;
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *piece = PyList_GET_ITEM(pieces, i);
        if (!PyUnicode_Check(piece)) {
            PyErr_Format(PyExc_TypeError, "pieces must hold str; got %R.", piece);
            return -1;
        }
        total += PyUnicode_GET_LENGTH(piece);
    }
    if (total >= (Py_ssize_t)(UINT32_MAX / 4)) {
        PyErr_SetString(PyExc_ValueError, "the pieces are too long.");
        return -1;
    }
    size_t cap = 1024, entries_cap = cap;
    self->slots = PyMem_Calloc(cap, sizeof(uint64_t));
    self->entries = PyMem_Malloc(sizeof(Entry) * entries_cap);
    self->pool = PyMem_Malloc(sizeof(uint32_t) * (size_t)(total + 1));
    if (self->slots == NULL || self->entries == NULL || self->pool == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    self->mask = cap - 1;
    uint32_t used = 0, at = 0;
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *piece = PyList_GET_ITEM(pieces, i);
        Py_ssize_t n = PyUnicode_GET_LENGTH(piece);
        if (i == self->unk || n == 0) {
            continue;
        }
        int kind = PyUnicode_KIND(piece);
        const void *data = PyUnicode_DATA(piece);
        uint32_t *s = self->pool + at;
        for (Py_ssize_t j = 0; j < n; j++) {
            s[j] = PyUnicode_READ(kind, data, j);
        }
        uint64_t h = HASH_START;
        for (Py_ssize_t len = 1; len <= n; len++) {
            h = hash_step(h, s[len - 1]);
            if ((size_t)(used + 1) * 4 > (self->mask + 1) * 3 && grow(self, &entries_cap) < 0) {
                return -1;
            }
            uint64_t m = hash_mix(h), tag = m >> 32;
            size_t slot_at = (size_t)m & self->mask;
            Entry *found = NULL;
            for (;; slot_at = (slot_at + 1) & self->mask) {
                uint64_t slot = self->slots[slot_at];
                if (slot == 0) {
                    break;
                }
                Entry *e = &self->entries[(uint32_t)slot - 1];
                if (slot >> 32 == tag && e->len == (uint32_t)len &&
                    memcmp(self->pool + e->offset, s, (size_t)len * sizeof(uint32_t)) == 0) {
                    found = e;
                    break;
                }
            }
            if (found == NULL) {
                found = &self->entries[used];
                found->offset = at;
                found->len = (uint32_t)len;
                found->id = NO_PIECE;
                self->slots[slot_at] = tag << 32 | (uint64_t)(used + 1);
                used++;
            }
            if (len == n) {
                found->id = (int32_t)i;
            }
        }
        at += (uint32_t)n;
    }
    return 0;
}

static int Segmenter_init(Segmenter *self, PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"pieces", "scores", "unk", "unk_score", "normalisation", NULL};
    PyObject *pieces = NULL, *scores = NULL, *normalisation = NULL;
    int unk = 0;
    double unk_score = 0.0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!O!idO!:Segmenter", kwlist, &PyList_Type, &pieces,
                                     &PyList_Type, &scores, &unk, &unk_score, &PyDict_Type, &normalisation)) {
        return -1;
    }
    if (self->slots != NULL) {
        PyErr_SetString(PyExc_RuntimeError, "Segmenter is already initialised");
        return -1;
    }
    Py_ssize_t n = PyList_GET_SIZE(pieces);
    if (PyList_GET_SIZE(scores) != n || n >= INT32_MAX) {
        PyErr_Format(PyExc_ValueError, "pieces and scores must have the same length; got %zd and %zd.", n,
                     PyList_GET_SIZE(scores));
        return -1;
    }
    if (unk < 0 || unk >= n) {
        PyErr_Format(PyExc_ValueError, "unk must be the id of a piece; got %d.", unk);
        return -1;
    }
    self->n_pieces = n;
    self->unk = unk;
    self->unk_score = unk_score;
    self->scores = PyMem_Malloc(sizeof(double) * (size_t)(n + 1));
    if (self->scores == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        self->scores[i] = PyFloat_AsDouble(PyList_GET_ITEM(scores, i));
        if (self->scores[i] == -1.0 && PyErr_Occurred()) {
            Segmenter_free_tables(self);
            return -1;
        }
    }
    if (fill_normalisation(self, normalisation) < 0 || fill_pieces(self, pieces) < 0) {
        Segmenter_free_tables(self);
        return -1;
    }
    return 0;
}

static void Segmenter_dealloc(Segmenter *self) {
    Segmenter_free_tables(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyMethodDef Segmenter_methods[] = {
    {"ids", (PyCFunction)Segmenter_ids, METH_O, ids_doc},
    {"rows", (PyCFunction)(void (*)(void))Segmenter_rows, METH_FASTCALL, rows_doc},
    {NULL, NULL, 0, NULL},
};

PyDoc_STRVAR(Segmenter_doc, "Segmenter(*, pieces, scores, unk, unk_score, normalisation)\n--\n\n"
                            "e5's SentencePiece-unigram tokenizer with its vocabulary and normalisation map.");

static PyTypeObject SegmenterType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "scoring.text._e5_lite_core.Segmenter",
    .tp_basicsize = sizeof(Segmenter),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = Segmenter_doc,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Segmenter_init,
    .tp_dealloc = (destructor)Segmenter_dealloc,
    .tp_methods = Segmenter_methods,
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    .m_name = "scoring.text._e5_lite_core",
    .m_doc = "e5-lite's compiled core (e5's SentencePiece-unigram tokenizer): see scoring/text/e5_lite.py.",
    .m_size = -1,
};

PyMODINIT_FUNC PyInit__e5_lite_core(void) {
    if (PyType_Ready(&SegmenterType) < 0) {
        return NULL;
    }
    PyObject *m = PyModule_Create(&module_def);
    if (m == NULL) {
        return NULL;
    }
    Py_INCREF(&SegmenterType);
    if (PyModule_AddObject(m, "Segmenter", (PyObject *)&SegmenterType) < 0) {
        Py_DECREF(&SegmenterType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
