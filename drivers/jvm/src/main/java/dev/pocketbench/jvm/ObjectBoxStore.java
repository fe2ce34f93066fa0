package dev.pocketbench.jvm;

import dev.pocketbench.jvm.objectbox.KvRecord;
import dev.pocketbench.jvm.objectbox.KvRecord_;
import dev.pocketbench.jvm.objectbox.MyObjectBox;
import io.objectbox.Box;
import io.objectbox.BoxStore;
import io.objectbox.query.Query;
import io.objectbox.query.QueryBuilder.StringOrder;
import java.io.ByteArrayOutputStream;
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
final class ObjectBoxStore implements Store {
    private final BoxStore store;
    private final Box<KvRecord> box;
    private final Query<KvRecord> byKey, from;
    private List<KvRecord> loading;
    private boolean scratch, keep;
    private byte[][] last = NOT_KEPT;

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
            throw Fail.input("objectbox runs key-value workloads only");
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

    private long pointRead(String key) {
        KvRecord r = find(key);
        if (keep) {
            last = r == null ? NOT_FOUND : JeStore.fields(r.value).toArray(new byte[0][]);
        }
        return r == null ? 0 : 1;
    }

    @Override
    public void keepRead(boolean keep) {
        this.keep = keep;
        last = NOT_KEPT;
    }

    @Override
    public byte[][] lastRead() {
        return last;
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

    private long update(Op op, Model.Request r) {
        KvRecord rec = find(r.key);
        if (rec == null) {
            return 0;
        }
        if (op.field < 0) {
            rec.value = JeStore.record(r.fields);
        } else {
            List<byte[]> f = JeStore.fields(rec.value);
            if (op.field >= f.size()) {
                return 0;
            }
            f.set(op.field, r.fields[op.field]);
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            for (byte[] v : f) {
                JeStore.field(out, v);
            }
            rec.value = out.toByteArray();
        }
        return put(rec);
    }

    @Override
    public long execute(Op op, Model.Request r) {
        if (r == null) {
            throw Fail.input("objectbox runs key-value workloads only");
        }
        switch (op.tag) {
            case Op.READ:
                return pointRead(r.key);
            case Op.SCAN:
                return from.setParameter(KvRecord_.key, r.key).find(0, op.len).size();
            case Op.INSERT: {
                KvRecord rec = new KvRecord();
                rec.key = r.key;
                rec.value = JeStore.record(r.fields);
                return put(rec);
            }
            case Op.UPDATE:
                return update(op, r);
            case Op.RMW:
                pointRead(r.key);
                return update(op, r);
            default:
                throw Fail.input("objectbox runs key-value workloads only");
        }
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
                c.text(r.key);
                for (byte[] v : JeStore.fields(r.value)) {
                    c.bytes(v);
                }
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
