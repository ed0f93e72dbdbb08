package org.marl4j.benchmarks;

import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.Serializable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.openjdk.jmh.results.RunResult;

/**
 * SuiteMeasurements is everything one run of {@link RunSuite} measured, before any ratio is taken:
 * saved next to RESULTS.md so that the report can be rendered again (after a change to its targets
 * or layout) without measuring for half an hour.
 *
 * @param jmh        JMH's results, one per benchmark and parameter combination
 * @param coreToCore the core-to-core round trip right after each fork, ns, keyed by {@link CoreToCoreProbe#key}
 * @param memory     the memory case's bytes per fiber per run, keyed by case
 * @param fresh      the fresh-JVM sections that ran
 * @param run        when and under what load the suite ran
 */
record SuiteMeasurements(List<RunResult> jmh, Map<String, Double> coreToCore, Map<String, List<Long>> memory,
                         List<FreshSection> fresh, RunInfo run) implements Serializable {

    /** One fresh-JVM section's values: per case, per key, one value per run; failed cases with why. */
    record FreshSection(String title, Map<String, Map<String, List<Double>>> values, Map<String, String> failures)
            implements Serializable {}

    /** When the suite ran, how long it took and the load average (1 min) at its start and end. */
    record RunInfo(String date, boolean quick, double loadBefore, double loadAfter, long minutes) implements Serializable {}

    SuiteMeasurements {
        // Copies into types known to serialise, whatever collections the caller built.
        jmh = new ArrayList<>(jmh);
        coreToCore = new LinkedHashMap<>(coreToCore);
        memory = new LinkedHashMap<>(memory);
        fresh = new ArrayList<>(fresh);
    }

    void write(Path file) throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        try (ObjectOutputStream out = new ObjectOutputStream(Files.newOutputStream(file))) {
            out.writeObject(this);
        }
    }

    static SuiteMeasurements read(Path file) throws IOException {
        try (ObjectInputStream in = new ObjectInputStream(Files.newInputStream(file))) {
            return (SuiteMeasurements) in.readObject();
        } catch (ClassNotFoundException | ClassCastException e) {
            throw new IOException(file + " is not a RunSuite measurements file (bench.measurements); run the suite to"
                    + " write one", e);
        }
    }
}
