/* The file-system call recorder of `pocketbench durability` (power loss from a recording).
 *
 * Loaded with LD_PRELOAD into the workload process. Every call that changes what a power
 * failure can leave behind, on a path under $POCKETBENCH_REC_ROOT, is appended to the binary
 * log $POCKETBENCH_REC_LOG (format: src/durability/fsrec/mod.rs): opens and creations,
 * writes with their data and offset, truncates, syncs of files and of directories, renames,
 * unlinks, links, mkdir and rmdir. Writes to $POCKETBENCH_REC_ACKS (the acknowledgement log,
 * one line per acknowledged commit) become acknowledgement records, so the log says which
 * acknowledgement every call preceded.
 *
 * A write through a descriptor opened with O_DSYNC or O_SYNC is recorded as a write and a
 * sync. Syncs are recorded but not performed: the recording run needs no durability, and skipping
 * them keeps a recording of thousands of synced commits fast. Calls are serialised by one
 * lock so the log's order is the order the kernel saw. Not seen: writes through shared
 * writable memory maps (msync is not recorded), and calls glibc makes internally (fopen/fwrite
 * streams).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

enum { K_OPEN = 1, K_CREATE, K_WRITE, K_TRUNC, K_SYNC, K_DIRSYNC, K_RENAME, K_UNLINK,
       K_LINK, K_MKDIR, K_RMDIR, K_ACK };

#define MAXFD 4096
struct fdinfo { char tracked, isdir, ack, dsync; uint64_t ino; char *path; };
static struct fdinfo fds[MAXFD];
static pthread_mutex_t lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
static char root[PATH_MAX], acks[PATH_MAX];
static size_t rootlen;
static int logfd = -1, ready;
static uint64_t acked;
static unsigned char buf[1 << 20];
static size_t used;

static void flush(void) {
    size_t done = 0;
    while (done < used) {
        long n = syscall(SYS_write, logfd, buf + done, used - done);
        if (n <= 0) break;
        done += (size_t)n;
    }
    used = 0;
}

static void put(const void *p, size_t n) {
    const unsigned char *c = p;
    while (n > 0) {
        if (used == sizeof buf) flush();
        size_t k = sizeof buf - used < n ? sizeof buf - used : n;
        memcpy(buf + used, c, k);
        used += k; c += k; n -= k;
    }
}
static void put8(unsigned v) { unsigned char c = (unsigned char)v; put(&c, 1); }
static void put64(uint64_t v) { put(&v, 8); }
static void putpath(const char *p) { uint16_t n = (uint16_t)strlen(p); put(&n, 2); put(p, n); }

__attribute__((constructor)) static void init(void) {
    const char *r = getenv("POCKETBENCH_REC_ROOT"), *l = getenv("POCKETBENCH_REC_LOG");
    const char *a = getenv("POCKETBENCH_REC_ACKS");
    if (!r || !l || strlen(r) >= PATH_MAX) return;
    snprintf(root, sizeof root, "%s", r);
    rootlen = strlen(root);
    if (a) snprintf(acks, sizeof acks, "%s", a);
    logfd = (int)syscall(SYS_openat, AT_FDCWD, l, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (logfd < 0) return;
    put("PBFSREC1", 8);
    ready = 1;
}

__attribute__((destructor)) static void fini(void) {
    if (!ready) return;
    pthread_mutex_lock(&lock);
    flush();
    pthread_mutex_unlock(&lock);
}

#define REAL(name) static __typeof__(name) *real_##name; \
    if (!real_##name) real_##name = (__typeof__(name) *)dlsym(RTLD_NEXT, #name)

/* `path` (relative to `dirfd`) made absolute and lexically clean, into out. */
static int absolute(int dirfd, const char *path, char *out) {
    char tmp[PATH_MAX * 2];
    if (path[0] == '/') snprintf(tmp, sizeof tmp, "%s", path);
    else if (dirfd == AT_FDCWD) {
        char cwd[PATH_MAX];
        if (!getcwd(cwd, sizeof cwd)) return 0;
        snprintf(tmp, sizeof tmp, "%s/%s", cwd, path);
    } else if (dirfd >= 0 && dirfd < MAXFD && fds[dirfd].path)
        snprintf(tmp, sizeof tmp, "%s/%s", fds[dirfd].path, path);
    else return 0;
    size_t o = 0;
    for (const char *s = tmp; *s;) {
        while (*s == '/') s++;
        const char *e = s;
        while (*e && *e != '/') e++;
        size_t n = (size_t)(e - s);
        if (n == 0) break;
        if (!(n == 1 && s[0] == '.')) {
            if (o + n + 2 >= PATH_MAX) return 0;
            out[o++] = '/';
            memcpy(out + o, s, n);
            o += n;
        }
        s = e;
    }
    if (o == 0) out[o++] = '/';
    out[o] = 0;
    return 1;
}

