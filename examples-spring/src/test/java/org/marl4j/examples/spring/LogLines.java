package org.marl4j.examples.spring;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import ch.qos.logback.core.OutputStreamAppender;
import org.slf4j.LoggerFactory;

/**
 * LogLines captures the log lines of a running application as its console prints them: an appender
 * on the root logger that formats each event with the console appender's own pattern, so that a
 * test reads what a user would read, request id included. Close it to detach it.
 */
final class LogLines extends AppenderBase<ILoggingEvent> implements AutoCloseable {
    // guarded by this (AppenderBase.doAppend is synchronized)
    private final List<Line> lines = new ArrayList<>();
    private final PatternLayoutEncoder encoder = new PatternLayoutEncoder();
    private final Logger root;

    private LogLines(Logger root, String pattern) {
        this.root = root;
        LoggerContext context = root.getLoggerContext();
        encoder.setContext(context);
        encoder.setPattern(pattern);
        encoder.setCharset(StandardCharsets.UTF_8);
        encoder.start();
        setContext(context);
        setName("test-capture");
        start();
        root.addAppender(this);
    }

    /** attach() starts capturing every event that reaches the root logger, in the console's format. */
    static LogLines attach() {
        Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        if (!(root.getAppender("CONSOLE") instanceof OutputStreamAppender<ILoggingEvent> console)
                || !(console.getEncoder() instanceof PatternLayoutEncoder consoleEncoder)) {
            throw new IllegalStateException("expected Spring Boot's CONSOLE appender with a pattern on the root logger");
        }
        return new LogLines(root, consoleEncoder.getPattern());
    }

    @Override
    protected void append(ILoggingEvent event) {
        lines.add(new Line(event.getLoggerName(), new String(encoder.encode(event), StandardCharsets.UTF_8).stripTrailing()));
    }

    /** drain() returns the lines captured since the last drain, in the order they were logged. */
    synchronized List<Line> drain() {
        List<Line> out = List.copyOf(lines);
        lines.clear();
        return out;
    }

    /**
     * One captured line.
     *
     * @param logger the name of the logger that logged it
     * @param text the line as the console prints it, without its line break
     */
    record Line(String logger, String text) {}

    @Override
    public void close() {
        root.detachAppender(this);
        stop();
        encoder.stop();
    }
}
