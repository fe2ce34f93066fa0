package dev.pocketbench.jvm;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * pocketbench's key-value record encoding, for engines that store a record's fields as one
 * value (BerkeleyDB JE, ObjectBox): each field a u32 little-endian length, then its bytes
 * (docs/trace-format.md), so every engine's rows compare field by field.
 */
final class Records {
    private Records() {}

    static byte[] encode(byte[][] values) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] v : values) {
            out.writeBytes(ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(v.length).array());
            out.writeBytes(v);
        }
        return out.toByteArray();
    }

    /** The fields of a record; a cut-off last field is left out. */
    static byte[][] decode(byte[] record) {
        List<byte[]> out = new ArrayList<>();
        ByteBuffer b = ByteBuffer.wrap(record).order(ByteOrder.LITTLE_ENDIAN);
        while (b.remaining() >= 4) {
            int n = b.getInt();
            if (n < 0 || n > b.remaining()) {
                break;
            }
            byte[] v = new byte[n];
            b.get(v);
            out.add(v);
        }
        return out.toArray(new byte[0][]);
    }

    /** The record with field {@code i} replaced by {@code value}; null when it has no field i. */
    static byte[] withField(byte[] record, int i, byte[] value) {
        byte[][] f = decode(record);
        if (i >= f.length) {
            return null;
        }
        f[i] = value;
        return encode(f);
    }

    /** Add a record (its key, then each field) to an end-state checksum. */
    static void checksum(JdbcStore.Checksum c, byte[] key, byte[] record) {
        c.bytes(key);
        for (byte[] v : decode(record)) {
            c.bytes(v);
        }
    }
}
