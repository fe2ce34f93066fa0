package dev.pocketbench.jvm;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * The counters pocketbench reports for a replay: the replaying thread's own context switches
 * ({@code /proc/thread-self/status}) and run-queue statistics ({@code /proc/thread-self/schedstat}),
 * which pocketbench's single-threaded native replay reads for its process — not the JVM's
 * process totals, which are the launcher thread's and the JIT's and collectors' — plus the
 * process's peak RSS and {@code /proc/self/io}. A snapshot must be taken on the replaying
 * thread: {@code /proc/thread-self} is the thread that opens it.
 */
final class ProcStats {
    private static Map<String, Long> fields(String file) {
        Map<String, Long> out = new HashMap<>();
        try {
            for (String line : Files.readAllLines(Path.of(file))) {
                int i = line.indexOf(':');
                if (i > 0) {
                    String v = line.substring(i + 1).trim().split("\\s+")[0];
                    try {
                        out.put(line.substring(0, i).trim(), Long.parseLong(v));
                    } catch (NumberFormatException e) {
                        // not a number
                    }
                }
            }
        } catch (Exception e) {
            // not Linux, or /proc hidden: no counters
        }
        return out;
    }

    /** The calling thread's counters at one moment. */
    static final class Thread {
        final Map<String, Long> status;
        /** run ns, run-queue wait ns, timeslices; null where the kernel has no schedstat. */
        final long[] schedstat;

        private Thread(Map<String, Long> status, long[] schedstat) {
            this.status = status;
            this.schedstat = schedstat;
        }

        static Thread now() {
            long[] sched = null;
            try {
                String[] f = Files.readString(Path.of("/proc/thread-self/schedstat")).trim().split("\\s+");
                if (f.length == 3) {
                    sched = new long[] {Long.parseLong(f[0]), Long.parseLong(f[1]), Long.parseLong(f[2])};
                }
            } catch (Exception e) {
                // no schedstat (kernel without CONFIG_SCHED_INFO): reported as null
            }
            return new Thread(fields("/proc/thread-self/status"), sched);
        }

        long get(String key) {
            return status.getOrDefault(key, 0L);
        }
    }

    /** The counters between {@code before} and {@code after}, both taken on the replaying thread. */
    static ObjectNode process(Thread before, Thread after, Map<String, Long> ioBefore) {
        ObjectNode p = JsonNodeFactory.instance.objectNode();
        p.put("voluntary_ctx_switches",
                Math.max(0, after.get("voluntary_ctxt_switches") - before.get("voluntary_ctxt_switches")));
        p.put("involuntary_ctx_switches",
                Math.max(0, after.get("nonvoluntary_ctxt_switches") - before.get("nonvoluntary_ctxt_switches")));
        p.put("max_rss_kib", fields("/proc/self/status").getOrDefault("VmHWM", 0L));
        Map<String, Long> io = fields("/proc/self/io");
        if (io.isEmpty()) {
            p.putNull("proc_io");
        } else {
            ObjectNode o = p.putObject("proc_io");
            for (String k : new String[] {"rchar", "wchar", "syscr", "syscw", "read_bytes", "write_bytes", "cancelled_write_bytes"}) {
                o.put(k, Math.max(0, io.getOrDefault(k, 0L) - ioBefore.getOrDefault(k, 0L)));
            }
        }
        if (before.schedstat == null || after.schedstat == null) {
            p.putNull("schedstat");
        } else {
            ObjectNode s = p.putObject("schedstat");
            s.put("run_ns", after.schedstat[0] - before.schedstat[0]);
            s.put("run_queue_wait_ns", after.schedstat[1] - before.schedstat[1]);
            s.put("timeslices", after.schedstat[2] - before.schedstat[2]);
        }
        return p;
    }

    /** The calling thread's {@code /proc/thread-self/io} now (empty where unreadable). */
    static Map<String, Long> threadIo() {
        return fields("/proc/thread-self/io");
    }

    /** {@code /proc/self/io} now (empty where unreadable). */
    static Map<String, Long> io() {
        return fields("/proc/self/io");
    }
}
