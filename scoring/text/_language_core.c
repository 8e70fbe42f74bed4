/* The language check's compiled core: a C twin of the fast path of detect_language (scoring/text/language.py)
 * for ASCII text.
 *
 * decide(text, max_chars, share, min_hits, share_long, share_weak, english, other, weak) answers what the Python code decides for
 * an ASCII str before it would call the model: NO_LETTERS (0, detect_language gives None), ENGLISH (1, English by
 * the a-z word check) or MODEL (2, the Python code cleans the text again and asks the model). Any other text, or
 * anything below it does not handle, gives None and the Python code runs. For ASCII text the Python reduces to:
 *   _strip_noise  text[:max_chars]; _NOISE_RE.sub(" ", ...) over the whole text (the word-by-word loop gives the
 *                 same up to whitespace: no alternative but inline code spans whitespace); then, when ":", ";",
 *                 "=" or "<3" is left, _EMOTICON_RE.sub(" ", ...);
 *   _LETTER_RE    [A-Za-z];
 *   _looks_english  the words are the runs of [a-z'] once lower-cased; the rule of _english_words on them.
 *   classes       \w is [A-Za-z0-9_]; \s is str.isspace(): \t \n \v \f \r \x1c-\x1f and the space.
 * The word sets are the module's _ENGLISH_BYTES, _OTHER_BYTES and _WEAK_BYTES, passed with every call: the core
 * builds its table from them the first time it sees them (frozensets cannot change) and again whenever other sets
 * come.
 * tests/scoring/text/test_language_core.py compares the two.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

#include "_word_table.h"

enum { NO_LETTERS = 0, ENGLISH = 1, MODEL = 2 };
enum { IN_ENGLISH = 1, IN_OTHER = 2, IN_WEAK = 4 };
#define SETS 3 /* english, other, weak */

/* ---- word sets: one open-addressing table, a flag bit per set ---- */

#define TABLE_SIZE 2048  /* a power of two; at most half full, or the core steps aside (64 KB) */


static Slot table[TABLE_SIZE];
static size_t table_used;
static PyObject *table_sets[SETS]; /* the frozensets the table was built from (strong references) */
static int table_usable;


static int lookup(const char *s, Py_ssize_t n) { return table_lookup(table, TABLE_SIZE, s, n); }

static int is_word_char(uchar c) { return (c >= 'a' && c <= 'z') || c == '\''; } /* a text's words: [a-z']+ */

/* Add one element of a set: 1 added or skipped (it can never equal a word), 0 the core cannot hold it. */
static int add_word(PyObject *word, int flag) {
    if (!PyBytes_Check(word)) {
        return 1; /* the Python code looks up bytes words: a str element never matches */
    }
    Py_ssize_t n = PyBytes_GET_SIZE(word);
    const char *s = PyBytes_AS_STRING(word);
    for (Py_ssize_t i = 0; i < n; i++) {
        if (!is_word_char((uchar)s[i])) {
            return 1; /* no word of a text holds it */
        }
    }
    if (n == 0) {
        return 1;
    }
    if (n > KEY_MAX) {
        return 0;
    }
    Slot *slot = table_add(table, TABLE_SIZE, &table_used, s, n);
    if (slot == NULL) {
        return 0;
    }
    slot->flags |= (uchar)flag;
    return 1;
}

/* Build the table from the frozensets english, other, weak: 1, or 0 when they are not frozensets or the table cannot
 * hold them (the core then steps aside until other sets come), or -1 with an exception set. */
static int build_table(PyObject *const *sets) {
    for (int k = 0; k < SETS; k++) {
        Py_XSETREF(table_sets[k], Py_NewRef(sets[k]));
    }
    memset(table, 0, sizeof table);
    table_used = 0;
    table_usable = 0;
    for (int k = 0; k < SETS; k++) {
        if (!PyFrozenSet_CheckExact(sets[k])) {
            return 0; /* a set could change after the table is built */
        }
    }
    const int flags[SETS] = {IN_ENGLISH, IN_OTHER, IN_WEAK};
    for (int k = 0; k < SETS; k++) {
        PyObject *it = PyObject_GetIter(sets[k]);
        if (it == NULL) {
            return -1;
        }
        PyObject *word;
        int held = 1;
        while (held && (word = PyIter_Next(it)) != NULL) {
            held = add_word(word, flags[k]);
            Py_DECREF(word);
        }
        Py_DECREF(it);
        if (PyErr_Occurred()) {
            return -1;
        }
        if (!held) {
            return 0;
        }
    }
    table_usable = 1;
    return 1;
}

