package dev.pocketbench.jvm;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.FileOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.Map;
import java.util.TreeMap;

/**
 * The JVM side of {@code pocketbench durability} (docs/durability.md): the same workload the
 * native child process runs, through the driver's stores, and the reading back of a crash
 * state through the engine's own recovery.
 * <ul>
 * <li>{@code durability-child SPEC.json}: open the engine in {@code data_dir} with its options;
 * mode {@code preload} inserts record 0 (the {@value #PRELOAD} preloaded fields) and closes;
 * mode {@code run} appends {@code 0\n} to the acknowledgement log {@code acks}, then for each
 * transaction i (1 to {@code txns}) inserts record i, whose fields are {@link #payload}(i, part)
 * for each part below {@code rows} (one engine commit), and appends {@code i\n} to the log with
 * a plain {@code write(2)} (FileOutputStream), which the recorder of file-system calls sees;
 * mode {@code timed} runs the same inserts without the log and prints transactions per
 * second.</li>
 * <li>{@code durability-check SPEC.json}: a long-lived checker. Each line on stdin is
 * {@code UPTO<TAB>DIR}: open the store in DIR (the engine's recovery), read records 0 to UPTO,
 * close it, and print one JSON line: {@code open_ns}, {@code records} (each record present as
 * its number and its fields in hexadecimal) and {@code error} (why it could not be opened or a
 * record read, else null). A failure is a finding, printed, never the end of the checker.</li>
 * </ul>
 */
final class Durability {
    private Durability() {}

    /** Record 0's fields; also the records' field count (shorter records padded with empty fields). */
    static final int PRELOAD = 64;

    /** pocketbench's durability key-value model: table usertable, key "user" + the number. */
    static final Model MODEL = new Model(false, "usertable", PRELOAD, 0, "user", false, 1);

    /** xoshiro256** seeded through SplitMix64: src/workload/rng.rs, byte for byte. */
    static final class Rng {
        private final long[] s = new long[4];

        Rng(long seed) {
            long[] sm = {seed};
            for (int i = 0; i < 4; i++) {
                s[i] = Model.splitmix64(sm);
            }
        }

        long next() {
            long result = Long.rotateLeft(s[1] * 5, 7) * 9;
            long t = s[1] << 17;
            s[2] ^= s[0];
            s[3] ^= s[1];
            s[1] ^= s[2];
            s[0] ^= s[3];
            s[2] ^= t;
            s[3] = Long.rotateLeft(s[3], 45);
            return result;
        }

        /** Uniform in [0, n): Lemire's multiply-shift with rejection, as Rust's {@code below}. */
        long below(long n) {
            long threshold = Long.remainderUnsigned(-n, n);
            while (true) {
                long x = next();
                long low = x * n;
                if (Long.compareUnsigned(low, threshold) >= 0) {
                    return Math.multiplyHigh(x, n) + ((x >> 63) & n) + ((n >> 63) & x);
                }
            }
        }
    }

    /** The deterministic bytes of row (txn, part): src/durability/mod.rs's {@code payload}. */
    static byte[] payload(long txn, long part) {
        Rng rng = new Rng((txn * 0x9E3779B97F4A7C15L) ^ part);
        int len = 96 + (int) rng.below(160);
        byte[] out = new byte[len];
        for (int i = 0; i < len; i++) {
            out[i] = (byte) rng.below(256);
        }
        return out;
    }

    /** Record {@code txn}'s insert: {@code rows} payloads, then empty fields up to {@link #PRELOAD}. */
    private static Model.Request insert(long txn, int rows) {
        byte[][] fields = new byte[PRELOAD][];
        String[] texts = new String[PRELOAD];
        for (int p = 0; p < PRELOAD; p++) {
            fields[p] = p < rows ? payload(txn, p) : new byte[0];
            // Bytes as characters 0-255: the JDBC and document stores hold text.
            texts[p] = new String(fields[p], StandardCharsets.ISO_8859_1);
        }
        return new Model.Request(MODEL.keyText(txn), fields, texts);
    }

    private static void put(Store store, long txn, int rows) throws Exception {
        store.execute(new Op(Op.INSERT, txn, 0, -1, txn, null, 0), insert(txn, rows));
    }

