package dev.pocketbench.jvm;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/** The process counters pocketbench reports for a replay process, read from /proc/self. */
final class ProcStats {
    private static Map<String, Long> fields(String file, String sep) {
        Map<String, Long> out = new HashMap<>();
        try {
            for (String line : Files.readAllLines(Path.of(file))) {
                int i = line.indexOf(sep);
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
            // not Linux, or /proc hidden: zeros
        }
        return out;
    }

    static ObjectNode process() {
        ObjectNode p = JsonNodeFactory.instance.objectNode();
        Map<String, Long> status = fields("/proc/self/status", ":");
        p.put("voluntary_ctx_switches", status.getOrDefault("voluntary_ctxt_switches", 0L));
        p.put("involuntary_ctx_switches", status.getOrDefault("nonvoluntary_ctxt_switches", 0L));
        p.put("max_rss_kib", status.getOrDefault("VmHWM", 0L));
        Map<String, Long> io = fields("/proc/self/io", ":");
        if (io.isEmpty()) {
            p.putNull("proc_io");
        } else {
            ObjectNode o = p.putObject("proc_io");
            for (String k : new String[] {"rchar", "wchar", "syscr", "syscw", "read_bytes", "write_bytes", "cancelled_write_bytes"}) {
                o.put(k, io.getOrDefault(k, 0L));
            }
        }
        p.putNull("schedstat");
        return p;
    }
}
