package dev.pocketbench.jvm;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.zip.CRC32;

/**
 * Reads a pocketbench trace (docs/trace-format.md, version 1) with the checks pocketbench's
 * own reader makes: magic and version, header length and CRC32, every block's length and
 * CRC32 before any record in it is decoded, phase order, record encodings, counts and total
 * delay against the end block, the digest, and nothing after the end block. Every failure is
 * bad input naming the file. One block is held at a time.
 */
final class TraceReader implements AutoCloseable {
    static final int MAX_FRAME = 64 * 1024 * 1024;
    static final long MAX_SCAN = 1_000_000;
    static final long MAX_SQL = 1 << 20;

    final String file;
    final JsonNode header;
    final Model model;
    private final DataInputStream in;
    private long digest = Model.FNV_OFFSET;
    private int block;
    private boolean inRun;
    private boolean ended;
    private long loadSeen, runSeen, delaySum;
    private final ArrayDeque<Op> pending = new ArrayDeque<>();
    private char pendingPhase;

    TraceReader(Path path) {
        this.file = path.toString();
        try {
            in = new DataInputStream(new BufferedInputStream(Files.newInputStream(path), 256 * 1024));
        } catch (IOException e) {
            throw Fail.input(file + ": cannot open trace: " + e.getMessage());
        }
        try {
            byte[] magic = new byte[8];
            readFully(magic, "file too short");
            if (!new String(magic, StandardCharsets.ISO_8859_1).equals("PBTRACE\n")) {
                throw bad("wrong magic bytes");
            }
            int version = u16();
            if (version != 1) {
                throw Fail.input(file + ": trace format version " + version
                        + " is not supported (this pocketbench reads version 1)");
            }
            long n = u32();
            if (n > MAX_FRAME) {
                throw bad("header length is implausible");
            }
            byte[] h = new byte[(int) n];
            readFully(h, "header cut short");
            long crc = u32();
            if (crc(h) != crc) {
                throw bad("header checksum mismatch");
            }
            fold(crc);
            try {
                header = new ObjectMapper().readTree(h);
            } catch (IOException e) {
                throw bad("header is not valid: " + e.getMessage().lines().findFirst().orElse(""));
            }
            model = parseModel(header);
        } catch (IOException e) {
            throw bad("header cut short");
        }
    }

    private Model parseModel(JsonNode h) {
        JsonNode m = h.path("workload").path("model");
        String kind = m.path("kind").asText("");
        if (kind.equals("sql")) {
            return new Model(true, "", 0, 0, "", false, 0);
        }
        if (!kind.equals("key_value")) {
            throw bad("header is not valid: workload.model.kind");
        }
        int fields = m.path("field_count").asInt(-1);
        int length = m.path("field_length").asInt(-1);
        if (fields < 1 || fields > 1000) {
            throw Fail.input(file + ": trace header: field_count: " + fields + " is not 1 to 1000 (see docs/limits.md)");
        }
        if (length < 0 || length > (1 << 20) || (long) fields * length > (16L << 20)) {
            throw Fail.input(file + ": trace header: field_length: " + length + " is above the limit (see docs/limits.md)");
        }
        return new Model(false, m.path("table").asText("usertable"), fields, length,
                m.path("key_prefix").asText("user"), m.path("hashed").asBoolean(true),
                m.path("zero_padding").asInt(1));
    }

    private Fail bad(String why) {
        return Fail.input(file + ": not a valid pocketbench trace: " + why);
    }

    private Fail corrupt(String why) {
        return Fail.input(file + ": corrupt trace (block " + block + "): " + why);
    }

    private Fail corruptAfter(String why) {
        return Fail.input(file + ": corrupt trace (after block " + block + "): " + why);
    }

    private void readFully(byte[] b, String shortWhy) throws IOException {
        try {
            in.readFully(b);
        } catch (EOFException e) {
            throw bad(shortWhy);
        }
    }

    private int u16() throws IOException {
        return Short.toUnsignedInt(Short.reverseBytes(in.readShort()));
    }

    private long u32() throws IOException {
        return Integer.toUnsignedLong(Integer.reverseBytes(in.readInt()));
    }

    private static long crc(byte[] b) {
        CRC32 c = new CRC32();
        c.update(b);
        return c.getValue();
    }

    private void fold(long word) {
        for (int i = 0; i < 8; i++) {
            digest ^= (word >>> (8 * i)) & 0xFF;
            digest *= Model.FNV_PRIME;
        }
    }

    /** The next operation of phase {@code phase} ('L' or 'R'), or null when that phase ends. */
    Op next(char phase) {
        while (pending.isEmpty()) {
            if (ended || (pendingPhase != 0 && pendingPhase != phase)) {
                return null;
            }
            readBlock();
        }
        if (pendingPhase != phase) {
            return null;
        }
        return pending.poll();
    }

    /** The load operations are skipped (the run phase of a trace whose load is done). */
    void skipLoad() {
        while (next('L') != null) {
            // discard
        }
    }

    /** Read to the end block and check everything (counts, delays, digest, trailing bytes). */
    void finish() {
        pending.clear();
        while (!ended) {
            pendingPhase = 0;
            readBlock();
            pending.clear();
        }
    }

