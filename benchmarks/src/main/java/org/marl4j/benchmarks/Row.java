package org.marl4j.benchmarks;

import java.util.Map;

import org.openjdk.jmh.results.RunResult;

/**
 * Row is one benchmark × parameter combination of a run, as RESULTS.md shows it: its median, mean
 * and error, and the core-to-core round trip measured right after its fork.
 */
record Row(String type, String method, String params, double median, double mean, double error, String unit,
           double coreToCore) {
    /** The suffix of a virtual-thread baseline forked with one carrier thread. */
    static final String ONE_CARRIER = "_1carrier";
    /** The JMH parameter that picks a marl4j row's fiber engine. */
    static final String ENGINE = "engine";

    /** of(r, coreToCore): r's row, with its round trip from coreToCore (keyed by {@link CoreToCoreProbe#key}). */
    static Row of(RunResult r, Map<String, Double> coreToCore) {
        String label = r.getParams().getBenchmark();
        int dot = label.lastIndexOf('.');
        StringBuilder params = new StringBuilder();
        for (String key : r.getParams().getParamsKeys()) {
            params.append(params.isEmpty() ? "" : ", ").append(key).append('=').append(r.getParams().getParam(key));
        }
        var primary = r.getPrimaryResult();
        return new Row(label.substring(0, dot), label.substring(dot + 1), params.toString(),
                primary.getStatistics().getPercentile(50), primary.getScore(), primary.getScoreError(),
                primary.getScoreUnit(), coreToCore.getOrDefault(CoreToCoreProbe.key(r.getParams()), Double.NaN));
    }

    /** The row in a summary cell: method and params. */
    String cell() {
        return params.isEmpty() ? method : method + " " + params;
    }

    String label() {
        return params.isEmpty() ? method : method + " (" + params + ")";
    }

    boolean isMarl() {
        return method.contains("marl4j");
    }

    /** The config's name in a summary cell: the method without "marl4j", and its params (engine= included). */
    String configLabel() {
        return config(params);
    }

    /** The config's name where its engine is already said: as configLabel, without the engine parameter. */
    String configLabelWithoutEngine() {
        String engine = param(ENGINE);
        return config(engine == null ? params
                : params.replace(ENGINE + "=" + engine + ", ", "").replace(", " + ENGINE + "=" + engine, "")
                        .replace(ENGINE + "=" + engine, ""));
    }

    private String config(String shownParams) {
        String name = method.replace("_marl4j", "").replace("marl4j", "");
        String config = (name + (name.isEmpty() || shownParams.isEmpty() ? "" : " ") + shownParams).trim();
        return config.isEmpty() ? "(one config)" : config;
    }

    /** The fiber engine of a marl4j row, or "" for a row without one. */
    String engine() {
        String engine = param(ENGINE);
        return engine == null ? "" : engine;
    }

    /** param(key): the value of JMH parameter key in this row, or null. */
    String param(String key) {
        for (String kv : params.split(", ")) {
            int eq = kv.indexOf('=');
            if (eq > 0 && kv.substring(0, eq).equals(key)) {
                return kv.substring(eq + 1);
            }
        }
        return null;
    }

    /** paramsWith(key, value): this row's params with key set to value, to find the row of another engine. */
    String paramsWith(String key, String value) {
        String old = param(key);
        return old == null ? params : params.replace(key + "=" + old, key + "=" + value);
    }

    /**
     * oneThread: a marl4j row with threads=0 or 1, or a baseline on one thread: a virtual-thread
     * fork with one carrier (method name ending in {@code _1carrier}) or a pool with poolThreads=1.
     */
    boolean oneThread() {
        if (isMarl()) {
            String threads = param("threads");
            return "0".equals(threads) || "1".equals(threads);
        }
        return method.endsWith(ONE_CARRIER) || "1".equals(param("poolThreads"));
    }

    /** family: a baseline's name without its one-carrier suffix, as a Target names it. */
    String family() {
        return method.endsWith(ONE_CARRIER) ? method.substring(0, method.length() - ONE_CARRIER.length()) : method;
    }

    /** A floor row (method name with "floor") shows what a workload costs with no dispatch at all: never a baseline. */
    boolean isFloor() {
        return method.contains("floor");
    }

    boolean isBaseline() {
        return !isMarl() && !isFloor();
    }
}
