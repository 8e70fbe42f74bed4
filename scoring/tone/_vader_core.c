/* The compiled core of the VADER engine: ``scoring.tone.lexicons._vader_polarity`` on ASCII text, in C.
 *
 * A C twin of the Python port of vaderSentiment 3.3.2's scoring (scoring/tone/lexicons.py: _vader_valences,
 * _valence, _negation_check, _special_idioms_check, _scalar_inc_dec, _but_check, _vader_polarity), doing the
 * same float operations in the same order, so the compound is the same to the last bit (built with
 * -ffp-contract=off: no fused multiply-add). The rules are vaderSentiment's (MIT License, Copyright (c) 2016
 * C.J. Hutto); its lexicon, booster words, special cases, negations and constants are passed in from Python
 * when a Scorer is made (never copied here). Property tests compare this core with the Python port and with
 * vaderSentiment's polarity_scores. Non-ASCII text (emoji) stays on the Python path.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <string.h>

/* ---- a read-only hash table of byte strings -> (double, is it a Python int) ---- */

typedef struct {
    const char *key;
    Py_ssize_t len;
    double value;
    int is_int;
} Entry;

typedef struct {
    uint64_t *slots;      /* open addressing: (hash >> 32) << 32 | (entry index + 1); 0 is an empty slot */
    Entry *entries;
    size_t mask;
    char *keys;           /* every key's bytes */
    Py_ssize_t max_len;   /* longest key */
} Table;

static inline uint64_t
hash_bytes(const char *s, Py_ssize_t n)
{
    uint64_t h = 1469598103934665603ULL; /* FNV-1a */
    for (Py_ssize_t i = 0; i < n; i++) {
        h ^= (unsigned char)s[i];
        h *= 1099511628211ULL;
    }
    return h;
}

static const Entry *
table_get(const Table *t, const char *s, Py_ssize_t n)
{
    if (n > t->max_len) {
        return NULL;
    }
    uint64_t h = hash_bytes(s, n), tag = h >> 32;
    for (size_t i = (size_t)h & t->mask;; i = (i + 1) & t->mask) {
        uint64_t slot = t->slots[i];
        if (slot == 0) {
            return NULL;
        }
        if (slot >> 32 == tag) {
            const Entry *e = &t->entries[(uint32_t)slot - 1];
            if (e->len == n && memcmp(e->key, s, (size_t)n) == 0) {
                return e;
            }
        }
    }
}

static void
table_free(Table *t)
{
    PyMem_Free(t->slots);
    PyMem_Free(t->entries);
    PyMem_Free(t->keys);
    t->slots = NULL;
    t->entries = NULL;
    t->keys = NULL;
}

/* Fill ``t`` from ``keys`` (an iterable of str) and, when ``mapping`` is not NULL, mapping[key] (int or float).
 * Keys that are not ASCII are left out: an ASCII word can never equal them. */
static int
table_fill(Table *t, const char *field, PyObject *keys_iterable, PyObject *mapping)
{
    PyObject *keys = PySequence_List(keys_iterable);
    if (keys == NULL) {
        return -1;
    }
    Py_ssize_t count = PyList_GET_SIZE(keys), total = 0;
    for (Py_ssize_t k = 0; k < count; k++) {
        PyObject *key = PyList_GET_ITEM(keys, k);
        if (!PyUnicode_Check(key)) {
            PyErr_Format(PyExc_TypeError, "%s must hold str keys; got %R.", field, key);
            goto error;
        }
        total += PyUnicode_GET_LENGTH(key);
    }
    size_t cap = 8;
    while (cap < (size_t)count * 2 + 1) {
        cap <<= 1;
    }
    t->slots = PyMem_Calloc(cap, sizeof(uint64_t));
    t->entries = PyMem_Malloc(sizeof(Entry) * ((size_t)count + 1));
    t->keys = PyMem_Malloc((size_t)total + 1);
    if (t->slots == NULL || t->entries == NULL || t->keys == NULL) {
        PyErr_NoMemory();
        goto error;
    }
    t->mask = cap - 1;
    t->max_len = 0;
    char *at = t->keys;
    uint32_t used = 0;
    for (Py_ssize_t k = 0; k < count; k++) {
        PyObject *key = PyList_GET_ITEM(keys, k);
        double value = 0.0;
        int is_int = 0;
        if (mapping != NULL) {
            PyObject *v = PyObject_GetItem(mapping, key);
            if (v == NULL) {
                goto error;
            }
            if (!PyFloat_Check(v) && !PyLong_Check(v)) {
                PyErr_Format(PyExc_TypeError, "%s[%R] must be an int or a float; got %R.", field, key, v);
                Py_DECREF(v);
                goto error;
            }
            is_int = PyLong_Check(v);
            value = PyFloat_AsDouble(v);
            Py_DECREF(v);
            if (value == -1.0 && PyErr_Occurred()) {
                goto error;
            }
        }
        if (!PyUnicode_IS_ASCII(key)) {
            continue;
        }
        Py_ssize_t n;
        const char *s = PyUnicode_AsUTF8AndSize(key, &n);
        if (s == NULL) {
            goto error;
        }
        if (table_get(t, s, n) != NULL) {
            continue; /* a dict's keys are distinct; an iterable of words may repeat one */
        }
        uint64_t h = hash_bytes(s, n);
        size_t i = (size_t)h & t->mask;
        while (t->slots[i] != 0) {
            i = (i + 1) & t->mask;
        }
        memcpy(at, s, (size_t)n);
        t->entries[used] = (Entry){at, n, value, is_int};
        t->slots[i] = (h >> 32) << 32 | (uint64_t)(used + 1);
        used++;
        at += n;
        if (n > t->max_len) {
            t->max_len = n;
        }
    }
    Py_DECREF(keys);
    return 0;
error:
    Py_DECREF(keys);
    table_free(t);
    return -1;
}

