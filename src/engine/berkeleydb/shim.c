/*
 * pocketbench: a flat C interface over BerkeleyDB's method tables (DB_ENV->open, DB->get, ...),
 * which are function pointers inside structs whose layout only db.h knows. Rust calls these
 * plain functions (src/engine/berkeleydb/mod.rs); nothing here allocates per operation except
 * the cursor buffers of a scan.
 */
#include <db.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct pb_bdb {
	DB_ENV *env;
	DB *db;
	DB_TXN *bulk;
	int txn;
	int sync_each;
	/* BerkeleyDB's last message, kept instead of printed (recovery reports what it repaired
	 * on stderr otherwise); errors that end in failure carry it. */
	char said[256];
} pb_bdb;

static void keep_message(const DB_ENV *env, const char *prefix, const char *msg)
{
	pb_bdb *h = env->app_private;

	(void)prefix;
	if (h != NULL)
		snprintf(h->said, sizeof(h->said), "%s", msg);
}

static int fail(char *err, size_t errlen, const char *what, int ret)
{
	snprintf(err, errlen, "%s: %s", what, db_strerror(ret));
	return ret;
}

const char *pb_bdb_version(void)
{
	return db_version(NULL, NULL, NULL);
}

/* sync_mode: 0 sync at commit, 1 write the log but do not sync it, 2 neither. */
int pb_bdb_open(const char *home, const char *file, unsigned long long cache,
    unsigned page_size, int txn, int sync_mode, pb_bdb **out, char *err, size_t errlen)
{
	pb_bdb *h;
	u_int32_t flags = DB_CREATE | DB_INIT_MPOOL;
	int ret;

	*out = NULL;
	if ((h = calloc(1, sizeof(*h))) == NULL)
		return fail(err, errlen, "calloc", ENOMEM);
	h->txn = txn;
	h->sync_each = !txn && sync_mode == 0;
	if ((ret = db_env_create(&h->env, 0)) != 0) {
		free(h);
		return fail(err, errlen, "db_env_create", ret);
	}
	*out = h;
	h->env->app_private = h;
	h->env->set_errcall(h->env, keep_message);
	if ((ret = h->env->set_cachesize(h->env,
	    (u_int32_t)(cache >> 30), (u_int32_t)(cache & ((1u << 30) - 1)), 1)) != 0)
		return fail(err, errlen, "set_cachesize", ret);
	if (txn) {
		flags |= DB_INIT_TXN | DB_INIT_LOG | DB_INIT_LOCK;
		(void)h->env->set_lk_max_locks(h->env, 100000);
		(void)h->env->set_lk_max_objects(h->env, 100000);
		if (sync_mode == 1 &&
		    (ret = h->env->set_flags(h->env, DB_TXN_WRITE_NOSYNC, 1)) != 0)
			return fail(err, errlen, "set_flags", ret);
		if (sync_mode == 2 &&
		    (ret = h->env->set_flags(h->env, DB_TXN_NOSYNC, 1)) != 0)
			return fail(err, errlen, "set_flags", ret);
	}
	/*
	 * pocketbench is the only process in its environment, so it starts the way a single-process
	 * application should: a transactional environment runs normal recovery at every open
	 * (DB_RECOVER: cheap when the last close was clean, and the only way past a process that
	 * died holding a mutex in the shared regions); a data store without a log has nothing to
	 * recover, so stale regions left by a killed process are removed first.
	 */
	if (txn)
		flags |= DB_RECOVER;
	else {
		DB_ENV *stale;

		if (db_env_create(&stale, 0) == 0)
			(void)stale->remove(stale, home, DB_FORCE);
	}
	if ((ret = h->env->open(h->env, home, flags, 0644)) != 0) {
		fail(err, errlen, "DB_ENV->open", ret);
		if (h->said[0] != '\0')
			snprintf(err + strlen(err), errlen - strlen(err), " (%s)", h->said);
		return ret;
	}
	if ((ret = db_create(&h->db, h->env, 0)) != 0)
		return fail(err, errlen, "db_create", ret);
	if (page_size != 0 && (ret = h->db->set_pagesize(h->db, page_size)) != 0)
		return fail(err, errlen, "set_pagesize", ret);
	if ((ret = h->db->open(h->db, NULL, file, NULL, DB_BTREE,
	    DB_CREATE | (txn ? DB_AUTO_COMMIT : 0), 0644)) != 0)
		return fail(err, errlen, "DB->open", ret);
	return 0;
}