/* The path relative to the root ("" for the root), or NULL when outside it. */
static const char *under(const char *abs) {
    if (strncmp(abs, root, rootlen) != 0) return NULL;
    if (abs[rootlen] == 0) return "";
    if (abs[rootlen] != '/') return NULL;
    return abs + rootlen + 1;
}

static void opened(int fd, int dirfd, const char *path, int flags, int existed) {
    char abs[PATH_MAX];
    if (!ready || fd < 0 || !absolute(dirfd, path, abs)) return;
    if (fd >= MAXFD) return;
    memset(&fds[fd], 0, sizeof fds[fd]);
    if (acks[0] && strcmp(abs, acks) == 0) { fds[fd].ack = 1; return; }
    const char *rel = under(abs);
    if (!rel) return;
    struct stat st;
    if (fstat(fd, &st) != 0) return;
    fds[fd].tracked = 1;
    fds[fd].ino = (uint64_t)st.st_ino;
    fds[fd].dsync = (flags & O_DSYNC) != 0; /* O_SYNC includes O_DSYNC's bit */
    if (S_ISDIR(st.st_mode)) { fds[fd].isdir = 1; fds[fd].path = strdup(abs); return; }
    put8(existed ? K_OPEN : K_CREATE); put64(fds[fd].ino); putpath(rel);
    if (existed && (flags & O_TRUNC) && (flags & O_ACCMODE) != O_RDONLY) {
        put8(K_TRUNC); put64(fds[fd].ino); put64(0);
    }
}

static int exists(int dirfd, const char *path) {
    struct stat st;
    return fstatat(dirfd, path, &st, 0) == 0;
}

static int do_open(int dirfd, const char *path, int flags, mode_t mode) {
    static int (*real)(int, const char *, int, ...);
    if (!real) real = (int (*)(int, const char *, int, ...))dlsym(RTLD_NEXT, "openat");
    pthread_mutex_lock(&lock);
    int existed = exists(dirfd, path);
    int fd = real(dirfd, path, flags, mode);
    if (fd >= 0) opened(fd, dirfd, path, flags, existed);
    pthread_mutex_unlock(&lock);
    return fd;
}

#define MODE_ARG mode_t mode = 0; \
    if (flags & (O_CREAT | O_TMPFILE)) { va_list ap; va_start(ap, flags); mode = va_arg(ap, mode_t); va_end(ap); }
int open(const char *p, int flags, ...) { MODE_ARG return do_open(AT_FDCWD, p, flags, mode); }
int open64(const char *p, int flags, ...) { MODE_ARG return do_open(AT_FDCWD, p, flags, mode); }
int openat(int d, const char *p, int flags, ...) { MODE_ARG return do_open(d, p, flags, mode); }
int openat64(int d, const char *p, int flags, ...) { MODE_ARG return do_open(d, p, flags, mode); }
int __open_2(const char *p, int flags) { return do_open(AT_FDCWD, p, flags, 0); }
int __open64_2(const char *p, int flags) { return do_open(AT_FDCWD, p, flags, 0); }
int __openat_2(int d, const char *p, int flags) { return do_open(d, p, flags, 0); }
int __openat64_2(int d, const char *p, int flags) { return do_open(d, p, flags, 0); }
int creat(const char *p, mode_t m) { return do_open(AT_FDCWD, p, O_CREAT | O_WRONLY | O_TRUNC, m); }
int creat64(const char *p, mode_t m) { return do_open(AT_FDCWD, p, O_CREAT | O_WRONLY | O_TRUNC, m); }

int close(int fd) {
    REAL(close);
    pthread_mutex_lock(&lock);
    if (fd >= 0 && fd < MAXFD) { free(fds[fd].path); memset(&fds[fd], 0, sizeof fds[fd]); }
    int r = real_close(fd);
    pthread_mutex_unlock(&lock);
    return r;
}

static int tracked_file(int fd) { return ready && fd >= 0 && fd < MAXFD && fds[fd].tracked && !fds[fd].isdir; }

static void note_ack(const void *data, size_t n) {
    const char *c = data;
    for (size_t i = 0; i < n; i++)
        if (c[i] == '\n') { put8(K_ACK); put64(++acked); }
    flush();
}

static void note_write(int fd, uint64_t off, const struct iovec *iov, int cnt, size_t n) {
    put8(K_WRITE); put64(fds[fd].ino); put64(off);
    uint32_t len = (uint32_t)n; put(&len, 4);
    for (int i = 0; i < cnt && n > 0; i++) {
        size_t k = iov[i].iov_len < n ? iov[i].iov_len : n;
        put(iov[i].iov_base, k);
        n -= k;
    }
}