/* ---- the Scorer type ---- */

typedef struct {
    PyObject_HEAD
    Table lexicon, boosters, special, negate, idiom_first_words;
    double n_scalar, c_incr;
    int builtin_sum; /* sum() through the builtin (Python 3.12 on: compensated), else added in order here */
    unsigned char punctuation[256];
} Scorer;

typedef struct {
    const char *s; /* the word as written (punctuation stripped or not) */
    const char *low; /* the same bytes lower-cased */
    Py_ssize_t len;
    const Entry *lex; /* its lexicon entry, or NULL */
    int upper; /* str.isupper() */
} Word;

/* Python's str.isspace() on an ASCII character: what str.split() and str.strip() split on. */
static inline int
is_space(unsigned char c)
{
    return c == ' ' || (c >= '\t' && c <= '\r') || (c >= 0x1c && c <= 0x1f);
}

static inline int
eq(const Word *w, const char *lit)
{
    size_t n = strlen(lit);
    return (size_t)w->len == n && memcmp(w->low, lit, n) == 0;
}

static int
negated(const Scorer *self, const Word *w)
{
    if (table_get(&self->negate, w->low, w->len) != NULL) {
        return 1;
    }
    for (Py_ssize_t k = 0; k + 2 < w->len; k++) {
        if (w->low[k] == 'n' && w->low[k + 1] == '\'' && w->low[k + 2] == 't') {
            return 1;
        }
    }
    return 0;
}

/* The entry of the words ws[0..count) joined by single spaces, or NULL. */
static const Entry *
joined(const Table *t, const Word *const *ws, int count)
{
    char buf[256];
    Py_ssize_t n = count - 1;
    for (int k = 0; k < count; k++) {
        n += ws[k]->len;
    }
    if (n > t->max_len || n > (Py_ssize_t)sizeof(buf)) {
        return NULL;
    }
    char *at = buf;
    for (int k = 0; k < count; k++) {
        if (k) {
            *at++ = ' ';
        }
        memcpy(at, ws[k]->low, (size_t)ws[k]->len);
        at += ws[k]->len;
    }
    return table_get(t, buf, n);
}

/* A valence and whether Python holds it as an int (a special case's value, e.g. "the shit": 3). */
typedef struct {
    double v;
    int is_int;
} Val;

static double
negation_check(const Scorer *self, double valence, const Word *w, int start_i, Py_ssize_t i)
{
    const Word *w1 = &w[i - 1];
    if (start_i == 0) {
        return negated(self, w1) ? valence * self->n_scalar : valence;
    }
    const Word *w2 = &w[i - 2];
    if (start_i == 1) {
        if (eq(w2, "never") && (eq(w1, "so") || eq(w1, "this"))) {
            return valence * 1.25;
        }
        if (eq(w2, "without") && eq(w1, "doubt")) {
            return valence;
        }
        return negated(self, w2) ? valence * self->n_scalar : valence;
    }
    const Word *w3 = &w[i - 3];
    if ((eq(w3, "never") && (eq(w2, "so") || eq(w2, "this"))) || eq(w1, "so") || eq(w1, "this")) {
        return valence * 1.25;
    }
    if (eq(w3, "without") && (eq(w2, "doubt") || eq(w1, "doubt"))) {
        return valence;
    }
    return negated(self, w3) ? valence * self->n_scalar : valence;
}

