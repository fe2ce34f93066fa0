package dev.pocketbench.jvm;

import com.sleepycat.je.Cursor;
import com.sleepycat.je.Database;
import com.sleepycat.je.DatabaseConfig;
import com.sleepycat.je.DatabaseEntry;
import com.sleepycat.je.Durability;
import com.sleepycat.je.Environment;
import com.sleepycat.je.EnvironmentConfig;
import com.sleepycat.je.JEVersion;
import com.sleepycat.je.LockMode;
import com.sleepycat.je.OperationStatus;
import com.sleepycat.je.Transaction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * BerkeleyDB Java Edition: one database per table, the key text as the key and the fields in
 * pocketbench's key-value record encoding (each a u32 little-endian length and its bytes) as
 * the data ({@link Records}). Options: {@code durability}
 * (sync, write_no_sync, no_sync: JE's commit durability), {@code cache_percent} (share of the
 * JVM heap for JE's cache) and {@code txn} (on: every write its own transaction and the load
 * one; off: a non-transactional environment). Key-value workloads only.
 */
final class JeStore extends BaseStore {
    private final Environment env;
    private final Map<String, String> options;
    private final boolean txn;
    private Database db;
    private Model model;
    private Transaction bulk;

    JeStore(Path dir, Map<String, String> given) throws Exception {
        options = Store.withDefaults(given, Map.of("durability", "sync", "cache_percent", "60", "txn", "on"));
        txn = options.get("txn").equals("on");
        EnvironmentConfig cfg = new EnvironmentConfig();
        cfg.setAllowCreate(true);
        cfg.setTransactional(txn);
        cfg.setCachePercent(Integer.parseInt(options.get("cache_percent")));
        switch (options.get("durability")) {
            case "sync": cfg.setDurability(Durability.COMMIT_SYNC); break;
            case "write_no_sync": cfg.setDurability(Durability.COMMIT_WRITE_NO_SYNC); break;
            case "no_sync": cfg.setDurability(Durability.COMMIT_NO_SYNC); break;
            default: throw Fail.input("bdb-je: durability '" + options.get("durability") + "' is not sync, write_no_sync or no_sync");
        }
        if (Boolean.getBoolean(dev.pocketbench.jvm.Durability.QUIET)) {
            cfg.setConfigParam(EnvironmentConfig.STATS_COLLECT, "false");
            cfg.setConfigParam(EnvironmentConfig.FILE_LOGGING_LEVEL, "OFF");
        }
        // The log files go straight into the database directory, where pocketbench evicts them
        // from the page cache before the replay.
        Files.createDirectories(dir);
        env = new Environment(dir.toFile(), cfg);
    }

    @Override
    public void createSchema(Model m) {
        if (m.sql) {
            throw keyValueOnly();
        }
        model = m;
        DatabaseConfig dc = new DatabaseConfig();
        dc.setAllowCreate(true);
        dc.setTransactional(txn);
        db = env.openDatabase(null, m.table, dc);
    }

    @Override
    public void beginLoad() {
        bulk = txn ? env.beginTransaction(null, null) : null;
    }

    @Override
    public void endLoad() {
        if (bulk != null) {
            bulk.commit();
            bulk = null;
        }
    }

    @Override
    public void beginScratch() {
        scratch = true;
        bulk = txn ? env.beginTransaction(null, null) : null;
    }

    @Override
    public void rollback() {
        if (bulk != null) {
            bulk.abort();
            bulk = null;
        }
        scratch = false;
    }

    /** Whether a write may happen now: always, except in a warm-up pass without transactions. */
    private boolean writable() {
        return !(scratch && bulk == null);
    }

    /** In a warm-up pass: without transactions its writes are skipped (nothing to undo them). */
    private boolean scratch;

    private static DatabaseEntry entry(String s) {
        return new DatabaseEntry(s.getBytes(StandardCharsets.US_ASCII));
    }

    private long put(String key, byte[] data) {
        if (!writable()) {
            return 0;
        }
        db.put(bulk, entry(key), new DatabaseEntry(data));
        return 1;
    }

    @Override
    protected long update(Op op, Model.Request r) {
        String key = r.key;
        if (op.field < 0) {
            return put(key, Records.encode(r.fields));
        }
        DatabaseEntry data = new DatabaseEntry();
        if (db.get(bulk, entry(key), data, LockMode.DEFAULT) != OperationStatus.SUCCESS) {
            return 0;
        }
        byte[] changed = Records.withField(data.getData(), op.field, r.fields[op.field]);
        return changed == null ? 0 : put(key, changed);
    }

    /** A point read; the record's fields kept when asked ({@link #keepRead}). */
    @Override
    protected long pointRead(String key) {
        DatabaseEntry data = new DatabaseEntry();
        boolean found = db.get(bulk, entry(key), data, LockMode.DEFAULT) == OperationStatus.SUCCESS;
        if (keeping()) {
            kept(found ? Records.decode(data.getData()) : null);
        }
        return found ? 1 : 0;
    }

    @Override
    protected long scan(String key, long len) {
        long rows = 0;
        try (Cursor c = db.openCursor(bulk, null)) {
            DatabaseEntry k = entry(key), data = new DatabaseEntry();
            OperationStatus s = c.getSearchKeyRange(k, data, LockMode.DEFAULT);
            while (s == OperationStatus.SUCCESS && rows < len) {
                rows++;
                s = c.getNext(k, data, LockMode.DEFAULT);
            }
        }
        return rows;
    }

    @Override
    protected long insert(Model.Request r) {
        return put(r.key, Records.encode(r.fields));
    }

    @Override
    public String name() {
        return "bdb-je";
    }

    @Override
    public String version() {
        return "BerkeleyDB Java Edition " + JEVersion.CURRENT_VERSION.getVersionString();
    }

    @Override
    public Map<String, String> options() {
        return options;
    }

    @Override
    public String checksum(Model m) {
        JdbcStore.Checksum c = new JdbcStore.Checksum();
        try (Cursor cur = db.openCursor(null, null)) {
            DatabaseEntry k = new DatabaseEntry(), data = new DatabaseEntry();
            while (cur.getNext(k, data, LockMode.DEFAULT) == OperationStatus.SUCCESS) {
                Records.checksum(c, k.getData(), data.getData());
            }
        }
        return c.hex();
    }

    @Override
    public void close() {
        if (db != null) {
            db.close();
        }
        env.close();
    }
}