/* ---- ASCII character classes: one table of flag bits, filled at import ---- */

enum {
    C_SPACE = 1 << 0,  /* \s: \t \n \v \f \r \x1c-\x1f and the space */
    C_ALPHA = 1 << 1,  /* [A-Za-z] */
    C_W = 1 << 2,      /* \w: [A-Za-z0-9_] */
    C_LOCAL = 1 << 3,  /* [\w.+-] */
    C_HOST = 1 << 4,   /* [\w-] */
    C_DOMAIN = 1 << 5, /* [\w.-] */
    C_EYES = 1 << 6,   /* [:;=8xX] */
    C_NOSE = 1 << 7,   /* [-^'o] */
    C_MOUTH = 1 << 8,  /* [()DPpO0o3|/\\*\]\[] */
    C_WORD = 1 << 9,   /* [A-Za-z']: the words, once lower-cased */
    C_MARK = 1 << 10,  /* a character the noise or the emoticons need: @ # ` : / w ; = < */
};

static unsigned short classes[256];

static void set_class(const char *chars, unsigned short flag) {
    for (; *chars; chars++) {
        classes[(uchar)*chars] |= flag;
    }
}

static void init_classes(void) {
    for (int c = 0; c < 256; c++) {
        int alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
        int w = alpha || (c >= '0' && c <= '9') || c == '_';
        classes[c] = (unsigned short)((c == ' ' || (c >= '\t' && c <= '\r') || (c >= 0x1c && c <= 0x1f) ? C_SPACE : 0) |
                                      (alpha ? C_ALPHA | C_WORD : 0) | (w ? C_W | C_LOCAL | C_HOST | C_DOMAIN : 0));
    }
    set_class(".+-", C_LOCAL);
    set_class("-", C_HOST);
    set_class(".-", C_DOMAIN);
    set_class(":;=8xX", C_EYES);
    set_class("-^'o", C_NOSE);
    set_class("()DPpO0o3|/\\*][", C_MOUTH);
    set_class("'", C_WORD);
    set_class("@#`:/w;=<", C_MARK);
}

#define HAS(c, flag) ((classes[(uchar)(c)] & (flag)) != 0)

static int is_space(uchar c) { return HAS(c, C_SPACE); }
static int is_w(uchar c) { return HAS(c, C_W); }
static int is_local(uchar c) { return HAS(c, C_LOCAL); }
static int is_host(uchar c) { return HAS(c, C_HOST); }
static int is_domain(uchar c) { return HAS(c, C_DOMAIN); }
static int is_eyes(uchar c) { return HAS(c, C_EYES); }
static int is_nose(uchar c) { return HAS(c, C_NOSE); }
static int is_mouth(uchar c) { return HAS(c, C_MOUTH); }

/* ---- _NOISE_RE: https?://\S+ | www\.\S+ | [\w.+-]+@[\w-]+\.[\w.-]+ | [@#]\w+ | `[^`\n]*` ---- */

typedef struct {
    Py_ssize_t run_end; /* the end of the last [\w.+-] run looked at (0: none), and where its address ends */
    Py_ssize_t address_end;
} NoiseMemo;

static Py_ssize_t non_space_run(const uchar *s, Py_ssize_t n, Py_ssize_t q) { /* \S+ from q: its end, or -1 */
    Py_ssize_t e = q;
    while (e < n && !is_space(s[e])) {
        e++;
    }
    return e > q ? e : -1;
}

/* The end of the address [\w.+-]+@[\w-]+\.[\w.-]+ whose local part is the run ending at r, or -1. Each class
 * stops before the character the next part needs, so the greedy runs never give characters back. */
static Py_ssize_t address_after(const uchar *s, Py_ssize_t n, Py_ssize_t r) {
    if (r >= n || s[r] != '@') {
        return -1;
    }
    Py_ssize_t t = r + 1;
    while (t < n && is_host(s[t])) {
        t++;
    }
    if (t == r + 1 || t >= n || s[t] != '.') {
        return -1;
    }
    Py_ssize_t u = t + 1;
    while (u < n && is_domain(s[u])) {
        u++;
    }
    return u > t + 1 ? u : -1;
}

