package dev.pocketbench.jvm.objectbox;

import io.objectbox.annotation.Entity;
import io.objectbox.annotation.Id;
import io.objectbox.annotation.Index;

/** A person of the data-model study, as an ObjectBox entity: {@code age} indexed (tests 3, 6 filter it). */
@Entity
public class Person {
    @Id(assignable = true)
    public long id;
    public String name;
    @Index
    public int age;
    public String gender;
    public String color;

    public Person() {}

    public Person(long id, String name, int age, String gender, String color) {
        this.id = id;
        this.name = name;
        this.age = age;
        this.gender = gender;
        this.color = color;
    }
}