static Val
special_idioms_check(const Scorer *self, Val valence, const Word *w, Py_ssize_t n, Py_ssize_t i)
{
    const Word *w3 = &w[i - 3], *w2 = &w[i - 2], *w1 = &w[i - 1], *w0 = &w[i];
    const Table *first = &self->idiom_first_words;
    if (!table_get(first, w3->low, w3->len) && !table_get(first, w2->low, w2->len) &&
        !table_get(first, w1->low, w1->len) && !table_get(first, w0->low, w0->len)) {
        return valence; /* no multi-word key starts with any of them */
    }
    const Word *onezero[] = {w1, w0}, *twoonezero[] = {w2, w1, w0}, *twoone[] = {w2, w1};
    const Word *threetwoone[] = {w3, w2, w1}, *threetwo[] = {w3, w2};
    const Word *const *seqs[] = {onezero, twoonezero, twoone, threetwoone, threetwo};
    const int sizes[] = {2, 3, 2, 3, 2};
    const Entry *e;
    for (int k = 0; k < 5; k++) {
        if ((e = joined(&self->special, seqs[k], sizes[k])) != NULL) {
            valence = (Val){e->value, e->is_int};
            break;
        }
    }
    if (n - 1 > i) {
        const Word *zeroone[] = {w0, &w[i + 1]};
        if ((e = joined(&self->special, zeroone, 2)) != NULL) {
            valence = (Val){e->value, e->is_int};
        }
    }
    if (n - 1 > i + 1) {
        const Word *zeroonetwo[] = {w0, &w[i + 1], &w[i + 2]};
        if ((e = joined(&self->special, zeroonetwo, 3)) != NULL) {
            valence = (Val){e->value, e->is_int};
        }
    }
    const Word *const *ngrams[] = {threetwoone, threetwo, twoone};
    const int ngram_sizes[] = {3, 2, 2};
    for (int k = 0; k < 3; k++) {
        if ((e = joined(&self->boosters, ngrams[k], ngram_sizes[k])) != NULL) {
            valence = (Val){valence.v + e->value, 0};
        }
    }
    return valence;
}

static double
scalar_inc_dec(const Scorer *self, const Word *word, double valence, int cap_diff)
{
    double scalar = 0.0;
    const Entry *e = table_get(&self->boosters, word->low, word->len);
    if (e != NULL) {
        scalar = e->value;
        if (valence < 0) {
            scalar *= -1.0;
        }
        if (word->upper && cap_diff) {
            scalar = valence > 0 ? scalar + self->c_incr : scalar - self->c_incr;
        }
    }
    return scalar;
}

/* ``_valence``: sentiment_valence of the lexicon word at i, with its _least_check. */
static Val
valence_of(const Scorer *self, const Word *w, Py_ssize_t n, Py_ssize_t i, int cap_diff)
{
    const Word *item = &w[i];
    Val valence = {item->lex->value, item->lex->is_int};
    if (eq(item, "no") && i != n - 1 && w[i + 1].lex != NULL) {
        valence = (Val){0.0, 0};
    }
    int no_before = (i > 0 && eq(&w[i - 1], "no")) || (i > 1 && eq(&w[i - 2], "no"));
    if (no_before || (i > 2 && eq(&w[i - 3], "no") && (eq(&w[i - 1], "or") || eq(&w[i - 1], "nor")))) {
        valence = (Val){item->lex->value * self->n_scalar, 0};
    }
    if (item->upper && cap_diff) {
        valence = (Val){valence.v > 0 ? valence.v + self->c_incr : valence.v - self->c_incr, 0};
    }
    for (int start_i = 0; start_i < 3; start_i++) {
        Py_ssize_t j = i - start_i - 1;
        if (j >= 0 && w[j].lex == NULL) {
            double s = scalar_inc_dec(self, &w[j], valence.v, cap_diff);
            if (start_i == 1 && s != 0) {
                s = s * 0.95;
            }
            if (start_i == 2 && s != 0) {
                s = s * 0.9;
            }
            valence = (Val){valence.v + s, 0};
            valence.v = negation_check(self, valence.v, w, start_i, i);
            if (start_i == 2) {
                valence = special_idioms_check(self, valence, w, n, i);
            }
        }
    }
    if (i > 1 && w[i - 1].lex == NULL && eq(&w[i - 1], "least")) {
        if (!eq(&w[i - 2], "at") && !eq(&w[i - 2], "very")) {
            valence = (Val){valence.v * self->n_scalar, 0};
        }
    }
    else if (i > 0 && w[i - 1].lex == NULL && eq(&w[i - 1], "least")) {
        valence = (Val){valence.v * self->n_scalar, 0};
    }
    return valence;
}

