package dev.pocketbench.jvm;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.Statement;
import java.sql.Types;
import java.util.HashMap;
import java.util.Map;

/**
 * The data-model study (`pocketbench models`) on H2: pocketbench generates the tuples and the
 * executions and hands them over as files (tab-separated rows; a JSON list of executions with
 * the test's SQL and parameters); this runs the study's phases in H2 with its defaults — create
 * (schema), insert (every tuple in one transaction), then each execution timed with
 * System.nanoTime and the thread's CPU time, a test's remaining executions skipped once it has
 * taken more than the budget — and writes every answer's rows back for pocketbench to
 * cross-check against the other engines.
 */
final class ModelsRunner {
    private ModelsRunner() {}

    static void run(JsonNode spec, ObjectMapper json) throws Exception {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        Path dir = Path.of(spec.path("data_dir").asText());
        String url = "jdbc:h2:file:" + dir.resolve("models").toAbsolutePath() + ";NON_KEYWORDS=KEY,VALUE";
        long budget = spec.path("budget_ns").asLong(Long.MAX_VALUE);
        ObjectNode out = json.createObjectNode();
        long t0 = System.nanoTime();
        try (Connection conn = DriverManager.getConnection(url, "sa", "")) {
            try (Statement s = conn.createStatement()) {
                for (String ddl : spec.path("ddl").asText().split(";")) {
                    if (!ddl.isBlank()) {
                        s.execute(ddl);
                    }
                }
            }
            out.put("create_ns", System.nanoTime() - t0);
            t0 = System.nanoTime();
            conn.setAutoCommit(false);
            load(conn, "INSERT INTO people VALUES (?, ?, ?, ?, ?)", Path.of(spec.path("people").asText()),
                    new boolean[] {true, false, true, false, false});
            load(conn, "INSERT INTO transactions VALUES (?, ?, ?, ?, ?, ?)",
                    Path.of(spec.path("transactions").asText()),
                    new boolean[] {true, true, true, true, false, true});
            conn.commit();
            conn.setAutoCommit(true);
            out.put("insert_ns", System.nanoTime() - t0);
            Map<String, PreparedStatement> prepared = new HashMap<>();
            Map<String, Long> spent = new HashMap<>();
            ArrayNode results = out.putArray("executions");
            for (JsonNode q : json.readTree(Files.readAllBytes(Path.of(spec.path("queries").asText())))) {
                String test = q.path("test").asText();
                ObjectNode r = results.addObject();
                r.put("test", test);
                long used = spent.getOrDefault(test, 0L);
                if (used > budget) {
                    r.put("skipped", true);
                    continue;
                }
                String sql = q.path("sql").asText();
                PreparedStatement ps = prepared.get(sql);
                if (ps == null) {
                    ps = conn.prepareStatement(sql);
                    prepared.put(sql, ps);
                }
                int i = 1;
                for (JsonNode p : q.path("params")) {
                    if (p.isNumber()) {
                        ps.setLong(i++, p.asLong());
                    } else {
                        ps.setString(i++, p.asText());
                    }
                }
                ArrayNode rows = json.createArrayNode();
                long c0 = threads.getCurrentThreadCpuTime();
                long w0 = System.nanoTime();
                try (ResultSet rs = ps.executeQuery()) {
                    ResultSetMetaData md = rs.getMetaData();
                    int n = md.getColumnCount();
                    while (rs.next()) {
                        ArrayNode row = rows.addArray();
                        for (int c = 1; c <= n; c++) {
                            int type = md.getColumnType(c);
                            if (type == Types.INTEGER || type == Types.BIGINT || type == Types.SMALLINT
                                    || type == Types.TINYINT || type == Types.NUMERIC || type == Types.DECIMAL) {
                                row.add(rs.getLong(c));
                            } else {
                                row.add(rs.getString(c));
                            }
                        }
                    }
                }
                long wall = System.nanoTime() - w0;
                long cpu = Math.max(0, threads.getCurrentThreadCpuTime() - c0);
                spent.put(test, used + wall);
                r.put("wall_ns", wall);
                r.put("cpu_ns", cpu);
                r.set("rows", rows);
            }
        }
        Files.write(Path.of(spec.path("out").asText()), json.writeValueAsBytes(out));
    }

    /** Insert the tab-separated rows of {@code file}; {@code numeric[i]} says column i is an integer. */
    private static void load(Connection conn, String sql, Path file, boolean[] numeric) throws Exception {
        try (PreparedStatement ps = conn.prepareStatement(sql);
             BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            String line;
            int batch = 0;
            while ((line = in.readLine()) != null) {
                String[] f = line.split("\t", -1);
                if (f.length != numeric.length) {
                    throw Fail.input(file + ": a row of " + f.length + " fields, expected " + numeric.length);
                }
                for (int i = 0; i < f.length; i++) {
                    if (numeric[i]) {
                        ps.setLong(i + 1, Long.parseLong(f[i]));
                    } else {
                        ps.setString(i + 1, f[i]);
                    }
                }
                ps.addBatch();
                if (++batch % 1000 == 0) {
                    ps.executeBatch();
                }
            }
            ps.executeBatch();
        }
    }
}
