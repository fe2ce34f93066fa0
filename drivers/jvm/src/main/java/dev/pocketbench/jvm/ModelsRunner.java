package dev.pocketbench.jvm;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The data-model study (`pocketbench models`) on a JVM engine (H2, Nitrite, ObjectBox; spec
 * field {@code engine}, default h2): pocketbench generates the tuples and the executions and
 * hands them over as files (tab-separated rows; a JSON list of executions with the test's
 * name, SQL and parameters); this runs the study's phases — create (files and schema), insert
 * (every tuple, the rows parsed beforehand), then each execution timed with System.nanoTime,
 * the thread's CPU time and its I/O (each phase too), a test's remaining executions skipped once it has taken more than
 * the budget — and writes every answer's rows back for pocketbench to cross-check against the
 * other engines.
 */
final class ModelsRunner {
    private ModelsRunner() {}

    static void run(JsonNode spec, ObjectMapper json) throws Exception {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        Path dir = Path.of(spec.path("data_dir").asText());
        long budget = spec.path("budget_ns").asLong(Long.MAX_VALUE);
        String engine = spec.path("engine").asText("h2");
        List<ModelEngine.PersonRow> people = ModelEngine.people(Path.of(spec.path("people").asText()));
        List<ModelEngine.SaleRow> sales = ModelEngine.sales(Path.of(spec.path("transactions").asText()));
        JsonNode queries = json.readTree(Files.readAllBytes(Path.of(spec.path("queries").asText())));
        ObjectNode out = json.createObjectNode();
        Phase create = new Phase(threads);
        try (ModelEngine db = ModelEngine.open(engine, dir, spec.path("ddl").asText())) {
            out.put("create_ns", create.end(out.putObject("create")));
            Phase insert = new Phase(threads);
            db.insert(people, sales);
            out.put("insert_ns", insert.end(out.putObject("insert")));
            Map<String, Long> spent = new HashMap<>();
            ArrayNode results = out.putArray("executions");
            for (JsonNode q : queries) {
                String test = q.path("test").asText();
                ObjectNode r = results.addObject();
                r.put("test", test);
                long used = spent.getOrDefault(test, 0L);
                if (used > budget) {
                    r.put("skipped", true);
                    continue;
                }
                JsonNode params = q.path("params");
                long[] ints = new long[params.size()];
                String text = null;
                for (int i = 0; i < ints.length; i++) {
                    if (params.get(i).isNumber()) {
                        ints[i] = params.get(i).asLong();
                    } else {
                        text = params.get(i).asText();
                    }
                }
                String sql = q.path("sql").asText();
                Phase execution = new Phase(threads);
                List<Object[]> rows = db.query(test, sql, ints, text);
                long wall = execution.end(r);
                spent.put(test, used + wall);
                r.put("wall_ns", wall);
                ArrayNode rs = r.putArray("rows");
                for (Object[] row : rows) {
                    ArrayNode a = rs.addArray();
                    for (Object v : row) {
                        if (v instanceof Long) {
                            a.add((Long) v);
                        } else {
                            a.add(String.valueOf(v));
                        }
                    }
                }
            }
        }
        Files.write(Path.of(spec.path("out").asText()), json.writeValueAsBytes(out));
    }

    /**
     * A span timed on the calling thread: its wall time, and the thread's CPU time and I/O
     * ({@code /proc/thread-self/io}: through read/write calls and from or to storage), the
     * counters pocketbench keeps for its own engines.
     */
    private static final class Phase {
        private static final String[] IO = {"rchar", "wchar", "read_bytes", "write_bytes"};
        private final ThreadMXBean threads;
        private final Map<String, Long> io0 = ProcStats.threadIo();
        private final long cpu0;
        private final long wall0;

        Phase(ThreadMXBean threads) {
            this.threads = threads;
            this.cpu0 = threads.getCurrentThreadCpuTime();
            this.wall0 = System.nanoTime();
        }

        /** End the span: its CPU time and I/O into {@code to}; returns its wall time. */
        long end(ObjectNode to) {
            long wall = System.nanoTime() - wall0;
            to.put("cpu_ns", Math.max(0, threads.getCurrentThreadCpuTime() - cpu0));
            Map<String, Long> io1 = ProcStats.threadIo();
            ObjectNode io = to.putObject("io");
            for (String k : IO) {
                io.put(k, Math.max(0, io1.getOrDefault(k, 0L) - io0.getOrDefault(k, 0L)));
            }
            return wall;
        }
    }
}