/* The words of ASCII ``text`` (SentiText.words_and_emoticons), lower-cased copies in ``low``. */
static Py_ssize_t
split_words(const Scorer *self, const char *text, Py_ssize_t len, char *low, Word *words)
{
    Py_ssize_t n = 0;
    for (Py_ssize_t k = 0; k < len; k++) {
        unsigned char c = (unsigned char)text[k];
        low[k] = (char)(c >= 'A' && c <= 'Z' ? c + 32 : c);
    }
    Py_ssize_t k = 0;
    while (k < len) {
        while (k < len && is_space((unsigned char)text[k])) {
            k++;
        }
        if (k == len) {
            break;
        }
        Py_ssize_t start = k;
        while (k < len && !is_space((unsigned char)text[k])) {
            k++;
        }
        Py_ssize_t a = start, b = k; /* strip punctuation unless that leaves 2 characters or fewer */
        while (a < b && self->punctuation[(unsigned char)text[a]]) {
            a++;
        }
        while (b > a && self->punctuation[(unsigned char)text[b - 1]]) {
            b--;
        }
        if (b - a <= 2) {
            a = start;
            b = k;
        }
        int has_upper = 0, has_lower = 0;
        for (Py_ssize_t m = a; m < b; m++) {
            unsigned char c = (unsigned char)text[m];
            has_upper |= c >= 'A' && c <= 'Z';
            has_lower |= c >= 'a' && c <= 'z';
        }
        Word *w = &words[n++];
        w->s = text + a;
        w->low = low + a;
        w->len = b - a;
        w->upper = has_upper && !has_lower;
        w->lex = table_get(&self->lexicon, w->low, w->len);
    }
    return n;
}

/* ---- the "but" rule ---- */

/* Positions holding one value: a min-heap, whose entries go stale when their position is rescaled. */
typedef struct {
    uint64_t key; /* the value's bits (a non-zero double); 0: an empty slot */
    Py_ssize_t *heap;
    Py_ssize_t size, cap;
} Positions;

static Positions *
positions_of(Positions *slots, size_t mask, double v)
{
    uint64_t key;
    memcpy(&key, &v, sizeof key);
    uint64_t h = key * 0x9E3779B97F4A7C15ULL;
    for (size_t i = (size_t)(h >> 20) & mask;; i = (i + 1) & mask) {
        if (slots[i].key == key || slots[i].key == 0) {
            slots[i].key = key;
            return &slots[i];
        }
    }
}

