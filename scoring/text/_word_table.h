/* The word sets of the compiled cores (_split_core.c, _language_core.c, _afinn_core.c): an open-addressing
 * table of short words, each slot with a flag bit per set the word is in (and, for a core that needs one, a
 * small number the word carries). Each core keeps its own tables and sizes (a power of two, kept at most half
 * full) and fills them from the sets or dicts its Python module passes in.
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
    signed char value; /* the word's number where a core keeps one (_afinn_core.c: its AFINN value), else 0 */
    char key[KEY_MAX];
} Slot;

#define HASH_START ((size_t)2166136261u) /* FNV-1a */

static inline size_t hash_step(size_t h, uchar c) { return (h ^ c) * 16777619u; }

static size_t hash_bytes(const char *s, Py_ssize_t n) {
    size_t h = HASH_START;
    for (Py_ssize_t i = 0; i < n; i++) {
        h = hash_step(h, (uchar)s[i]);
    }
    return h;
}

/* Where the word s[0:n] (1 to KEY_MAX bytes) whose hash_bytes is h is: the index of its slot, or of the empty
 * slot where it would go (the one probe that finding and filling share; a table always has an empty slot). */
static inline size_t table_probe(const Slot *table, size_t size, size_t h, const char *s, Py_ssize_t n) {
    h &= size - 1;
    while (table[h].len && !(table[h].len == n && memcmp(table[h].key, s, (size_t)n) == 0)) {
        h = (h + 1) & (size - 1);
    }
    return h;
}

/* The slot of the word s[0:n] (1 to KEY_MAX bytes) whose hash_bytes is h, or NULL when it is in no set. */
static inline const Slot *table_find(const Slot *table, size_t size, size_t h, const char *s, Py_ssize_t n) {
    const Slot *slot = &table[table_probe(table, size, h, s, n)];
    return slot->len ? slot : NULL;
}

/* The slot for the word s[0:n] (1 to KEY_MAX bytes) in a table being filled: its own if it is already in, else
 * an empty one with the word written in and no flags; NULL when a new word would fill the table over half.
 * ``used`` counts the words in (NULL: the caller sized the table for every word it adds). */
static inline Slot *table_add(Slot *table, size_t size, size_t *used, const char *s, Py_ssize_t n) {
    Slot *slot = &table[table_probe(table, size, hash_bytes(s, n), s, n)];
    if (!slot->len) {
        if (used != NULL) {
            if (2 * (*used + 1) > size) {
                return NULL;
            }
            ++*used;
        }
        slot->len = (uchar)n;
        memcpy(slot->key, s, (size_t)n);
    }
    return slot;
}

/* The flags of the word s[0:n] in table (size slots, a power of two), 0 when it is in no set. */
static inline int table_lookup(const Slot *table, size_t size, const char *s, Py_ssize_t n) {
    if (n <= 0 || n > KEY_MAX) {
        return 0;
    }
    const Slot *slot = table_find(table, size, hash_bytes(s, n), s, n);
    return slot ? slot->flags : 0;
}

#endif
