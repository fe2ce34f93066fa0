package dev.pocketbench.jvm;

import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;

/**
 * An engine the driver measures: open in a directory with pocketbench's options, create the
 * key-value table, load in one transaction, execute one operation (returning the rows read or
 * changed), report its identity, compute the end-state checksum, close.
 */
interface Store extends AutoCloseable {
    /** {@link #lastRead}: the point read found no record. */
    byte[][] NOT_FOUND = new byte[0][];
    /** {@link #lastRead}: no copy of the record was kept (or the engine keeps none). */
    byte[][] NOT_KEPT = new byte[0][];

    void createSchema(Model m) throws Exception;

    void beginLoad() throws Exception;

    void endLoad() throws Exception;

    /**
     * Execute {@code op} with its request (key and values, built beforehand; {@code null} for
     * SQL); the rows produced or changed.
     */
    long execute(Op op, Model.Request r) throws Exception;

    /**
     * Keep a copy of the record the next point read (read, read-modify-write) returns, for
     * {@link #lastRead}: decided before the operation, so only checked reads pay for it.
     */
    default void keepRead(boolean keep) {}

    /** The fields the last point read returned when it was to be kept; else {@link #NOT_KEPT}. */
    default byte[][] lastRead() {
        return NOT_KEPT;
    }

    /** Run the following operations in a transaction that {@link #rollback} undoes (warm-up). */
    void beginScratch() throws Exception;

    void rollback() throws Exception;

    String name();

    String version();

    /** The options in effect, as pocketbench names them. */
    Map<String, String> options();

    /**
     * FNV-1a-64 over every row of the key-value table in key order — key, then each field,
     * each followed by a 0 byte — as 16 hex digits (the same on every engine that holds the
     * same rows); for SQL workloads over every row of every table, ordered by all columns.
     */
    String checksum(Model m) throws Exception;

    @Override
    void close() throws Exception;

    static Store open(String engine, Path dir, Map<String, String> options) throws Exception {
        switch (engine) {
            case "h2":
            case "sqlite-jdbc":
                return new JdbcStore(engine, dir, options);
            case "bdb-je":
                return new JeStore(dir, options);
            case "nitrite":
                return new NitriteStore(dir, options);
            case "objectbox":
                return new ObjectBoxStore(dir);
            case "null":
                return new NullStore();
            default:
                throw Fail.input("unknown JVM engine '" + engine + "' (h2, bdb-je, sqlite-jdbc, nitrite, objectbox)");
        }
    }

    /** Options with the defaults filled in, sorted. */
    static Map<String, String> withDefaults(Map<String, String> given, Map<String, String> defaults) {
        Map<String, String> out = new TreeMap<>(defaults);
        out.putAll(given);
        return out;
    }
}
