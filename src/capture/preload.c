/* pocketbench capture's preload library (LD_PRELOAD): on every connection the program opens
 * through a shared libsqlite3 it registers sqlite3_trace_v2 (statement profile and close
 * events) and writes one JSON line per executed statement to the file named by
 * POCKETBENCH_CAPTURE_OUT (statement, profile and close events): start and duration in ns, pid, tid, connection, database path,
 * SQL as prepared and as expanded, typed bound arguments, rows changed, status.
 *
 * Every SQLite function is looked up at run time (RTLD_NEXT, else the already loaded
 * libsqlite3.so.0), so the library links nothing of SQLite and works with a libsqlite3 that
 * a program (Python's _sqlite3) loaded privately. Typed arguments come from interposing the
 * sqlite3_bind_* calls and remembering each statement's values. Lines are written with one
 * write() to an O_APPEND descriptor: safe across threads and fork. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

typedef struct sqlite3 sqlite3;
typedef struct sqlite3_stmt sqlite3_stmt;
typedef long long i64;

#define TRACE_STMT 0x01
#define TRACE_PROFILE 0x02
#define TRACE_CLOSE 0x08

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static void *lib;

static void *real(const char *name) {
    void *f = dlsym(RTLD_NEXT, name);
    if (f) return f;
    if (!lib) lib = dlopen("libsqlite3.so.0", RTLD_LAZY | RTLD_NOLOAD);
    if (!lib) lib = dlopen("libsqlite3.so", RTLD_LAZY | RTLD_NOLOAD);
    return lib ? dlsym(lib, name) : NULL;
}

#define REAL(ret, name, args) \
    static ret(*p)args; \
    if (!p) p = (ret(*)args)real(#name); \
    if (!p) abort();

/* ---------- a growing string ---------- */
typedef struct { char *s; size_t n, cap; } buf;
static void put(buf *b, const char *s, size_t n) {
    if (b->n + n + 1 > b->cap) {
        size_t c = b->cap ? b->cap * 2 : 1024;
        while (c < b->n + n + 1) c *= 2;
        char *t = realloc(b->s, c);
        if (!t) return;
        b->s = t; b->cap = c;
    }
    memcpy(b->s + b->n, s, n);
    b->n += n;
    b->s[b->n] = 0;
}
static void puts_(buf *b, const char *s) { put(b, s, strlen(s)); }
static void putf(buf *b, const char *fmt, ...) {
    char t[64];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(t, sizeof t, fmt, ap);
    va_end(ap);
    if (n > 0) put(b, t, (size_t)n < sizeof t ? (size_t)n : sizeof t - 1);
}
static void put_json(buf *b, const char *s, size_t n) {
    put(b, "\"", 1);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') { put(b, "\\", 1); put(b, (char *)&c, 1); }
        else if (c < 0x20) putf(b, "\\u%04x", c);
        else put(b, (char *)&c, 1);
    }
    put(b, "\"", 1);
}

static void flush_pending(int status);
static __thread sqlite3_stmt *pend_stmt;

/* ---------- bound values per statement ---------- */
#define SLOTS 4096
typedef struct { sqlite3_stmt *stmt; int n; char **vals; unsigned long long start; } slot;
static slot slots[SLOTS];

static slot *find(sqlite3_stmt *s, int create) {
    size_t h = ((uintptr_t)s >> 4) % SLOTS;
    for (size_t i = 0; i < SLOTS; i++) {
        slot *e = &slots[(h + i) % SLOTS];
        if (e->stmt == s) return e;
        if (!e->stmt) {
            if (!create) return NULL;
            e->stmt = s;
            return e;
        }
    }
    return NULL;
}
static void clear(slot *e) {
    for (int i = 0; i < e->n; i++) free(e->vals[i]);
    free(e->vals);
    e->vals = NULL;
    e->n = 0;
    e->start = 0;
}
static void remember(sqlite3_stmt *s, int i, buf *v) {
    pthread_mutex_lock(&lock);
    slot *e = find(s, 1);
    if (e && i >= 1 && i <= 32766) {
        if (i > e->n) {
            char **t = realloc(e->vals, sizeof(char *) * (size_t)i);
            if (t) {
                for (int k = e->n; k < i; k++) t[k] = NULL;
                e->vals = t;
                e->n = i;
            }
        }
        if (i <= e->n) {
            free(e->vals[i - 1]);
            e->vals[i - 1] = v->s;
            v->s = NULL;
        }
    }
    pthread_mutex_unlock(&lock);
    free(v->s);
}