static int
heap_push(Positions *p, Py_ssize_t pos)
{
    if (p->size == p->cap) {
        Py_ssize_t cap = p->cap ? p->cap * 2 : 4;
        Py_ssize_t *heap = PyMem_Realloc(p->heap, sizeof(Py_ssize_t) * (size_t)cap);
        if (heap == NULL) {
            return -1;
        }
        p->heap = heap;
        p->cap = cap;
    }
    Py_ssize_t i = p->size++;
    while (i > 0 && p->heap[(i - 1) / 2] > pos) {
        p->heap[i] = p->heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    p->heap[i] = pos;
    return 0;
}

static void
heap_pop(Positions *p)
{
    Py_ssize_t last = p->heap[--p->size], i = 0;
    for (;;) {
        Py_ssize_t c = 2 * i + 1;
        if (c >= p->size) {
            break;
        }
        if (c + 1 < p->size && p->heap[c + 1] < p->heap[c]) {
            c++;
        }
        if (p->heap[c] >= last) {
            break;
        }
        p->heap[i] = p->heap[c];
        i = c;
    }
    if (p->size) {
        p->heap[i] = last;
    }
}

/* vaderSentiment's _but_check on the valences ``sent`` (n words, the m non-zero ones at ``nz``, the first "but"
 * at ``but``): it walks the valences and, for the value v at position k, rescales the first position holding a
 * value equal to v (list.index): by 0.5 before the "but", by 1.5 after it, not at all on it. Position k is never
 * rescaled before step k, so v is its value then. A zero stays a zero and a non-zero value stays non-zero, so
 * the two kinds of steps touch apart positions: for v == 0 the first position is the first zero of all; for
 * v != 0, as in the Python port's _but_check, each value keeps a min-heap of the earlier positions that held it
 * (stale entries are dropped when seen): O(m log m), where list.index is O(m^2). Returns -1 on no memory. */
static int
but_check(Val *sent, Py_ssize_t n, const Py_ssize_t *nz, Py_ssize_t m, Py_ssize_t but)
{
    Py_ssize_t first_zero = -1;
    for (Py_ssize_t k = 0; k < n; k++) {
        double v = sent[k].v; /* unchanged so far: only first_zero is rescaled, from its own step on */
        if (v != 0) {
            continue;
        }
        if (first_zero < 0) {
            first_zero = k;
        }
        if (first_zero < but) {
            sent[first_zero] = (Val){v * 0.5, 0};
        }
        else if (first_zero > but) {
            sent[first_zero] = (Val){v * 1.5, 0};
        }
    }
    if (m == 0) {
        return 0;
    }
    size_t cap = 8;
    while (cap < (size_t)m * 4) { /* at most 2m values: a load of one half at most */
        cap <<= 1;
    }
    Positions *slots = PyMem_Calloc(cap, sizeof(Positions));
    if (slots == NULL) {
        return -1;
    }
    int status = 0;
    for (Py_ssize_t q = 0; q < m && status == 0; q++) {
        Py_ssize_t k = nz[q];
        double value = sent[k].v;
        Positions *held = positions_of(slots, cap - 1, value);
        while (held->size && sent[held->heap[0]].v != value) {
            heap_pop(held); /* stale: that position was rescaled since */
        }
        Py_ssize_t first = held->size ? held->heap[0] : k;
        double new = sent[first].v;
        if (first != but) { /* on the "but" itself the value is left as it is (an int stays an int) */
            new = value * (first < but ? 0.5 : 1.5);
            sent[first] = (Val){new, 0};
        }
        if (first == k) {
            status = heap_push(positions_of(slots, cap - 1, new), k);
        }
        else {
            if (new != value) { /* the earlier position now holds another value */
                status = heap_push(positions_of(slots, cap - 1, new), first);
            }
            if (status == 0) {
                status = heap_push(positions_of(slots, cap - 1, value), k); /* position k keeps its value */
            }
        }
    }
    for (size_t i = 0; i < cap; i++) {
        PyMem_Free(slots[i].heap);
    }
    PyMem_Free(slots);
    return status;
}

/* The valences of the words of ``text`` after the "but" rule, in ``*out`` (to be freed), and the positions of
 * the non-zero ones in ``*nonzero`` (``*n_nonzero`` of them). Returns the number of words, or -1 with
 * MemoryError. */
static Py_ssize_t
valences(const Scorer *self, const char *text, Py_ssize_t len, Val **out, Py_ssize_t **nonzero,
         Py_ssize_t *n_nonzero)
{
    char *low = PyMem_Malloc((size_t)len + 1);
    Word *w = PyMem_Malloc(sizeof(Word) * ((size_t)len / 2 + 1));
    Val *sent = NULL;
    Py_ssize_t *nz = NULL;
    if (low == NULL || w == NULL) {
        goto nomem;
    }
    Py_ssize_t n = split_words(self, text, len, low, w);
    sent = PyMem_Calloc((size_t)n + 1, sizeof(Val)); /* 0.0: a word outside the lexicon (Python's int 0) */
    nz = PyMem_Malloc(sizeof(Py_ssize_t) * ((size_t)n + 1));
    if (sent == NULL || nz == NULL) {
        goto nomem;
    }
    Py_ssize_t n_upper = 0, n_lex = 0, but = -1;
    for (Py_ssize_t i = 0; i < n; i++) {
        n_upper += w[i].upper;
        n_lex += w[i].lex != NULL;
        if (but < 0 && eq(&w[i], "but")) {
            but = i;
        }
    }
    Py_ssize_t m = 0;
    if (n_lex) {
        for (Py_ssize_t i = 0; i < n; i++) {
            sent[i] = (Val){0.0, 1};
        }
        int cap_diff = 0 < n - n_upper && n - n_upper < n; /* allcap_differential */
        for (Py_ssize_t i = 0; i < n; i++) {
            if (w[i].lex == NULL || table_get(&self->boosters, w[i].low, w[i].len) != NULL ||
                (eq(&w[i], "kind") && i < n - 1 && eq(&w[i + 1], "of"))) {
                continue;
            }
            sent[i] = valence_of(self, w, n, i, cap_diff);
            if (sent[i].v != 0) {
                nz[m++] = i;
            }
        }
    }
    if (but >= 0 && n_lex && but_check(sent, n, nz, m, but) < 0) { /* as the Python port: a lexicon word */
        goto nomem;
    }
    PyMem_Free(low);
    PyMem_Free(w);
    *out = sent;
    *nonzero = nz;
    *n_nonzero = m;
    return n;
nomem:
    PyMem_Free(low);
    PyMem_Free(w);
    PyMem_Free(sent);
    PyMem_Free(nz);
    PyErr_NoMemory();
    return -1;
}

/* Python's round(x, 4) on a float: the correctly rounded 4-digit decimal, read back as the nearest double.
 * Fast path: y = x * 10000 is within 2^-23 of the exact product when |y| < 2^30, so when y is more than 1e-6
 * away from a tie (a half-integer) the exact product rounds to the same integer n as y, and n / 10000.0 (one
 * correctly rounded division of exact numbers) is the double nearest to the decimal n * 10^-4, as Python reads
 * it back; nearbyint keeps the sign of a zero as Python's round does. Near a tie: Python's own conversions. */
static int
round4(double x, double *out)
{
    double y = x * 10000.0;
    if (fabs(y) < 1e9) {
        double n = nearbyint(y);
        if (fabs(fabs(y - n) - 0.5) > 1e-6) {
            *out = n / 10000.0;
            return 0;
        }
    }
    char *s = PyOS_double_to_string(x, 'f', 4, 0, NULL);
    if (s == NULL) {
        return -1;
    }
    *out = PyOS_string_to_double(s, NULL, NULL);
    PyMem_Free(s);
    return *out == -1.0 && PyErr_Occurred() ? -1 : 0;
}

static const char *
ascii_text(PyObject *text, Py_ssize_t *len)
{
    if (!PyUnicode_Check(text)) {
        PyErr_Format(PyExc_TypeError, "text must be a str; got %.100s.", Py_TYPE(text)->tp_name);
        return NULL;
    }
    if (!PyUnicode_IS_ASCII(text)) {
        PyErr_SetString(PyExc_ValueError, "text must be ASCII (the Python path scores the rest); got non-ASCII.");
        return NULL;
    }
    return PyUnicode_AsUTF8AndSize(text, len);
}

/* sum(sentiments) as the running interpreter computes it. Zeros are left out: adding a zero changes neither
 * the running sum (never -0.0: it starts at +0.0) nor, from 3.12 on, its compensation. */
static int
python_sum(int builtin_sum, const Val *sent, const Py_ssize_t *nz, Py_ssize_t m, double *out)
{
    if (!builtin_sum) {
        /* Up to 3.11 sum() adds the floats in order (ints converted; ours are small, so exact). */
        double s = 0.0;
        for (Py_ssize_t q = 0; q < m; q++) {
            s += sent[nz[q]].v;
        }
        *out = s;
        return 0;
    }
    /* From 3.12 on sum() compensates the rounding of floats (Neumaier) and adds ints apart: call the builtin
     * itself on the values as Python holds them (ints where Python has ints). */
    PyObject *list = PyList_New(m);
    if (list == NULL) {
        return -1;
    }
    for (Py_ssize_t q = 0; q < m; q++) {
        const Val *v = &sent[nz[q]];
        PyObject *item = v->is_int ? PyLong_FromDouble(v->v) : PyFloat_FromDouble(v->v);
        if (item == NULL) {
            Py_DECREF(list);
            return -1;
        }
        PyList_SET_ITEM(list, q, item);
    }
    PyObject *builtins = PyEval_GetBuiltins(); /* borrowed */
    PyObject *sum = builtins ? PyDict_GetItemString(builtins, "sum") : NULL;
    if (sum == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "builtins.sum not found");
        Py_DECREF(list);
        return -1;
    }
    PyObject *total = PyObject_CallOneArg(sum, list);
    Py_DECREF(list);
    if (total == NULL) {
        return -1;
    }
    *out = PyFloat_AsDouble(total);
    Py_DECREF(total);
    return *out == -1.0 && PyErr_Occurred() ? -1 : 0;
}

