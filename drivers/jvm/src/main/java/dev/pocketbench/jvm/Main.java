package dev.pocketbench.jvm;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * pocketbench's JVM driver. {@code java -jar pocketbench-jvm.jar COMMAND SPEC.json}, where the
 * spec (written by pocketbench, docs/jvm.md) names the trace, the database directory, the
 * engine and its options:
 * <ul>
 * <li>{@code load}: create the schema and run the trace's load phase in one transaction
 * (the whole trace is read and checked);</li>
 * <li>{@code replay}: open the engine, run the run phase with pocketbench's pacing and write
 * the samples (the spool) and the report (JSON) where the spec says;</li>
 * <li>{@code checksum}: print the end-state checksum of the engine's rows;</li>
 * <li>{@code models}: the data-model study's phases on H2 ({@link ModelsRunner});</li>
 * <li>{@code durability-child} and {@code durability-check}: {@code pocketbench durability}'s
 * workload and its reading back of crash states ({@link Durability});
 * {@code durability-payload TXN PART} prints one row's payload in hexadecimal.</li>
 * </ul>
 * Exit status 0, 2 for bad input (one line on stderr naming what), 1 when the run failed.
 */
public final class Main {
    private static final ObjectMapper JSON = new ObjectMapper();

    public static void main(String[] args) {
        long processStart = System.nanoTime()
                - ManagementFactory.getRuntimeMXBean().getUptime() * 1_000_000L;
        try {
            if (args.length == 1 && args[0].equals("--version")) {
                System.out.println("pocketbench-jvm 0.1.0 on Java " + System.getProperty("java.version"));
                return;
            }
            if (args.length == 3 && args[0].equals("durability-payload")) {
                System.out.println(Durability.payloadHex(args[1], args[2]));
                return;
            }
            if (args.length != 2) {
                throw Fail.input("usage: pocketbench-jvm load|replay|checksum|models|durability-child|durability-check SPEC.json");
            }
            JsonNode spec = readSpec(Path.of(args[1]));
            switch (args[0]) {
                case "load": load(spec); break;
                case "replay": replay(spec, processStart); break;
                case "checksum": System.out.println(checksum(spec)); break;
                case "models": ModelsRunner.run(spec, JSON); break;
                case "durability-child": Durability.child(spec); break;
                case "durability-check": Durability.check(spec, JSON); break;
                default: throw Fail.input("unknown command '" + Fail.oneLine(args[0]) + "' (load, replay, checksum, models, durability-child, durability-check)");
            }
        } catch (Fail f) {
            System.err.println("pocketbench-jvm: error: " + Fail.oneLine(f.getMessage()));
            System.exit(f.input ? 2 : 1);
        } catch (Throwable t) {
            System.err.println("pocketbench-jvm: error: " + Fail.oneLine(t.getClass().getSimpleName() + ": " + t.getMessage()));
            System.exit(1);
        }
    }

    private static JsonNode readSpec(Path path) {
        try {
            return JSON.readTree(Files.readAllBytes(path));
        } catch (IOException e) {
            throw Fail.input(path + ": cannot read the driver spec: " + e.getMessage());
        }
    }

    private static String text(JsonNode spec, String field) {
        JsonNode v = spec.get(field);
        if (v == null || !v.isTextual()) {
            throw Fail.input("driver spec: " + field + ": missing or not text");
        }
        return v.asText();
    }

    private static Map<String, String> options(JsonNode spec) {
        Map<String, String> out = new TreeMap<>();
        JsonNode o = spec.path("options");
        for (Iterator<Map.Entry<String, JsonNode>> it = o.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            out.put(e.getKey(), e.getValue().asText());
        }
        return out;
    }

    private static Store open(JsonNode spec) throws Exception {
        return Store.open(text(spec, "engine"), Path.of(text(spec, "data_dir")), options(spec));
    }

    private static void load(JsonNode spec) throws Exception {
        try (TraceReader trace = new TraceReader(Path.of(text(spec, "trace")));
             Store store = open(spec)) {
            store.createSchema(trace.model);
            store.beginLoad();
            Op op;
            while ((op = trace.next('L')) != null) {
                store.execute(op, trace.model.request(op));
            }
            store.endLoad();
            trace.finish();
        }
    }

