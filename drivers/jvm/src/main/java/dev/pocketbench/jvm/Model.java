package dev.pocketbench.jvm;

import java.nio.charset.StandardCharsets;

/**
 * The key-value data model of a trace's header (table, fields, key naming) and the two
 * derivations pocketbench makes instead of storing data: key text from a key number (YCSB's
 * FNV-1a-64 when hashed, the prefix, zero padding) and a field's bytes from a seed (SplitMix64,
 * scaled onto the 95 printable ASCII characters). Both match src/workload (model.rs,
 * values.rs, keys.rs) byte for byte.
 */
final class Model {
    final boolean sql;
    final String table;
    final int fieldCount;
    final int fieldLength;
    final String keyPrefix;
    final boolean hashed;
    final int zeroPadding;

    Model(boolean sql, String table, int fieldCount, int fieldLength, String keyPrefix,
            boolean hashed, int zeroPadding) {
        this.sql = sql;
        this.table = table;
        this.fieldCount = fieldCount;
        this.fieldLength = fieldLength;
        this.keyPrefix = keyPrefix;
        this.hashed = hashed;
        this.zeroPadding = zeroPadding;
    }

    static final long FNV_OFFSET = 0xCBF29CE484222325L;
    static final long FNV_PRIME = 0x100000001B3L;

    /** YCSB's hash of a key number: FNV-1a-64 over its eight bytes, made non-negative. */
    static long fnvHash64(long val) {
        long hash = FNV_OFFSET;
        long v = val;
        for (int i = 0; i < 8; i++) {
            hash ^= v & 0xFF;
            hash *= FNV_PRIME;
            v >>>= 8;
        }
        return Math.abs(hash);
    }

    String keyText(long keynum) {
        long n = hashed ? fnvHash64(keynum) : keynum;
        String digits = Long.toUnsignedString(n);
        StringBuilder b = new StringBuilder(keyPrefix);
        for (int i = digits.length(); i < zeroPadding; i++) {
            b.append('0');
        }
        return b.append(digits).toString();
    }

    static long splitmix64(long[] state) {
        state[0] += 0x9E3779B97F4A7C15L;
        long z = state[0];
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /** Field {@code field}'s bytes for a record written with {@code seed}. */
    byte[] field(long seed, int field) {
        byte[] out = new byte[fieldLength];
        long[] state = {seed ^ ((long) (field + 1) * 0xA24BAED4963EE407L)};
        for (int i = 0; i < out.length; i += 8) {
            long word = splitmix64(state);
            for (int j = 0; j < 8 && i + j < out.length; j++) {
                int random = (int) ((word >>> (8 * j)) & 0xFF);
                out[i + j] = (byte) (' ' + ((random * 95) >> 8));
            }
        }
        return out;
    }

    /**
     * What an operation writes, built before its clock starts (as pocketbench's materializer
     * does): the key text, and the field values it writes as bytes and as text ({@code null}
     * for fields it leaves alone).
     */
    static final class Request {
        final String key;
        final byte[][] fields;
        final String[] texts;

        Request(String key, byte[][] fields, String[] texts) {
            this.key = key;
            this.fields = fields;
            this.texts = texts;
        }
    }

    private static final byte[][] NO_FIELDS = new byte[0][];
    private static final String[] NO_TEXTS = new String[0];

    /** {@code op}'s request ({@code null} for a SQL statement); reads and scans carry no fields. */
    Request request(Op op) {
        if (sql || op.tag == Op.SQL) {
            return null;
        }
        boolean writes = op.tag == Op.INSERT || op.tag == Op.UPDATE || op.tag == Op.RMW;
        if (!writes) {
            return new Request(keyText(op.key), NO_FIELDS, NO_TEXTS);
        }
        byte[][] fields = new byte[fieldCount][];
        String[] texts = new String[fieldCount];
        for (int i = 0; i < fieldCount; i++) {
            if (op.field < 0 || op.field == i) {
                fields[i] = field(op.seed, i);
                texts[i] = new String(fields[i], StandardCharsets.US_ASCII);
            }
        }
        return new Request(keyText(op.key), fields, texts);
    }

    static String fieldName(int i) {
        return "field" + i;
    }
}
