/* The compiled training kernel: the incremental trainer's state and merge loop over compact arrays.
 *
 * It is the C port of the pure-Python Trainer's hot part (trainer.py: _ranked, step, _merge, replay) and
 * must make exactly its records: same pair counts (overlaps counted), same index from a pair to the words
 * holding it (a word once per pair per merge that gained it; a merge reads every entry, counted in
 * word_visits, and skips words that lost the pair), same lazy heap with the same entries, the same set-aside
 * runner-ups and the same stopping rule, so even the pairs whose forbid rule is asked are the same.
 *
 * State:
 *   words  : symbol ids (int32) of every distinct word, one buffer of at most 2**32 - 1 symbols (the
 *            offsets are uint32); word w is sym[off[w] .. off[w]+len[w]),
 *            rewritten in place by a merge (words only shrink); wcount[w] its weight (int64).
 *   pairs  : one Pair per distinct adjacent pair ever seen (dense, by pair number), found by an
 *            open-addressing hash of int32 pair numbers keyed on (left << 32 | right).
 *   heap   : (count, pair number) entries, best first under the tie rule; stale entries are re-checked
 *            when they reach the top (counts of existing pairs only fall; a gain pushes a fresh entry).
 *   tokens : each token's unit sequence (bytes or code points) for the lexical and subword-nmt rules (only
 *            counted under hf, which orders pairs by id).
 *
 * What it leaves to Python (kernel_trainer.py): the model, token ids of new tokens, display texts, records,
 * limits and stop messages, and the forbid rule itself (called once per distinct pair that reaches the top;
 * the answer is cached here).  Nothing here reads files or encodes text.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define CONTENDERS 6 /* records.CONTENDERS; checked by kernel_trainer.py at import */

enum { RULE_HF = 0, RULE_LEXICAL = 1, RULE_SUBWORD_NMT = 2 };

/* 32 bytes: one per distinct pair ever seen, so the merges' new pairs cost little (a big log makes millions). */
typedef struct {
    int32_t a, b;
    int64_t count;
    int32_t *w;            /* words listed for this pair; room for list_cap(wlen) */
    int32_t wlen;
    uint32_t mark : 29;    /* the epoch that last marked it: the ranking round that took it (the `got` set of
                              _ranked), or the merge that gained it (dedups its words within that merge) */
    uint32_t blocked : 2;  /* 0 not asked, 1 allowed, 2 forbidden */
    uint32_t removed : 1;  /* merged away: counts as absent (the pure trainer pops it) */
} Pair;

#define MAX_EPOCH ((1 << 29) - 1)
_Static_assert(sizeof(Pair) <= 32, "a Pair fits in 32 bytes");

#pragma pack(push, 4) /* 12 bytes, not 16: the heap holds one entry per pair and more */
typedef struct {
    int64_t count;
    int32_t pid;
} Entry;
#pragma pack(pop)

typedef struct {
    PyObject_HEAD
    int rule;
    /* words */
    int32_t *sym;
    int64_t nsym, capsym;
    uint32_t *off; /* 16 bytes a word with len and wcount, not 20 */
    int32_t *len;
    int64_t *wcount;
    int64_t nw, capw;
    /* pairs */
    Pair *pairs;
    int64_t npairs, cappairs;
    int32_t *table;
    int64_t tabcap; /* power of two */
    /* heap and set-aside runner-ups */
    Entry *heap;
    int64_t nheap, capheap;
    Entry *aside;
    int64_t naside, capaside;
    Entry *got;
    int64_t ngot, capgot;
    int32_t epoch; /* one per ranking round and per merge: what Pair.mark is compared with */
    int32_t *gained;
    int64_t ngained, capgained;
    int32_t *asked; /* forbidden pairs in the order they were asked */
    int64_t nasked, capasked;
    int64_t word_visits;
    /* tokens */
    uint32_t *units;
    int64_t nunits, capunits;
    int64_t *toff;
    int32_t *tlen;
    int64_t ntok, captok, captl;
    int built;
} Kernel;