/* The offset a write() at the file position starts at. */
static uint64_t position(int fd) {
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0 && (fl & O_APPEND)) { struct stat st; return fstat(fd, &st) == 0 ? (uint64_t)st.st_size : 0; }
    off_t o = lseek(fd, 0, SEEK_CUR);
    return o < 0 ? 0 : (uint64_t)o;
}

static ssize_t vwrite(int fd, const struct iovec *iov, int cnt, off_t at, int positioned,
                      ssize_t (*call)(int, const struct iovec *, int, off_t)) {
    pthread_mutex_lock(&lock);
    int ack = ready && fd >= 0 && fd < MAXFD && fds[fd].ack;
    int t = tracked_file(fd);
    uint64_t off = positioned ? (uint64_t)at : (t ? position(fd) : 0);
    ssize_t n = call(fd, iov, cnt, at);
    if (n > 0 && t) {
        note_write(fd, off, iov, cnt, (size_t)n);
        /* A write on an O_DSYNC or O_SYNC descriptor is durable when it returns. */
        if (fds[fd].dsync) { put8(K_SYNC); put64(fds[fd].ino); }
    }
    if (n > 0 && ack) note_ack(iov[0].iov_base, (size_t)n < iov[0].iov_len ? (size_t)n : iov[0].iov_len);
    pthread_mutex_unlock(&lock);
    return n;
}

static ssize_t c_write(int fd, const struct iovec *v, int c, off_t o) { (void)c; (void)o; REAL(write); return real_write(fd, v[0].iov_base, v[0].iov_len); }
static ssize_t c_pwrite(int fd, const struct iovec *v, int c, off_t o) { (void)c; REAL(pwrite64); return real_pwrite64(fd, v[0].iov_base, v[0].iov_len, o); }
static ssize_t c_writev(int fd, const struct iovec *v, int c, off_t o) { (void)o; REAL(writev); return real_writev(fd, v, c); }
static ssize_t c_pwritev(int fd, const struct iovec *v, int c, off_t o) { REAL(pwritev64); return real_pwritev64(fd, v, c, o); }

ssize_t write(int fd, const void *b, size_t n) { struct iovec v = { (void *)b, n }; return vwrite(fd, &v, 1, 0, 0, c_write); }
ssize_t pwrite(int fd, const void *b, size_t n, off_t o) { struct iovec v = { (void *)b, n }; return vwrite(fd, &v, 1, o, 1, c_pwrite); }
ssize_t pwrite64(int fd, const void *b, size_t n, off_t o) { struct iovec v = { (void *)b, n }; return vwrite(fd, &v, 1, o, 1, c_pwrite); }
ssize_t writev(int fd, const struct iovec *v, int c) { return vwrite(fd, v, c, 0, 0, c_writev); }
ssize_t pwritev(int fd, const struct iovec *v, int c, off_t o) { return vwrite(fd, v, c, o, 1, c_pwritev); }
ssize_t pwritev64(int fd, const struct iovec *v, int c, off_t o) { return vwrite(fd, v, c, o, 1, c_pwritev); }

static int do_ftruncate(int fd, off_t len) {
    REAL(ftruncate64);
    pthread_mutex_lock(&lock);
    int r = real_ftruncate64(fd, len);
    if (r == 0 && tracked_file(fd)) { put8(K_TRUNC); put64(fds[fd].ino); put64((uint64_t)len); }
    pthread_mutex_unlock(&lock);
    return r;
}
int ftruncate(int fd, off_t len) { return do_ftruncate(fd, len); }
int ftruncate64(int fd, off_t len) { return do_ftruncate(fd, len); }

static int do_truncate(const char *p, off_t len) {
    REAL(truncate64);
    char abs[PATH_MAX];
    pthread_mutex_lock(&lock);
    int r = real_truncate64(p, len);
    struct stat st;
    if (r == 0 && ready && absolute(AT_FDCWD, p, abs) && under(abs) && stat(p, &st) == 0) {
        put8(K_TRUNC); put64((uint64_t)st.st_ino); put64((uint64_t)len);
    }
    pthread_mutex_unlock(&lock);
    return r;
}
int truncate(const char *p, off_t len) { return do_truncate(p, len); }
int truncate64(const char *p, off_t len) { return do_truncate(p, len); }