int sqlite3_bind_int64(sqlite3_stmt *s, int i, i64 v) {
    REAL(int, sqlite3_bind_int64, (sqlite3_stmt *, int, i64));
    buf b = {0}; putf(&b, "%lld", v); remember(s, i, &b);
    return p(s, i, v);
}
int sqlite3_bind_int(sqlite3_stmt *s, int i, int v) {
    REAL(int, sqlite3_bind_int, (sqlite3_stmt *, int, int));
    buf b = {0}; putf(&b, "%d", v); remember(s, i, &b);
    return p(s, i, v);
}
int sqlite3_bind_double(sqlite3_stmt *s, int i, double v) {
    REAL(int, sqlite3_bind_double, (sqlite3_stmt *, int, double));
    buf b = {0};
    if (v != v || v > 1.7976931348623157e308 || v < -1.7976931348623157e308) puts_(&b, "null");
    else { putf(&b, "%.17g", v); if (!strpbrk(b.s, ".eE")) puts_(&b, ".0"); }
    remember(s, i, &b);
    return p(s, i, v);
}
int sqlite3_bind_null(sqlite3_stmt *s, int i) {
    REAL(int, sqlite3_bind_null, (sqlite3_stmt *, int));
    buf b = {0}; puts_(&b, "null"); remember(s, i, &b);
    return p(s, i);
}
static void text_arg(sqlite3_stmt *s, int i, const char *v, i64 n) {
    buf b = {0};
    if (!v) puts_(&b, "null");
    else put_json(&b, v, n < 0 ? strlen(v) : (size_t)n);
    remember(s, i, &b);
}
int sqlite3_bind_text(sqlite3_stmt *s, int i, const char *v, int n, void (*d)(void *)) {
    REAL(int, sqlite3_bind_text, (sqlite3_stmt *, int, const char *, int, void (*)(void *)));
    text_arg(s, i, v, n);
    return p(s, i, v, n, d);
}
int sqlite3_bind_text64(sqlite3_stmt *s, int i, const char *v, unsigned long long n,
                        void (*d)(void *), unsigned char enc) {
    REAL(int, sqlite3_bind_text64,
         (sqlite3_stmt *, int, const char *, unsigned long long, void (*)(void *), unsigned char));
    if (enc == 1) text_arg(s, i, v, (i64)n);
    return p(s, i, v, n, d, enc);
}
static void blob_arg(sqlite3_stmt *s, int i, const void *v, i64 n) {
    buf b = {0};
    puts_(&b, "{\"blob\":\"");
    for (i64 k = 0; v && k < n; k++) putf(&b, "%02x", ((const unsigned char *)v)[k]);
    puts_(&b, "\"}");
    remember(s, i, &b);
}
int sqlite3_bind_blob(sqlite3_stmt *s, int i, const void *v, int n, void (*d)(void *)) {
    REAL(int, sqlite3_bind_blob, (sqlite3_stmt *, int, const void *, int, void (*)(void *)));
    blob_arg(s, i, v, n);
    return p(s, i, v, n, d);
}
int sqlite3_bind_blob64(sqlite3_stmt *s, int i, const void *v, unsigned long long n,
                        void (*d)(void *)) {
    REAL(int, sqlite3_bind_blob64,
         (sqlite3_stmt *, int, const void *, unsigned long long, void (*)(void *)));
    blob_arg(s, i, v, (i64)n);
    return p(s, i, v, n, d);
}
int sqlite3_clear_bindings(sqlite3_stmt *s) {
    REAL(int, sqlite3_clear_bindings, (sqlite3_stmt *));
    pthread_mutex_lock(&lock);
    slot *e = find(s, 0);
    if (e) clear(e);
    pthread_mutex_unlock(&lock);
    return p(s);
}
int sqlite3_finalize(sqlite3_stmt *s) {
    REAL(int, sqlite3_finalize, (sqlite3_stmt *));
    pthread_mutex_lock(&lock);
    slot *e = find(s, 0);
    if (e) {
        /* Remove, re-inserting the rest of the probe chain. */
        clear(e);
        e->stmt = NULL;
        size_t at = (size_t)(e - slots);
        for (size_t k = (at + 1) % SLOTS; slots[k].stmt; k = (k + 1) % SLOTS) {
            slot moved = slots[k];
            slots[k].stmt = NULL;
            slot *d = find(moved.stmt, 1);
            if (d) { d->n = moved.n; d->vals = moved.vals; d->start = moved.start; }
        }
    }
    pthread_mutex_unlock(&lock);
    int rc = p(s);
    if (pend_stmt == s) flush_pending(0);
    return rc;
}

