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
 * (every tuple, the rows parsed beforehand), then each execution timed with System.nanoTime
 * and the thread's CPU time, a test's remaining executions skipped once it has taken more than
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
        long t0 = System.nanoTime();
        try (ModelEngine db = ModelEngine.open(engine, dir, spec.path("ddl").asText())) {
            out.put("create_ns", System.nanoTime() - t0);
            t0 = System.nanoTime();
            db.insert(people, sales);
            out.put("insert_ns", System.nanoTime() - t0);
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
                long c0 = threads.getCurrentThreadCpuTime();
                long w0 = System.nanoTime();
                List<Object[]> rows = db.query(test, sql, ints, text);
                long wall = System.nanoTime() - w0;
                long cpu = Math.max(0, threads.getCurrentThreadCpuTime() - c0);
                spent.put(test, used + wall);
                r.put("wall_ns", wall);
                r.put("cpu_ns", cpu);
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
}
