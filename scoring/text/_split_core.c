/* The smart sentence splitter's compiled core: a C twin of scoring/text/splitters.py for ASCII text.
 *
 * It gives the spans `_split_smart_python` gives, to the offset, for every str whose characters are all ASCII
 * (CPython keeps that flag on the string: checking it costs nothing). Any other text, or a non-str, makes it
 * return None, and the caller runs the Python code. For ASCII text the Python regexes reduce to what is below:
 *   candidates   a run of [.!?] not preceded by one, then closers ["')\]}*_`], before whitespace or the end;
 *                or a line break (\r\n?, \n \v \f \x1c-\x1e) with the whitespace after it (no emoji, no CJK);
 *   whitespace   what str.isspace() and the regex \s accept: \t \n \v \f \r \x1c-\x1f and the space;
 *   letters      \w is [A-Za-z0-9_], islower() is [a-z], isdigit() is [0-9], _WORDISH_RE is [A-Za-z0-9].
 * The abbreviation word sets come from the Python module (`configure`), so they are written down once.
 * Each function names the Python it stands for; tests/scoring/text/test_split_core.py compares the two.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#include <string.h>

#include "_word_table.h"

/* ---- word sets: one small open-addressing table, a flag bit per set ---- */

enum {
    ALWAYS_JOIN = 1,
    TITLES = 2,
    BEFORE_NUMBER = 4,
    CAN_END = 8,
    GERMAN_MONTHS = 16,
    STARTERS = 32,
};

#define TABLE_SIZE 1024 /* a power of two, at least twice the words (configure checks) */


static Slot table[TABLE_SIZE];   /* the words splitting reads */
static Slot staged[TABLE_SIZE];  /* configure fills it, then copies it to table if every word was good */
static size_t staged_used;
static int configured;
static PyObject *span_type;              /* scoring.text.splitters.Span */
static PyObject *span_fields[3];         /* its member descriptors: text, start, end */
static PyObject *empty_tuple;


/* The flags of the word s[0:n] (already lower case), 0 when it is in no set. */
static int lookup(const char *s, Py_ssize_t n) { return table_lookup(table, TABLE_SIZE, s, n); }

static int add_word(PyObject *word, int flag) {
    if (!PyUnicode_Check(word)) {
        PyErr_Format(PyExc_TypeError, "word sets must hold str; got %R.", word);
        return -1;
    }
    if (!PyUnicode_IS_ASCII(word)) {
        return 0; /* ASCII text never holds it: the Python code handles the text it can match */
    }
    Py_ssize_t n = PyUnicode_GET_LENGTH(word);
    const char *s = (const char *)PyUnicode_DATA(word);
    if (n == 0 || n > KEY_MAX) {
        PyErr_Format(PyExc_ValueError, "words must have 1 to %d characters; got %R.", KEY_MAX, word);
        return -1;
    }
    Slot *slot = table_add(staged, TABLE_SIZE, &staged_used, s, n);
    if (slot == NULL) {
        PyErr_SetString(PyExc_ValueError, "too many words for the core's table (TABLE_SIZE in _split_core.c).");
        return -1;
    }
    slot->flags |= (uchar)flag;
    return 0;
}

static int add_words(PyObject *words, int flag) {
    PyObject *it = PyObject_GetIter(words);
    if (it == NULL) {
        return -1;
    }
    PyObject *word;
    while ((word = PyIter_Next(it)) != NULL) {
        int failed = add_word(word, flag);
        Py_DECREF(word);
        if (failed) {
            Py_DECREF(it);
            return -1;
        }
    }
    Py_DECREF(it);
    return PyErr_Occurred() ? -1 : 0;
}

/* ---- ASCII character classes ---- */

