package dev.pocketbench.jvm;

import static org.dizitart.no2.filters.FluentFilter.where;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.dizitart.no2.Nitrite;
import org.dizitart.no2.collection.Document;
import org.dizitart.no2.collection.NitriteCollection;
import org.dizitart.no2.index.IndexOptions;
import org.dizitart.no2.index.IndexType;
import org.dizitart.no2.mvstore.MVStoreModule;

/**
 * Nitrite (the embedded document database for Java and Android) in the data-model study, on
 * its MVStore storage: a collection per table, every tuple a document, and the indexes a
 * Nitrite user declares for these queries — {@code id} unique in both collections, {@code age}
 * (tests 3 and 6 filter it) and {@code buyer} (the join looks transactions up by it); the name
 * is never indexed (test 2 is defined on a non-indexed field). Tests 1–3 are {@code find} with
 * a filter; Nitrite has no group-by or join, so tests 4 and 5 group the documents of a full
 * {@code find()} in the application, and test 6 is the document-store join: the buyers by an
 * age-range {@code find}, then their transactions by {@code where("buyer").in(ids)}.
 */
final class NitriteModels implements ModelEngine {
    private final Nitrite db;
    private final NitriteCollection people, sales;

    NitriteModels(Path dir) {
        MVStoreModule store = MVStoreModule.withConfig()
                .filePath(dir.resolve("models.nitrite").toAbsolutePath().toString())
                .build();
        db = Nitrite.builder().loadModule(store).openOrCreate();
        people = db.getCollection("people");
        sales = db.getCollection("transactions");
        people.createIndex(IndexOptions.indexOptions(IndexType.UNIQUE), "id");
        people.createIndex(IndexOptions.indexOptions(IndexType.NON_UNIQUE), "age");
        sales.createIndex(IndexOptions.indexOptions(IndexType.UNIQUE), "id");
        sales.createIndex(IndexOptions.indexOptions(IndexType.NON_UNIQUE), "buyer");
    }

    @Override
    public void insert(List<PersonRow> ps, List<SaleRow> ts) {
        Document[] docs = new Document[ps.size()];
        for (int i = 0; i < docs.length; i++) {
            PersonRow p = ps.get(i);
            docs[i] = Document.createDocument("id", p.id()).put("name", p.name()).put("age", p.age())
                    .put("gender", p.gender()).put("color", p.color());
        }
        people.insert(docs);
        docs = new Document[ts.size()];
        for (int i = 0; i < docs.length; i++) {
            SaleRow t = ts.get(i);
            docs[i] = Document.createDocument("id", t.id()).put("seller", t.seller()).put("buyer", t.buyer())
                    .put("price", t.price()).put("item", t.item()).put("date", t.date());
        }
        sales.insert(docs);
        db.commit();
    }

    private static Object[] person(Document d) {
        return new Object[] {d.get("id", Long.class), d.get("name", String.class),
            (long) d.get("age", Integer.class), d.get("gender", String.class), d.get("color", String.class)};
    }

    @Override
    public List<Object[]> query(String test, String sql, long[] ints, String text) {
        List<Object[]> rows = new ArrayList<>();
        switch (test) {
            case "lookup-id":
                for (Document d : people.find(where("id").eq(ints[0]))) {
                    rows.add(person(d));
                }
                break;
            case "lookup-name":
                for (Document d : people.find(where("name").eq(text))) {
                    rows.add(person(d));
                }
                break;
            case "age-range":
                for (Document d : people.find(where("age").between((int) ints[0], (int) ints[1]))) {
                    rows.add(new Object[] {d.get("id", Long.class), d.get("name", String.class),
                        (long) d.get("age", Integer.class)});
                }
                break;
            case "group-age": {
                Map<Integer, Long> count = new HashMap<>();
                for (Document d : people.find()) {
                    count.merge(d.get("age", Integer.class), 1L, Long::sum);
                }
                count.forEach((age, n) -> rows.add(new Object[] {(long) age, n}));
                break;
            }
            case "group-buyer": {
                Map<Long, Long> sum = new HashMap<>();
                for (Document d : sales.find()) {
                    sum.merge(d.get("buyer", Long.class), (long) d.get("price", Integer.class), Long::sum);
                }
                sum.forEach((buyer, s) -> rows.add(new Object[] {buyer, s}));
                break;
            }
            case "join-age": {
                Map<Long, String> buyers = new HashMap<>();
                for (Document d : people.find(where("age").between((int) ints[0], (int) ints[1]))) {
                    buyers.put(d.get("id", Long.class), d.get("name", String.class));
                }
                if (buyers.isEmpty()) {
                    break;
                }
                Long[] ids = buyers.keySet().toArray(new Long[0]);
                for (Document d : sales.find(where("buyer").in(ids))) {
                    long buyer = d.get("buyer", Long.class);
                    rows.add(new Object[] {d.get("id", Long.class), (long) d.get("price", Integer.class),
                        buyer, buyers.get(buyer)});
                }
                break;
            }
            default:
                throw Fail.input("unknown test '" + Fail.oneLine(test) + "'");
        }
        return rows;
    }

    @Override
    public void close() {
        db.close();
    }
}
