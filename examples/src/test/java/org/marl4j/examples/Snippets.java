package org.marl4j.examples;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Snippets reads the README's code blocks and the example sources' marked regions.
 *
 * <p>In a source file under examples/src, a region is the lines between {@code // readme:begin
 * NAME} and {@code // readme:end NAME}. In Markdown, the fenced block that shows it is preceded
 * (blank lines allowed) by {@code <!-- readme: NAME -->}. The two must be equal once their common
 * indentation is stripped. Every {@code java} and {@code kotlin} block must be marked.
 */
final class Snippets {
    private static final Pattern MARKER = Pattern.compile("^\\s*<!--\\s*readme:\\s*([\\w.-]+)\\s*-->\\s*$");
    private static final Pattern FENCE = Pattern.compile("^(\\s*)```\\s*([\\w.+-]*)\\s*$");
    private static final Pattern BEGIN = Pattern.compile("^\\s*//\\s*readme:begin\\s+([\\w.-]+)\\s*$");
    private static final Pattern END = Pattern.compile("^\\s*//\\s*readme:end\\s+([\\w.-]+)\\s*$");
    private static final List<String> CHECKED = List.of("java", "kotlin", "kt");

    private Snippets() {}

    /** A checked code block: its name (null if unmarked), language, first code line number, and lines. */
    record Block(String name, String language, int line, List<String> lines) {}

    /** A marked region of a source file, dedented. */
    record Region(String name, Path file, int line, List<String> lines) {}

    /** blocks returns the markdown file's java/kotlin blocks, marked or not. */
    static List<Block> blocks(Path markdown) throws IOException {
        List<String> lines = Files.readAllLines(markdown);
        List<Block> blocks = new ArrayList<>();
        String pending = null;
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            Matcher marker = MARKER.matcher(line);
            Matcher fence = FENCE.matcher(line);
            if (marker.matches()) {
                pending = marker.group(1);
            } else if (fence.matches()) {
                String language = fence.group(2);
                int start = i + 1;
                int end = start;
                while (end < lines.size() && !lines.get(end).trim().equals("```")) {
                    end++;
                }
                if (end == lines.size()) {
                    throw new IllegalStateException(markdown + ":" + (i + 1) + ": code block is never closed");
                }
                if (CHECKED.contains(language) || pending != null) {
                    blocks.add(new Block(pending, language, start + 1, dedent(lines.subList(start, end))));
                }
                pending = null;
                i = end;
            } else if (!line.isBlank()) {
                pending = null; // a marker applies only to the block right after it
            }
        }
        return blocks;
    }

    /** regions returns every marked region under {@code root}, by name. */
    static Map<String, Region> regions(Path root) throws IOException {
        Map<String, Region> regions = new TreeMap<>();
        try (Stream<Path> files = Files.walk(root)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".java") || f.toString().endsWith(".kt")).toList()) {
                for (Region region : regionsIn(file)) {
                    Region before = regions.put(region.name(), region);
                    if (before != null) {
                        throw new IllegalStateException("region '" + region.name() + "' is defined twice: in "
                                + before.file() + ":" + before.line() + " and " + file + ":" + region.line());
                    }
                }
            }
        }
        return regions;
    }

    private static List<Region> regionsIn(Path file) {
        List<String> lines;
        try {
            lines = Files.readAllLines(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        List<Region> regions = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            Matcher begin = BEGIN.matcher(lines.get(i));
            if (!begin.matches()) {
                continue;
            }
            String name = begin.group(1);
            int end = i + 1;
            while (end < lines.size() && !isEnd(lines.get(end), name)) {
                if (BEGIN.matcher(lines.get(end)).matches()) {
                    throw new IllegalStateException(file + ":" + (end + 1) + ": region inside region '" + name + "'");
                }
                end++;
            }
            if (end == lines.size()) {
                throw new IllegalStateException(file + ":" + (i + 1) + ": '// readme:begin " + name
                        + "' has no '// readme:end " + name + "'");
            }
            regions.add(new Region(name, file, i + 2, dedent(lines.subList(i + 1, end))));
            i = end;
        }
        return regions;
    }

    private static boolean isEnd(String line, String name) {
        Matcher end = END.matcher(line);
        return end.matches() && end.group(1).equals(name);
    }

    /** dedent strips trailing blanks and the indentation common to all non-blank lines. */
    static List<String> dedent(List<String> lines) {
        int indent = Integer.MAX_VALUE;
        for (String line : lines) {
            if (!line.isBlank()) {
                indent = Math.min(indent, line.length() - line.stripLeading().length());
            }
        }
        List<String> out = new ArrayList<>(lines.size());
        for (String line : lines) {
            out.add(line.isBlank() ? "" : line.substring(indent).stripTrailing());
        }
        return out;
    }

    /** diff is empty when equal; otherwise it shows the first differing line and its neighbours. */
    static String diff(List<String> expected, List<String> actual) {
        if (expected.equals(actual)) {
            return "";
        }
        int at = 0;
        while (at < expected.size() && at < actual.size() && expected.get(at).equals(actual.get(at))) {
            at++;
        }
        StringBuilder out = new StringBuilder("first difference at line " + (at + 1)
                + " of the block (- source region, + README block):\n");
        for (int i = Math.max(0, at - 2); i < at; i++) {
            out.append("  ").append(expected.get(i)).append('\n');
        }
        for (int i = at; i < Math.min(expected.size(), at + 3); i++) {
            out.append("- ").append(expected.get(i)).append('\n');
        }
        for (int i = at; i < Math.min(actual.size(), at + 3); i++) {
            out.append("+ ").append(actual.get(i)).append('\n');
        }
        out.append("(source region: ").append(expected.size()).append(" lines, README block: ")
                .append(actual.size()).append(" lines)");
        return out.toString();
    }
}
