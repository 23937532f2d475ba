// `bin/sbt "runMain wjoin.bench.IndexBenchmark"` (or wjoin.core.cost.Calibration) from the build
// root runs in the JVM module: the root project only aggregates it and has no classes itself.
// Forked, so the measurements do not share a JVM (and its JIT and GC) with sbt.
Compile / runMain := (LocalProject("wjoin") / Compile / runMain).evaluated
LocalProject("wjoin") / Compile / run / fork := true
