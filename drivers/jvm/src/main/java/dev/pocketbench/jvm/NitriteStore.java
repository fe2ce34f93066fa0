package dev.pocketbench.jvm;

import static org.dizitart.no2.filters.FluentFilter.where;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import org.dizitart.no2.Nitrite;
import org.dizitart.no2.collection.Document;
import org.dizitart.no2.collection.FindOptions;
import org.dizitart.no2.collection.NitriteCollection;
import org.dizitart.no2.common.SortOrder;
import org.dizitart.no2.index.IndexOptions;
import org.dizitart.no2.index.IndexType;
import org.dizitart.no2.mvstore.MVStoreModule;
import org.dizitart.no2.transaction.Session;
import org.dizitart.no2.transaction.Transaction;

/**
 * Nitrite 4 on its MVStore storage for pocketbench's key-value workloads: a collection named
 * after the table, one document per record ({@code key} and {@code field0…}, text), a unique
 * index on {@code key}. Reads are {@code find(where("key").eq(k))}, scans {@code find} from the
 * key in key order with a limit, inserts {@code insert}, updates {@code update} with the
 * changed fields (Nitrite merges them). Writes are committed as Nitrite commits them (MVStore's
 * background commit, not synced per write; option {@code commit=auto}) or, with
 * {@code commit=each}, by a {@code commit()} after every write; the load ends with
 * {@code commit()}. A warm-up pass
 * runs in a Nitrite transaction that is rolled back. Key-value workloads only.
 */
final class NitriteStore extends BaseStore {
    private final Nitrite db;
    private NitriteCollection coll, main;
    private Model model;
    private Session session;
    private Transaction tx;

    /** {@code commit=each}: every write outside the load is followed by {@code commit()}. */
    private final boolean commitEach;

    NitriteStore(Path dir, Map<String, String> given) {
        String commit = Store.withDefaults(given, Map.of("commit", "auto")).get("commit");
        if (!commit.equals("auto") && !commit.equals("each")) {
            throw Fail.input("nitrite: commit '" + Fail.oneLine(commit) + "' is not auto or each");
        }
        commitEach = commit.equals("each");
        MVStoreModule store = MVStoreModule.withConfig()
                .filePath(dir.resolve("pocketbench.nitrite").toAbsolutePath().toString())
                .build();
        db = Nitrite.builder().loadModule(store).openOrCreate();
    }

    /** A write's count, committed at once with {@code commit=each} (not in a transaction). */
    private long written(long rows) {
        if (commitEach && tx == null && !loading) {
            db.commit();
        }
        return rows;
    }

    @Override
    public void createSchema(Model m) {
        if (m.sql) {
            throw keyValueOnly();
        }
        model = m;
        main = db.getCollection(m.table);
        if (!main.hasIndex("key")) {
            main.createIndex(IndexOptions.indexOptions(IndexType.UNIQUE), "key");
        }
        coll = main;
    }

    /** In the load, which is committed once at its end. */
    private boolean loading;

    @Override
    public void beginLoad() {
        loading = true;
    }

    @Override
    public void endLoad() {
        db.commit();
        loading = false;
    }

    @Override
    public void beginScratch() {
        session = db.createSession();
        tx = session.beginTransaction();
        coll = tx.getCollection(model.table);
    }

    @Override
    public void rollback() {
        tx.rollback();
        tx.close();
        tx = null;
        session.close();
        coll = main;
    }

    private Document document(Model.Request r) {
        Document d = Document.createDocument();
        for (int i = 0; i < model.fieldCount; i++) {
            if (r.texts[i] != null) {
                d.put(Model.fieldName(i), r.texts[i]);
            }
        }
        return d;
    }

    @Override
    protected long pointRead(String key) {
        Document d = coll.find(where("key").eq(key)).firstOrNull();
        if (keeping()) {
            kept(d == null ? null : fields(d));
        }
        return d == null ? 0 : 1;
    }

    private byte[][] fields(Document d) {
        byte[][] out = new byte[model.fieldCount][];
        for (int i = 0; i < out.length; i++) {
            String v = d.get(Model.fieldName(i), String.class);
            out[i] = v == null ? null : v.getBytes(StandardCharsets.ISO_8859_1);
        }
        return out;
    }

    @Override
    protected long scan(String key, long len) {
        long rows = 0;
        FindOptions o = FindOptions.orderBy("key", SortOrder.Ascending).limit(len);
        for (Document d : coll.find(where("key").gte(key), o)) {
            fields(d);
            rows++;
        }
        return rows;
    }

    @Override
    protected long insert(Model.Request r) {
        return written(coll.insert(document(r).put("key", r.key)).getAffectedCount());
    }

    /** Nitrite merges the request's fields into the document (one field or every field). */
    @Override
    protected long update(Op op, Model.Request r) {
        return written(coll.update(where("key").eq(r.key), document(r)).getAffectedCount());
    }

    @Override
    public String name() {
        return "nitrite";
    }

    @Override
    public String version() {
        return "Nitrite " + mavenVersion() + " (MVStore)";
    }

    /**
     * Nitrite's version as its Maven artifact records it (META-INF/maven/…/pom.properties):
     * the jar's own constant, {@code Constants.NITRITE_VERSION}, says 4.1.0 in the 4.3.0 jar.
     */
    static String mavenVersion() {
        String file = "/META-INF/maven/org.dizitart/nitrite/pom.properties";
        try (java.io.InputStream in = org.dizitart.no2.Nitrite.class.getResourceAsStream(file)) {
            if (in != null) {
                java.util.Properties p = new java.util.Properties();
                p.load(in);
                String v = p.getProperty("version");
                if (v != null && !v.isBlank()) {
                    return v;
                }
            }
        } catch (java.io.IOException e) {
            // unreadable: said below
        }
        return "(version unknown: no Maven metadata in its jar)";
    }

    @Override
    public Map<String, String> options() {
        return Map.of("commit", commitEach ? "each" : "auto");
    }

    @Override
    public String checksum(Model m) {
        JdbcStore.Checksum c = new JdbcStore.Checksum();
        for (Document d : main.find(FindOptions.orderBy("key", SortOrder.Ascending))) {
            c.text(d.get("key", String.class));
            for (byte[] v : fields(d)) {
                c.bytes(v == null ? new byte[0] : v);
            }
        }
        return c.hex();
    }

    @Override
    public void close() {
        db.close();
    }
}
