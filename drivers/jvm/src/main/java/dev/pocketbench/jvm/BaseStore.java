package dev.pocketbench.jvm;

/**
 * What the driver's stores share: keeping the fields of a point read for the verifier
 * ({@link #keepRead}, {@link #lastRead}), and the dispatch of a trace's key-value operations to
 * the engine's own point read, scan, insert and update (a read-modify-write is a point read,
 * then an update). An engine that runs SQL records overrides {@link #statement}; the others
 * refuse them as bad input.
 */
abstract class BaseStore implements Store {
    private boolean keep;
    private byte[][] last = NOT_KEPT;

    @Override
    public final void keepRead(boolean keep) {
        this.keep = keep;
        last = NOT_KEPT;
    }

    @Override
    public final byte[][] lastRead() {
        return last;
    }

    /** Whether the point read under way is to be kept: ask before building its fields. */
    protected final boolean keeping() {
        return keep;
    }

    /** Keep what the point read found: its fields, or {@code null} when no record was there. */
    protected final void kept(byte[][] fields) {
        last = fields == null ? NOT_FOUND : fields;
    }

    /** The refusal of a workload this engine cannot run. */
    protected final Fail keyValueOnly() {
        return Fail.input(name() + " runs key-value workloads only");
    }

    protected abstract long pointRead(String key) throws Exception;

    protected abstract long scan(String key, long len) throws Exception;

    protected abstract long insert(Model.Request r) throws Exception;

    /** Every field ({@code op.field < 0}) or the one field {@code op.field}. */
    protected abstract long update(Op op, Model.Request r) throws Exception;

    /** A SQL record (no key-value request). */
    protected long statement(Op op) throws Exception {
        throw keyValueOnly();
    }

    @Override
    public final long execute(Op op, Model.Request r) throws Exception {
        if (r == null) {
            return statement(op);
        }
        switch (op.tag) {
            case Op.READ:
                return pointRead(r.key);
            case Op.SCAN:
                return scan(r.key, op.len);
            case Op.INSERT:
                return insert(r);
            case Op.UPDATE:
                return update(op, r);
            case Op.RMW:
                pointRead(r.key);
                return update(op, r);
            default:
                return statement(op);
        }
    }
}
