package dev.pocketbench.jvm;

import dev.pocketbench.jvm.objectbox.KvRecord;
import dev.pocketbench.jvm.objectbox.KvRecord_;
import dev.pocketbench.jvm.objectbox.MyObjectBox;
import io.objectbox.Box;
import io.objectbox.BoxStore;
import io.objectbox.query.Query;
import io.objectbox.query.QueryBuilder.StringOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * ObjectBox for pocketbench's key-value workloads: one {@link KvRecord} object per record (the
 * key text {@code @Unique @Index}, the fields in pocketbench's record encoding). Reads are a
 * query on the key built once and re-run with the key as parameter; scans a query from the key
 * ordered by key, {@code find(0, len)}; inserts and updates a {@code put}, each its own
 * ObjectBox transaction (ObjectBox commits durably); the load's records go in one
 * {@code put} of the whole list (one transaction). ObjectBox's Java API has no transaction an
 * application can roll back from outside a callback, so a warm-up pass runs the reads and
 * scans and skips the writes. Key-value workloads only.
 */
final class ObjectBoxStore extends BaseStore {
    private final BoxStore store;
    private final Box<KvRecord> box;
    private final Query<KvRecord> byKey, from;
    private List<KvRecord> loading;
    private boolean scratch;

    ObjectBoxStore(Path dir) {
        store = MyObjectBox.builder().directory(dir.resolve("objectbox").toFile()).build();
        box = store.boxFor(KvRecord.class);
        byKey = box.query(KvRecord_.key.equal("", StringOrder.CASE_SENSITIVE)).build();
        from = box.query(KvRecord_.key.greaterOrEqual("", StringOrder.CASE_SENSITIVE))
                .order(KvRecord_.key).build();
    }

    @Override
    public void createSchema(Model m) {
        if (m.sql) {
            throw keyValueOnly();
        }
    }

    @Override
    public void beginLoad() {
        loading = new ArrayList<>();
    }

    @Override
    public void endLoad() {
        box.put(loading);
        loading = null;
    }

    @Override
    public void beginScratch() {
        scratch = true;
    }

    @Override
    public void rollback() {
        scratch = false;
    }

    private KvRecord find(String key) {
        return byKey.setParameter(KvRecord_.key, key).findUnique();
    }

    @Override
    protected long pointRead(String key) {
        KvRecord r = find(key);
        if (keeping()) {
            kept(r == null ? null : Records.decode(r.value));
        }
        return r == null ? 0 : 1;
    }

    private long put(KvRecord r) {
        if (scratch) {
            return 0;
        }
        if (loading != null) {
            loading.add(r);
        } else {
            box.put(r);
        }
        return 1;
    }

    @Override
    protected long scan(String key, long len) {
        return from.setParameter(KvRecord_.key, key).find(0, len).size();
    }

    @Override
    protected long insert(Model.Request r) {
        KvRecord rec = new KvRecord();
        rec.key = r.key;
        rec.value = Records.encode(r.fields);
        return put(rec);
    }

    @Override
    protected long update(Op op, Model.Request r) {
        KvRecord rec = find(r.key);
        if (rec == null) {
            return 0;
        }
        byte[] changed = op.field < 0 ? Records.encode(r.fields)
                : Records.withField(rec.value, op.field, r.fields[op.field]);
        if (changed == null) {
            return 0;
        }
        rec.value = changed;
        return put(rec);
    }

    @Override
    public String name() {
        return "objectbox";
    }

    @Override
    public String version() {
        return "ObjectBox " + BoxStore.getVersion() + " (core " + BoxStore.getVersionNative() + ")";
    }

    @Override
    public Map<String, String> options() {
        return Map.of();
    }

    @Override
    public String checksum(Model m) {
        JdbcStore.Checksum c = new JdbcStore.Checksum();
        try (Query<KvRecord> all = box.query().order(KvRecord_.key).build()) {
            for (KvRecord r : all.find()) {
                Records.checksum(c, r.key.getBytes(StandardCharsets.UTF_8), r.value);
            }
        }
        return c.hex();
    }

    @Override
    public void close() {
        byKey.close();
        from.close();
        store.close();
    }
}
