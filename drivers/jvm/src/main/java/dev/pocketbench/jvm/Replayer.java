package dev.pocketbench.jvm;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.locks.LockSupport;

/**
 * The run phase, with pocketbench's pacing semantics: each operation is due at the end of
 * the previous one plus its delay (think pacing) or at the run start plus every earlier delay
 * (open pacing, where a late operation starts at once and its backlog shows in the samples);
 * the wait is a sleep until the due time. Its key text and field values are built before its
 * clock starts, as pocketbench's own materializer builds them. Each operation is timed with
 * System.nanoTime (CLOCK_MONOTONIC, the clock pocketbench reads) and the thread's CPU time
 * (ThreadMXBean), and written as one sample of pocketbench's spool format: 154 bytes, the
 * kind and ok bytes,
 * then nineteen little-endian u64 — seq, key, intended, start, end, cpu, sleep requested,
 * sleep actual, frequency (0), and ten I/O counters (0: the JVM's file I/O is not seen per
 * operation).
 */
final class Replayer {
    static final int SAMPLE_BYTES = 2 + 19 * 8;

    long ops, errors, firstErrorSeq = -1;
    String firstError;
    long runStartNs, runEndNs, firstOpStartNs;

    private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();

    Replayer() {
        if (threads.isCurrentThreadCpuTimeSupported() && !threads.isThreadCpuTimeEnabled()) {
            threads.setThreadCpuTimeEnabled(true);
        }
    }

    static void sleepUntil(long due) {
        long now;
        while ((now = System.nanoTime()) < due) {
            LockSupport.parkNanos(due - now);
        }
    }

    /** Replay the run phase of {@code trace} on {@code store}, samples into {@code spool}. */
    void run(TraceReader trace, Store store, boolean open, boolean noDelays, long initialDelayNs, Path spool)
            throws IOException {
        ByteBuffer buf = ByteBuffer.allocate(SAMPLE_BYTES).order(ByteOrder.LITTLE_ENDIAN);
        try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(spool), 1 << 16)) {
            runStartNs = System.nanoTime();
            long nextDue = runStartNs + initialDelayNs;
            long passed = runStartNs;
            Op op;
            long seq = 0;
            while ((op = trace.next('R')) != null) {
                long due = nextDue, requested = 0, actual = 0;
                if (due > passed) {
                    long before = System.nanoTime();
                    if (due > before) {
                        sleepUntil(due);
                        requested = due - before;
                        actual = System.nanoTime() - before;
                    }
                }
                Model.Request request = trace.model.request(op);
                long c0 = threads.getCurrentThreadCpuTime();
                long start = System.nanoTime();
                boolean ok = true;
                try {
                    store.execute(op, request);
                } catch (Fail f) {
                    throw f;
                } catch (Exception e) {
                    ok = false;
                    errors++;
                    if (firstError == null) {
                        firstErrorSeq = seq;
                        firstError = Fail.oneLine(String.valueOf(e.getMessage()));
                    }
                }
                long end = System.nanoTime();
                long cpu = Math.max(0, threads.getCurrentThreadCpuTime() - c0);
                if (seq == 0) {
                    firstOpStartNs = start;
                }
                buf.clear();
                buf.put((byte) op.kind()).put((byte) (ok ? 1 : 0));
                buf.putLong(seq).putLong(op.tag == Op.SQL ? 0 : op.key).putLong(due).putLong(start)
                        .putLong(end).putLong(cpu).putLong(requested).putLong(actual).putLong(0);
                for (int i = 0; i < 10; i++) {
                    buf.putLong(0);
                }
                out.write(buf.array());
                passed = end;
                long delay = noDelays ? 0 : op.delayNs;
                nextDue = open ? nextDue + delay : end + delay;
                seq++;
            }
            runEndNs = System.nanoTime();
            ops = seq;
        }
    }

    /**
     * A warm-up pass (JMH-style, {@code --jvm-mode warm}): the run phase executed once, untimed
     * and without delays, inside a transaction rolled back afterwards, so the code paths are
     * compiled and the database is as the load left it.
     */
    static long warmUp(TraceReader trace, Store store) throws Exception {
        store.beginScratch();
        long n = 0;
        try {
            Op op;
            while ((op = trace.next('R')) != null) {
                try {
                    store.execute(op, trace.model.request(op));
                } catch (Fail f) {
                    throw f;
                } catch (Exception e) {
                    // the measured pass reports errors
                }
                n++;
            }
        } finally {
            store.rollback();
        }
        return n;
    }
}
