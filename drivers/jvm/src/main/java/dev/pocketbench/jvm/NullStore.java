package dev.pocketbench.jvm;

import java.util.Map;

/** Does nothing: replayed to measure the driver's own overhead per operation. */
final class NullStore implements Store {
    private long sink;

    @Override public void createSchema(Model m) {}
    @Override public void beginLoad() {}
    @Override public void endLoad() {}
    @Override public void beginScratch() {}
    @Override public void rollback() {}

    @Override
    public long execute(Op op, Model.Request r) {
        sink += op.key + op.seed;
        return 0;
    }

    @Override public String name() { return "null"; }
    @Override public String version() { return "jvm"; }
    @Override public Map<String, String> options() { return Map.of(); }
    @Override public String checksum(Model m) { return Long.toHexString(sink); }
    @Override public void close() {}
}