PyDoc_STRVAR(polarity_doc,
"polarity($self, text, /)\n--\n\n"
"Return vaderSentiment's compound for ASCII ``text``, as ``_vader_polarity`` does.");

static PyObject *
Scorer_polarity(Scorer *self, PyObject *text)
{
    Py_ssize_t len;
    const char *s = ascii_text(text, &len);
    if (s == NULL) {
        return NULL;
    }
    Val *sent;
    Py_ssize_t *nz, m;
    if (valences(self, s, len, &sent, &nz, &m) < 0) {
        return NULL;
    }
    double sum_s;
    int failed = m ? python_sum(self->builtin_sum, sent, nz, m, &sum_s) : (sum_s = 0.0, 0);
    PyMem_Free(sent);
    PyMem_Free(nz);
    if (failed) {
        return NULL;
    }
    if (m == 0) {
        return PyFloat_FromDouble(0.0); /* no valence: a zero sum, whose compound is 0.0 */
    }
    Py_ssize_t ep_count = 0, qm_count = 0;
    for (Py_ssize_t k = 0; k < len; k++) {
        ep_count += s[k] == '!';
        qm_count += s[k] == '?';
    }
    double ep_amplifier = (double)(ep_count > 4 ? 4 : ep_count) * 0.292;
    double qm_amplifier = qm_count <= 1 ? 0.0 : qm_count <= 3 ? (double)qm_count * 0.18 : 0.96;
    double punct_emph_amplifier = ep_amplifier + qm_amplifier;
    if (sum_s > 0) {
        sum_s += punct_emph_amplifier;
    }
    else if (sum_s < 0) {
        sum_s -= punct_emph_amplifier;
    }
    double norm = sum_s / sqrt((sum_s * sum_s) + 15.0); /* normalize(sum_s), alpha 15 */
    if (norm < -1.0) {
        norm = -1.0;
    }
    else if (norm > 1.0) {
        norm = 1.0;
    }
    double rounded;
    if (round4(norm, &rounded) < 0) {
        return NULL;
    }
    return PyFloat_FromDouble(rounded);
}