/* ---- growable arrays ------------------------------------------------------------------------------- */
static int grow(void **p, int64_t *cap, int64_t need, size_t size) {
    if (need <= *cap) return 0;
    int64_t c = *cap ? *cap : 8;
    while (c < need) c += c / 2 + 8;
    void *q = PyMem_Realloc(*p, (size_t)c * size);
    if (q == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    *p = q;
    *cap = c;
    return 0;
}
#define GROW(arr, cap, need) grow((void **)&(arr), &(cap), (need), sizeof(*(arr)))

/* ---- pair hash --------------------------------------------------------------------------------------- */
static inline uint64_t mix(uint64_t x) {
    x ^= x >> 31;
    x *= 0x7fb5d329728ea185ULL;
    x ^= x >> 27;
    x *= 0x81dadef4bc2dd44dULL;
    x ^= x >> 33;
    return x;
}
static inline uint64_t pkey(int32_t a, int32_t b) { return ((uint64_t)(uint32_t)a << 32) | (uint32_t)b; }

static int32_t find_pair(Kernel *k, int32_t a, int32_t b) {
    if (k->tabcap == 0) return -1;
    uint64_t mask = (uint64_t)k->tabcap - 1, h = mix(pkey(a, b)) & mask;
    for (;;) {
        int32_t p = k->table[h];
        if (p < 0) return -1;
        if (k->pairs[p].a == a && k->pairs[p].b == b) return p;
        h = (h + 1) & mask;
    }
}

static int rehash(Kernel *k, int64_t cap) {
    int32_t *t = PyMem_Malloc((size_t)cap * sizeof(int32_t));
    if (t == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    memset(t, 0xff, (size_t)cap * sizeof(int32_t));
    uint64_t mask = (uint64_t)cap - 1;
    for (int64_t p = 0; p < k->npairs; p++) {
        uint64_t h = mix(pkey(k->pairs[p].a, k->pairs[p].b)) & mask;
        while (t[h] >= 0) h = (h + 1) & mask;
        t[h] = (int32_t)p;
    }
    PyMem_Free(k->table);
    k->table = t;
    k->tabcap = cap;
    return 0;
}

/* The number of pair (a, b), made (count 0, no words) if new; -1 on error. */
static int32_t get_pair(Kernel *k, int32_t a, int32_t b) {
    int32_t p = find_pair(k, a, b);
    if (p >= 0) return p;
    if (k->npairs >= INT32_MAX - 1) {
        PyErr_SetString(PyExc_MemoryError, "more than 2**31 distinct pairs");
        return -1;
    }
    if ((k->npairs + 1) * 2 > k->tabcap && rehash(k, k->tabcap ? k->tabcap * 2 : 1024) < 0) return -1;
    if (GROW(k->pairs, k->cappairs, k->npairs + 1) < 0) return -1;
    p = (int32_t)k->npairs++;
    Pair *q = &k->pairs[p];
    memset(q, 0, sizeof(Pair));
    q->a = a;
    q->b = b;
    uint64_t mask = (uint64_t)k->tabcap - 1, h = mix(pkey(a, b)) & mask;
    while (k->table[h] >= 0) h = (h + 1) & mask;
    k->table[h] = p;
    return p;
}

/* A word list's room, a function of its length (so no Pair stores it): 4, then doubling. */
static inline int64_t list_cap(int32_t n) {
    if (n == 0) return 0;
    int64_t c = 4;
    while (c < n) c *= 2;
    return c;
}

static int list_word(Pair *q, int32_t wi) {
    int32_t n = q->wlen;
    if (n == 0 || (n >= 4 && (n & (n - 1)) == 0)) { /* full: list_cap(n) == n */
        int64_t cap = n == 0 ? 4 : 2 * (int64_t)n;
        int32_t *w = PyMem_Realloc(q->w, (size_t)cap * sizeof(int32_t));
        if (w == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        q->w = w;
    }
    q->w[q->wlen++] = wi;
    return 0;
}

/* The next epoch; after 2**29 - 1 of them every mark is cleared and the count starts again. */
static void next_epoch(Kernel *k) {
    if (k->epoch == MAX_EPOCH) {
        for (int64_t p = 0; p < k->npairs; p++) k->pairs[p].mark = 0;
        k->epoch = 0;
    }
    k->epoch++;
}

static inline int64_t live(Kernel *k, int32_t p) { return k->pairs[p].removed ? 0 : k->pairs[p].count; }

/* ---- order ------------------------------------------------------------------------------------------- */
static int cmp_units(Kernel *k, int32_t x, int32_t y) {
    const uint32_t *u = k->units + k->toff[x], *v = k->units + k->toff[y];
    int32_t n = k->tlen[x], m = k->tlen[y];
    int32_t l = n < m ? n : m;
    for (int32_t i = 0; i < l; i++)
        if (u[i] != v[i]) return u[i] < v[i] ? -1 : 1;
    return n < m ? -1 : (n > m ? 1 : 0);
}

/* <0 when x comes first: higher count, then the rule's order of the two pairs. */
static int cmp_entry(Kernel *k, const Entry *x, const Entry *y) {
    if (x->count != y->count) return x->count > y->count ? -1 : 1;
    if (x->pid == y->pid) return 0;
    const Pair *p = &k->pairs[x->pid], *q = &k->pairs[y->pid];
    int c;
    switch (k->rule) {
    case RULE_LEXICAL:
        c = cmp_units(k, p->a, q->a);
        return c ? c : cmp_units(k, p->b, q->b);
    case RULE_SUBWORD_NMT:
        c = cmp_units(k, p->a, q->a);
        return -(c ? c : cmp_units(k, p->b, q->b));
    default:
        if (p->a != q->a) return p->a < q->a ? -1 : 1;
        return p->b < q->b ? -1 : (p->b > q->b ? 1 : 0);
    }
}

static int heap_push(Kernel *k, int64_t count, int32_t pid) {
    if (GROW(k->heap, k->capheap, k->nheap + 1) < 0) return -1;
    Entry e = {count, pid};
    int64_t i = k->nheap++;
    while (i > 0) {
        int64_t up = (i - 1) / 2;
        if (cmp_entry(k, &e, &k->heap[up]) >= 0) break;
        k->heap[i] = k->heap[up];
        i = up;
    }
    k->heap[i] = e;
    return 0;
}

static void sift_down(Kernel *k, int64_t i) {
    Entry e = k->heap[i];
    int64_t n = k->nheap;
    for (;;) {
        int64_t c = 2 * i + 1;
        if (c >= n) break;
        if (c + 1 < n && cmp_entry(k, &k->heap[c + 1], &k->heap[c]) < 0) c++;
        if (cmp_entry(k, &k->heap[c], &e) >= 0) break;
        k->heap[i] = k->heap[c];
        i = c;
    }
    k->heap[i] = e;
}

static Entry heap_pop(Kernel *k) {
    Entry top = k->heap[0];
    k->nheap--;
    if (k->nheap > 0) {
        k->heap[0] = k->heap[k->nheap];
        sift_down(k, 0);
    }
    return top;
}

static Kernel *sort_ctx;
static int cmp_sort(const void *x, const void *y) { return cmp_entry(sort_ctx, x, y); }

/* ---- object ------------------------------------------------------------------------------------------ */
static void Kernel_dealloc(Kernel *k) {
    for (int64_t p = 0; p < k->npairs; p++) PyMem_Free(k->pairs[p].w);
    PyMem_Free(k->sym);
    PyMem_Free(k->off);
    PyMem_Free(k->len);
    PyMem_Free(k->wcount);
    PyMem_Free(k->pairs);
    PyMem_Free(k->table);
    PyMem_Free(k->heap);
    PyMem_Free(k->aside);
    PyMem_Free(k->got);
    PyMem_Free(k->gained);
    PyMem_Free(k->asked);
    PyMem_Free(k->units);
    PyMem_Free(k->toff);
    PyMem_Free(k->tlen);
    Py_TYPE(k)->tp_free((PyObject *)k);
}

static int add_token(Kernel *k, PyObject *tok) {
    if (!PyBytes_Check(tok) && !PyUnicode_Check(tok)) {
        PyErr_SetString(PyExc_TypeError, "a token is str or bytes");
        return -1;
    }
    if (k->rule == RULE_HF) { /* ids order the pairs: the units are never compared, so not kept */
        k->ntok++;
        return 0;
    }
    if (GROW(k->toff, k->captok, k->ntok + 1) < 0) return -1;
    if (GROW(k->tlen, k->captl, k->ntok + 1) < 0) return -1;
    Py_ssize_t n;
    if (PyBytes_Check(tok)) {
        n = PyBytes_GET_SIZE(tok);
        if (GROW(k->units, k->capunits, k->nunits + n) < 0) return -1;
        const unsigned char *s = (const unsigned char *)PyBytes_AS_STRING(tok);
        for (Py_ssize_t i = 0; i < n; i++) k->units[k->nunits + i] = s[i];
    } else if (PyUnicode_Check(tok)) {
        n = PyUnicode_GET_LENGTH(tok);
        if (GROW(k->units, k->capunits, k->nunits + n) < 0) return -1;
        int kind = PyUnicode_KIND(tok);
        const void *d = PyUnicode_DATA(tok);
        for (Py_ssize_t i = 0; i < n; i++) k->units[k->nunits + i] = PyUnicode_READ(kind, d, i);
    } else {
        PyErr_SetString(PyExc_TypeError, "a token is str or bytes");
        return -1;
    }
    k->toff[k->ntok] = k->nunits;
    k->tlen[k->ntok] = (int32_t)n;
    k->nunits += n;
    k->ntok++;
    return 0;
}

static int Kernel_init(Kernel *k, PyObject *args, PyObject *kw) {
    static char *names[] = {"rule", "tokens", NULL};
    int rule;
    PyObject *tokens;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "iO!", names, &rule, &PyList_Type, &tokens)) return -1;
    if (rule < RULE_HF || rule > RULE_SUBWORD_NMT) {
        PyErr_SetString(PyExc_ValueError, "rule is 0 (hf), 1 (lexical) or 2 (subword-nmt)");
        return -1;
    }
    if (k->ntok || k->nw) {
        PyErr_SetString(PyExc_RuntimeError, "a Kernel is initialised once");
        return -1;
    }
    k->rule = rule;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(tokens); i++)
        if (add_token(k, PyList_GET_ITEM(tokens, i)) < 0) return -1;
    return 0;
}

