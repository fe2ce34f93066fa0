package dev.pocketbench.jvm;

/**
 * A failure the driver reports as one line on stderr. {@code input} is bad input (exit status
 * 2: a trace or spec it cannot read); otherwise the run failed (exit status 1).
 */
final class Fail extends RuntimeException {
    final boolean input;

    private Fail(String message, boolean input) {
        super(message);
        this.input = input;
    }

    static Fail input(String message) {
        return new Fail(message, true);
    }

    static Fail run(String message) {
        return new Fail(message, false);
    }

    /** One line: control characters escaped, as pocketbench's messages are. */
    static String oneLine(String s) {
        StringBuilder b = new StringBuilder();
        for (char c : s.toCharArray()) {
            if (c == '\n') {
                b.append("\\n");
            } else if (c < 0x20 || c == 0x7f) {
                b.append(String.format("\\x%02x", (int) c));
            } else {
                b.append(c);
            }
        }
        return b.toString();
    }
}