PyDoc_STRVAR(valences_doc,
"valences($self, text, /)\n--\n\n"
"Return the valence of each word of ASCII ``text`` after the \"but\" rule, as ``_vader_valences`` does.");

static PyObject *
Scorer_valences(Scorer *self, PyObject *text)
{
    Py_ssize_t len;
    const char *s = ascii_text(text, &len);
    if (s == NULL) {
        return NULL;
    }
    Val *sent;
    Py_ssize_t *nz, m;
    Py_ssize_t n = valences(self, s, len, &sent, &nz, &m);
    if (n < 0) {
        return NULL;
    }
    PyObject *list = PyList_New(n);
    for (Py_ssize_t i = 0; list != NULL && i < n; i++) {
        PyObject *item = PyFloat_FromDouble(sent[i].v);
        if (item == NULL) {
            Py_CLEAR(list);
            break;
        }
        PyList_SET_ITEM(list, i, item);
    }
    PyMem_Free(sent);
    PyMem_Free(nz);
    return list;
}

static int
Scorer_init(Scorer *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"lexicon", "boosters", "special_cases", "negate", "punctuation", "n_scalar",
                             "c_incr", "builtin_sum", NULL};
    PyObject *lexicon = NULL, *boosters = NULL, *special = NULL, *negate = NULL, *punctuation = NULL;
    PyObject *n_scalar_obj = NULL, *c_incr_obj = NULL;
    int builtin_sum = PY_VERSION_HEX >= 0x030C0000;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|$O!O!O!OUOOp:Scorer", kwlist, &PyDict_Type, &lexicon,
                                     &PyDict_Type, &boosters, &PyDict_Type, &special, &negate, &punctuation,
                                     &n_scalar_obj, &c_incr_obj, &builtin_sum)) {
        return -1;
    }
    PyObject *required[] = {lexicon, boosters, special, negate, punctuation, n_scalar_obj, c_incr_obj};
    for (int k = 0; k < 7; k++) {
        if (required[k] == NULL) {
            PyErr_Format(PyExc_TypeError, "Scorer() missing the keyword argument %s", kwlist[k]);
            return -1;
        }
    }
    double n_scalar = PyFloat_AsDouble(n_scalar_obj), c_incr = PyFloat_AsDouble(c_incr_obj);
    if (PyErr_Occurred()) {
        return -1;
    }
    self->builtin_sum = builtin_sum;
    if (self->lexicon.slots != NULL) {
        PyErr_SetString(PyExc_RuntimeError, "Scorer is already initialised");
        return -1;
    }
    if (!PyUnicode_IS_ASCII(punctuation)) {
        PyErr_SetString(PyExc_ValueError, "punctuation must be ASCII.");
        return -1;
    }
    Py_ssize_t np;
    const char *p = PyUnicode_AsUTF8AndSize(punctuation, &np);
    if (p == NULL) {
        return -1;
    }
    memset(self->punctuation, 0, sizeof(self->punctuation));
    for (Py_ssize_t k = 0; k < np; k++) {
        self->punctuation[(unsigned char)p[k]] = 1;
    }
    self->n_scalar = n_scalar;
    self->c_incr = c_incr;
    /* The first words of the multi-word special cases and booster keys (_IDIOM_FIRST_WORDS). */
    PyObject *firsts = PySet_New(NULL);
    if (firsts == NULL) {
        return -1;
    }
    PyObject *both[] = {special, boosters};
    for (int d = 0; d < 2; d++) {
        PyObject *key;
        Py_ssize_t pos = 0;
        while (PyDict_Next(both[d], &pos, &key, NULL)) {
            if (!PyUnicode_Check(key)) {
                continue; /* table_fill reports it */
            }
            Py_ssize_t space = PyUnicode_FindChar(key, ' ', 0, PyUnicode_GET_LENGTH(key), 1);
            if (space == -2) {
                Py_DECREF(firsts);
                return -1;
            }
            if (space >= 0) {
                PyObject *word = PyUnicode_Substring(key, 0, space);
                if (word == NULL || PySet_Add(firsts, word) < 0) {
                    Py_XDECREF(word);
                    Py_DECREF(firsts);
                    return -1;
                }
                Py_DECREF(word);
            }
        }
    }
    int failed = table_fill(&self->lexicon, "lexicon", lexicon, lexicon) < 0 ||
                 table_fill(&self->boosters, "boosters", boosters, boosters) < 0 ||
                 table_fill(&self->special, "special_cases", special, special) < 0 ||
                 table_fill(&self->negate, "negate", negate, NULL) < 0 ||
                 table_fill(&self->idiom_first_words, "idiom first words", firsts, NULL) < 0;
    Py_DECREF(firsts);
    if (failed) {
        table_free(&self->lexicon);
        table_free(&self->boosters);
        table_free(&self->special);
        table_free(&self->negate);
        table_free(&self->idiom_first_words);
        return -1;
    }
    return 0;
}