/* Room for n more words (their offsets, lengths and counts); -1 on error. */
static int reserve_words(Kernel *k, Py_ssize_t n) {
    if (k->nw + n >= INT32_MAX) {
        PyErr_SetString(PyExc_MemoryError, "more than 2**31 distinct words");
        return -1;
    }
    int64_t cap = k->capw; /* the three arrays share one capacity: each grows from it to the same size */
    if (GROW(k->off, cap, k->nw + n) < 0) return -1;
    cap = k->capw;
    if (grow((void **)&k->len, &cap, k->nw + n, sizeof(int32_t)) < 0) return -1;
    cap = k->capw;
    if (GROW(k->wcount, cap, k->nw + n) < 0) return -1;
    k->capw = cap;
    return 0;
}

/* Room for L more symbols in the words' buffer; -1 on error (also past 2**32 - 1 symbols in all). */
static int room_for_symbols(Kernel *k, Py_ssize_t L) {
    if (k->nsym + L > (int64_t)UINT32_MAX) {
        PyErr_SetString(PyExc_MemoryError, "more than 2**32 - 1 symbols in the distinct words -- train on a "
                                           "part of the corpus, or with a pre-tokenizer that splits it finer");
        return -1;
    }
    return GROW(k->sym, k->capsym, k->nsym + L);
}

/* The word of L symbols just written at sym[nsym..] becomes word nw, of weight c; its symbols times c. */
static int64_t push_word(Kernel *k, int32_t L, int64_t c) {
    k->off[k->nw] = (uint32_t)k->nsym;
    k->len[k->nw] = L;
    k->wcount[k->nw] = c;
    k->nsym += L;
    k->nw++;
    return (int64_t)L * c;
}

/* add_words(words, counts) -> symbols added (sum of length * count).  A word is a str whose characters are
 * chr(token id) (pair_index.word_strings); words of one symbol are kept (they hold no pair). */
static PyObject *Kernel_add_words(Kernel *k, PyObject *args) {
    PyObject *words, *counts;
    if (!PyArg_ParseTuple(args, "O!O!", &PyList_Type, &words, &PyList_Type, &counts)) return NULL;
    if (k->built) {
        PyErr_SetString(PyExc_RuntimeError, "add_words after build");
        return NULL;
    }
    Py_ssize_t n = PyList_GET_SIZE(words);
    if (PyList_GET_SIZE(counts) != n) {
        PyErr_SetString(PyExc_ValueError, "words and counts differ in length");
        return NULL;
    }
    if (reserve_words(k, n) < 0) return NULL;
    int64_t added = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *w = PyList_GET_ITEM(words, i);
        if (!PyUnicode_Check(w)) {
            PyErr_SetString(PyExc_TypeError, "a word is a str of token ids");
            return NULL;
        }
        long long c = PyLong_AsLongLong(PyList_GET_ITEM(counts, i));
        if (c == -1 && PyErr_Occurred()) return NULL;
        Py_ssize_t L = PyUnicode_GET_LENGTH(w);
        if (L > INT32_MAX) {
            PyErr_SetString(PyExc_MemoryError, "a word of more than 2**31 symbols");
            return NULL;
        }
        if (room_for_symbols(k, L) < 0) return NULL;
        int kind = PyUnicode_KIND(w);
        const void *d = PyUnicode_DATA(w);
        int32_t *s = k->sym + k->nsym;
        for (Py_ssize_t j = 0; j < L; j++) {
            Py_UCS4 id = PyUnicode_READ(kind, d, j);
            if ((int64_t)id >= k->ntok) {
                PyErr_SetString(PyExc_ValueError, "a word holds an unknown token id");
                return NULL;
            }
            s[j] = (int32_t)id;
        }
        added += push_word(k, (int32_t)L, c);
    }
    return PyLong_FromLongLong(added);
}

/* add_table(table, byte_ids) -> symbols added: the words of a count table {piece: count} in bytes mode, in
 * the table's order, skipping empty pieces and counts <= 0; a piece's symbols are byte_ids[b] for each byte b
 * of its UTF-8 form (surrogateescape: lone surrogates stand for the bytes they escaped).  The same words as
 * pair_index.word_strings, without a temporary str per piece. */
