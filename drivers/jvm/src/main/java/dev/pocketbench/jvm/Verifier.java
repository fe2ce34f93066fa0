package dev.pocketbench.jvm;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * Read-your-writes, as pocketbench's native replay checks it (src/run/verify.rs): the seeds
 * each field of a key was last written with (load inserts, run inserts and updates), and after
 * a point read (read, read-modify-write) the record the engine returned compared with the
 * bytes those seeds generate. The decision to check is made before the operation (so the store
 * keeps a copy of the record only then) and the comparison after its end timestamp. Bounded
 * like the native check: with more than {@link #MAX_TRACKED} records loaded one key in
 * {@code stride} is tracked (by SplitMix64 of the key number); the first
 * {@link #CHECK_ALL_FIRST} point reads are all checked, then one in {@link #CHECK_ONE_IN}.
 */
final class Verifier {
    static final long MAX_TRACKED = 200_000;
    static final long CHECK_ALL_FIRST = 2_000;
    static final long CHECK_ONE_IN = 16;

    long checked, mismatches, unchecked;
    final long stride;

    private final Model model;
    /** Per key: one seed (every field) or a seed per field. */
    private final Map<Long, Object> written = new HashMap<>();
    private long reads;
    private boolean planned;

    Verifier(Model model, long loadOps) {
        this.model = model.sql ? null : model;
        this.stride = Long.divideUnsigned(loadOps, MAX_TRACKED) + 1;
    }

    private static boolean pointRead(Op op) {
        return op.tag == Op.READ || op.tag == Op.RMW;
    }

    private boolean tracked(long key) {
        long[] state = {key};
        return stride == 1 || Long.remainderUnsigned(Model.splitmix64(state), stride) == 0;
    }

    /** Whether the coming operation's read will be compared (the store keeps the record then). */
    boolean willCheck(Op op) {
        if (model == null || !pointRead(op)) {
            return false;
        }
        reads++;
        planned = reads <= CHECK_ALL_FIRST || reads % CHECK_ONE_IN == 0;
        return planned && tracked(op.key);
    }

    /** Remember what a successful write stored. */
    void wrote(Op op) {
        if (model == null || !(op.tag == Op.INSERT || op.tag == Op.UPDATE || op.tag == Op.RMW)
                || !tracked(op.key)) {
            return;
        }
        if (op.field < 0) {
            written.put(op.key, op.seed);
            return;
        }
        Object w = written.get(op.key);
        if (w == null) {
            return; // an update of a record never written changes nothing
        }
        long[] seeds;
        if (w instanceof Long) {
            seeds = new long[model.fieldCount];
            Arrays.fill(seeds, (Long) w);
            written.put(op.key, seeds);
        } else {
            seeds = (long[]) w;
        }
        seeds[op.field] = op.seed;
    }

    /**
     * Compare what a point read returned ({@code read}: the fields, {@link Store#NOT_FOUND} or
     * {@link Store#NOT_KEPT}) with what was written; the first difference, or null.
     */
    String check(Op op, byte[][] read) {
        if (model == null || !pointRead(op)) {
            return null;
        }
        if (!planned || !tracked(op.key) || read == Store.NOT_KEPT) {
            unchecked++;
            return null;
        }
        planned = false;
        checked++;
        String diff = compare(op.key, read);
        if (diff != null) {
            mismatches++;
        }
        return diff;
    }

    private String compare(long key, byte[][] read) {
        Object w = written.get(key);
        if (w == null) {
            return read == Store.NOT_FOUND ? null
                    : "read-your-writes: key " + key + " returned a record but none was written";
        }
        if (read == Store.NOT_FOUND) {
            return "read-your-writes: key " + key + " was written but the read found no record";
        }
        for (int f = 0; f < model.fieldCount; f++) {
            long seed = w instanceof Long ? (Long) w : ((long[]) w)[f];
            if (f >= read.length || read[f] == null) {
                return "read-your-writes: key " + key + ": the record read has no field" + f;
            }
            if (!Arrays.equals(read[f], model.field(seed, f))) {
                return "read-your-writes: key " + key + " field" + f + ": read " + read[f].length
                        + " bytes that differ from the value written with seed " + Long.toUnsignedString(seed);
            }
        }
        return null;
    }
}