static void
Scorer_dealloc(Scorer *self)
{
    table_free(&self->lexicon);
    table_free(&self->boosters);
    table_free(&self->special);
    table_free(&self->negate);
    table_free(&self->idiom_first_words);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *
Scorer_call_check(Scorer *self)
{
    if (self->lexicon.slots == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "Scorer is not initialised");
        return NULL;
    }
    return (PyObject *)self;
}

static PyObject *
Scorer_polarity_checked(Scorer *self, PyObject *text)
{
    return Scorer_call_check(self) ? Scorer_polarity(self, text) : NULL;
}

static PyObject *
Scorer_valences_checked(Scorer *self, PyObject *text)
{
    return Scorer_call_check(self) ? Scorer_valences(self, text) : NULL;
}

static PyMethodDef Scorer_methods[] = {
    {"polarity", (PyCFunction)Scorer_polarity_checked, METH_O, polarity_doc},
    {"valences", (PyCFunction)Scorer_valences_checked, METH_O, valences_doc},
    {NULL, NULL, 0, NULL},
};

PyDoc_STRVAR(Scorer_doc,
"Scorer(*, lexicon, boosters, special_cases, negate, punctuation, n_scalar, c_incr)\n--\n\n"
"vaderSentiment 3.3.2's scoring of ASCII text, with its tables and constants passed in once.");

static PyTypeObject ScorerType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "scoring.tone._vader_core.Scorer",
    .tp_basicsize = sizeof(Scorer),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = Scorer_doc,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Scorer_init,
    .tp_dealloc = (destructor)Scorer_dealloc,
    .tp_methods = Scorer_methods,
};

PyDoc_STRVAR(round4_doc,
"round4(x, /)\n--\n\n"
"Return ``round(x, 4)`` as the core computes it (exposed for the tests that prove them equal).");

static PyObject *
module_round4(PyObject *module, PyObject *arg)
{
    (void)module;
    double x = PyFloat_AsDouble(arg), out;
    if (x == -1.0 && PyErr_Occurred()) {
        return NULL;
    }
    if (!isfinite(x)) {
        return PyFloat_FromDouble(x);
    }
    return round4(x, &out) < 0 ? NULL : PyFloat_FromDouble(out);
}

static PyMethodDef module_methods[] = {
    {"round4", module_round4, METH_O, round4_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    .m_name = "scoring.tone._vader_core",
    .m_doc = "The compiled core of the VADER engine (vaderSentiment 3.3.2's scoring of ASCII text).",
    .m_size = -1,
    .m_methods = module_methods,
};

PyMODINIT_FUNC
PyInit__vader_core(void)
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