static PyObject *Kernel_add_table(Kernel *k, PyObject *args) {
    PyObject *table, *byte_ids;
    if (!PyArg_ParseTuple(args, "O!O!", &PyDict_Type, &table, &PyBytes_Type, &byte_ids)) return NULL;
    if (k->built) {
        PyErr_SetString(PyExc_RuntimeError, "add_table after build");
        return NULL;
    }
    if (PyBytes_GET_SIZE(byte_ids) != 256) {
        PyErr_SetString(PyExc_ValueError, "byte_ids maps the 256 bytes");
        return NULL;
    }
    const unsigned char *map = (const unsigned char *)PyBytes_AS_STRING(byte_ids);
    for (int i = 0; i < 256; i++)
        if (map[i] >= k->ntok) {
            PyErr_SetString(PyExc_ValueError, "byte_ids names an unknown token id");
            return NULL;
        }
    Py_ssize_t n = PyDict_GET_SIZE(table);
    if (reserve_words(k, n) < 0) return NULL;
    Py_ssize_t pos = 0;
    PyObject *key, *value;
    int64_t added = 0;
    while (PyDict_Next(table, &pos, &key, &value)) {
        if (!PyUnicode_Check(key)) {
            PyErr_SetString(PyExc_TypeError, "a piece is a str");
            return NULL;
        }
        long long c = PyLong_AsLongLong(value);
        if (c == -1 && PyErr_Occurred()) return NULL;
        if (c <= 0 || PyUnicode_GET_LENGTH(key) == 0) continue;
        Py_ssize_t L;
        PyObject *escaped = NULL;
        const char *u = PyUnicode_AsUTF8AndSize(key, &L);
        if (u == NULL) { /* lone surrogates: the bytes they escaped */
            PyErr_Clear();
            escaped = PyUnicode_AsEncodedString(key, "utf-8", "surrogateescape");
            if (escaped == NULL) return NULL;
            u = PyBytes_AS_STRING(escaped);
            L = PyBytes_GET_SIZE(escaped);
        }
        if (L > INT32_MAX || room_for_symbols(k, L) < 0) {
            Py_XDECREF(escaped);
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_MemoryError, "a word of more than 2**31 symbols");
            return NULL;
        }
        int32_t *s = k->sym + k->nsym;
        for (Py_ssize_t j = 0; j < L; j++) s[j] = map[(unsigned char)u[j]];
        Py_XDECREF(escaped);
        added += push_word(k, (int32_t)L, c);
    }
    return PyLong_FromLongLong(added);
}

/* build(): count every pair, index its words, fill the heap.  Called once, after the last add_words. */
static PyObject *Kernel_build(Kernel *k, PyObject *Py_UNUSED(ignored)) {
    if (k->built) {
        PyErr_SetString(PyExc_RuntimeError, "build called twice");
        return NULL;
    }
    for (int64_t wi = 0; wi < k->nw; wi++) {
        const int32_t *s = k->sym + k->off[wi];
        int64_t f = k->wcount[wi];
        for (int32_t i = 0; i + 1 < k->len[wi]; i++) {
            int32_t p = get_pair(k, s[i], s[i + 1]);
            if (p < 0) return NULL;
            Pair *q = &k->pairs[p];
            q->count += f;
            if ((q->wlen == 0 || q->w[q->wlen - 1] != (int32_t)wi) && list_word(q, (int32_t)wi) < 0) return NULL;
        }
    }
    /* the words never grow again: give back the arrays' slack */
    if (k->nsym > 0 && k->nsym < k->capsym) {
        void *q = PyMem_Realloc(k->sym, (size_t)k->nsym * sizeof(int32_t));
        if (q != NULL) {
            k->sym = q;
            k->capsym = k->nsym;
        }
    }
    if (k->nw > 0 && k->nw < k->capw) {
        void *o = PyMem_Realloc(k->off, (size_t)k->nw * sizeof(uint32_t));
        if (o != NULL) k->off = o;
        void *l = PyMem_Realloc(k->len, (size_t)k->nw * sizeof(int32_t));
        if (l != NULL) k->len = l;
        void *c = PyMem_Realloc(k->wcount, (size_t)k->nw * sizeof(int64_t));
        if (c != NULL) k->wcount = c;
        if (o != NULL && l != NULL && c != NULL) k->capw = k->nw; /* else some keep their slack: capw stays */
    }
    if (GROW(k->heap, k->capheap, k->npairs) < 0) return NULL;
    for (int64_t p = 0; p < k->npairs; p++) {
        k->heap[p].count = k->pairs[p].count;
        k->heap[p].pid = (int32_t)p;
    }
    k->nheap = k->npairs;
    for (int64_t i = k->nheap / 2 - 1; i >= 0; i--) sift_down(k, i);
    k->built = 1;
    Py_RETURN_NONE;
}

/* 1 forbidden, 0 not, -1 error (asks *blocked*(left, right) once per pair). */
static int is_blocked(Kernel *k, int32_t p, PyObject *blocked) {
    Pair *q = &k->pairs[p];
    if (q->blocked) return q->blocked == 2;
    PyObject *r = PyObject_CallFunction(blocked, "ii", (int)q->a, (int)q->b);
    if (r == NULL) return -1;
    int t = PyObject_IsTrue(r);
    Py_DECREF(r);
    if (t < 0) return -1;
    q = &k->pairs[p];
    q->blocked = t ? 2 : 1;
    if (t) {
        if (GROW(k->asked, k->capasked, k->nasked + 1) < 0) return -1;
        k->asked[k->nasked++] = p;
    }
    return t;
}

static int take(Kernel *k, Entry e) {
    if (GROW(k->got, k->capgot, k->ngot + 1) < 0) return -1;
    k->got[k->ngot++] = e;
    k->pairs[e.pid].mark = (uint32_t)k->epoch;
    return 0;
}

/* _ranked: valid entries of the best pairs, best first, in k->got. */
static int ranked(Kernel *k, PyObject *blocked) {
    const int64_t need = 1 + CONTENDERS;
    k->ngot = 0;
    next_epoch(k);
    for (int64_t i = 0; i < k->naside; i++) {
        Entry e = k->aside[i];
        int64_t n = live(k, e.pid);
        if (n == e.count) {
            if (take(k, e) < 0) return -1;
        } else if (n > 0 && heap_push(k, n, e.pid) < 0) {
            return -1;
        }
    }
    k->naside = 0;
    Entry worst = {0, -1};
    if (k->ngot >= need) {
        worst = k->got[0];
        for (int64_t i = 1; i < k->ngot; i++)
            if (cmp_entry(k, &k->got[i], &worst) > 0) worst = k->got[i];
    }
    while (k->nheap > 0) {
        if (worst.pid >= 0 && cmp_entry(k, &k->heap[0], &worst) >= 0) break;
        Entry e = heap_pop(k);
        int64_t n = live(k, e.pid);
        if (n <= 0) continue;
        if (blocked != Py_None) {
            int b = is_blocked(k, e.pid, blocked);
            if (b < 0) return -1;
            if (b) continue;
        }
        if (n != e.count) {
            if (heap_push(k, n, e.pid) < 0) return -1;
        } else if (k->pairs[e.pid].mark != (uint32_t)k->epoch) {
            if (take(k, e) < 0) return -1;
            if (worst.pid < 0) {
                if (k->ngot >= need) {
                    worst = k->got[0];
                    for (int64_t i = 1; i < k->ngot; i++)
                        if (cmp_entry(k, &k->got[i], &worst) > 0) worst = k->got[i];
                }
            } else if (cmp_entry(k, &e, &worst) > 0) {
                worst = e;
            }
        }
    }
    sort_ctx = k;
    if (k->ngot > 1) qsort(k->got, (size_t)k->ngot, sizeof(Entry), cmp_sort);
    return 0;
}

