/* The word sets of the compiled cores (_split_core.c, _language_core.c): an open-addressing table of short
 * words, each slot with a flag bit per set the word is in. Each core keeps its own tables and sizes (a power
 * of two, kept at most half full) and fills them from the frozensets its Python module passes in.
 */
#ifndef SCORING_WORD_TABLE_H
#define SCORING_WORD_TABLE_H

#include <Python.h>
#include <string.h>

typedef unsigned char uchar;

#define KEY_MAX 31 /* longer words are in no table (each core checks what it is given) */

typedef struct {
    uchar len; /* 0: empty slot */
    uchar flags;
    char key[KEY_MAX];
} Slot;

static size_t hash_bytes(const char *s, Py_ssize_t n) {
    size_t h = 2166136261u; /* FNV-1a */
    for (Py_ssize_t i = 0; i < n; i++) {
        h = (h ^ (uchar)s[i]) * 16777619u;
    }
    return h;
}

/* The flags of the word s[0:n] in table (size slots, a power of two), 0 when it is in no set. */
static int table_lookup(const Slot *table, size_t size, const char *s, Py_ssize_t n) {
    if (n <= 0 || n > KEY_MAX) {
        return 0;
    }
    size_t h = hash_bytes(s, n) & (size - 1);
    while (table[h].len) {
        if (table[h].len == n && memcmp(table[h].key, s, (size_t)n) == 0) {
            return table[h].flags;
        }
        h = (h + 1) & (size - 1);
    }
    return 0;
}

#endif