/* Where the first alternative of _NOISE_RE that matches at p ends, or -1. */
static Py_ssize_t noise_at(const uchar *s, Py_ssize_t n, Py_ssize_t p, NoiseMemo *memo) {
    uchar c = s[p];
    if (c == 'h' && n - p >= 7 && memcmp(s + p, "http", 4) == 0) {
        Py_ssize_t q = p + 4 + (s[p + 4] == 's');
        if (n - q >= 3 && memcmp(s + q, "://", 3) == 0) {
            Py_ssize_t e = non_space_run(s, n, q + 3);
            if (e >= 0) {
                return e;
            }
        }
    }
    if (c == 'w' && n - p >= 5 && memcmp(s + p, "www.", 4) == 0) {
        Py_ssize_t e = non_space_run(s, n, p + 4);
        if (e >= 0) {
            return e;
        }
    }
    if (is_local(c)) {
        if (p >= memo->run_end) { /* a new run: any start inside it gives the same address (or none) */
            Py_ssize_t r = p;
            while (r < n && is_local(s[r])) {
                r++;
            }
            memo->run_end = r;
            memo->address_end = address_after(s, n, r);
        }
        if (memo->address_end >= 0) {
            return memo->address_end;
        }
    }
    if ((c == '@' || c == '#') && p + 1 < n && is_w(s[p + 1])) {
        Py_ssize_t e = p + 1;
        while (e < n && is_w(s[e])) {
            e++;
        }
        return e;
    }
    if (c == '`') {
        Py_ssize_t e = p + 1;
        while (e < n && s[e] != '`' && s[e] != '\n') {
            e++;
        }
        if (e < n && s[e] == '`') {
            return e + 1;
        }
    }
    return -1;
}

/* ---- _EMOTICON_RE: (?<!\w)(?:[:;=8xX][-^'o]?[()DPpO0o3|/\\*\]\[]+|<3)(?!\w) ---- */

static int word_boundary_after(const uchar *s, Py_ssize_t n, Py_ssize_t e) { return e >= n || !is_w(s[e]); }

/* Where _EMOTICON_RE's match at p ends, or -1, backtracking as the regex does: the nose first taken, then not;
 * the mouth as long as it goes, then shorter, until (?!\w) holds. */
static Py_ssize_t emoticon_at(const uchar *s, Py_ssize_t n, Py_ssize_t p) {
    if (p > 0 && is_w(s[p - 1])) {
        return -1;
    }
    if (is_eyes(s[p])) {
        for (int nose = 1; nose >= 0; nose--) {
            Py_ssize_t start = p + 1;
            if (nose) {
                if (start >= n || !is_nose(s[start])) {
                    continue;
                }
                start++;
            }
            Py_ssize_t r = start;
            while (r < n && is_mouth(s[r])) {
                r++;
            }
            for (Py_ssize_t e = r; e > start; e--) {
                if (word_boundary_after(s, n, e)) {
                    return e;
                }
            }
        }
    }
    if (s[p] == '<' && p + 1 < n && s[p + 1] == '3' && word_boundary_after(s, n, p + 2)) {
        return p + 2;
    }
    return -1;
}

/* ---- the decision ---- */

/* re.sub(" ", ...) of the matcher over s[0:n] into out (never longer than s); the length written. */
static Py_ssize_t strip_noise(const uchar *s, Py_ssize_t n, uchar *out) {
    NoiseMemo memo = {0, -1};
    Py_ssize_t k = 0;
    for (Py_ssize_t p = 0; p < n;) {
        Py_ssize_t e = noise_at(s, n, p, &memo);
        if (e > p) {
            out[k++] = ' ';
            p = e;
        } else {
            out[k++] = s[p++];
        }
    }
    return k;
}

static Py_ssize_t strip_emoticons(const uchar *s, Py_ssize_t n, uchar *out) {
    Py_ssize_t k = 0;
    for (Py_ssize_t p = 0; p < n;) {
        Py_ssize_t e = emoticon_at(s, n, p);
        if (e > p) {
            out[k++] = ' ';
            p = e;
        } else {
            out[k++] = s[p++];
        }
    }
    return k;
}

static int emoticon_may_follow(const uchar *s, Py_ssize_t n) { /* ":" in text or ";" ... or "<3" in text */
    for (Py_ssize_t i = 0; i < n; i++) {
        if (HAS(s[i], C_MARK) &&
            (s[i] == ':' || s[i] == ';' || s[i] == '=' || (s[i] == '<' && i + 1 < n && s[i + 1] == '3'))) {
            return 1;
        }
    }
    return 0;
}

/* Whether _NOISE_RE can match: every alternative needs "@", "#", "`", "://" or "www.". */
static int noise_may_follow(const uchar *s, Py_ssize_t n) {
    for (Py_ssize_t i = 0; i < n; i++) {
        if (HAS(s[i], C_MARK) &&
            (s[i] == '@' || s[i] == '#' || s[i] == '`' || (s[i] == ':' && n - i >= 3 && s[i + 1] == '/' && s[i + 2] == '/') ||
             (s[i] == 'w' && n - i >= 4 && memcmp(s + i, "www.", 4) == 0))) {
            return 1;
        }
    }
    return 0;
}