static int set_aside(Kernel *k, const Entry *from, int64_t n) {
    if (GROW(k->aside, k->capaside, n) < 0) return -1;
    memcpy(k->aside, from, (size_t)n * sizeof(Entry));
    k->naside = n;
    return 0;
}

/* The step's choice: rank the best pairs (k->got) and settle which wait aside and which go back to the heap.
 * -1 error; 0 no pair left; 1 the best count is below min_frequency (then all of them wait aside); 2 chosen:
 * the winner is k->got[0] and its *nbest* runner-ups follow it in k->got (valid until the next ranking). */
static int choose(Kernel *k, long long min_frequency, PyObject *blocked, int64_t *nbest) {
    if (ranked(k, blocked) < 0) return -1;
    if (k->ngot == 0) return 0;
    Entry top = k->got[0];
    if (top.count < min_frequency) return set_aside(k, k->got, k->ngot) < 0 ? -1 : 1;
    int64_t keep = CONTENDERS;
    if (k->ngot > keep + 1 && k->got[keep + 1].count == top.count) {
        keep = 0;
        for (int64_t i = 0; i < k->ngot; i++) keep += k->got[i].count == top.count;
        keep -= 1;
    }
    if (keep > k->ngot - 1) keep = k->ngot - 1;
    *nbest = k->ngot - 1 < CONTENDERS ? k->ngot - 1 : CONTENDERS;
    for (int64_t i = keep + 1; i < k->ngot; i++)
        if (heap_push(k, k->got[i].count, k->got[i].pid) < 0) return -1;
    return set_aside(k, k->got + 1, keep) < 0 ? -1 : 2;
}

/* step(min_frequency, blocked) -> None when no pair is left, else (left, right, count, contenders), where
 * contenders lists the runner-ups as (left, right, count), or is None when count is below min_frequency
 * (then nothing is chosen: the best pairs wait aside).  *blocked* is None or a callable (left, right) -> bool. */
static PyObject *Kernel_step(Kernel *k, PyObject *args) {
    long long min_frequency;
    PyObject *blocked;
    if (!PyArg_ParseTuple(args, "LO", &min_frequency, &blocked)) return NULL;
    if (!k->built) {
        PyErr_SetString(PyExc_RuntimeError, "step before build");
        return NULL;
    }
    int64_t nbest = 0;
    int got = choose(k, min_frequency, blocked, &nbest);
    if (got < 0) return NULL;
    if (got == 0) Py_RETURN_NONE;
    Entry top = k->got[0];
    Pair *q = &k->pairs[top.pid];
    if (got == 1) return Py_BuildValue("iiLO", (int)q->a, (int)q->b, (long long)top.count, Py_None);
    PyObject *best = PyList_New(nbest);
    if (best == NULL) return NULL;
    for (int64_t i = 0; i < nbest; i++) {
        const Entry *e = &k->got[1 + i];
        PyObject *t = Py_BuildValue("iiL", (int)k->pairs[e->pid].a, (int)k->pairs[e->pid].b, (long long)e->count);
        if (t == NULL) {
            Py_DECREF(best);
            return NULL;
        }
        PyList_SET_ITEM(best, i, t);
    }
    q = &k->pairs[top.pid];
    return Py_BuildValue("iiLN", (int)q->a, (int)q->b, (long long)top.count, best);
}

/* One occurrence of pair (x, y) more in word wi, of weight f, during the merge of epoch k->epoch. */
static int gain(Kernel *k, int32_t x, int32_t y, int32_t wi, int64_t f) {
    int32_t p = get_pair(k, x, y);
    if (p < 0) return -1;
    Pair *q = &k->pairs[p];
    if (q->removed) {
        q->removed = 0;
        q->count = 0;
    }
    q->count += f;
    if (q->mark != (uint32_t)k->epoch) {
        q->mark = (uint32_t)k->epoch;
        if (GROW(k->gained, k->capgained, k->ngained + 1) < 0) return -1;
        k->gained[k->ngained++] = p;
        return list_word(&k->pairs[p], wi);
    }
    if (q->w[q->wlen - 1] != wi) return list_word(q, wi);
    return 0;
}

static inline void lose(Kernel *k, int32_t x, int32_t y, int64_t f) {
    int32_t p = find_pair(k, x, y); /* always there: the pair was counted */
    if (p >= 0) k->pairs[p].count -= f;
}

/* The merge of pair (a, b) into token c (its units from *token* when c is new): every word the index lists
 * for the pair is rewritten left to right without overlaps, with +/- deltas to the neighbouring pairs.
 * Sets the occurrences replaced and the words touched; -1 on error. */