/* ---------- the trace callback ---------- */
static int out_fd = -1;

static void emit(buf *line) {
    if (out_fd < 0) {
        const char *path = getenv("POCKETBENCH_CAPTURE_OUT");
        if (!path) return;
        out_fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
        if (out_fd < 0) return;
    }
    if (line->s) (void)!write(out_fd, line->s, line->n);
}

static unsigned long long now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

/* The line of the statement whose profile event came last on this thread, until its outcome
 * is known. */
static __thread buf pend;
static __thread sqlite3 *pend_db;

/* Finish the pending line with `status` (-1: the connection's error code now, for a statement
 * that SQLite stepped from inside itself, out of the interposed calls' sight) and write it. */
static void flush_pending(int status) {
    if (!pend.s) return;
    if (status < 0) {
        static int (*errcode)(sqlite3 *);
        if (!errcode) errcode = (int (*)(sqlite3 *))real("sqlite3_errcode");
        status = pend_db && errcode ? errcode(pend_db) : 0;
    }
    putf(&pend, ",\"status\":%d}}\n", status);
    emit(&pend);
    free(pend.s);
    pend = (buf){0};
    pend_stmt = NULL;
    pend_db = NULL;
}

/* The real outcome of each step: the code sqlite3_step returned. */
int sqlite3_step(sqlite3_stmt *s) {
    REAL(int, sqlite3_step, (sqlite3_stmt *));
    if (pend.s && pend_stmt != s) flush_pending(-1);
    int rc = p(s);
    if (pend.s && pend_stmt == s) flush_pending(rc);
    return rc;
}

/* A statement reset or finalized before it ran to completion (a query whose rows were not all
 * read) ends there: its profile event comes from inside these calls, after rows it returned. */
int sqlite3_reset(sqlite3_stmt *s) {
    REAL(int, sqlite3_reset, (sqlite3_stmt *));
    int rc = p(s);
    if (pend.s && pend_stmt == s) flush_pending(0);
    return rc;
}

