package dev.pocketbench.jvm;

/** One trace operation, as the trace format stores it (docs/trace-format.md, "Records"). */
final class Op {
    static final int READ = 0, SCAN = 1, UPDATE = 2, INSERT = 3, RMW = 4, SQL = 5;

    /** pocketbench's operation kinds (OpKind codes): the sample's first byte. */
    static final int K_READ = 0, K_SCAN = 1, K_UPDATE = 2, K_INSERT = 3, K_RMW = 4, K_SELECT = 5,
            K_DELETE = 6, K_OTHER = 7;

    final int tag;
    final long key;
    /** Scan length. */
    final long len;
    /** -1 for every field, else the field index. */
    final int field;
    final long seed;
    final String sql;
    /** The delay after this run operation (0 for load operations). */
    final long delayNs;

    Op(int tag, long key, long len, int field, long seed, String sql, long delayNs) {
        this.tag = tag;
        this.key = key;
        this.len = len;
        this.field = field;
        this.seed = seed;
        this.sql = sql;
        this.delayNs = delayNs;
    }

    /** The kind code pocketbench reports the operation under. */
    int kind() {
        switch (tag) {
            case READ: return K_READ;
            case SCAN: return K_SCAN;
            case UPDATE: return K_UPDATE;
            case INSERT: return K_INSERT;
            case RMW: return K_RMW;
            default: return sqlKind(sql);
        }
    }

    /** A statement's kind by its first keyword, as pocketbench classifies it. */
    static int sqlKind(String sql) {
        String s = sql.stripLeading();
        int end = 0;
        while (end < s.length() && Character.isLetter(s.charAt(end)) && s.charAt(end) < 128) {
            end++;
        }
        String w = s.substring(0, end).toLowerCase(java.util.Locale.ROOT);
        switch (w) {
            case "select": case "with": return K_SELECT;
            case "update": return K_UPDATE;
            case "insert": case "replace": return K_INSERT;
            case "delete": return K_DELETE;
            default: return K_OTHER;
        }
    }
}
