package dev.pocketbench.jvm;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * H2 and SQLite through JDBC (xerial sqlite-jdbc). Key-value workloads use YCSB's JDBC schema
 * ({@code usertable(YCSB_KEY VARCHAR(255) PRIMARY KEY, FIELD0 …)}, as pocketbench's SQLite
 * engine creates it) with prepared statements; SQL workloads run their statements as given,
 * with H2's dialect differences handled here: {@code key} and {@code value} are not keywords
 * ({@code NON_KEYWORDS}); in {@code CREATE} statements declared {@code VARCHAR(n)} lengths,
 * which SQLite ignores and H2 enforces, are dropped, and a bare {@code DECIMAL} or
 * {@code NUMERIC} (SQLite: numeric affinity, fractions kept as REAL; H2: scale 0, fractions
 * cut off) becomes {@code DOUBLE PRECISION}; and increments {@code COL = COL + n} go through SQLite's arithmetic
 * on text ({@link SqliteCompat}).
 */
final class JdbcStore extends BaseStore {
    private static final Pattern BARE_DECIMAL = Pattern.compile("(?i)\\b(decimal|numeric)\\b(?!\\s*\\()");
    private static final Pattern VARCHAR_LEN =
            Pattern.compile("(?i)\\b(varchar|char|character varying)\\s*\\(\\s*\\d+\\s*\\)");

    private final String engine;
    private final Connection conn;
    private final Map<String, String> options;
    private Model model;
    private PreparedStatement read, scan, insert, updateAll;
    private PreparedStatement[] updateOne;
    private final Statement sql;