static int on_trace(unsigned type, void *ctx, void *pv, void *x) {
    (void)ctx;
    sqlite3_stmt *stmt = pv;
    if (type == TRACE_CLOSE) {
        flush_pending(-1);
        return 0;
    }
    if (type == TRACE_STMT) {
        /* The statement starts (its first step): note when, at ns resolution. */
        unsigned long long t = now_ns();
        pthread_mutex_lock(&lock);
        slot *e = find(stmt, 1);
        if (e) e->start = t;
        pthread_mutex_unlock(&lock);
        return 0;
    }
    if (type != TRACE_PROFILE) return 0;
    REAL(const char *, sqlite3_sql, (sqlite3_stmt *));
    static char *(*expanded)(sqlite3_stmt *);
    static void (*sfree)(void *);
    static sqlite3 *(*handle)(sqlite3_stmt *);
    static const char *(*filename)(sqlite3 *, const char *);
    static int (*readonly)(sqlite3_stmt *), (*changes)(sqlite3 *);
    if (!handle) {
        expanded = (char *(*)(sqlite3_stmt *))real("sqlite3_expanded_sql");
        sfree = (void (*)(void *))real("sqlite3_free");
        filename = (const char *(*)(sqlite3 *, const char *))real("sqlite3_db_filename");
        readonly = (int (*)(sqlite3_stmt *))real("sqlite3_stmt_readonly");
        changes = (int (*)(sqlite3 *))real("sqlite3_changes");
        handle = (sqlite3 * (*)(sqlite3_stmt *)) real("sqlite3_db_handle");
    }
    unsigned long long now = now_ns();
    /* SQLite's own profile time has millisecond resolution in many builds: prefer the start
     * noted at the statement event. */
    unsigned long long dur = x ? *(unsigned long long *)x : 0;
    pthread_mutex_lock(&lock);
    slot *st = find(stmt, 0);
    if (st && st->start && st->start <= now) dur = now - st->start;
    pthread_mutex_unlock(&lock);
    sqlite3 *db = handle ? handle(stmt) : NULL;
    const char *sql = p(stmt);
    buf b = {0};
    putf(&b, "{\"statement\":{\"t_ns\":%llu,\"dur_ns\":%llu", now - dur, dur);
    putf(&b, ",\"pid\":%d,\"tid\":%ld", (int)getpid(), (long)syscall(SYS_gettid));
    putf(&b, ",\"conn\":\"%p\"", (void *)db);
    const char *f = db && filename ? filename(db, "main") : NULL;
    if (f) { puts_(&b, ",\"db\":"); put_json(&b, f, strlen(f)); }
    puts_(&b, ",\"sql\":");
    put_json(&b, sql ? sql : "", sql ? strlen(sql) : 0);
    char *e = expanded ? expanded(stmt) : NULL;
    if (e) { puts_(&b, ",\"expanded\":"); put_json(&b, e, strlen(e)); if (sfree) sfree(e); }
    pthread_mutex_lock(&lock);
    slot *sl = find(stmt, 0);
    if (sl && sl->n > 0) {
        puts_(&b, ",\"args\":[");
        for (int i = 0; i < sl->n; i++) {
            if (i) puts_(&b, ",");
            puts_(&b, sl->vals[i] ? sl->vals[i] : "null");
        }
        puts_(&b, "]");
    }
    pthread_mutex_unlock(&lock);
    if (db && readonly && changes && !readonly(stmt)) putf(&b, ",\"rows\":%d", changes(db));
    /* The outcome is not known yet: SQLite calls this before it stores the step's result code
     * (a step that gave up on a lock reads 0 from sqlite3_errcode here). The line waits for
     * the interposed sqlite3_step (or reset/finalize) to return, which adds the code. */
    flush_pending(-1);
    pend = b;
    pend_stmt = stmt;
    pend_db = db;
    return 0;
}

/* A line still pending when the program ends (a statement SQLite stepped internally, last). */
__attribute__((destructor)) static void at_exit(void) { flush_pending(-1); }

static void watch(int rc, sqlite3 *db) {
    if (rc != 0 || !db) return;
    REAL(int, sqlite3_trace_v2, (sqlite3 *, unsigned, int (*)(unsigned, void *, void *, void *), void *));
    p(db, TRACE_STMT | TRACE_PROFILE | TRACE_CLOSE, on_trace, NULL);
}

/* The program's lock-wait setting, logged as the PRAGMA that sets the same thing, so the
 * import records it among the connection's settings. */
int sqlite3_busy_timeout(sqlite3 *db, int ms) {
    REAL(int, sqlite3_busy_timeout, (sqlite3 *, int));
    static const char *(*filename)(sqlite3 *, const char *);
    if (!filename) filename = (const char *(*)(sqlite3 *, const char *))real("sqlite3_db_filename");
    buf b = {0};
    putf(&b, "{\"statement\":{\"t_ns\":%llu,\"dur_ns\":0", now_ns());
    putf(&b, ",\"pid\":%d,\"tid\":%ld", (int)getpid(), (long)syscall(SYS_gettid));
    putf(&b, ",\"conn\":\"%p\"", (void *)db);
    const char *f = db && filename ? filename(db, "main") : NULL;
    if (f) { puts_(&b, ",\"db\":"); put_json(&b, f, strlen(f)); }
    putf(&b, ",\"sql\":\"PRAGMA busy_timeout = %d\"}}\n", ms);
    emit(&b);
    free(b.s);
    return p(db, ms);
}

int sqlite3_open_v2(const char *name, sqlite3 **db, int flags, const char *vfs) {
    REAL(int, sqlite3_open_v2, (const char *, sqlite3 **, int, const char *));
    int rc = p(name, db, flags, vfs);
    watch(rc, *db);
    return rc;
}
int sqlite3_open(const char *name, sqlite3 **db) {
    REAL(int, sqlite3_open, (const char *, sqlite3 **));
    int rc = p(name, db);
    watch(rc, *db);
    return rc;
}
int sqlite3_open16(const void *name, sqlite3 **db) {
    REAL(int, sqlite3_open16, (const void *, sqlite3 **));
    int rc = p(name, db);
    watch(rc, *db);
    return rc;
}