static int is_space(uchar c) { return c == ' ' || (c >= '\t' && c <= '\r') || (c >= 0x1c && c <= 0x1f); }
static int is_terminal(uchar c) { return c == '.' || c == '!' || c == '?'; }
static int is_closer(uchar c) { return c != 0 && strchr("\"')]}*_`", c) != NULL; }             /* _CLOSERS */
static int is_break(uchar c) { return c == '\n' || c == '\v' || c == '\f' || (c >= 0x1c && c <= 0x1e); } /* _BREAKS */
static int is_next_opener(uchar c) { return c != 0 && strchr("\"'([*_`", c) != NULL; }        /* in _NEXT_RE */
static int is_opener(uchar c) { return c != 0 && strchr("(\"'[{*_`", c) != NULL; }            /* _OPENERS */
static int is_lower(uchar c) { return c >= 'a' && c <= 'z'; }
static int is_upper(uchar c) { return c >= 'A' && c <= 'Z'; }
static int is_digit(uchar c) { return c >= '0' && c <= '9'; }
static int is_alpha(uchar c) { return is_lower(c) || is_upper(c); }
static int is_wordish(uchar c) { return is_alpha(c) || is_digit(c); }          /* _WORDISH_RE */
static int is_word(uchar c) { return is_wordish(c) || c == '_' || c == '\''; } /* [\w'’] */
static uchar to_lower(uchar c) { return is_upper(c) ? (uchar)(c + 32) : c; }

static const uchar starts[256] = {['.'] = 1, ['!'] = 1, ['?'] = 1, ['\r'] = 1, ['\n'] = 1, ['\v'] = 1, ['\f'] = 1,
                                  [0x1c] = 1, [0x1d] = 1, [0x1e] = 1}; /* terminals, \r and _BREAKS */

/* ---- growable arrays of offsets ---- */

typedef struct {
    Py_ssize_t *at;
    Py_ssize_t len, cap;
    Py_ssize_t local[64];
} Offsets;

static void offsets_init(Offsets *o) {
    o->at = o->local;
    o->len = 0;
    o->cap = 64;
}

static void offsets_free(Offsets *o) {
    if (o->at != o->local) {
        PyMem_Free(o->at);
    }
}

