package dev.pocketbench.jvm;

import java.io.BufferedReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * An engine of the data-model study in the JVM, each in its own idiom: open (create its files
 * and schema), insert every tuple, answer one execution of a test as rows of {@link Long} and
 * {@link String} values (the row shapes of pocketbench's reference answers, src/models/query.rs).
 */
interface ModelEngine extends AutoCloseable {
    /** A person: id, name, age, gender, colour. */
    record PersonRow(long id, String name, int age, String gender, String color) {}

    /** A transaction: id, seller, buyer (people's ids), price, item, date. */
    record SaleRow(long id, long seller, long buyer, int price, String item, int date) {}

    void insert(List<PersonRow> people, List<SaleRow> sales) throws Exception;

    /**
     * One execution of {@code test} ({@code lookup-id}, …) with its parameters; {@code sql} is
     * the test in SQL for the relational engines.
     */
    List<Object[]> query(String test, String sql, long[] ints, String text) throws Exception;

    @Override
    void close() throws Exception;

    static ModelEngine open(String engine, Path dir, String ddl) throws Exception {
        switch (engine) {
            case "h2": return JdbcModels.h2(dir, ddl);
            case "sqlite-jdbc": return JdbcModels.sqlite(dir, ddl);
            case "nitrite": return new NitriteModels(dir);
            case "objectbox": return new ObjectBoxModels(dir);
            default: throw Fail.input("unknown data-model engine '" + Fail.oneLine(engine) + "' (h2, sqlite-jdbc, nitrite, objectbox)");
        }
    }

    /** The tab-separated rows of {@code file}, each of {@code columns} fields. */
    private static List<String[]> rows(Path file, int columns) throws Exception {
        List<String[]> out = new ArrayList<>();
        try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            String line;
            while ((line = in.readLine()) != null) {
                String[] f = line.split("\t", -1);
                if (f.length != columns) {
                    throw Fail.input(file + ": a row of " + f.length + " fields, expected " + columns);
                }
                out.add(f);
            }
        } catch (NumberFormatException e) {
            throw Fail.input(file + ": " + e.getMessage());
        }
        return out;
    }

    static List<PersonRow> people(Path file) throws Exception {
        List<PersonRow> out = new ArrayList<>();
        for (String[] f : rows(file, 5)) {
            out.add(new PersonRow(Long.parseLong(f[0]), f[1], Integer.parseInt(f[2]), f[3], f[4]));
        }
        return out;
    }

    static List<SaleRow> sales(Path file) throws Exception {
        List<SaleRow> out = new ArrayList<>();
        for (String[] f : rows(file, 6)) {
            out.add(new SaleRow(Long.parseLong(f[0]), Long.parseLong(f[1]), Long.parseLong(f[2]),
                    Integer.parseInt(f[3]), f[4], Integer.parseInt(f[5])));
        }
        return out;
    }
}
