package org.marl4j.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The demo's settings reach it from the README's Maven command, and its summary follows its numbers. */
class DemoTest {
    private static final String PROPERTY = "demo.test.setting";

    @AfterEach
    void clearProperty() {
        System.clearProperty(PROPERTY);
    }

    @Test
    void setting_absentOrBlank_isTheStandardValue() {
        assertEquals(64, Demo.setting(PROPERTY, 64, 1));
        System.setProperty(PROPERTY, ""); // what the pom forwards when the flag is not given
        assertEquals(64, Demo.setting(PROPERTY, 64, 1));
        System.setProperty(PROPERTY, " 8 ");
        assertEquals(8, Demo.setting(PROPERTY, 64, 1));
    }

    @Test
    void setting_notANumberOrTooSmall_namesTheFlag() {
        System.setProperty(PROPERTY, "lots");
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Demo.setting(PROPERTY, 64, 1))
                .getMessage().contains("-D" + PROPERTY + "=lots"));
        System.setProperty(PROPERTY, "0");
        assertThrows(IllegalArgumentException.class, () -> Demo.setting(PROPERTY, 64, 1));
    }

    /** exec-maven-plugin starts a new JVM: a demo.* property not forwarded by the pom would be ignored. */
    @Test
    void demoProfile_forwardsEveryDemoPropertyTheDemoReads() throws IOException {
        String demo = Files.readString(Path.of("src/main/java/org/marl4j/examples/Demo.java"));
        String pom = Files.readString(Path.of("pom.xml"));
        Set<String> read = new TreeSet<>();
        Matcher m = Pattern.compile("\"(demo\\.\\w+)\"").matcher(demo);
        while (m.find()) {
            read.add(m.group(1));
        }
        assertFalse(read.isEmpty(), "Demo reads its settings from demo.* properties");
        for (String name : read) {
            assertTrue(pom.contains("<argument>-D" + name + "=${" + name + "}</argument>"),
                    "examples/pom.xml's demo profile must forward -D" + name);
            assertTrue(pom.contains("<" + name + "></" + name + ">"),
                    "examples/pom.xml must default " + name + " to empty (the demo's own default)");
        }
    }

    @Test
    void summary_marl4jSlowerThanVirtualThreads_saysSo() {
        assertSummary(summary(1_800, 2_600, 1_700), List.of("1.06x its requests/s", "0.69x its requests/s",
                "Virtual threads served more here", "about even", "2,000 requests/s"), List.of());
    }

    @Test
    void summary_marl4jAheadOfThePoolButUnderItsCeiling_doesNotClaimThePoint() {
        assertSummary(summary(1_650, 1_740, 1_240), List.of("both stayed under the pool's ceiling", "About the same"),
                List.of("point of the demo"));
    }

    @Test
    void summary_marl4jBehindThePool_saysItServedLess() {
        assertSummary(summary(954, 1_973, 1_330), List.of("0.72x its requests/s", "marl4j served less than the pool",
                "Virtual threads served more here"), List.of());
    }

    @Test
    void summary_marl4jAheadOfBoth_saysSo() {
        assertSummary(summary(3_000, 2_500, 1_500), List.of("went past that ceiling", "this is the point of the demo",
                "marl4j served more here"), List.of("Virtual threads served more"));
    }

    @Test
    void inTurn_everyRoundMeasuresEveryServer_andEachServerGoesFirstOnce() {
        int servers = 3;
        Set<Integer> firsts = new HashSet<>();
        for (int round = 0; round < servers; round++) {
            int[] order = HttpServerDemo.inTurn(round, servers);
            assertEquals(Set.of(0, 1, 2), Arrays.stream(order).boxed().collect(Collectors.toSet()), Arrays.toString(order));
            firsts.add(order[0]);
        }
        assertEquals(Set.of(0, 1, 2), firsts);
    }

    private static void assertSummary(String text, List<String> says, List<String> neverSays) {
        says.forEach(phrase -> assertTrue(text.contains(phrase), () -> "missing \"" + phrase + "\" in:\n" + text));
        neverSays.forEach(phrase -> assertFalse(text.contains(phrase), () -> "unexpected \"" + phrase + "\" in:\n" + text));
    }

    /** summary(...) is the demo's summary of one run with these requests/s, on 2 worker threads. */
    private static String summary(long marl, long virtual, long pool) {
        return HttpServerDemo.summary(results(marl, virtual, pool), 2, load());
    }

    private static HttpServerDemo.Load load() {
        return new HttpServerDemo.Load(8, Duration.ZERO, Duration.ofSeconds(1), Duration.ofMillis(1));
    }

    private static List<HttpServerDemo.Result> results(long marl, long virtual, long pool) {
        return List.of(new HttpServerDemo.Result("marl4j", marl, 0, 1, 1_000_000, 5_000_000),
                new HttpServerDemo.Result("virtual", virtual, 0, 1, 1_000_000, 5_000_000),
                new HttpServerDemo.Result("pool", pool, 0, 1, 2_000_000, 9_000_000));
    }
}
