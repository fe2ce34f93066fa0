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
    /** The replaying thread's counters around the run. */
    ProcStats.Thread before, after;
    java.util.Map<String, Long> ioBefore;

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

    /** Back-to-back operations per thread-CPU reading in batched accounting (as natively). */
    static final int CPU_BATCH = 256;
    /** Where a sample's CPU time sits in its record. */
    private static final int CPU_OFFSET = 2 + 5 * 8;

    /** How each operation's CPU time was measured: {@code per-operation} or {@code batch:N}. */
    String cpuAccounting = "per-operation";

    /**
     * Replay the run phase of {@code trace} on {@code store}, samples into {@code spool}. With
     * {@code backToBack} (every delay zero) the thread CPU clock — a system call — is read once
     * per {@link #CPU_BATCH} operations, between them, and each operation's CPU time is the
     * batch's on-CPU share of its wall time times its own service time, as pocketbench's native
     * replay does; otherwise it is read around every operation.
     */
    void run(TraceReader trace, Store store, Verifier verifier, boolean open, boolean noDelays,
            boolean backToBack, long initialDelayNs, Path spool) throws IOException {
        int batch = backToBack ? CPU_BATCH : 1;
        if (backToBack) {
            cpuAccounting = "batch:" + CPU_BATCH;
        }
        ByteBuffer buf = ByteBuffer.allocate(SAMPLE_BYTES * batch).order(ByteOrder.LITTLE_ENDIAN);
        long[] service = new long[batch];
        int held = 0;
        long batchCpu0 = 0, batchWall0 = 0;
        try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(spool), 1 << 16)) {
            ioBefore = ProcStats.io();
            before = ProcStats.Thread.now();
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
                store.keepRead(verifier.willCheck(op));
                if (backToBack && held == 0) {
                    batchCpu0 = threads.getCurrentThreadCpuTime();
                    batchWall0 = System.nanoTime();
                }
                long c0 = backToBack ? 0 : threads.getCurrentThreadCpuTime();
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
                long cpu = backToBack ? 0 : Math.max(0, threads.getCurrentThreadCpuTime() - c0);
                if (ok) {
                    // Read-your-writes, after the end timestamp: what was read, then what was written.
                    String diff = verifier.check(op, store.lastRead());
                    if (diff == null) {
                        verifier.wrote(op);
                    } else {
                        ok = false;
                        errors++;
                        if (firstError == null) {
                            firstErrorSeq = seq;
                            firstError = diff;
                        }
                    }
                }
                if (seq == 0) {
                    firstOpStartNs = start;
                }
                buf.put((byte) op.kind()).put((byte) (ok ? 1 : 0));
                buf.putLong(seq).putLong(op.tag == Op.SQL ? 0 : op.key).putLong(due).putLong(start)
                        .putLong(end).putLong(cpu).putLong(requested).putLong(actual).putLong(0);
                for (int i = 0; i < 10; i++) {
                    buf.putLong(0);
                }
                service[held++] = end - start;
                if (held == batch) {
                    flush(out, buf, service, held, batchCpu0, batchWall0, backToBack);
                    held = 0;
                }
                passed = end;
                long delay = noDelays ? 0 : op.delayNs;
                nextDue = open ? nextDue + delay : end + delay;
                seq++;
            }
            flush(out, buf, service, held, batchCpu0, batchWall0, backToBack);
            runEndNs = System.nanoTime();
            after = ProcStats.Thread.now();
            ops = seq;
        }
    }

    /** Write the held samples, first giving each its share of the batch's CPU time. */
    private void flush(OutputStream out, ByteBuffer buf, long[] service, int held, long cpu0, long wall0,
            boolean batched) throws IOException {
        if (held == 0) {
            return;
        }
        if (batched) {
            long cpu = Math.max(0, threads.getCurrentThreadCpuTime() - cpu0);
            long wall = Math.max(1, System.nanoTime() - wall0);
            double onCpu = Math.min(1.0, (double) cpu / wall);
            for (int i = 0; i < held; i++) {
                buf.putLong(i * SAMPLE_BYTES + CPU_OFFSET, Math.round(service[i] * onCpu));
            }
        }
        out.write(buf.array(), 0, held * SAMPLE_BYTES);
        buf.clear();
    }

    /** Warm-up operations at least: past HotSpot's C2 thresholds (5 000 calls, 15 000 loops). */
    static final long WARM_MIN_OPS = 20_000;
    /** Warm-up time at most, however few operations that allowed. */
    static final long WARM_MAX_NS = 20_000_000_000L;

    /** What the warm-up did: passes, operations, time. */
    static final class Warm {
        long passes, ops, ns;
    }

    /**
     * Warm-up (JMH-style, {@code --jvm-mode warm}): the run phase executed untimed and without
     * delays, each pass inside a transaction rolled back afterwards (so the database stays as
     * the load left it), pass after pass until {@link #WARM_MIN_OPS} operations have run (the
     * hot paths compiled by C2) or {@link #WARM_MAX_NS} has passed.
     */
    static Warm warmUp(Path tracePath, Store store) throws Exception {
        Warm w = new Warm();
        long t0 = System.nanoTime();
        do {
            long n;
            try (TraceReader trace = new TraceReader(tracePath)) {
                trace.skipLoad();
                n = warmUpPass(trace, store);
            }
            w.passes++;
            w.ops += n;
            w.ns = System.nanoTime() - t0;
            if (n == 0) {
                break;
            }
        } while (w.ops < WARM_MIN_OPS && w.ns < WARM_MAX_NS);
        return w;
    }

    /** One warm-up pass over the run phase of {@code trace}; the operations it executed. */
    private static long warmUpPass(TraceReader trace, Store store) throws Exception {
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