    private void readBlock() {
        pendingPhase = 0;
        try {
            int tag = in.read();
            if (tag < 0) {
                throw corruptAfter("truncated: the trace ends without its end block");
            }
            long count, length, crc;
            try {
                count = u32();
                length = u32();
                crc = u32();
            } catch (EOFException e) {
                throw corruptAfter("truncated in the middle of a block");
            }
            if (length > MAX_FRAME) {
                throw corruptAfter("block length is implausible");
            }
            byte[] payload = new byte[(int) length];
            try {
                in.readFully(payload);
            } catch (EOFException e) {
                throw corruptAfter("truncated in the middle of a block");
            }
            if (crc(payload) != crc) {
                throw corruptAfter("block checksum mismatch");
            }
            block++;
            if (tag == 'E') {
                end(payload);
                return;
            }
            if (tag != 'L' && tag != 'R') {
                throw corrupt("unknown block tag");
            }
            if (tag == 'L' && inRun) {
                throw corrupt("load block after run blocks");
            }
            inRun = tag == 'R';
            fold(((long) tag << 32) | count);
            fold((length << 32) | crc);
            ByteBuffer b = ByteBuffer.wrap(payload).order(ByteOrder.LITTLE_ENDIAN);
            for (long i = 0; i < count; i++) {
                Op op = record(b, tag == 'R');
                pending.add(op);
            }
            if (b.hasRemaining()) {
                throw corrupt("trailing bytes after the last record");
            }
            if (tag == 'L') {
                loadSeen += count;
            } else {
                runSeen += count;
            }
            pendingPhase = (char) tag;
        } catch (IOException e) {
            throw Fail.input(file + ": cannot read trace: " + e.getMessage());
        }
    }

    private void end(byte[] payload) throws IOException {
        if (payload.length != 32) {
            throw corrupt("end block has the wrong size");
        }
        ByteBuffer b = ByteBuffer.wrap(payload).order(ByteOrder.LITTLE_ENDIAN);
        long loadOps = b.getLong(), runOps = b.getLong(), totalDelay = b.getLong(), dg = b.getLong();
        if (loadOps != loadSeen || runOps != runSeen || totalDelay != delaySum) {
            throw corrupt("operation counts or total delay do not match the end block");
        }
        if (dg != digest) {
            throw corrupt("digest does not match the blocks");
        }
        if (in.read() >= 0) {
            throw corrupt("data after the end block");
        }
        ended = true;
    }

    private long varint(ByteBuffer b) {
        long v = 0;
        for (int i = 0; i < 10; i++) {
            if (!b.hasRemaining()) {
                throw corrupt("record cut short");
            }
            int x = b.get() & 0xFF;
            v |= (long) (x & 0x7F) << (7 * i);
            if ((x & 0x80) == 0) {
                return v;
            }
        }
        throw corrupt("varint longer than 10 bytes");
    }

    private long seed(ByteBuffer b) {
        if (b.remaining() < 8) {
            throw corrupt("record cut short");
        }
        return b.getLong();
    }

    private int field(ByteBuffer b) {
        long f = varint(b);
        if (f == 0) {
            return -1;
        }
        if (f - 1 >= model.fieldCount || model.sql) {
            throw corrupt("field index out of range");
        }
        return (int) (f - 1);
    }

    private Op record(ByteBuffer b, boolean run) {
        if (!b.hasRemaining()) {
            throw corrupt("record cut short");
        }
        int tag = b.get() & 0xFF;
        long key = 0, len = 0, seed = 0;
        int field = -1;
        String sql = null;
        switch (tag) {
            case Op.READ: key = varint(b); break;
            case Op.SCAN:
                key = varint(b);
                len = varint(b);
                if (len == 0 || len > MAX_SCAN) {
                    throw corrupt("value out of range");
                }
                break;
            case Op.UPDATE: case Op.RMW:
                key = varint(b);
                field = field(b);
                seed = seed(b);
                break;
            case Op.INSERT:
                key = varint(b);
                seed = seed(b);
                break;
            case Op.SQL: sql = sql(b); break;
            default:
                throw corrupt("unknown operation tag");
        }
        if ((tag == Op.SQL) != model.sql) {
            throw corrupt("operation does not fit the trace's data model");
        }
        long delay = 0;
        if (run) {
            delay = varint(b);
            long sum = delaySum + delay;
            delaySum = Long.compareUnsigned(sum, delaySum) < 0 ? -1L : sum;
        }
        return new Op(tag, key, len, field, seed, sql, delay);
    }

    private String sql(ByteBuffer b) {
        long n = varint(b);
        if (n > MAX_SQL || n > b.remaining()) {
            throw corrupt(n > MAX_SQL ? "value out of range" : "record cut short");
        }
        byte[] text = new byte[(int) n];
        b.get(text);
        String sql;
        try {
            sql = StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(text)).toString();
        } catch (CharacterCodingException e) {
            throw corrupt("SQL is not UTF-8");
        }
        if (sql.indexOf('\0') >= 0) {
            throw corrupt("SQL text contains a NUL byte");
        }
        return sql;
    }

    @Override
    public void close() {
        try {
            in.close();
        } catch (IOException e) {
            // nothing to do
        }
    }
}
