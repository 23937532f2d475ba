// spark-wjoin: the multi-way sliding-window join as a Spark SQL extension.
// Spark is "provided": each jar carries only our classes and runs on any cluster of its Spark minor.
ThisBuild / organization := versionOf("maven_group")
// The versions of spark-wjoin and of the Sparks it is built for: one source, read by
// pyproject.toml, bin/setup and the Python package too.
lazy val versionFile = file("python/wjoin/_version.py")
def versionOf(key: String): String = {
  val pattern = ("(?m)^" + key + """ = "([^"]+)"""").r
  pattern.findFirstMatchIn(IO.read(versionFile)).map(_.group(1)).getOrElse(sys.error(s"no $key in $versionFile"))
}
ThisBuild / version := versionOf("__version__")
ThisBuild / versionScheme := Some("early-semver")
// A {"minor": "version"} line of the version file, e.g. spark_builds.
def versionMap(key: String): Map[String, String] = {
  val line = ("(?m)^" + key + " = \\{([^}]*)\\}").r.findFirstMatchIn(IO.read(versionFile))
    .getOrElse(sys.error(s"no $key in $versionFile")).group(1)
  "\"([0-9.]+)\": \"([0-9.]+)\"".r.findAllMatchIn(line).map(m => m.group(1) -> m.group(2)).toMap
}
// Spark minor -> the pyspark release its jar is compiled against, e.g. "4.2" -> "4.2.1".
lazy val sparkBuilds: Map[String, String] = versionMap("spark_builds")
// Spark minor -> the Scala binary version of its jar (its pyspark's), e.g. "3.5" -> "2.12".
lazy val scalaBuilds: Map[String, String] = versionMap("scala_builds")
// Spark minor -> a second Scala its jar is also built for, Maven only (no pyspark wheel of that
// Scala): e.g. "3.5" -> "2.13", compiled against Spark's own artifacts of that Scala.
lazy val mavenOnlyScala: Map[String, String] = versionMap("maven_only_builds")
lazy val scalaReleases = Map("2.12" -> "2.12.18", "2.13" -> "2.13.18")
def minorNumber(v: String): Int = v.split('.').map(_.toInt) match { case Array(a, b) => a * 100 + b }
lazy val newestSpark = sparkBuilds.keys.maxBy(minorNumber)

// The one setting that selects the Spark a build is for: `bin/sbt -Dwjoin.spark=4.1 package`
// (default: the newest). It picks the Spark jars to compile against, the version folders of
// the bridge (jvm/src/main/scala-spark-<minor>: what differs between Spark releases, and
// nothing else), the Scala (scala_builds), the artifact name spark-wjoin_<minor>_<scala> and a
// target folder of its own.
lazy val sparkMinor = settingKey[String]("the Spark minor (e.g. 4.3) this build compiles for")
ThisBuild / sparkMinor := sys.props.getOrElse("wjoin.spark", newestSpark)
// The Scala binary version: that minor's pyspark's (2.12 for Spark 3.5, 2.13 for every Spark 4),
// or its Maven-only one (`-Dwjoin.scala=2.13` with `-Dwjoin.spark=3.5`).
lazy val sparkScala = settingKey[String]("the Scala binary version (e.g. 2.13) this build compiles for")
ThisBuild / sparkScala := sys.props.getOrElse("wjoin.scala", scalaBuilds((ThisBuild / sparkMinor).value))
ThisBuild / scalaVersion := scalaReleases((ThisBuild / sparkScala).value)
// A build of the wheel's Scala compiles against that pyspark's jars; a Maven-only one against Spark's artifacts.
def fromWheel(minor: String, scala: String): Boolean = scalaBuilds.get(minor).contains(scala)

// Spark is compiled against (never packaged) from the jars of that minor's pinned pyspark
// wheel: .venv/ for the newest, .tools/spark-<minor>/ for the others (bin/setup makes both).
// The JVM build and the Python runtime then use byte-identical Spark, and no Spark artifact
// has to be resolved separately. WJOIN_SPARK_JARS overrides the folder (e.g. a $SPARK_HOME/jars).
def sparkJarsDir(minor: String): File = sys.env.get("WJOIN_SPARK_JARS").map(file).getOrElse {
  val venv = if (minor == newestSpark) file(".venv") else file(".tools") / s"spark-$minor"
  val lib = venv.getAbsoluteFile / "lib"
  val found = Option(lib.listFiles).toSeq.flatten.map(_ / "site-packages" / "pyspark" / "jars")
  found.find(_.isDirectory).getOrElse(lib / "python3" / "site-packages" / "pyspark" / "jars")
}

// sbt brings its own Scala library and compiler; the wheel's copies would shadow them.
def sparkClasspath(minor: String): Seq[Attributed[File]] = {
  if (!sparkBuilds.contains(minor)) sys.error(s"wjoin.spark=$minor: supported are ${sparkBuilds.keys.toSeq.sorted.mkString(", ")}")
  val dir = sparkJarsDir(minor)
  val sbtsOwn = Seq("scala-library-", "scala-compiler-", "scala-reflect-")
  val jars = Option(dir.listFiles).toSeq.flatten.filter(f => f.getName.endsWith(".jar") && !sbtsOwn.exists(f.getName.startsWith))
  if (jars.isEmpty) sys.error(s"No Spark jars in $dir: run bin/setup first (it installs pyspark ${sparkBuilds(minor)} there)")
  val core = jars.map(_.getName).find(_.startsWith("spark-core_")).getOrElse("")
  if (!core.contains(s"-$minor.")) sys.error(s"$dir holds $core, not Spark $minor: run bin/setup")
  jars.map(Attributed.blank)
}

// The version folders of a source set for a minor: scala-spark-<minor> and each range folder
// scala-spark-<from>-<to> (inclusive) that covers it, e.g. scala-spark-4.1-4.3.
def versionFolders(base: File, minor: String): Seq[File] = {
  val Range = "scala-spark-([0-9]+\\.[0-9]+)-([0-9]+\\.[0-9]+)".r
  Option(base.listFiles).toSeq.flatten.filter(_.isDirectory).filter(_.getName match {
    case Range(from, to) => minorNumber(from) <= minorNumber(minor) && minorNumber(minor) <= minorNumber(to)
    case name => name == s"scala-spark-$minor"
  })
}

// Commands over every supported Spark minor (then back to the default), in one sbt run:
//   bin/sbt packageAllSparks      the jars, into python/wjoin/jars/ (bin/setup)
//   bin/sbt publishAllSparks      the jars and POMs, into target/maven/ (bin/package)
//   bin/sbt testCompileAllSparks  the product and its tests against each Spark (by hand: bin/test
//                                 compiles the tests of the newest and of the Maven-only builds)
//   bin/sbt publishMavenOnly      the Maven-only builds (mavenOnlyScala), into target/maven/ too
def forBuilds(builds: Seq[(String, String)], task: String): String =
  (builds.flatMap { case (m, s) =>
    Seq(s"""set ThisBuild / sparkMinor := "$m"""", s"""set ThisBuild / sparkScala := "$s"""", task) } ++
    Seq(s"""set ThisBuild / sparkMinor := "$newestSpark"""", s"""set ThisBuild / sparkScala := "${scalaBuilds(newestSpark)}"""")
  ).mkString(";")
lazy val wheelBuilds = sparkBuilds.keys.toSeq.sortBy(minorNumber).map(m => m -> scalaBuilds(m))
def forEverySpark(task: String): String = forBuilds(wheelBuilds, task)
addCommandAlias("packageAllSparks", forEverySpark("wjoin/package"))
addCommandAlias("publishAllSparks", forBuilds(wheelBuilds ++ mavenOnlyScala.toSeq, "wjoin/publish"))
addCommandAlias("testCompileAllSparks", forBuilds(wheelBuilds ++ mavenOnlyScala.toSeq, "wjoin/Test/compile"))

// Settings the product and the benchmarks share: Java 17, Spark on the classpath, forked tests.
lazy val jvmSettings = Seq(
  javacOptions ++= Seq("--release", "17"),
  scalacOptions ++= Seq("-release", "17", "-deprecation", "-feature", "-Xlint:_"),
  libraryDependencies ++= Seq(
    "org.scalatest" %% "scalatest" % "3.2.19" % Test,
    "org.scalatestplus" %% "scalacheck-1-18" % "3.2.19.0" % Test,
    "org.scalacheck" %% "scalacheck" % "1.18.1" % Test
  ),
  Compile / unmanagedJars ++= (if (fromWheel(sparkMinor.value, sparkScala.value)) sparkClasspath(sparkMinor.value) else Nil),
  // A Maven-only build: Spark's artifacts of its Scala, "provided".
  libraryDependencies ++= (if (fromWheel(sparkMinor.value, sparkScala.value)) Nil else
    Seq("org.apache.spark" %% "spark-sql" % sparkBuilds(sparkMinor.value) % Provided)),
  // Spark 3.5's pyspark wheel has no Connect server (a 3.5 cluster adds it by --packages): the
  // plugin compiles against that jar, "provided" as Spark is. Maven serves it for Scala 2.12
  // only; its plugin interface and planner are the same bytecode for 2.13 (what the plugin
  // calls of it takes and returns Java and Spark types), so the 2.13 build compiles against it too.
  libraryDependencies ++= (if (sparkMinor.value != "3.5") Nil else
    Seq("org.apache.spark" % "spark-connect_2.12" % sparkBuilds("3.5") % Provided intransitive())),
  Test / unmanagedJars ++= (if (fromWheel(sparkMinor.value, sparkScala.value)) sparkClasspath(sparkMinor.value) else Nil),
  Compile / unmanagedSourceDirectories ++= versionFolders((Compile / sourceDirectory).value, sparkMinor.value),
  Test / unmanagedSourceDirectories ++= versionFolders((Test / sourceDirectory).value, sparkMinor.value),
  // One target folder per Spark minor: switching minors does not recompile the other's classes.
  target := baseDirectory.value / "target" /
    (if (fromWheel(sparkMinor.value, sparkScala.value)) s"spark-${sparkMinor.value}" else s"spark-${sparkMinor.value}_${sparkScala.value}"),
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
  Test / parallelExecution := false,
  // Each test's duration in the log: where CI's time goes.
  Test / testOptions += Tests.Argument(TestFrameworks.ScalaTest, "-oD")
)

// The Java classes of the Spark Connect message (proto/wjoin_connect.proto, the one source the
// Python module is generated from too): protoc (bin/protoc, the release the server shades), then
// com.google.protobuf relocated to org.sparkproject.connect.protobuf, the runtime the Spark
// Connect server jar carries, so the plugin shares its classes (no protobuf in our jar).
lazy val connectProtoJava = Def.task {
  val root = (ThisBuild / baseDirectory).value
  // Spark 3.5's server shades protobuf-java 3.23.4, whose runtime lacks what 4.x's protoc writes.
  val protocRelease = if (sparkMinor.value == "3.5") "3.23.4" else "4.29.3"
  val proto = root / "proto" / "wjoin_connect.proto"
  val out = (Compile / sourceManaged).value / "protobuf"
  val generate = FileFunction.cached(streams.value.cacheDirectory / "protoc", FilesInfo.hash) { _ =>
    IO.delete(out); IO.createDirectory(out)
    val rc = scala.sys.process.Process(Seq((root / "bin" / "protoc").getPath, s"-I${proto.getParent}",
      s"--java_out=${out.getPath}", proto.getPath), root, "WJOIN_PROTOC" -> protocRelease).!
    if (rc != 0) sys.error(s"protoc failed on $proto")
    val files = (out ** "*.java").get.toSet
    files.foreach(f => IO.write(f, IO.read(f).replace("com.google.protobuf.", "org.sparkproject.connect.protobuf.")))
    files
  }
  generate(Set(proto, root / "bin" / "protoc")).toSeq.sorted  // bin/protoc names the protoc release
}

// The product: spark-wjoin_<minor>_2.13, one jar per Spark minor. bin/setup puts each into the
// Python package (one wheel for every supported Spark); `publish` writes them with their POMs
// to target/maven (bin/package copies that repository to dist/maven), `publishM2` to ~/.m2.
lazy val wjoin = (project in file("jvm"))
  .settings(
    jvmSettings,
    name := s"spark-wjoin_${sparkMinor.value}",
    moduleName := name.value,  // sbt's default would turn "4.3" into "4-3"
    Compile / sourceGenerators += connectProtoJava.taskValue,
    // wjoin/version.properties: what the extension and the Connect plugin check at run time.
    Compile / resourceGenerators += Def.task {
      val out = (Compile / resourceManaged).value / "wjoin" / "version.properties"
      IO.write(out, s"version=${version.value}\nspark.version=${sparkBuilds(sparkMinor.value)}\n" +
        s"scala.binary=${scalaBinaryVersion.value}\n")
      Seq(out)
    }.taskValue,
    // The jar goes inside the Python package so `import wjoin` finds it offline.
    Compile / packageBin / artifactPath := (if (!fromWheel(sparkMinor.value, sparkScala.value)) target.value else
      baseDirectory.value / ".." / "python" / "wjoin" / "jars") /
      s"${moduleName.value}_${scalaBinaryVersion.value}-${version.value}.jar",
    Compile / packageDoc / publishArtifact := false,
    publishTo := Some(MavenCache("wjoin-dist", (ThisBuild / baseDirectory).value / "target" / "maven")),
    // Spark and Scala come with the cluster: the POM names them "provided", so
    // spark.jars.packages fetches this jar alone.
    pomPostProcess := { node => providedSpark(node, sparkBuilds(sparkMinor.value), scalaBinaryVersion.value) }
  )

// The POM's dependencies: scala-library made "provided", Spark SQL and Connect added as "provided".
def providedSpark(pom: scala.xml.Node, spark: String, scalaBinary: String): scala.xml.Node = {
  import scala.xml._
  def dependency(group: String, artifact: String, version: String) =
    <dependency><groupId>{group}</groupId><artifactId>{artifact}</artifactId><version>{version}</version><scope>provided</scope></dependency>
  val sparkDependencies = Seq("spark-sql", "spark-connect").map(a => dependency("org.apache.spark", s"${a}_$scalaBinary", spark))
  def rewrite(n: Node): Node = n match {
    case e: Elem if e.label == "dependencies" =>
      val scalaLibrary = e.child.collect { case d: Elem if (d \ "artifactId").text == "scala-library" =>
        dependency("org.scala-lang", "scala-library", (d \ "version").text) }
      e.copy(child = scalaLibrary ++ sparkDependencies)
    case e: Elem => e.copy(child = e.child.map(rewrite))
    case other => other
  }
  rewrite(pom)
}

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