/* fallocate without KEEP_SIZE grows the file with zeros: recorded as a truncate up. */
static int do_fallocate(int fd, int mode, off_t off, off_t len) {
    REAL(fallocate64);
    pthread_mutex_lock(&lock);
    struct stat st;
    int t = tracked_file(fd) && mode == 0 && fstat(fd, &st) == 0 && st.st_size < off + len;
    int r = real_fallocate64(fd, mode, off, len);
    if (r == 0 && t) { put8(K_TRUNC); put64(fds[fd].ino); put64((uint64_t)(off + len)); }
    pthread_mutex_unlock(&lock);
    return r;
}
int fallocate(int fd, int mode, off_t off, off_t len) { return do_fallocate(fd, mode, off, len); }
int fallocate64(int fd, int mode, off_t off, off_t len) { return do_fallocate(fd, mode, off, len); }

static int do_sync(int fd) {
    pthread_mutex_lock(&lock);
    if (ready && fd >= 0 && fd < MAXFD && fds[fd].tracked) {
        if (fds[fd].isdir) { const char *rel = under(fds[fd].path); put8(K_DIRSYNC); putpath(rel ? rel : ""); }
        else { put8(K_SYNC); put64(fds[fd].ino); }
    }
    pthread_mutex_unlock(&lock);
    return 0;
}
int fsync(int fd) { return do_sync(fd); }
/* pocketbench defines fsync and fdatasync itself (to count them), which shadows the two above
 * in its own process: its definitions call this hook instead. 1: recorded, skip the sync. */
int pocketbench_rec_sync(int fd) { do_sync(fd); return 1; }
int fdatasync(int fd) { return do_sync(fd); }
/* Not a durability guarantee (it flushes no metadata nor the disk's cache): not recorded. */
int sync_file_range(int fd, off64_t o, off64_t n, unsigned int f) { (void)fd; (void)o; (void)n; (void)f; return 0; }

/* A namespace call on one or two paths: run it, then record it when it succeeded. */
static void name_op(int kind, int d1, const char *p1, int d2, const char *p2) {
    char a1[PATH_MAX], a2[PATH_MAX];
    if (!ready || !absolute(d1, p1, a1)) return;
    const char *r1 = under(a1);
    if (p2) {
        if (!absolute(d2, p2, a2)) return;
        const char *r2 = under(a2);
        if (!r1 || !r2) return;
        put8(kind); putpath(r1); putpath(r2);
    } else if (r1) { put8(kind); putpath(r1); }
}

int rename(const char *o, const char *n) { REAL(rename); pthread_mutex_lock(&lock); int r = real_rename(o, n); if (!r) name_op(K_RENAME, AT_FDCWD, o, AT_FDCWD, n); pthread_mutex_unlock(&lock); return r; }
int renameat(int od, const char *o, int nd, const char *n) { REAL(renameat); pthread_mutex_lock(&lock); int r = real_renameat(od, o, nd, n); if (!r) name_op(K_RENAME, od, o, nd, n); pthread_mutex_unlock(&lock); return r; }
int renameat2(int od, const char *o, int nd, const char *n, unsigned f) { REAL(renameat2); pthread_mutex_lock(&lock); int r = real_renameat2(od, o, nd, n, f); if (!r) name_op(K_RENAME, od, o, nd, n); pthread_mutex_unlock(&lock); return r; }
int unlink(const char *p) { REAL(unlink); pthread_mutex_lock(&lock); int r = real_unlink(p); if (!r) name_op(K_UNLINK, AT_FDCWD, p, 0, NULL); pthread_mutex_unlock(&lock); return r; }
int unlinkat(int d, const char *p, int f) { REAL(unlinkat); pthread_mutex_lock(&lock); int r = real_unlinkat(d, p, f); if (!r) name_op((f & AT_REMOVEDIR) ? K_RMDIR : K_UNLINK, d, p, 0, NULL); pthread_mutex_unlock(&lock); return r; }
int rmdir(const char *p) { REAL(rmdir); pthread_mutex_lock(&lock); int r = real_rmdir(p); if (!r) name_op(K_RMDIR, AT_FDCWD, p, 0, NULL); pthread_mutex_unlock(&lock); return r; }
int link(const char *o, const char *n) { REAL(link); pthread_mutex_lock(&lock); int r = real_link(o, n); if (!r) name_op(K_LINK, AT_FDCWD, o, AT_FDCWD, n); pthread_mutex_unlock(&lock); return r; }
int mkdir(const char *p, mode_t m) { REAL(mkdir); pthread_mutex_lock(&lock); int r = real_mkdir(p, m); if (!r) name_op(K_MKDIR, AT_FDCWD, p, 0, NULL); pthread_mutex_unlock(&lock); return r; }
int mkdirat(int d, const char *p, mode_t m) { REAL(mkdirat); pthread_mutex_lock(&lock); int r = real_mkdirat(d, p, m); if (!r) name_op(K_MKDIR, d, p, 0, NULL); pthread_mutex_unlock(&lock); return r; }