    private static Map<String, String> options(JsonNode spec) {
        Map<String, String> out = new TreeMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = spec.path("options").fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            out.put(e.getKey(), e.getValue().asText());
        }
        return out;
    }

    private static String text(JsonNode spec, String field) {
        JsonNode v = spec.get(field);
        if (v == null || !v.isTextual()) {
            throw Fail.input("driver spec: " + field + ": missing or not text");
        }
        return v.asText();
    }

    /**
     * Set before any store opens under durability: engines leave out the diagnostic files they
     * write from background threads on a timer (JE's statistics CSV and its log file), which
     * are not part of the database and would make two recordings of one workload differ.
     */
    static final String QUIET = "pocketbench.durability";

    private static Store open(JsonNode spec, Path dir) throws Exception {
        System.setProperty(QUIET, "true");
        Store s = Store.open(text(spec, "engine"), dir, options(spec));
        s.createSchema(MODEL);
        return s;
    }

    /** {@code durability-child}: see the class comment. */
    static void child(JsonNode spec) throws Exception {
        String mode = text(spec, "mode");
        long txns = spec.path("txns").asLong(0);
        int rows = spec.path("rows").asInt(0);
        if (rows < 1 || rows > PRELOAD) {
            throw Fail.input("driver spec: rows " + rows + ": must be 1 to " + PRELOAD);
        }
        try (Store store = open(spec, Path.of(text(spec, "data_dir")))) {
            switch (mode) {
                case "preload":
                    put(store, 0, PRELOAD);
                    break;
                case "run":
                    try (FileOutputStream acks = new FileOutputStream(text(spec, "acks"), true)) {
                        acks.write("0\n".getBytes(StandardCharsets.US_ASCII));
                        for (long i = 1; i <= txns; i++) {
                            put(store, i, rows);
                            acks.write((i + "\n").getBytes(StandardCharsets.US_ASCII));
                        }
                    }
                    break;
                case "timed":
                    long t0 = System.nanoTime();
                    for (long i = 1; i <= txns; i++) {
                        put(store, i, rows);
                    }
                    long ns = Math.max(1, System.nanoTime() - t0);
                    System.out.println(txns * 1e9 / ns);
                    break;
                default:
                    throw Fail.input("driver spec: mode '" + Fail.oneLine(mode) + "' (preload, run, timed)");
            }
        }
    }

    /** {@code durability-check}: see the class comment. */
    static void check(JsonNode spec, ObjectMapper json) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        PrintStream out = System.out;
        String line;
        while ((line = in.readLine()) != null) {
            int tab = line.indexOf('\t');
            if (tab < 0) {
                throw Fail.input("durability-check: expected UPTO<TAB>DIR, got '" + Fail.oneLine(line) + "'");
            }
            long upto = Long.parseLong(line.substring(0, tab));
            out.println(json.writeValueAsString(state(spec, json, Path.of(line.substring(tab + 1)), upto)));
            out.flush();
        }
    }

    private static String describe(Throwable t) {
        return Fail.oneLine(t.getClass().getSimpleName() + ": " + t.getMessage());
    }

    /** Open the crash state in {@code dir} and read records 0 to {@code upto}. */
    private static ObjectNode state(JsonNode spec, ObjectMapper json, Path dir, long upto) {
        ObjectNode r = json.createObjectNode();
        ArrayNode records = r.putArray("records");
        String error = null;
        long t0 = System.nanoTime();
        Store store;
        try {
            store = open(spec, dir);
        } catch (Throwable t) {
            r.put("open_ns", System.nanoTime() - t0);
            r.put("error", "recovery failed: " + describe(t));
            return r;
        }
        r.put("open_ns", System.nanoTime() - t0);
        HexFormat hex = HexFormat.of();
        for (long txn = 0; txn <= upto; txn++) {
            try {
                Op op = new Op(Op.READ, txn, 0, -1, 0, null, 0);
                store.keepRead(true);
                store.execute(op, MODEL.request(op));
                byte[][] fields = store.lastRead();
                if (fields == Store.NOT_FOUND || fields == Store.NOT_KEPT) {
                    continue;
                }
                ArrayNode rec = records.addArray();
                rec.add(txn);
                ArrayNode f = rec.addArray();
                for (byte[] v : fields) {
                    f.add(v == null ? "" : hex.formatHex(v));
                }
            } catch (Throwable t) {
                if (error == null) {
                    error = "reading record " + txn + ": " + describe(t);
                }
            }
        }
        try {
            store.close();
        } catch (Throwable t) {
            if (error == null) {
                error = "closing: " + describe(t);
            }
        }
        if (error == null) {
            r.putNull("error");
        } else {
            r.put("error", error);
        }
        return r;
    }

    /** {@code durability-payload TXN PART}: the payload in hexadecimal (tests compare it with Rust's). */
    static String payloadHex(String txn, String part) {
        return HexFormat.of().formatHex(payload(Long.parseUnsignedLong(txn), Long.parseUnsignedLong(part)));
    }
}