void pb_bdb_close(pb_bdb *h)
{
	if (h == NULL)
		return;
	if (h->bulk != NULL)
		(void)h->bulk->abort(h->bulk);
	if (h->db != NULL)
		(void)h->db->close(h->db, 0);
	if (h->env != NULL)
		(void)h->env->close(h->env, 0);
	free(h);
}

const char *pb_bdb_strerror(int ret)
{
	return db_strerror(ret);
}

/* Clear a key/data pair and point the key at k. */
static void dbt_pair(DBT *key, DBT *data, const void *k, size_t kl)
{
	memset(key, 0, sizeof(*key));
	memset(data, 0, sizeof(*data));
	key->data = (void *)k;
	key->size = (u_int32_t)kl;
}

/* Copy the value of key into buf; returns 0, DB_NOTFOUND, or DB_BUFFER_SMALL with *len set. */
int pb_bdb_get(pb_bdb *h, const void *k, size_t kl, void *buf, size_t cap, size_t *len)
{
	DBT key, data;
	int ret;

	dbt_pair(&key, &data, k, kl);
	data.data = buf;
	data.ulen = (u_int32_t)cap;
	data.flags = DB_DBT_USERMEM;
	ret = h->db->get(h->db, h->bulk, &key, &data, 0);
	*len = data.size;
	return ret;
}

int pb_bdb_put(pb_bdb *h, const void *k, size_t kl, const void *v, size_t vl)
{
	DBT key, data;
	int ret;

	dbt_pair(&key, &data, k, kl);
	data.data = (void *)v;
	data.size = (u_int32_t)vl;
	if ((ret = h->db->put(h->db, h->bulk, &key, &data, 0)) != 0)
		return ret;
	/* Without transactions, "sync on commit" means flushing the cache after each write. */
	if (h->sync_each && h->bulk == NULL)
		ret = h->db->sync(h->db, 0);
	return ret;
}

typedef void (*pb_visit)(void *ctx, const void *k, size_t kl, const void *v, size_t vl);

int pb_bdb_scan(pb_bdb *h, const void *start, size_t sl, unsigned len,
    pb_visit visit, void *ctx, unsigned *count)
{
	DBC *c;
	DBT key, data;
	u_int32_t op = DB_SET_RANGE;
	int ret, cret;

	*count = 0;
	if ((ret = h->db->cursor(h->db, h->bulk, &c, 0)) != 0)
		return ret;
	memset(&key, 0, sizeof(key));
	memset(&data, 0, sizeof(data));
	key.flags = DB_DBT_REALLOC;
	data.flags = DB_DBT_REALLOC;
	if ((key.data = malloc(sl == 0 ? 1 : sl)) == NULL) {
		(void)c->close(c);
		return ENOMEM;
	}
	memcpy(key.data, start, sl);
	key.size = (u_int32_t)sl;
	while (*count < len) {
		if ((ret = c->get(c, &key, &data, op)) != 0)
			break;
		visit(ctx, key.data, key.size, data.data, data.size);
		++*count;
		op = DB_NEXT;
	}
	if (ret == DB_NOTFOUND)
		ret = 0;
	free(key.data);
	free(data.data);
	if ((cret = c->close(c)) != 0 && ret == 0)
		ret = cret;
	return ret;
}

/* The load phase: one transaction (committed every `chunk` writes by the caller). */
int pb_bdb_begin_bulk(pb_bdb *h)
{
	if (!h->txn)
		return 0;
	return h->env->txn_begin(h->env, NULL, &h->bulk, DB_TXN_NOSYNC);
}

int pb_bdb_end_bulk(pb_bdb *h)
{
	int ret = 0;

	if (h->bulk != NULL) {
		ret = h->bulk->commit(h->bulk, 0);
		h->bulk = NULL;
		if (ret == 0)
			ret = h->env->log_flush(h->env, NULL);
	}
	if (ret == 0)
		ret = h->db->sync(h->db, 0);
	return ret;
}

/* Cache and log counters: hits, misses, pages read, pages written, log writes, log syncs. */
void pb_bdb_stats(pb_bdb *h, unsigned long long out[6])
{
	DB_MPOOL_STAT *m = NULL;
	DB_LOG_STAT *l = NULL;

	memset(out, 0, 6 * sizeof(out[0]));
	if (h->env->memp_stat(h->env, &m, NULL, 0) == 0 && m != NULL) {
		out[0] = m->st_cache_hit;
		out[1] = m->st_cache_miss;
		out[2] = m->st_page_in;
		out[3] = m->st_page_out;
		free(m);
	}
	if (h->txn && h->env->log_stat(h->env, &l, 0) == 0 && l != NULL) {
		out[4] = l->st_wcount;
		out[5] = l->st_scount;
		free(l);
	}
}
