/* The physical limit pocketbench's saturated runs are compared with: point reads over one
 * prepared statement, straight against the SQLite C API (the same bundled amalgamation
 * pocketbench links), default VFS, no clocks, no bookkeeping: bind, step, read every column,
 * reset. Compiled by build.rs; called by benches/saturation.rs. The prototypes are SQLite's
 * public ones, declared here so no header path is needed. */
#include <stddef.h>

typedef struct sqlite3 sqlite3;
typedef struct sqlite3_stmt sqlite3_stmt;
int sqlite3_open_v2(const char *filename, sqlite3 **db, int flags, const char *vfs);
int sqlite3_prepare_v2(sqlite3 *db, const char *sql, int n, sqlite3_stmt **stmt, const char **tail);
int sqlite3_bind_text(sqlite3_stmt *stmt, int i, const char *text, int n, void (*destructor)(void *));
int sqlite3_step(sqlite3_stmt *stmt);
int sqlite3_column_count(sqlite3_stmt *stmt);
const void *sqlite3_column_blob(sqlite3_stmt *stmt, int i);
int sqlite3_column_bytes(sqlite3_stmt *stmt, int i);
int sqlite3_reset(sqlite3_stmt *stmt);
int sqlite3_finalize(sqlite3_stmt *stmt);
int sqlite3_close(sqlite3 *db);

#define SQLITE_OK 0
#define SQLITE_ROW 100
#define SQLITE_OPEN_READWRITE 0x00000002
#define SQLITE_TRANSIENT ((void (*)(void *)) - 1)

/* Read `n` keys (`keys` holds them back to back, `lens` their lengths) from `path`'s
 * usertable. Returns 0, or the SQLite error code of the open or prepare that failed; `*sink`
 * receives a checksum of what was read so nothing is optimised away. */
int pb_bare_loop(const char *path, const char *keys, const int *lens, size_t n, size_t *sink) {
    sqlite3 *db = NULL;
    sqlite3_stmt *stmt = NULL;
    const char *sql = "SELECT * FROM usertable WHERE YCSB_KEY = ?";
    int rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL);
    if (rc != SQLITE_OK) {
        return rc;
    }
    rc = sqlite3_prepare_v2(db, sql, -1, &stmt, NULL);
    if (rc != SQLITE_OK) {
        sqlite3_close(db);
        return rc;
    }
    size_t acc = 0;
    for (size_t i = 0; i < n; i++) {
        sqlite3_bind_text(stmt, 1, keys, lens[i], SQLITE_TRANSIENT);
        keys += lens[i];
        while (sqlite3_step(stmt) == SQLITE_ROW) {
            int cols = sqlite3_column_count(stmt);
            for (int c = 0; c < cols; c++) {
                const void *p = sqlite3_column_blob(stmt, c);
                acc += (size_t)sqlite3_column_bytes(stmt, c) + (size_t)p;
            }
        }
        sqlite3_reset(stmt);
    }
    *sink = acc;
    sqlite3_finalize(stmt);
    sqlite3_close(db);
    return 0;
}
