package dev.pocketbench.jvm;

import dev.pocketbench.jvm.objectbox.MyObjectBox;
import dev.pocketbench.jvm.objectbox.Person;
import dev.pocketbench.jvm.objectbox.Sale;
import dev.pocketbench.jvm.objectbox.Person_;
import dev.pocketbench.jvm.objectbox.Sale_;
import io.objectbox.Box;
import io.objectbox.BoxStore;
import io.objectbox.query.Query;
import io.objectbox.query.QueryBuilder;
import io.objectbox.query.QueryBuilder.StringOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * ObjectBox (the object database Android apps ship) in the data-model study: the entities
 * {@code Person} and {@code Sale} (dev.pocketbench.jvm.objectbox), whose meta classes and
 * model its annotation processor generates at build time; ids assigned from the tuples, a
 * {@code ToOne} from each sale to its seller and buyer (relation ids are indexed), and
 * {@code @Index} on {@code age}, the field tests 3 and 6 filter; the name is not indexed (test
 * 2 is defined on a non-indexed field). Insert: both boxes' {@code put} in one transaction.
 * Test 1 is {@code box.get(id)}; tests 2 and 3 are query-builder queries built once and re-run
 * with new parameters; test 4 a property query (every age) counted in the application; test
 * 5 every sale read and summed per buyer (ObjectBox has no group-by); test 6 a query over
 * sales linked to buyers in the age range, the buyer's name read through the {@code ToOne}.
 */
final class ObjectBoxModels implements ModelEngine {
    private final BoxStore store;
    private final Box<Person> people;
    private final Box<Sale> sales;
    private final Query<Person> byName, byAge;

    ObjectBoxModels(Path dir) {
        store = MyObjectBox.builder().directory(dir.resolve("objectbox").toFile()).build();
        people = store.boxFor(Person.class);
        sales = store.boxFor(Sale.class);
        byName = people.query(Person_.name.equal("", StringOrder.CASE_SENSITIVE)).build();
        byAge = people.query(Person_.age.between(0, 0)).build();
    }

    @Override
    public void insert(List<PersonRow> ps, List<SaleRow> ts) {
        List<Person> objects = new ArrayList<>(ps.size());
        for (PersonRow p : ps) {
            objects.add(new Person(p.id(), p.name(), p.age(), p.gender(), p.color()));
        }
        List<Sale> saleObjects = new ArrayList<>(ts.size());
        for (SaleRow t : ts) {
            saleObjects.add(new Sale(t.id(), t.seller(), t.buyer(), t.price(), t.item(), t.date()));
        }
        store.runInTx(() -> {
            people.put(objects);
            sales.put(saleObjects);
        });
    }

    private static Object[] person(Person p) {
        return new Object[] {p.id, p.name, (long) p.age, p.gender, p.color};
    }

    @Override
    public List<Object[]> query(String test, String sql, long[] ints, String text) {
        List<Object[]> rows = new ArrayList<>();
        switch (test) {
            case "lookup-id": {
                Person p = people.get(ints[0]);
                if (p != null) {
                    rows.add(person(p));
                }
                break;
            }
            case "lookup-name":
                for (Person p : byName.setParameter(Person_.name, text).find()) {
                    rows.add(person(p));
                }
                break;
            case "age-range":
                for (Person p : byAge.setParameters(Person_.age, ints[0], ints[1]).find()) {
                    rows.add(new Object[] {p.id, p.name, (long) p.age});
                }
                break;
            case "group-age": {
                Map<Integer, Long> count = new HashMap<>();
                try (Query<Person> all = people.query().build()) {
                    for (int age : all.property(Person_.age).findInts()) {
                        count.merge(age, 1L, Long::sum);
                    }
                }
                count.forEach((age, n) -> rows.add(new Object[] {(long) age, n}));
                break;
            }
            case "group-buyer": {
                Map<Long, Long> sum = new HashMap<>();
                for (Sale s : sales.getAll()) {
                    sum.merge(s.buyer.getTargetId(), (long) s.price, Long::sum);
                }
                sum.forEach((buyer, total) -> rows.add(new Object[] {buyer, total}));
                break;
            }
            case "join-age": {
                QueryBuilder<Sale> qb = sales.query();
                qb.link(Sale_.buyer).between(Person_.age, ints[0], ints[1]);
                try (Query<Sale> q = qb.build()) {
                    for (Sale s : q.find()) {
                        Person buyer = s.buyer.getTarget();
                        rows.add(new Object[] {s.id, (long) s.price, buyer.id, buyer.name});
                    }
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
        byName.close();
        byAge.close();
        store.close();
    }
}