static int offsets_push(Offsets *o, Py_ssize_t v) {
    if (o->len == o->cap) {
        Py_ssize_t cap = o->cap * 2;
        Py_ssize_t *at = PyMem_Malloc((size_t)cap * sizeof(Py_ssize_t));
        if (at == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        memcpy(at, o->at, (size_t)o->len * sizeof(Py_ssize_t));
        offsets_free(o);
        o->at = at;
        o->cap = cap;
    }
    o->at[o->len++] = v;
    return 0;
}

/* ---- the splitter ---- */

typedef struct {
    const uchar *s;
    Py_ssize_t n;
    int caseless;  /* text.lower() == text */
    Offsets fences; /* _code_fences */
    Offsets out;    /* start, end, start, end, ...: the spans so far */
} Split;

static int contains(const uchar *s, Py_ssize_t n, uchar c) { /* whether s holds c three times in a row */
    for (const uchar *p = s, *end = s + n; (p = memchr(p, c, (size_t)(end - p))) != NULL && p + 3 <= end; p++) {
        if (p[1] == c && p[2] == c) {
            return 1;
        }
    }
    return 0;
}

/* _code_fences: the starts of lines matching ^[ \t]*(?:```|~~~) (lines end at \n only). */
static int code_fences(Split *t) {
    const uchar *s = t->s;
    Py_ssize_t n = t->n;
    if (!contains(s, n, '`') && !contains(s, n, '~')) {
        return 0;
    }
    for (Py_ssize_t line = 0; line <= n;) {
        Py_ssize_t k = line;
        while (k < n && (s[k] == ' ' || s[k] == '\t')) {
            k++;
        }
        if (k + 3 <= n && ((s[k] == '`' && s[k + 1] == '`' && s[k + 2] == '`') ||
                           (s[k] == '~' && s[k + 1] == '~' && s[k + 2] == '~'))) {
            if (offsets_push(&t->fences, line) < 0) {
                return -1;
            }
        }
        const uchar *nl = memchr(s + k, '\n', (size_t)(n - k));
        if (nl == NULL) {
            break;
        }
        line = nl - s + 1;
    }
    return 0;
}

/* _in_code: whether offset i is inside a fenced block or on a fence line. */
static int in_code(const Split *t, Py_ssize_t i) {
    const Py_ssize_t *f = t->fences.at;
    Py_ssize_t lo = 0, hi = t->fences.len; /* bisect_right */
    while (lo < hi) {
        Py_ssize_t mid = (lo + hi) / 2;
        if (i < f[mid]) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    if (lo % 2 == 1) {
        return 1;
    }
    return lo > 0 && memchr(t->s + f[lo - 1], '\n', (size_t)(i > f[lo - 1] ? i - f[lo - 1] : 0)) == NULL;
}

/* _BULLET_RE.match(text, k): [ \t]*(?:[-*+>]|\d{1,3}[.)]|[A-Za-z][.)])[ \t] (its other symbols are not ASCII). */
static int bullet_at(const Split *t, Py_ssize_t k) {
    const uchar *s = t->s;
    Py_ssize_t n = t->n;
    while (k < n && (s[k] == ' ' || s[k] == '\t')) {
        k++;
    }
    if (k >= n) {
        return 0;
    }
    if (s[k] == '-' || s[k] == '*' || s[k] == '+' || s[k] == '>') {
        k++;
    } else if (is_digit(s[k])) {
        Py_ssize_t d = 0;
        while (k + d < n && is_digit(s[k + d])) {
            d++;
        }
        if (d > 3 || k + d >= n || (s[k + d] != '.' && s[k + d] != ')')) {
            return 0;
        }
        k += d + 1;
    } else if (is_alpha(s[k]) && k + 1 < n && (s[k + 1] == '.' || s[k + 1] == ')')) {
        k += 2;
    } else {
        return 0;
    }
    return k < n && (s[k] == ' ' || s[k] == '\t');
}

/* _line_break_ends: whether the break [ms, me) ends the sentence that began at start. */
static int line_break_ends(const Split *t, Py_ssize_t start, Py_ssize_t ms, Py_ssize_t me) {
    const uchar *s = t->s;
    Py_ssize_t breaks = 0;
    for (Py_ssize_t k = ms; k < me; k++) { /* \n and \r, a \r\n counting once */
        breaks += s[k] == '\n' ? !(k > ms && s[k - 1] == '\r') : s[k] == '\r';
    }
    if (breaks > 1 || me >= t->n) {
        return 1;
    }
    if (t->fences.len && in_code(t, ms)) {
        return 1;
    }
    Py_ssize_t lo = ms - 64 > start ? ms - 64 : start, k = ms;
    while (k > lo && is_space(s[k - 1])) {
        k--;
    }
    if (k == lo) { /* nothing but whitespace: "" is in any str */
        return 1;
    }
    uchar before = s[k - 1];
    return is_terminal(before) || before == ':' || before == ';' || !is_lower(s[me]) || bullet_at(t, me);
}

/* _MARKER_RE.fullmatch(text, a, b): [ \t]*(?:\d{1,3}|[A-Za-z]|[ivxIVX]{1,4}) */
static int marker(const uchar *s, Py_ssize_t a, Py_ssize_t b) {
    while (a < b && (s[a] == ' ' || s[a] == '\t')) {
        a++;
    }
    Py_ssize_t n = b - a, digits = 0, roman = 0;
    if (n < 1 || n > 4) {
        return 0;
    }
    for (Py_ssize_t k = a; k < b; k++) {
        digits += is_digit(s[k]);
        roman += s[k] != 0 && strchr("ivxIVX", s[k]) != NULL;
    }
    return (n <= 3 && digits == n) || (n == 1 && is_alpha(s[a])) || roman == n;
}

/* _ACRONYM_RE.fullmatch(word): (?:[a-z]{1,2}\.)+[a-z]{1,2}, on the lower-cased word. */
static int acronym(const char *w, Py_ssize_t n) {
    Py_ssize_t run = 0, groups = 0;
    for (Py_ssize_t k = 0; k < n; k++) {
        if (is_lower((uchar)w[k])) {
            if (++run > 2) {
                return 0;
            }
        } else if (w[k] == '.' && run > 0) {
            run = 0;
            groups++;
        } else {
            return 0;
        }
    }
    return groups >= 1 && run > 0;
}

/* _period_ends: whether the single '.' at i ends a sentence; the next word is s[nx:nx_end]. */
static int period_ends(const Split *t, Py_ssize_t i, Py_ssize_t nx, Py_ssize_t nx_end) {
    const uchar *s = t->s;
    Py_ssize_t lo = i - 64 > 0 ? i - 64 : 0, word_start = i; /* _word_before */
    while (word_start > lo && s[word_start - 1] != ' ' && s[word_start - 1] != '\n' && s[word_start - 1] != '\t') {
        word_start--;
    }
    Py_ssize_t w0 = word_start;
    while (w0 < i && is_opener(s[w0])) { /* raw.lstrip(_OPENERS) */
        w0++;
    }
    char word[64];
    Py_ssize_t wn = i - w0; /* at most 64 */
    for (Py_ssize_t k = 0; k < wn; k++) {
        word[k] = (char)to_lower(s[w0 + k]);
    }
    Py_ssize_t lo2 = word_start - 16 > 0 ? word_start - 16 : 0, line_start = -1;
    for (Py_ssize_t k = word_start - 1; k >= lo2; k--) {
        if (s[k] == '\n') {
            line_start = k + 1;
            break;
        }
    }
    if (line_start < 0 && lo2 == 0) {
        line_start = 0;
    }
    if (line_start >= 0 && marker(s, line_start, i)) { /* "1." opening a line */
        return 0;
    }
    int lower = nx < nx_end && is_lower(s[nx]);
    int flags = lookup(word, wn);
    if (flags & (ALWAYS_JOIN | TITLES)) {
        return 0;
    }
    if ((flags & BEFORE_NUMBER) && ((nx < nx_end && is_digit(s[nx])) || lower)) {
        return 0;
    }
    if (flags & CAN_END) {
        return !lower;
    }
    int initials = (wn == 1 && is_alpha((uchar)word[0])) || acronym(word, wn);
    int digits = wn >= 1 && wn <= 2;
    for (Py_ssize_t k = 0; k < wn; k++) {
        digits &= is_digit((uchar)word[k]);
    }
    if (digits || initials) {
        char next[KEY_MAX];
        Py_ssize_t nn = nx_end - nx;
        int next_flags = 0;
        if (nn <= KEY_MAX) {
            for (Py_ssize_t k = 0; k < nn; k++) {
                next[k] = (char)to_lower(s[nx + k]);
            }
            next_flags = lookup(next, nn);
        }
        if (digits && (next_flags & GERMAN_MONTHS)) { /* "3. Juni" */
            return 0;
        }
        if (initials) { /* initials, U.S. */
            return !lower && (next_flags & STARTERS);
        }
    }
    return t->caseless || !lower;
}

/* _ends for a Latin candidate: terminals s[ms:pe], closers s[pe:me]. */
static int ends(const Split *t, Py_ssize_t ms, Py_ssize_t pe, Py_ssize_t me) {
    const uchar *s = t->s;
    Py_ssize_t n = t->n, nx = me;
    while (nx < n && is_space(s[nx])) { /* _NEXT_RE: \s*["'(\[*_`]*([\w']*) */
        nx++;
    }
    while (nx < n && is_next_opener(s[nx])) {
        nx++;
    }
    Py_ssize_t nx_end = nx;
    while (nx_end < n && is_word(s[nx_end])) {
        nx_end++;
    }
    int lower = nx < nx_end && is_lower(s[nx]);
    int closers = me > pe, dots = 1;
    for (Py_ssize_t k = ms; k < pe; k++) {
        dots &= s[k] == '.';
    }
    if (pe - ms == 1 && dots) {
        if (closers) {
            return t->caseless || !lower;
        }
        return period_ends(t, ms, nx, nx_end);
    }
    if (dots) { /* ellipsis */
        return !lower;
    }
    return !(lower && closers) || t->caseless; /* "Ready?" she asked. */
}

/* _emit: keep the stripped s[start:end]; stray punctuation joins the sentence before it. */
static int emit(Split *t, Py_ssize_t start, Py_ssize_t end) {
    const uchar *s = t->s;
    Py_ssize_t a = start, b = end;
    while (a < b && is_space(s[a])) {
        a++;
    }
    if (a == b) {
        return 0;
    }
    while (is_space(s[b - 1])) {
        b--;
    }
    Offsets *out = &t->out;
    if (out->len) {
        int wordish = 0;
        for (Py_ssize_t k = a; k < b && !wordish; k++) {
            wordish = is_wordish(s[k]);
        }
        Py_ssize_t prev_end = out->at[out->len - 1];
        if (!wordish && memchr(s + prev_end, '\n', (size_t)(a - prev_end)) == NULL) {
            out->at[out->len - 1] = b;
            return 0;
        }
    }
    return offsets_push(out, a) < 0 || offsets_push(out, b) < 0 ? -1 : 0;
}

/* _split_smart_python, candidates found as _candidates finds them. */
static int split(Split *t) {
    const uchar *s = t->s;
    Py_ssize_t n = t->n, start = 0;
    t->caseless = 1;
    for (Py_ssize_t k = 0; k < n && t->caseless; k++) {
        t->caseless = !is_upper(s[k]);
    }
    if (code_fences(t) < 0) {
        return -1;
    }
    for (Py_ssize_t i = 0; i < n;) {
        while (i < n && !starts[s[i]]) { /* _FIRST_RE: skip to a character a candidate can start with */
            i++;
        }
        if (i == n) {
            break;
        }
        uchar c = s[i];
        if (is_terminal(c)) {
            if (i > 0 && is_terminal(s[i - 1])) { /* the look-behind: only a run's first terminal starts one */
                i++;
                continue;
            }
            Py_ssize_t pe = i + 1, me;
            while (pe < n && is_terminal(s[pe])) {
                pe++;
            }
            me = pe;
            while (me < n && is_closer(s[me])) {
                me++;
            }
            if (me < n && !is_space(s[me])) { /* (?=\s|$): no match here */
                i++;
                continue;
            }
            if (ends(t, i, pe, me)) {
                if (emit(t, start, me) < 0) {
                    return -1;
                }
                start = me;
            }
            i = me;
        } else if (c == '\r' || is_break(c)) {
            Py_ssize_t me = i + 1;
            if (c == '\r' && me < n && s[me] == '\n') {
                me++;
            }
            while (me < n && is_space(s[me])) {
                me++;
            }
            if (i > start && line_break_ends(t, start, i, me)) {
                if (emit(t, start, i) < 0) {
                    return -1;
                }
                start = me;
            }
            i = me;
        }
    }
    return emit(t, start, n);
}

/* Split `text` into t->out; 1 when done, 0 when the core does not handle it, -1 on error. */
static int run(PyObject *text, Split *t) {
    if (!configured) {
        PyErr_SetString(PyExc_RuntimeError, "_split_core.configure was not called (scoring.text.splitters calls it).");
        return -1;
    }
    if (!PyUnicode_Check(text) || PyUnicode_READY(text) < 0 || !PyUnicode_IS_ASCII(text)) {
        PyErr_Clear();
        return 0;
    }
    t->s = (const uchar *)PyUnicode_DATA(text);
    t->n = PyUnicode_GET_LENGTH(text);
    offsets_init(&t->fences);
    offsets_init(&t->out);
    int failed = split(t);
    offsets_free(&t->fences);
    if (failed) {
        offsets_free(&t->out);
        return -1;
    }
    return 1;
}

static PyObject *make_span(PyObject *text, Py_ssize_t a, Py_ssize_t b) {
    PyObject *values[3] = {PyUnicode_Substring(text, a, b), PyLong_FromSsize_t(a), PyLong_FromSsize_t(b)};
    PyObject *span = NULL;
    if (values[0] && values[1] && values[2]) {
        /* Span is a frozen dataclass with slots: its __init__ sets the three slots through object.__setattr__;
           the slots' own descriptors set the same values without the Python call. */
        span = ((PyTypeObject *)span_type)->tp_new((PyTypeObject *)span_type, empty_tuple, NULL);
        for (int k = 0; k < 3 && span != NULL; k++) {
            if (Py_TYPE(span_fields[k])->tp_descr_set(span_fields[k], span, values[k]) < 0) {
                Py_CLEAR(span);
            }
        }
    }
    for (int k = 0; k < 3; k++) {
        Py_XDECREF(values[k]);
    }
    return span;
}

PyDoc_STRVAR(spans_doc, "spans(text, /)\n--\n\n"
                        "split_smart(text) for an ASCII str; None for any other text (the Python code handles it).");

static PyObject *spans(PyObject *module, PyObject *text) {
    Split t;
    int done = run(text, &t);
    if (done <= 0) {
        return done < 0 ? NULL : Py_NewRef(Py_None);
    }
    PyObject *list = PyList_New(t.out.len / 2);
    for (Py_ssize_t k = 0; list != NULL && k < t.out.len / 2; k++) {
        PyObject *span = make_span(text, t.out.at[2 * k], t.out.at[2 * k + 1]);
        if (span == NULL) {
            Py_CLEAR(list);
        } else {
            PyList_SET_ITEM(list, k, span);
        }
    }
    offsets_free(&t.out);
    return list;
}

PyDoc_STRVAR(texts_doc, "texts(text, /)\n--\n\n"
                        "The sentences' texts of split_smart(text), or [text] when it has none, for an ASCII str;\n"
                        "None for any other text (the Python code handles it).");

static PyObject *texts(PyObject *module, PyObject *text) {
    Split t;
    int done = run(text, &t);
    if (done <= 0) {
        return done < 0 ? NULL : Py_NewRef(Py_None);
    }
    PyObject *list;
    if (t.out.len == 0) {
        list = PyList_New(1);
        if (list != NULL) {
            PyList_SET_ITEM(list, 0, Py_NewRef(text));
        }
    } else {
        list = PyList_New(t.out.len / 2);
        for (Py_ssize_t k = 0; list != NULL && k < t.out.len / 2; k++) {
            PyObject *sentence = PyUnicode_Substring(text, t.out.at[2 * k], t.out.at[2 * k + 1]);
            if (sentence == NULL) {
                Py_CLEAR(list);
            } else {
                PyList_SET_ITEM(list, k, sentence);
            }
        }
    }
    offsets_free(&t.out);
    return list;
}

/* @mastra/evals' split: the matches of /[^.!?]+[.!?]+/g, found by one scan of any str (every kind). A match
   starts at a character that is not a terminal, runs to the next terminal and takes every terminal after it;
   text after the last terminal belongs to no match. Offsets go to out (start, end pairs). */
static int is_mastra_terminal(Py_UCS4 c) { return c == '.' || c == '!' || c == '?'; }

static int mastra_offsets(PyObject *text, Offsets *out) {
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    while (n > 0 && !is_mastra_terminal(PyUnicode_READ(kind, data, n - 1))) {
        n--; /* no match reaches past the last terminal */
    }
    Py_ssize_t i = 0;
    while (i < n) {
        if (is_mastra_terminal(PyUnicode_READ(kind, data, i))) {
            i++; /* a match needs a non-terminal first */
            continue;
        }
        Py_ssize_t start = i;
        while (!is_mastra_terminal(PyUnicode_READ(kind, data, i))) {
            i++; /* stops by n - 1: that character is a terminal */
        }
        while (i < n && is_mastra_terminal(PyUnicode_READ(kind, data, i))) {
            i++;
        }
        if (offsets_push(out, start) < 0 || offsets_push(out, i) < 0) {
            return -1;
        }
    }
    return 0;
}

/* The matches of /[^.!?]+[.!?]+/g in a str, each made by item(text, start, end). */
static PyObject *mastra_list(PyObject *text, PyObject *(*item)(PyObject *, Py_ssize_t, Py_ssize_t)) {
    if (!PyUnicode_Check(text)) {
        PyErr_Format(PyExc_TypeError, "text must be a str; got %s.", Py_TYPE(text)->tp_name);
        return NULL;
    }
    Offsets out;
    offsets_init(&out);
    PyObject *list = mastra_offsets(text, &out) < 0 ? NULL : PyList_New(out.len / 2);
    for (Py_ssize_t k = 0; list != NULL && k < out.len / 2; k++) {
        PyObject *made = item(text, out.at[2 * k], out.at[2 * k + 1]);
        if (made == NULL) {
            Py_CLEAR(list);
        } else {
            PyList_SET_ITEM(list, k, made);
        }
    }
    offsets_free(&out);
    return list;
}

PyDoc_STRVAR(mastra_spans_doc, "mastra_spans(text, /)\n--\n\n"
                               "The Spans of the matches of /[^.!?]+[.!?]+/g in a str ([] when none).");

static PyObject *mastra_spans(PyObject *module, PyObject *text) { return mastra_list(text, make_span); }

PyDoc_STRVAR(mastra_texts_doc, "mastra_texts(text, /)\n--\n\n"
                               "The matches of /[^.!?]+[.!?]+/g in a str, as strs ([] when none).");

static PyObject *mastra_texts(PyObject *module, PyObject *text) { return mastra_list(text, PyUnicode_Substring); }

PyDoc_STRVAR(configure_doc,
             "configure(span, *, always_join, titles, before_number, can_end, german_months, starters)\n--\n\n"
             "Give the core the Span class and the splitter's word sets (lower case); call once before splitting.");

static PyObject *configure(PyObject *module, PyObject *args, PyObject *kwargs) {
    static char *names[] = {"span", "always_join", "titles", "before_number", "can_end", "german_months", "starters",
                            NULL};
    static const int flags[] = {ALWAYS_JOIN, TITLES, BEFORE_NUMBER, CAN_END, GERMAN_MONTHS, STARTERS};
    static const char *fields[] = {"text", "start", "end"};
    PyObject *span, *sets[6];
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O!$OOOOOO:configure", names, &PyType_Type, &span, &sets[0],
                                     &sets[1], &sets[2], &sets[3], &sets[4], &sets[5])) {
        return NULL;
    }
    PyObject *descriptors[3] = {NULL, NULL, NULL};
    for (int k = 0; k < 3; k++) {
        PyObject *d = PyDict_GetItemString(((PyTypeObject *)span)->tp_dict, fields[k]); /* borrowed */
        if (d == NULL || !PyObject_TypeCheck(d, &PyMemberDescr_Type)) {
            PyErr_Format(PyExc_TypeError, "span must be a slotted class with a %s slot; got %R.", fields[k], span);
            return NULL;
        }
        descriptors[k] = d;
    }
    memset(staged, 0, sizeof staged);
    staged_used = 0;
    for (int k = 0; k < 6; k++) {
        if (add_words(sets[k], flags[k]) < 0) {
            return NULL; /* the words configured before stay */
        }
    }
    memcpy(table, staged, sizeof table);
    Py_XSETREF(span_type, Py_NewRef(span));
    for (int k = 0; k < 3; k++) {
        Py_XSETREF(span_fields[k], Py_NewRef(descriptors[k]));
    }
    configured = 1;
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"configure", (PyCFunction)(void (*)(void))configure, METH_VARARGS | METH_KEYWORDS, configure_doc},
    {"spans", spans, METH_O, spans_doc},
    {"texts", texts, METH_O, texts_doc},
    {"mastra_spans", mastra_spans, METH_O, mastra_spans_doc},
    {"mastra_texts", mastra_texts, METH_O, mastra_texts_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    "_split_core",
    "The smart sentence splitter's compiled core (ASCII text): see scoring/text/splitters.py.",
    -1,
    methods,
    NULL,
    NULL,
    NULL,
    NULL,
};

PyMODINIT_FUNC PyInit__split_core(void) {
    if (empty_tuple == NULL && (empty_tuple = PyTuple_New(0)) == NULL) {
        return NULL;
    }
    return PyModule_Create(&module_def);
}