static int do_merge(Kernel *k, int32_t a, int32_t b, int32_t c, PyObject *token, int64_t *merged_out,
                    int64_t *touched_out) {
    if (c == k->ntok && add_token(k, token) < 0) return -1;
    int32_t ab = find_pair(k, a, b);
    *merged_out = *touched_out = 0;
    if (ab < 0 || k->pairs[ab].removed) return 0;
    next_epoch(k);
    k->ngained = 0;
    int32_t *list = k->pairs[ab].w;
    int32_t nlist = k->pairs[ab].wlen;
    k->pairs[ab].w = NULL;
    k->pairs[ab].wlen = 0;
    k->word_visits += nlist;
    int64_t merged = 0, touched = 0;
    int err = 0;
    for (int32_t li = 0; li < nlist && !err; li++) {
        int32_t wi = list[li];
        int32_t *s = k->sym + k->off[wi];
        int32_t L = k->len[wi];
        int64_t f = k->wcount[wi];
        int32_t r = 0, o = 0, prev_end = 0, prev_old = -1;
        int64_t hits = 0;
        /* most listed words hold the pair: no separate search first */
        while (r < L) {
            if (r + 1 < L && s[r] == a && s[r + 1] == b) {
                if (r != prev_end) { /* left side: (x, a) becomes (x, c) */
                    lose(k, prev_old, a, f);
                    if (gain(k, prev_old, c, wi, f) < 0) { err = 1; break; }
                }
                if (r < L - 2) { /* right side: (b, q) goes; (c, q) or (c, c) when the next hit starts at q */
                    lose(k, b, s[r + 2], f);
                    int32_t nxt = (r + 3 < L && s[r + 2] == a && s[r + 3] == b) ? c : s[r + 2];
                    if (gain(k, c, nxt, wi, f) < 0) { err = 1; break; }
                }
                s[o++] = c;
                prev_old = b;
                r += 2;
                prev_end = r;
                hits++;
            } else {
                prev_old = s[r];
                s[o++] = s[r++];
            }
        }
        if (err) break;
        k->len[wi] = o;
        if (hits) {
            touched++;
            merged += hits * f;
        }
    }
    PyMem_Free(list);
    if (err) return -1;
    k->pairs[ab].count = 0;
    k->pairs[ab].removed = 1;
    for (int64_t i = 0; i < k->ngained; i++) {
        int32_t p = k->gained[i];
        if (heap_push(k, k->pairs[p].count, p) < 0) return -1;
    }
    *merged_out = merged;
    *touched_out = touched;
    return 0;
}


/* merge(left, right, new, token) -> (merged, words_touched): do_merge.  *new* is the merged token's id; when it
 * equals the number of tokens so far, the token is new and *token* (str or bytes) is its units. */
static PyObject *Kernel_merge(Kernel *k, PyObject *args) {
    int a, b, c;
    PyObject *token;
    if (!PyArg_ParseTuple(args, "iiiO", &a, &b, &c, &token)) return NULL;
    if (!k->built) {
        PyErr_SetString(PyExc_RuntimeError, "merge before build");
        return NULL;
    }
    if (c < 0 || c > k->ntok || a < 0 || b < 0 || a >= k->ntok || b >= k->ntok) {
        PyErr_SetString(PyExc_ValueError, "token id out of range");
        return NULL;
    }
    int64_t merged, touched;
    if (do_merge(k, a, b, c, token, &merged, &touched) < 0) return NULL;
    return Py_BuildValue("LL", (long long)merged, (long long)touched);
}

/* ---- many merges per call ------------------------------------------------------------------------------ */
enum { RUN_LIMIT = 0, RUN_NO_PAIR = 1, RUN_BELOW = 2, RUN_TOO_MANY = 3, RUN_ERROR = 4 };
/* A RecordLog row (records.py): 8 int32s (rank, left, right, token -- the texts numbered by id --, the three
 * ids, the vocabulary size) and 5 int64s (count, merged, symbols_after, words_touched, where its contenders
 * start); a contender: its two ids (int32) and its count (int64). */
#define SMALL 8
#define BIG 5
#define MAX_TOKENS 0x10FFFF /* TrainerBase._new_token's bound */

/* The Python side of one merge, as TrainerBase._new_token does it: the merged token's id (added to tokens,
 * texts and ids when new) and the merge appended to *merges*; -1 on error, -2 when a new token would pass
 * MAX_TOKENS (nothing changed then).  *tok* gets a new reference to the merged token. */
static int new_token(int32_t a, int32_t b, PyObject *tokens, PyObject *texts, PyObject *ids, PyObject *merges,
                     PyObject **tok, int32_t *c) {
    *tok = PySequence_Concat(PyList_GET_ITEM(tokens, a), PyList_GET_ITEM(tokens, b));
    if (*tok == NULL) return -1;
    PyObject *known = PyDict_GetItemWithError(ids, *tok);
    if (known != NULL) {
        long v = PyLong_AsLong(known);
        if (v == -1 && PyErr_Occurred()) return -1;
        *c = (int32_t)v;
    } else {
        if (PyErr_Occurred()) return -1;
        Py_ssize_t n = PyList_GET_SIZE(tokens);
        if (n > MAX_TOKENS) return -2;
        PyObject *id = PyLong_FromSsize_t(n);
        if (id == NULL) return -1;
        int bad = PyDict_SetItem(ids, *tok, id);
        Py_DECREF(id);
        if (bad < 0 || PyList_Append(tokens, *tok) < 0) return -1;
        PyObject *text = PyUnicode_Concat(PyList_GET_ITEM(texts, a), PyList_GET_ITEM(texts, b));
        if (text == NULL) return -1;
        bad = PyList_Append(texts, text);
        Py_DECREF(text);
        if (bad < 0) return -1;
        *c = (int32_t)n;
    }
    /* the pair's two ints are the ones *ids* holds (not two more objects per merge) */
    PyObject *ia = PyDict_GetItemWithError(ids, PyList_GET_ITEM(tokens, a));
    PyObject *ib = ia == NULL ? NULL : PyDict_GetItemWithError(ids, PyList_GET_ITEM(tokens, b));
    if (ib == NULL || PyLong_AsLong(ia) != a || PyLong_AsLong(ib) != b) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "ids must map every token to its id");
        return -1;
    }
    PyObject *pair = PyTuple_Pack(2, ia, ib);
    if (pair == NULL) return -1;
    int bad = PyList_Append(merges, pair);
    Py_DECREF(pair);
    return bad;
}

/* run(limit, max_vocab, specials, min_frequency, blocked, tokens, texts, ids, merges, symbols, contender_base)
 *   -> (small, big, names, counts, status, count, symbols)
 * Up to *limit* merges, each exactly a step() and a merge() with TrainerBase's bookkeeping between them
 * (_new_token: *tokens*, *texts*, *ids* and *merges* are the trainer's and the model's, changed in place), and
 * its record written as a RecordLog row numbered by token id (records.py): *small* and *big* the rows' two
 * parts, *names* and *counts* the runner-ups' (native ints); *symbols* is the corpus size before the first and
 * after the last, *contender_base* how many contenders the log holds before this call's.  It stops before a
 * merge when len(tokens) + specials reaches *max_vocab* or *limit* merges are made (status RUN_LIMIT), when no
 * pair is left (RUN_NO_PAIR), when the best count is below *min_frequency* (RUN_BELOW, that *count*), or when
 * a new token would pass MAX_TOKENS (RUN_TOO_MANY); the rows made until then are returned in every case,
 * also when something raised before a merge (the forbid rule): then the status is RUN_ERROR and *count* is
 * the exception, for the caller to raise once it has the rows. */
