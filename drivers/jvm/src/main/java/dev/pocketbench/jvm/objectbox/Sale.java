package dev.pocketbench.jvm.objectbox;

import io.objectbox.BoxStore;
import io.objectbox.annotation.Entity;
import io.objectbox.annotation.Id;
import io.objectbox.relation.ToOne;

/**
 * A transaction of the data-model study, as an ObjectBox entity: its seller and buyer are
 * {@link ToOne} relations to {@link Person} (ObjectBox indexes a relation's target id). Built
 * without ObjectBox's Gradle plugin, whose bytecode transformer would add them, the relations
 * are initialised here and {@code __boxStore} is declared, as ObjectBox documents for plain
 * JVM builds.
 */
@Entity
public class Sale {
    @Id(assignable = true)
    public long id;
    public ToOne<Person> seller = new ToOne<>(this, Sale_.seller);
    public ToOne<Person> buyer = new ToOne<>(this, Sale_.buyer);
    public int price;
    public String item;
    public int date;

    /** Set by ObjectBox when the object is read or put: resolves the relations. */
    transient BoxStore __boxStore;

    public Sale() {}

    public Sale(long id, long seller, long buyer, int price, String item, int date) {
        this.id = id;
        this.seller.setTargetId(seller);
        this.buyer.setTargetId(buyer);
        this.price = price;
        this.item = item;
        this.date = date;
    }
}
