package org.marl4j.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * Every Java and Kotlin code block of the README, of the guide under docs/ (and of the modules'
 * README-SECTION.md fragments waiting to be spliced in) is a marked region of a compiled file under
 * examples/src: this test fails when one drifts from its source, or when a block has no marker. How
 * to mark them is in {@link Snippets}.
 */
class ReadmeSnippetsTest {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final Path SOURCES = Path.of("src").toAbsolutePath();

    @TestFactory
    Stream<DynamicTest> readme_everyCodeBlockEqualsItsRegion() throws IOException {
        return blocksOf(ROOT.resolve("README.md"));
    }

    @TestFactory
    Stream<DynamicTest> guide_everyCodeBlockEqualsItsRegion() throws IOException {
        List<DynamicTest> tests = new ArrayList<>();
        for (Path page : guidePages()) {
            blocksOf(page).forEach(tests::add);
        }
        return tests.stream();
    }

    @TestFactory
    Stream<DynamicTest> readmeSections_everyCodeBlockEqualsItsRegion() throws IOException {
        List<DynamicTest> tests = new ArrayList<>();
        try (Stream<Path> modules = Files.list(ROOT)) {
            for (Path section : modules.map(m -> m.resolve("README-SECTION.md")).filter(Files::isRegularFile).sorted().toList()) {
                blocksOf(section).forEach(tests::add);
            }
        }
        return tests.stream();
    }

    @Test
    void readmeAndGuide_haveCodeBlocks() throws IOException {
        // Guards the parser and the page list: pages whose blocks all went unrecognised, or a guide
        // that was not found, would pass vacuously.
        assertTrue(Snippets.blocks(ROOT.resolve("README.md")).size() >= 2, "expected the README's java blocks");
        int guideBlocks = 0;
        for (Path page : guidePages()) {
            guideBlocks += Snippets.blocks(page).size();
        }
        assertTrue(guideBlocks >= 10, "expected the guide's java and kotlin blocks under docs/, found " + guideBlocks);
    }

    @Test
    void regions_areFoundInExampleSources() throws IOException {
        Map<String, Snippets.Region> regions = Snippets.regions(SOURCES);
        assertTrue(regions.containsKey("quick-start"), () -> "regions found: " + regions.keySet());
    }

    @Test
    void parser_stripsCommonIndentationAndReportsTheFirstDifference() {
        assertEquals(List.of("a", "  b", "", "c"), Snippets.dedent(List.of("    a", "      b", "", "    c")));
        String diff = Snippets.diff(List.of("x", "y", "z"), List.of("x", "Y", "z"));
        assertTrue(diff.contains("line 2"), diff);
        assertTrue(diff.contains("- y") && diff.contains("+ Y"), diff);
    }

    private static List<Path> guidePages() throws IOException {
        try (Stream<Path> pages = Files.list(ROOT.resolve("docs"))) {
            return pages.filter(p -> p.toString().endsWith(".md")).sorted().toList();
        }
    }

    private static Stream<DynamicTest> blocksOf(Path markdown) throws IOException {
        Map<String, Snippets.Region> regions = Snippets.regions(SOURCES);
        String file = ROOT.relativize(markdown).toString();
        return Snippets.blocks(markdown).stream().map(block -> DynamicTest.dynamicTest(
                file + ":" + block.line() + " " + (block.name() == null ? "(unmarked " + block.language() + ")" : block.name()),
                () -> check(file, block, regions)));
    }

    private static void check(String file, Snippets.Block block, Map<String, Snippets.Region> regions) {
        if (block.name() == null) {
            fail(file + ":" + block.line() + ": this ```" + block.language() + " block has no marker. Put the code in a file"
                    + " under examples/src between '// readme:begin NAME' and '// readme:end NAME', and precede the"
                    + " block with the line '<!-- readme: NAME -->'.");
        }
        Snippets.Region region = regions.get(block.name());
        if (region == null) {
            fail(file + ":" + block.line() + ": no region '" + block.name() + "' in examples/src: add '// readme:begin "
                    + block.name() + "' ... '// readme:end " + block.name() + "' around the code in an example file."
                    + " Regions found: " + regions.keySet());
        }
        String diff = Snippets.diff(region.lines(), block.lines());
        assertTrue(diff.isEmpty(), () -> file + ":" + block.line() + ": block '" + block.name() + "' differs from its region in "
                + SOURCES.getParent().relativize(region.file()) + ":" + region.line() + " (copy the region into the README):\n" + diff);
    }
}