static PyObject *Kernel_run(Kernel *k, PyObject *args) {
    long long limit, max_vocab, specials, min_frequency, symbols, cbase;
    PyObject *blocked, *tokens, *texts, *ids, *merges;
    if (!PyArg_ParseTuple(args, "LLLLOO!O!O!O!LL", &limit, &max_vocab, &specials, &min_frequency, &blocked,
                          &PyList_Type, &tokens, &PyList_Type, &texts, &PyDict_Type, &ids, &PyList_Type, &merges,
                          &symbols, &cbase))
        return NULL;
    if (!k->built) {
        PyErr_SetString(PyExc_RuntimeError, "run before build");
        return NULL;
    }
    if (PyList_GET_SIZE(tokens) != k->ntok || PyList_GET_SIZE(texts) != k->ntok) {
        PyErr_SetString(PyExc_ValueError, "tokens and texts must be the kernel's tokens, by id");
        return NULL;
    }
    int32_t *small = NULL, *names = NULL;
    int64_t *big = NULL, *counts = NULL, nrows = 0, capsmall = 0, capbig = 0, ncont = 0, capnames = 0, capcounts = 0;
    int status = RUN_LIMIT;
    long long below = 0;
    PyObject *out = NULL, *raised = NULL;
    for (long long done = 0; done < limit; done++) {
        if (PyList_GET_SIZE(tokens) + specials >= max_vocab) break;
        int64_t nbest = 0;
        int got = choose(k, min_frequency, blocked, &nbest);
        if (got < 0) { /* before this merge: the ones made are whole, and their rows go back with the error */
            PyObject *type, *tb;
            PyErr_Fetch(&type, &raised, &tb);
            PyErr_NormalizeException(&type, &raised, &tb);
            if (raised != NULL && tb != NULL) PyException_SetTraceback(raised, tb);
            Py_XDECREF(type);
            Py_XDECREF(tb);
            if (raised == NULL) goto done;
            status = RUN_ERROR;
            break;
        }
        if (got == 0) {
            status = RUN_NO_PAIR;
            break;
        }
        Entry top = k->got[0];
        if (got == 1) {
            status = RUN_BELOW;
            below = top.count;
            break;
        }
        int32_t a = k->pairs[top.pid].a, b = k->pairs[top.pid].b, c;
        PyObject *tok = NULL;
        int made = new_token(a, b, tokens, texts, ids, merges, &tok, &c);
        if (made == -2) {
            Py_XDECREF(tok);
            status = RUN_TOO_MANY;
            break;
        }
        int64_t merged = 0, touched = 0;
        if (made < 0 || do_merge(k, a, b, c, tok, &merged, &touched) < 0) {
            Py_XDECREF(tok);
            goto done;
        }
        Py_DECREF(tok);
        symbols -= merged;
        if (merged == 0) { /* cannot happen with consistent counts (TrainerBase._record's guard) */
            PyErr_Format(PyExc_RuntimeError, "internal error: pair (%d, %d) had count %lld but no occurrence", (int)a,
                         (int)b, (long long)top.count);
            goto done;
        }
        if (GROW(small, capsmall, (nrows + 1) * SMALL) < 0 || GROW(big, capbig, (nrows + 1) * BIG) < 0 ||
            GROW(names, capnames, 2 * (ncont + nbest)) < 0 || GROW(counts, capcounts, ncont + nbest) < 0)
            goto done;
        int32_t *s = small + nrows * SMALL;
        int64_t *g = big + nrows * BIG;
        s[0] = (int32_t)PyList_GET_SIZE(merges);
        s[1] = s[4] = a;
        s[2] = s[5] = b;
        s[3] = s[6] = c;
        s[7] = (int32_t)(PyList_GET_SIZE(tokens) + specials);
        g[0] = top.count;
        g[1] = merged;
        g[2] = symbols;
        g[3] = touched;
        g[4] = cbase + ncont;
        nrows++;
        for (int64_t i = 0; i < nbest; i++) {
            const Entry *e = &k->got[1 + i];
            names[2 * ncont] = k->pairs[e->pid].a;
            names[2 * ncont + 1] = k->pairs[e->pid].b;
            counts[ncont++] = e->count;
        }
    }
    {
        static const char none[1] = {0}; /* y# of a NULL buffer is None: an empty call gives b"" */
#define BUF(p) ((p) ? (const char *)(p) : none)
        PyObject *count = raised != NULL ? raised : PyLong_FromLongLong(below);
        if (count != NULL)
            out = Py_BuildValue("y#y#y#y#iNL", BUF(small), (Py_ssize_t)(nrows * SMALL * 4), BUF(big),
                                (Py_ssize_t)(nrows * BIG * 8), BUF(names), (Py_ssize_t)(ncont * 8), BUF(counts),
                                (Py_ssize_t)(ncont * 8), status, count, symbols);
        raised = NULL; /* N took the reference (or dropped it on failure) */
#undef BUF
    }
done:
    Py_XDECREF(raised);
    PyMem_Free(small);
    PyMem_Free(big);
    PyMem_Free(names);
    PyMem_Free(counts);
    return out;
}

/* count(left, right) -> the live count of a pair (0 when absent or merged). */
static PyObject *Kernel_count(Kernel *k, PyObject *args) {
    int a, b;
    if (!PyArg_ParseTuple(args, "ii", &a, &b)) return NULL;
    int32_t p = find_pair(k, a, b);
    return PyLong_FromLongLong(p < 0 ? 0 : live(k, p));
}

/* pair_counts() -> {(left, right): count} of every pair seen and not merged (may hold zeros). */
static PyObject *Kernel_pair_counts(Kernel *k, PyObject *Py_UNUSED(ignored)) {
    PyObject *d = PyDict_New();
    if (d == NULL) return NULL;
    for (int64_t p = 0; p < k->npairs; p++) {
        const Pair *q = &k->pairs[p];
        if (q->removed) continue;
        PyObject *key = Py_BuildValue("ii", (int)q->a, (int)q->b);
        PyObject *v = PyLong_FromLongLong(q->count);
        if (key == NULL || v == NULL || PyDict_SetItem(d, key, v) < 0) {
            Py_XDECREF(key);
            Py_XDECREF(v);
            Py_DECREF(d);
            return NULL;
        }
        Py_DECREF(key);
        Py_DECREF(v);
    }
    return d;
}

