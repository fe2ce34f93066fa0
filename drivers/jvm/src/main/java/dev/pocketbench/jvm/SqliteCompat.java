package dev.pocketbench.jvm;

import java.math.BigDecimal;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * SQLite's arithmetic on text, for H2. The PocketData workloads increment every column, text
 * ones included ({@code SET DAT_STR_0 = DAT_STR_0+1}); SQLite converts a text operand to the
 * number its longest numeric prefix spells (0 when there is none) and stores the sum, where H2
 * refuses to convert the text. H2 runs such increments through {@link #add}, registered as the
 * function {@code SQLITE_ADD}: the same value SQLite stores.
 */
public final class SqliteCompat {
    private static final Pattern PREFIX =
            Pattern.compile("^\\s*[-+]?(\\d+(\\.\\d*)?|\\.\\d+)([eE][-+]?\\d+)?");

    private SqliteCompat() {}

    /** The number SQLite reads from {@code text}: its longest numeric prefix, or 0. */
    static BigDecimal numeric(String text) {
        if (text == null) {
            return null;
        }
        Matcher m = PREFIX.matcher(text);
        return m.find() ? new BigDecimal(m.group().trim()) : BigDecimal.ZERO;
    }

    /**
     * {@code a + b} as SQLite computes it: integers stay integers; anything with a fraction or
     * an exponent is a REAL, shown as SQLite shows it (up to 15 significant digits).
     */
    public static String add(String a, String b) {
        BigDecimal x = numeric(a), y = numeric(b);
        if (x == null || y == null) {
            return null;
        }
        boolean integral = isInteger(a) && isInteger(b);
        if (integral) {
            return x.add(y).toBigInteger().toString();
        }
        double d = x.doubleValue() + y.doubleValue();
        String s = new BigDecimal(d).round(new java.math.MathContext(15)).stripTrailingZeros().toPlainString();
        return s.contains(".") ? s : s + ".0";
    }

    /** SQLite keeps an integer when the operand's numeric prefix is an integer. */
    private static boolean isInteger(String text) {
        Matcher m = PREFIX.matcher(text);
        return !m.find() || (m.group(2) == null && m.group(3) == null);
    }

    private static final Pattern INCREMENT =
            Pattern.compile("(?i)\\b(\\w+)\\s*=\\s*\\1\\s*\\+\\s*(-?\\d+(?:\\.\\d+)?)");

    /** {@code COL = COL + n} rewritten as {@code COL = SQLITE_ADD(COL, 'n')}. */
    static String rewriteIncrements(String sql) {
        return INCREMENT.matcher(sql).replaceAll("$1 = SQLITE_ADD($1, '$2')");
    }
}
