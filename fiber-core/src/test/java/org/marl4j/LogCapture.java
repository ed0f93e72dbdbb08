package org.marl4j;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * LogCapture collects what a {@link System.Logger} logs (through java.util.logging, its default
 * backend) while it is open, as "LEVEL message" lines, for tests of the warnings marl4j logs.
 *
 * <pre>{@code
 * try (LogCapture log = LogCapture.of(Scheduler.class)) {
 *     ...
 *     await().until(() -> log.contains("WARNING", "close() of"));
 * }
 * }</pre>
 */
public final class LogCapture implements AutoCloseable {
    private final Logger logger;
    private final List<LogRecord> records = new CopyOnWriteArrayList<>();
    private final Handler handler = new Handler() {
        @Override
        public void publish(LogRecord record) {
            records.add(record);
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
    };

    private LogCapture(String loggerName) {
        logger = Logger.getLogger(loggerName);
        logger.addHandler(handler);
    }

    /** of(loggerClass) starts capturing the logger named after loggerClass, as marl4j names its loggers. */
    public static LogCapture of(Class<?> loggerClass) {
        return new LogCapture(loggerClass.getName());
    }

    /** lines() is what was logged so far, in order, as "LEVEL message" lines. */
    public List<String> lines() {
        return records.stream().map(record -> record.getLevel() + " " + record.getMessage()).toList();
    }

    /** warnings() is what was logged so far at WARNING or above, in order, with the throwables logged. */
    public List<LogRecord> warnings() {
        return records.stream().filter(record -> record.getLevel().intValue() >= Level.WARNING.intValue()).toList();
    }

    /** contains(parts...) says whether some line contains every one of parts. */
    public boolean contains(String... parts) {
        return lines().stream().anyMatch(line -> {
            for (String part : parts) {
                if (!line.contains(part)) {
                    return false;
                }
            }
            return true;
        });
    }

    @Override
    public void close() {
        logger.removeHandler(handler);
    }

    @Override
    public String toString() {
        return lines().toString();
    }
}