    private static String checksum(JsonNode spec) throws Exception {
        // Opening would create an empty database and print its hash: a directory holding no
        // database is an error, not an empty one.
        Path dir = Path.of(text(spec, "data_dir"));
        boolean empty;
        try (java.util.stream.Stream<Path> files = Files.list(dir)) {
            empty = files.findAny().isEmpty();
        } catch (IOException e) {
            throw Fail.input(dir + ": cannot read the database directory: " + e.getMessage());
        }
        if (empty) {
            throw Fail.input(dir + ": holds no database (the directory is empty)");
        }
        try (TraceReader trace = new TraceReader(Path.of(text(spec, "trace")));
             Store store = open(spec)) {
            store.createSchema(trace.model);
            return store.checksum(trace.model);
        }
    }

    private static ObjectNode verification(Verifier v) {
        ObjectNode o = JSON.createObjectNode();
        o.put("checked", v.checked);
        o.put("mismatches", v.mismatches);
        o.put("unchecked", v.unchecked);
        o.put("stride", v.stride);
        return o;
    }

    private static void replay(JsonNode spec, long processStart) throws Exception {
        Path tracePath = Path.of(text(spec, "trace"));
        boolean open = text(spec, "pacing").equals("open");
        String mode = spec.path("jvm_mode").asText("cold");
        Replayer r = new Replayer();
        ObjectNode report = JSON.createObjectNode();
        long openNs, closeNs;
        Replayer.Warm warm = null;
        Store store;
        String name, version;
        Map<String, String> options;
        try (TraceReader trace = new TraceReader(tracePath)) {
            long t0 = System.nanoTime();
            store = open(spec);
            store.createSchema(trace.model);
            openNs = System.nanoTime() - t0;
            if (mode.equals("warm")) {
                warm = Replayer.warmUp(tracePath, store);
            }
            // The load phase tells the verifier what the database holds.
            Verifier verifier = new Verifier(trace.model, trace.header.path("workload").path("load_ops").asLong(0));
            Op loaded;
            while ((loaded = trace.next('L')) != null) {
                verifier.wrote(loaded);
            }
            boolean noDelays = spec.path("no_delays").asBoolean(false);
            long initial = noDelays ? 0 : trace.header.path("workload").path("initial_delay_ns").asLong(0);
            JsonNode workload = trace.header.path("workload");
            boolean backToBack = noDelays || (trace.header.path("delay").asText("").equals("zero")
                    && workload.path("initial_delay_ns").asLong(0) == 0);
            r.run(trace, store, verifier, open, noDelays, backToBack, initial, Path.of(text(spec, "spool")));
            report.set("verification", verification(verifier));
            name = store.name();
            version = store.version();
            options = store.options();
            t0 = System.nanoTime();
            store.close();
            closeNs = System.nanoTime() - t0;
            trace.finish();
        }
        ObjectNode engine = report.putObject("engine");
        engine.put("name", name);
        engine.put("version", version);
        ObjectNode opts = engine.putObject("options");
        options.forEach(opts::put);
        opts.put("jvm_mode", mode);
        if (warm != null) {
            opts.put("jvm.warmup_ops", Long.toString(warm.ops));
            opts.put("jvm.warmup_passes", Long.toString(warm.passes));
            opts.put("jvm.warmup_ms", Long.toString(warm.ns / 1_000_000));
        }
        opts.put("jvm.version", System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"));
        opts.put("jvm.flags", String.join(" ", ManagementFactory.getRuntimeMXBean().getInputArguments()));
        List<String> gcs = new ArrayList<>();
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            gcs.add(gc.getName());
        }
        opts.put("jvm.gc", String.join(", ", gcs));
        engine.put("io_method", "not seen per operation: the JVM's file I/O is outside pocketbench's hooks");
        report.put("process_start_ns", processStart);
        report.put("open_ns", openNs);
        report.put("ops", r.ops);
        report.put("errors", r.errors);
        if (r.firstError == null) {
            report.putNull("first_error");
        } else {
            ArrayNode fe = report.putArray("first_error");
            fe.add(r.firstErrorSeq);
            fe.add(r.firstError);
        }
        report.put("run_start_ns", r.runStartNs);
        report.put("run_end_ns", r.runEndNs);
        report.put("first_op_start_ns", r.firstOpStartNs);
        report.putObject("io_by_kind");
        report.set("process", ProcStats.process(r.before, r.after, r.ioBefore));
        report.putNull("timer_slack_ns");
        report.put("cpu_accounting", r.cpuAccounting);
        ObjectNode phases = report.putObject("phases");
        phases.putObject("open").put("ns", openNs).putObject("io_by_kind");
        phases.putObject("close").put("ns", closeNs).putObject("io_by_kind");
        Files.write(Path.of(text(spec, "report")), JSON.writeValueAsBytes(report));
    }
}