static int decide_clean(const uchar *s, Py_ssize_t n, const double *settings) {
    double share = settings[0], min_hits = settings[1], share_long = settings[2], share_weak = settings[3];
    Py_ssize_t words = 0, hits = 0, weak = 0;
    int other = 0, letters = 0;
    char key[KEY_MAX];
    for (Py_ssize_t i = 0; i < n;) {
        if (!HAS(s[i], C_WORD)) {
            i++;
            continue;
        }
        Py_ssize_t len = 0;
        for (; i < n && HAS(s[i], C_WORD); i++, len++) {
            letters |= HAS(s[i], C_ALPHA);
            if (len < KEY_MAX) {
                key[len] = (char)(s[i] >= 'A' && s[i] <= 'Z' ? s[i] + 32 : s[i]);
            }
        }
        words++;
        int flags = lookup(key, len);
        hits += (flags & IN_ENGLISH) != 0;
        other |= (flags & IN_OTHER) != 0;
        weak += (flags & IN_WEAK) != 0;
    }
    if (!letters) {
        return NO_LETTERS; /* _LETTER_RE finds nothing */
    }
    if ((double)hits >= share * (double)words) {
        return ENGLISH;
    }
    if (other) {
        return MODEL;
    }
    if ((double)hits >= min_hits && (double)hits >= share_long * (double)words) {
        return ENGLISH;
    }
    if (hits >= 1 && (double)(hits + weak) >= share_weak * (double)words) {
        return ENGLISH;
    }
    return MODEL;
}

PyDoc_STRVAR(decide_doc,
             "decide(text, max_chars, share, min_hits, share_long, share_weak, english, other, weak, /)\n--\n\n"
             "detect_language's answer for an ASCII str before the model: 0 no letters, 1 English by the fast path,\n"
             "2 the model decides. None for other text, or settings the core does not handle (the Python code runs).");

#define LOCAL_CHARS 4096

static PyObject *decide(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 9) {
        PyErr_Format(PyExc_TypeError, "decide takes 9 arguments; got %zd.", nargs);
        return NULL;
    }
    PyObject *text = args[0];
    if (!PyUnicode_Check(text) || !PyUnicode_IS_ASCII(text) || !PyLong_CheckExact(args[1])) {
        Py_RETURN_NONE;
    }
    /* Settings the core cannot hold exactly (a huge int, a negative max_chars, which counts from the end, or no
     * number at all) are left to the Python code, which compares them exactly or raises its own error. */
    Py_ssize_t max_chars = PyLong_AsSsize_t(args[1]);
    double settings[4];
    for (int k = 0; k < 4 && !PyErr_Occurred(); k++) {
        settings[k] = PyFloat_AsDouble(args[2 + k]);
    }
    if (PyErr_Occurred() || max_chars < 0) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    if (args[6] != table_sets[0] || args[7] != table_sets[1] || args[8] != table_sets[2]) {
        if (build_table(args + 6) < 0) {
            return NULL;
        }
    }
    if (!table_usable) {
        Py_RETURN_NONE;
    }
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    if (n > max_chars) {
        n = max_chars;
    }
    const uchar *s = (const uchar *)PyUnicode_DATA(text);
    uchar local[2 * LOCAL_CHARS];
    uchar *buffer = local;
    if (n > LOCAL_CHARS) {
        buffer = PyMem_Malloc(2 * (size_t)n);
        if (buffer == NULL) {
            return PyErr_NoMemory();
        }
    }
    const uchar *clean = s;
    Py_ssize_t m = n;
    if (noise_may_follow(s, n)) {
        m = strip_noise(s, n, buffer);
        clean = buffer;
    }
    if (emoticon_may_follow(clean, m)) {
        uchar *other = buffer + n;
        m = strip_emoticons(clean, m, other);
        clean = other;
    }
    int answer = decide_clean(clean, m, settings);
    if (buffer != local) {
        PyMem_Free(buffer);
    }
    return PyLong_FromLong(answer);
}

static PyMethodDef methods[] = {
    {"decide", (PyCFunction)(void (*)(void))decide, METH_FASTCALL, decide_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    "_language_core",
    "The language check's compiled core (ASCII text): see scoring/text/language.py.",
    -1,
    methods,
    NULL,
    NULL,
    NULL,
    NULL,
};

PyMODINIT_FUNC PyInit__language_core(void) {
    init_classes();
    return PyModule_Create(&module_def);
}
