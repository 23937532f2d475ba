// spark-wjoin: the multi-way sliding-window join as a Spark SQL extension.
// Spark is "provided": the jar carries only our classes and runs on any Spark 4.3 cluster.
ThisBuild / scalaVersion := "2.13.18"
ThisBuild / organization := "io.github.sparkwjoin"
// The versions of spark-wjoin and of the Spark it is built for: one source, read by pyproject.toml too.
lazy val versionFile = file("python/wjoin/_version.py")
def versionOf(key: String): String = {
  val pattern = ("(?m)^" + key + """ = "([^"]+)"""").r
  pattern.findFirstMatchIn(IO.read(versionFile)).map(_.group(1)).getOrElse(sys.error(s"no $key in $versionFile"))
}
ThisBuild / version := versionOf("__version__")
lazy val builtForSpark = versionOf("spark_version")

// Spark 4.3.0 is compiled against (never packaged) from the jars of the pinned pyspark wheel in
// .venv/: the JVM build and the Python runtime then use byte-identical Spark, and no Spark
// artifact has to be resolved separately. bin/setup creates .venv before sbt runs.
// WJOIN_SPARK_JARS overrides the folder (e.g. $SPARK_HOME/jars of a Spark 4.3 install).
lazy val sparkJarsDir: File = sys.env.get("WJOIN_SPARK_JARS").map(file).getOrElse {
  val venvLib = file(".venv").getAbsoluteFile / "lib"
  val found = Option(venvLib.listFiles).toSeq.flatten.map(_ / "site-packages" / "pyspark" / "jars")
  found.find(_.isDirectory).getOrElse(venvLib / "python3" / "site-packages" / "pyspark" / "jars")
}
// sbt brings its own Scala library and compiler; the wheel's copies would shadow them.
def sparkJars: Seq[File] = Option(sparkJarsDir.listFiles).toSeq.flatten
  .filter(f => f.getName.endsWith(".jar") && !f.getName.startsWith("scala-"))

def sparkClasspath: Seq[Attributed[File]] = {
  if (sparkJars.isEmpty) sys.error(s"No Spark jars in $sparkJarsDir: run bin/setup first (it installs pyspark into .venv)")
  sparkJars.map(Attributed.blank)
}

// Settings the product and the benchmarks share: Java 17, Spark on the classpath, forked tests.
lazy val jvmSettings = Seq(
  javacOptions ++= Seq("--release", "17"),
  scalacOptions ++= Seq("-release", "17", "-deprecation", "-feature", "-Xlint:_"),
  libraryDependencies ++= Seq(
    "org.scalatest" %% "scalatest" % "3.2.19" % Test,
    "org.scalatestplus" %% "scalacheck-1-18" % "3.2.19.0" % Test,
    "org.scalacheck" %% "scalacheck" % "1.18.1" % Test
  ),
  Compile / unmanagedJars ++= sparkClasspath,
  Test / unmanagedJars ++= sparkClasspath,
  // Spark needs these on Java 17 (same list as Spark's own launcher scripts).
  Test / fork := true,
  Test / javaOptions ++= Seq(
    "-Xmx4g",
    "--add-opens=java.base/java.lang=ALL-UNNAMED",
    "--add-opens=java.base/java.lang.invoke=ALL-UNNAMED",
    "--add-opens=java.base/java.io=ALL-UNNAMED",
    "--add-opens=java.base/java.net=ALL-UNNAMED",
    "--add-opens=java.base/java.nio=ALL-UNNAMED",
    "--add-opens=java.base/java.util=ALL-UNNAMED",
    "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED",
    "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
    "--add-opens=java.base/sun.nio.cs=ALL-UNNAMED",
    "--add-opens=java.base/sun.security.action=ALL-UNNAMED",
    "--add-opens=java.base/sun.util.calendar=ALL-UNNAMED",
    "-Djdk.reflect.useDirectMethodHandle=false",
    "-Dio.netty.tryReflectionSetAccessible=true"
  ),
  Test / parallelExecution := false
)

// The Java classes of the Spark Connect message (proto/wjoin_connect.proto, the one source the
// Python module is generated from too): protoc (bin/protoc, the release the server shades), then
// com.google.protobuf relocated to org.sparkproject.connect.protobuf, the runtime the Spark
// Connect server jar carries, so the plugin shares its classes (no protobuf in our jar).
lazy val connectProtoJava = Def.task {
  val root = (ThisBuild / baseDirectory).value
  val proto = root / "proto" / "wjoin_connect.proto"
  val out = (Compile / sourceManaged).value / "protobuf"
  val generate = FileFunction.cached(streams.value.cacheDirectory / "protoc", FilesInfo.hash) { _ =>
    IO.delete(out); IO.createDirectory(out)
    val rc = scala.sys.process.Process(Seq((root / "bin" / "protoc").getPath, s"-I${proto.getParent}",
      s"--java_out=${out.getPath}", proto.getPath), root).!
    if (rc != 0) sys.error(s"protoc failed on $proto")
    val files = (out ** "*.java").get.toSet
    files.foreach(f => IO.write(f, IO.read(f).replace("com.google.protobuf.", "org.sparkproject.connect.protobuf.")))
    files
  }
  generate(Set(proto)).toSeq.sorted
}

// The product: the jar bin/setup puts into the Python package.
lazy val wjoin = (project in file("jvm"))
  .settings(
    jvmSettings,
    name := "spark-wjoin",
    Compile / sourceGenerators += connectProtoJava.taskValue,
    // wjoin/version.properties: what the extension and the Connect plugin check at run time.
    Compile / resourceGenerators += Def.task {
      val out = (Compile / resourceManaged).value / "wjoin" / "version.properties"
      IO.write(out, s"version=${version.value}\nspark.version=$builtForSpark\n")
      Seq(out)
    }.taskValue,
    // The jar goes inside the Python package so `import wjoin` finds it offline.
    Compile / packageBin / artifactPath := baseDirectory.value / ".." / "python" / "wjoin" / "jars" / "spark-wjoin.jar"
  )

// Benchmarks and the weight-factor calibration, never in the product jar:
//   bin/sbt "bench/runMain wjoin.bench.IndexBenchmark"
//   bin/sbt "bench/runMain wjoin.core.cost.Calibration --write src/main/resources/wjoin/cost/weights.properties"
// Runs are forked, so the measurements do not share a JVM (and its JIT and GC) with sbt, and
// start in jvm/, so relative paths (Calibration --write) name the product's files.
lazy val bench = (project in file("benchmarks/jvm"))
  .dependsOn(wjoin % "compile->compile;test->test")
  .settings(
    jvmSettings,
    name := "spark-wjoin-bench",
    publish / skip := true,
    run / fork := true,
    run / baseDirectory := (wjoin / baseDirectory).value,
    run / javaOptions ++= Seq("-Xmx4g"),
    // benchmarks/bench_algorithms.py loads this jar beside the product's (`bin/sbt bench/package`).
    Compile / packageBin / artifactPath := baseDirectory.value / "target" / "spark-wjoin-bench.jar"
  )

// The build root builds nothing itself: `bin/sbt test` and `bin/sbt package` run in both projects.
lazy val root = (project in file("."))
  .aggregate(wjoin, bench)
  .settings(publish / skip := true)