    JdbcStore(String engine, Path dir, Map<String, String> given) throws SQLException {
        this.engine = engine;
        if (engine.equals("h2")) {
            options = Store.withDefaults(given, Map.of(
                    "cache_size", "16384", "compress", "off", "lock_mode", "3", "write_delay", "500"));
            String url = "jdbc:h2:file:" + dir.resolve("pocketbench").toAbsolutePath()
                    + ";NON_KEYWORDS=KEY,VALUE"
                    + ";CACHE_SIZE=" + options.get("cache_size")
                    + ";COMPRESS=" + (options.get("compress").equals("on") ? "TRUE" : "FALSE")
                    + ";LOCK_MODE=" + options.get("lock_mode")
                    + ";WRITE_DELAY=" + options.get("write_delay");
            conn = DriverManager.getConnection(url, "sa", "");
            try (Statement s = conn.createStatement()) {
                s.execute("CREATE ALIAS IF NOT EXISTS SQLITE_ADD FOR 'dev.pocketbench.jvm.SqliteCompat.add'");
            }
        } else {
            options = Store.withDefaults(given, Map.of(
                    "journal_mode", "delete", "synchronous", "full", "page_size", "4096"));
            conn = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("pocketbench.sqlite").toAbsolutePath());
            try (Statement s = conn.createStatement()) {
                s.execute("PRAGMA page_size = " + Integer.parseInt(options.get("page_size")));
                s.execute("PRAGMA journal_mode = " + word(options.get("journal_mode")));
                s.execute("PRAGMA synchronous = " + word(options.get("synchronous")));
            }
        }
        conn.setAutoCommit(true);
        sql = conn.createStatement();
    }

    private static String word(String v) {
        if (!v.matches("[A-Za-z]+")) {
            throw Fail.input("option value '" + v + "' is not a word");
        }
        return v;
    }

    @Override
    public void createSchema(Model m) throws SQLException {
        model = m;
        if (m.sql) {
            return;
        }
        StringBuilder cols = new StringBuilder();
        for (int i = 0; i < m.fieldCount; i++) {
            cols.append(", ").append(Model.fieldName(i)).append(" VARCHAR");
        }
        sql.execute("CREATE TABLE IF NOT EXISTS " + m.table + " (YCSB_KEY VARCHAR(255) PRIMARY KEY" + cols + ")");
        String t = m.table;
        read = conn.prepareStatement("SELECT * FROM " + t + " WHERE YCSB_KEY = ?");
        scan = conn.prepareStatement("SELECT * FROM " + t + " WHERE YCSB_KEY >= ? ORDER BY YCSB_KEY LIMIT ?");
        StringBuilder names = new StringBuilder(), marks = new StringBuilder(), set = new StringBuilder();
        updateOne = new PreparedStatement[m.fieldCount];
        for (int i = 0; i < m.fieldCount; i++) {
            String f = Model.fieldName(i);
            names.append(", ").append(f);
            marks.append(", ?");
            set.append(i == 0 ? "" : ", ").append(f).append(" = ?");
            updateOne[i] = conn.prepareStatement("UPDATE " + t + " SET " + f + " = ? WHERE YCSB_KEY = ?");
        }
        insert = conn.prepareStatement("INSERT INTO " + t + " (YCSB_KEY" + names + ") VALUES (?" + marks + ")");
        updateAll = conn.prepareStatement("UPDATE " + t + " SET " + set + " WHERE YCSB_KEY = ?");
    }

    @Override
    public void beginLoad() throws SQLException {
        conn.setAutoCommit(false);
    }

    @Override
    public void endLoad() throws SQLException {
        conn.commit();
        conn.setAutoCommit(true);
    }

    @Override
    public void beginScratch() throws SQLException {
        conn.setAutoCommit(false);
    }

    @Override
    public void rollback() throws SQLException {
        conn.rollback();
        conn.setAutoCommit(true);
    }

    private static long drain(ResultSet rs) throws SQLException {
        long rows = 0;
        int n = rs.getMetaData().getColumnCount();
        while (rs.next()) {
            for (int i = 1; i <= n; i++) {
                rs.getString(i);
            }
            rows++;
        }
        rs.close();
        return rows;
    }

    /** A point read: the rows, and the record's fields kept when asked ({@link #keepRead}). */
    @Override
    protected long pointRead(String key) throws SQLException {
        read.setString(1, key);
        if (!keeping()) {
            return drain(read.executeQuery());
        }
        kept(null);
        long rows = 0;
        try (ResultSet rs = read.executeQuery()) {
            int n = rs.getMetaData().getColumnCount();
            while (rs.next()) {
                byte[][] fields = new byte[n - 1][];
                for (int i = 2; i <= n; i++) {
                    String v = rs.getString(i);
                    fields[i - 2] = v == null ? null : v.getBytes(StandardCharsets.ISO_8859_1);
                }
                kept(fields);
                rows++;
            }
        }
        return rows;
    }

    @Override
    protected long update(Op op, Model.Request r) throws SQLException {
        if (op.field < 0) {
            for (int i = 0; i < model.fieldCount; i++) {
                updateAll.setString(i + 1, r.texts[i]);
            }
            updateAll.setString(model.fieldCount + 1, r.key);
            return updateAll.executeUpdate();
        }
        PreparedStatement u = updateOne[op.field];
        u.setString(1, r.texts[op.field]);
        u.setString(2, r.key);
        return u.executeUpdate();
    }

    @Override
    protected long scan(String key, long len) throws SQLException {
        scan.setString(1, key);
        scan.setLong(2, len);
        return drain(scan.executeQuery());
    }

    @Override
    protected long insert(Model.Request r) throws SQLException {
        insert.setString(1, r.key);
        for (int i = 0; i < model.fieldCount; i++) {
            insert.setString(i + 2, r.texts[i]);
        }
        return insert.executeUpdate();
    }

    @Override
    protected long statement(Op op) throws SQLException {
        String text = op.sql;
        String s = engine.equals("h2") ? h2Dialect(text) : text;
        if (sql.execute(s)) {
            return drain(sql.getResultSet());
        }
        return Math.max(0, sql.getUpdateCount());
    }

    /** SQLite's SQL as H2 takes it (see the class comment). */
    /** SQLite's transaction kinds (an imported app's {@code BEGIN IMMEDIATE}), which H2 lacks. */
    private static final Pattern BEGIN_KIND = Pattern.compile(
            "(?is)^\\s*BEGIN\\s+(DEFERRED|IMMEDIATE|EXCLUSIVE)\\b(\\s+TRANSACTION\\b)?\\s*;?\\s*$");

    static String h2Dialect(String text) {
        String s = text;
        if (BEGIN_KIND.matcher(s).matches()) {
            return "BEGIN";
        }
        if (s.stripLeading().regionMatches(true, 0, "create", 0, 6)) {
            s = VARCHAR_LEN.matcher(s).replaceAll("$1");
            s = BARE_DECIMAL.matcher(s).replaceAll("DOUBLE PRECISION");
        }
        return SqliteCompat.rewriteIncrements(s);
    }

    @Override
    public String name() {
        return engine;
    }

    @Override
    public String version() {
        try {
            DatabaseMetaData md = conn.getMetaData();
            return md.getDatabaseProductName() + " " + md.getDatabaseProductVersion()
                    + " (JDBC driver " + md.getDriverVersion() + ")";
        } catch (SQLException e) {
            return "unknown";
        }
    }

    @Override
    public Map<String, String> options() {
        return options;
    }

    @Override
    public String checksum(Model m) throws SQLException {
        Checksum c = new Checksum();
        if (!m.sql) {
            try (ResultSet rs = sql.executeQuery("SELECT * FROM " + m.table + " ORDER BY YCSB_KEY")) {
                c.rows(rs);
            }
            return c.hex();
        }
        for (String table : tables()) {
            try (ResultSet probe = sql.executeQuery("SELECT * FROM " + table + " WHERE 1 = 0")) {
                int n = probe.getMetaData().getColumnCount();
                StringBuilder order = new StringBuilder();
                for (int i = 1; i <= n; i++) {
                    order.append(i == 1 ? "" : ", ").append(i);
                }
                probe.close();
                c.text(table.toUpperCase(Locale.ROOT));
                try (ResultSet rs = sql.executeQuery("SELECT * FROM " + table + " ORDER BY " + order)) {
                    c.rows(rs);
                }
            }
        }
        return c.hex();
    }

    /** The user's tables, by upper-case name. */
    private List<String> tables() throws SQLException {
        Map<String, String> byName = new java.util.TreeMap<>();
        String query = engine.equals("h2")
                ? "SELECT TABLE_NAME FROM INFORMATION_SCHEMA.TABLES WHERE TABLE_SCHEMA = 'PUBLIC'"
                : "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'";
        try (ResultSet rs = sql.executeQuery(query)) {
            while (rs.next()) {
                byName.put(rs.getString(1).toUpperCase(Locale.ROOT), rs.getString(1));
            }
        }
        return new ArrayList<>(byName.values());
    }

    @Override
    public void close() throws SQLException {
        conn.close();
    }

    /** The end-state checksum (see {@link Store#checksum}). */
    static final class Checksum {
        private long h = Model.FNV_OFFSET;

        void bytes(byte[] b) {
            for (byte x : b) {
                h ^= x & 0xFF;
                h *= Model.FNV_PRIME;
            }
            h ^= 0;
            h *= Model.FNV_PRIME;
        }

        void text(String s) {
            bytes(s.getBytes(StandardCharsets.UTF_8));
        }

        void rows(ResultSet rs) throws SQLException {
            int n = rs.getMetaData().getColumnCount();
            while (rs.next()) {
                for (int i = 1; i <= n; i++) {
                    Object v = rs.getObject(i);
                    if (v instanceof java.sql.Blob) {
                        java.sql.Blob b = (java.sql.Blob) v;
                        v = b.getBytes(1, (int) b.length());
                    }
                    if (v instanceof byte[]) {
                        // Blobs by their bytes (H2 gives a Blob, sqlite-jdbc a byte[]).
                        text("X'" + java.util.HexFormat.of().formatHex((byte[]) v) + "'");
                        continue;
                    }
                    text(v == null ? "NULL" : v instanceof Number
                            ? new BigDecimal(v.toString()).stripTrailingZeros().toPlainString()
                            : v.toString());
                }
            }
        }

        String hex() {
            return String.format("%016x", h);
        }
    }

    static Map<String, String> none() {
        return new LinkedHashMap<>();
    }
}