/* words() -> every word's current symbol ids, as lists (first-seen order). */
static PyObject *Kernel_words(Kernel *k, PyObject *Py_UNUSED(ignored)) {
    PyObject *out = PyList_New(k->nw);
    if (out == NULL) return NULL;
    for (int64_t wi = 0; wi < k->nw; wi++) {
        const int32_t *s = k->sym + k->off[wi];
        PyObject *w = PyList_New(k->len[wi]);
        if (w == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        for (int32_t i = 0; i < k->len[wi]; i++) {
            PyObject *v = PyLong_FromLong(s[i]);
            if (v == NULL) {
                Py_DECREF(w);
                Py_DECREF(out);
                return NULL;
            }
            PyList_SET_ITEM(w, i, v);
        }
        PyList_SET_ITEM(out, wi, w);
    }
    return out;
}

/* word_counts() -> every word's weight (first-seen order). */
static PyObject *Kernel_word_counts(Kernel *k, PyObject *Py_UNUSED(ignored)) {
    PyObject *out = PyList_New(k->nw);
    if (out == NULL) return NULL;
    for (int64_t wi = 0; wi < k->nw; wi++) {
        PyObject *v = PyLong_FromLongLong(k->wcount[wi]);
        if (v == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyList_SET_ITEM(out, wi, v);
    }
    return out;
}

/* forbidden() -> the forbidden pairs asked so far as (left, right, live count), in the order asked. */
static PyObject *Kernel_forbidden(Kernel *k, PyObject *Py_UNUSED(ignored)) {
    PyObject *out = PyList_New(k->nasked);
    if (out == NULL) return NULL;
    for (int64_t i = 0; i < k->nasked; i++) {
        int32_t p = k->asked[i];
        PyObject *t = Py_BuildValue("iiL", (int)k->pairs[p].a, (int)k->pairs[p].b, (long long)live(k, p));
        if (t == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyList_SET_ITEM(out, i, t);
    }
    return out;
}

/* nbytes() -> {part: bytes allocated} (capacities, not just the used part). */
static PyObject *Kernel_nbytes(Kernel *k, PyObject *Py_UNUSED(ignored)) {
    int64_t lists = 0;
    for (int64_t p = 0; p < k->npairs; p++) lists += list_cap(k->pairs[p].wlen) * 4;
    return Py_BuildValue(
        "{sLsLsLsLsLsL}", "symbols", (long long)(k->capsym * 4),
        "words", (long long)(k->capw * (4 + 4 + 8)), "pairs", (long long)(k->cappairs * (int64_t)sizeof(Pair)
        + k->tabcap * 4), "index", (long long)lists, "heap", (long long)(k->capheap * (int64_t)sizeof(Entry)),
        "tokens", (long long)(k->capunits * 4 + k->captok * 12));
}

static PyObject *Kernel_get_word_visits(Kernel *k, void *Py_UNUSED(closure)) {
    return PyLong_FromLongLong(k->word_visits);
}
static PyObject *Kernel_get_n_words(Kernel *k, void *Py_UNUSED(closure)) { return PyLong_FromLongLong(k->nw); }

static PyMethodDef Kernel_methods[] = {
    {"add_words", (PyCFunction)Kernel_add_words, METH_VARARGS, "add_words(words, counts) -> symbols added"},
    {"add_table", (PyCFunction)Kernel_add_table, METH_VARARGS, "add_table(table, byte_ids) -> symbols added"},
    {"build", (PyCFunction)Kernel_build, METH_NOARGS, "build(): count pairs, index words, fill the heap"},
    {"step", (PyCFunction)Kernel_step, METH_VARARGS, "step(min_frequency, blocked) -> the next winner or None"},
    {"merge", (PyCFunction)Kernel_merge, METH_VARARGS, "merge(left, right, new, token) -> (merged, touched)"},
    {"run", (PyCFunction)Kernel_run, METH_VARARGS,
     "run(limit, max_vocab, specials, min_frequency, blocked, tokens, texts, ids, merges, symbols, contender_base)"
     " -> (rows, contenders, status, count, symbols)"},
    {"count", (PyCFunction)Kernel_count, METH_VARARGS, "count(left, right) -> live count"},
    {"pair_counts", (PyCFunction)Kernel_pair_counts, METH_NOARGS, "{(left, right): count}"},
    {"words", (PyCFunction)Kernel_words, METH_NOARGS, "every word's symbol ids"},
    {"word_counts", (PyCFunction)Kernel_word_counts, METH_NOARGS, "every word's weight"},
    {"forbidden", (PyCFunction)Kernel_forbidden, METH_NOARGS, "forbidden pairs asked, in order"},
    {"nbytes", (PyCFunction)Kernel_nbytes, METH_NOARGS, "bytes allocated, by part"},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef Kernel_getset[] = {
    {"word_visits", (getter)Kernel_get_word_visits, NULL, "index entries read by merges", NULL},
    {"n_words", (getter)Kernel_get_n_words, NULL, "distinct words held", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject KernelType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "bpe_desktop.core.training._kernel.Kernel",
    .tp_doc = "The trainer's compact state and merge loop (see _kernel.c).",
    .tp_basicsize = sizeof(Kernel),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Kernel_init,
    .tp_dealloc = (destructor)Kernel_dealloc,
    .tp_methods = Kernel_methods,
    .tp_getset = Kernel_getset,
};

static struct PyModuleDef kernel_module = {
    PyModuleDef_HEAD_INIT, "_kernel", "The compiled training kernel (see kernel_trainer.py).", -1, NULL,
};

PyMODINIT_FUNC PyInit__kernel(void) {
    if (PyType_Ready(&KernelType) < 0) return NULL;
    PyObject *m = PyModule_Create(&kernel_module);
    if (m == NULL) return NULL;
    Py_INCREF(&KernelType);
    if (PyModule_AddObject(m, "Kernel", (PyObject *)&KernelType) < 0) {
        Py_DECREF(&KernelType);
        Py_DECREF(m);
        return NULL;
    }
    if (PyModule_AddIntConstant(m, "CONTENDERS", CONTENDERS) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
