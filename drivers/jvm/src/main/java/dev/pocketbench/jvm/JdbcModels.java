package dev.pocketbench.jvm;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.Statement;
import java.sql.Types;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The relational engines of the data-model study in the JVM, through JDBC: H2, and SQLite
 * through xerial's sqlite-jdbc (SQLite in the same Java runtime as the JVM document and object
 * stores, as an Android app reaches it). The relational schema (the study's DDL, primary keys
 * the only indexes) with each engine's defaults, every tuple inserted in one transaction
 * (batched prepared inserts), each test the SQL pocketbench gives, prepared once.
 */
final class JdbcModels implements ModelEngine {
    private final Connection conn;
    private final Map<String, PreparedStatement> prepared = new HashMap<>();

    /** H2 with its defaults. */
    static JdbcModels h2(Path dir, String ddl) throws Exception {
        return new JdbcModels(DriverManager.getConnection(
                "jdbc:h2:file:" + dir.resolve("models").toAbsolutePath() + ";NON_KEYWORDS=KEY,VALUE", "sa", ""), ddl);
    }

    /** SQLite through sqlite-jdbc with SQLite's defaults (rollback journal, synchronous=FULL). */
    static JdbcModels sqlite(Path dir, String ddl) throws Exception {
        return new JdbcModels(DriverManager.getConnection(
                "jdbc:sqlite:" + dir.resolve("models.sqlite").toAbsolutePath()), ddl);
    }

    private JdbcModels(Connection conn, String ddl) throws Exception {
        this.conn = conn;
        try (Statement s = conn.createStatement()) {
            for (String stmt : ddl.split(";")) {
                if (!stmt.isBlank()) {
                    s.execute(stmt);
                }
            }
        }
    }

    @Override
    public void insert(List<PersonRow> people, List<SaleRow> sales) throws Exception {
        conn.setAutoCommit(false);
        try (PreparedStatement ps = conn.prepareStatement("INSERT INTO people VALUES (?, ?, ?, ?, ?)")) {
            int n = 0;
            for (PersonRow p : people) {
                ps.setLong(1, p.id());
                ps.setString(2, p.name());
                ps.setInt(3, p.age());
                ps.setString(4, p.gender());
                ps.setString(5, p.color());
                ps.addBatch();
                if (++n % 1000 == 0) {
                    ps.executeBatch();
                }
            }
            ps.executeBatch();
        }
        try (PreparedStatement ps = conn.prepareStatement("INSERT INTO transactions VALUES (?, ?, ?, ?, ?, ?)")) {
            int n = 0;
            for (SaleRow t : sales) {
                ps.setLong(1, t.id());
                ps.setLong(2, t.seller());
                ps.setLong(3, t.buyer());
                ps.setInt(4, t.price());
                ps.setString(5, t.item());
                ps.setInt(6, t.date());
                ps.addBatch();
                if (++n % 1000 == 0) {
                    ps.executeBatch();
                }
            }
            ps.executeBatch();
        }
        conn.commit();
        conn.setAutoCommit(true);
    }

    @Override
    public List<Object[]> query(String test, String sql, long[] ints, String text) throws Exception {
        PreparedStatement ps = prepared.get(sql);
        if (ps == null) {
            ps = conn.prepareStatement(sql);
            prepared.put(sql, ps);
        }
        if (text != null) {
            ps.setString(1, text);
        } else {
            for (int i = 0; i < ints.length; i++) {
                ps.setLong(i + 1, ints[i]);
            }
        }
        List<Object[]> rows = new ArrayList<>();
        try (ResultSet rs = ps.executeQuery()) {
            ResultSetMetaData md = rs.getMetaData();
            int n = md.getColumnCount();
            while (rs.next()) {
                Object[] row = new Object[n];
                for (int c = 1; c <= n; c++) {
                    int type = md.getColumnType(c);
                    boolean integer = type == Types.INTEGER || type == Types.BIGINT || type == Types.SMALLINT
                            || type == Types.TINYINT || type == Types.NUMERIC || type == Types.DECIMAL;
                    Object v = rs.getObject(c);
                    // sqlite-jdbc types an expression column by its value: an Integer or Long.
                    integer |= v instanceof Integer || v instanceof Long;
                    row[c - 1] = integer ? (Object) rs.getLong(c) : rs.getString(c);
                }
                rows.add(row);
            }
        }
        return rows;
    }

    @Override
    public void close() throws Exception {
        conn.close();
    }
}
