package wjoin.exec

import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.execution.SimpleMode
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanHelper
import org.apache.spark.sql.functions.{abs, col}
import org.apache.spark.sql.wjoin.WJoinConf
import org.scalatest.funsuite.AnyFunSuite

import wjoin.core.WindowMatrix
import wjoin.exec.batch.WindowJoinExec
import wjoin.testkit.SharedSparkSession
import wjoin.WJoin

/** Keyless batch W-joins partitioned into event-time bands give exactly the one-partition answer. */
class TimeBandSparkSuite extends AnyFunSuite with SharedSparkSession with AdaptiveSparkPlanHelper {
  import spark.implicits._

  private val names = Seq("A", "B", "C", "D")

  /** Rows (t, x, v): `burst` of them at time 100, `nulls` with NULL time, the rest uniform in [0, maxTime). */
  private def input(seed: Int, rows: Int, maxTime: Int, burst: Double = 0.0, nulls: Int = 0): DataFrame = {
    val rnd = new scala.util.Random(seed)
    val timed = Seq.fill(rows)((if (rnd.nextDouble() < burst) Some(100L) else Some(rnd.nextInt(maxTime).toLong),
      rnd.nextInt(10), rnd.nextInt(1000)))
    (timed ++ Seq.fill(nulls)((Option.empty[Long], rnd.nextInt(10), rnd.nextInt(1000)))).toDF("t", "x", "v")
  }

  private def withBands[T](bands: Option[Int])(f: => T): T = {
    bands match {
      case Some(b) => spark.conf.set(WJoinConf.TimeBandsKey, b.toString)
      case None => spark.conf.unset(WJoinConf.TimeBandsKey)
    }
    try f finally spark.conf.unset(WJoinConf.TimeBandsKey)
  }

  private def sorted(df: DataFrame): Seq[String] = df.collect().map(_.mkString(",")).sorted.toSeq

  private def execOf(df: DataFrame): WindowJoinExec = {
    val nodes = collect(df.queryExecution.executedPlan) { case e: WindowJoinExec => e }
    assert(nodes.nonEmpty, s"no WindowJoinExec in\n${df.queryExecution.executedPlan}")
    nodes.head
  }

  private def wjoin(inputs: Seq[DataFrame], windows: String, algorithm: String, residual: Boolean): DataFrame = {
    val b = WJoin(names.take(inputs.size).zip(inputs): _*).time("t").windows(windows).algorithm(algorithm)
    (if (residual) b.on(abs(col("A.x") - col("B.x")) <= 3) else b).toDF
  }

  /** Spark's own inner joins with every finite bound of the closed matrix as a condition. */
  private def reference(inputs: Seq[DataFrame], matrix: WindowMatrix, residual: Boolean): Seq[String] = {
    val n = inputs.size
    inputs.zip(names).foreach { case (df, nm) => df.createOrReplaceTempView(s"band_$nm") }
    val bounds = for (i <- 0 until n; j <- 0 until n if i != j && matrix.upper(i, j) != WindowMatrix.Inf)
      yield s"${names(i)}.t - ${names(j)}.t <= ${matrix.upper(i, j)}"
    val conds = bounds ++ (if (residual) Seq("abs(A.x - B.x) <= 3") else Nil)
    sorted(spark.sql(s"SELECT ${names.take(n).map(nm => s"$nm.*").mkString(", ")} FROM " +
      names.take(n).map(nm => s"band_$nm $nm").mkString(", ") + s" WHERE ${conds.mkString(" AND ")}"))
  }

  private val forms: Map[Int, Seq[String]] = Map(
    2 -> Seq("WINDOW = 6", "DWINDOW(A,B) = [3, 9]"),
    3 -> Seq("WINDOW = 5", "WINDOW(A,B) = 3 AND WINDOW(B,C) = 5", "DWINDOW(A,B) = [2, 6] AND DWINDOW(B,C) = [0, 4]"),
    4 -> Seq("WINDOW = 4", "WINDOW(A,B) = 2 AND WINDOW(B,C) = 3 AND WINDOW(C,D) = 2",
      "DWINDOW(A,B) = [1, 6] AND DWINDOW(B,C) = 5 AND DWINDOW(C,D) = [0, 4] AND WINDOW(A,D) = 12"))

  for (n <- 2 to 4; windows <- forms(n); residual <- Seq(false, true)) {
    test(s"$n inputs, $windows${if (residual) ", abs(A.x - B.x) <= 3" else ""}: bands = one partition = reference") {
      val rows = if (n == 4) 40 else 70
      for ((burst, nulls) <- Seq((0.0, 0), (0.5, 3))) {
        val inputs = (0 until n).map(i => input(100 * n + 10 * i + nulls, rows, if (n == 4) 100 else 150, burst, nulls))
        val single = withBands(Some(1)) {
          val df = wjoin(inputs, windows, "mw", residual)
          val out = sorted(df)
          assert(!execOf(df).banded && execOf(df).partitioningText == "single partition")
          out
        }
        val expected = reference(inputs, withBands(Some(1))(execOf(wjoin(inputs, windows, "mw", residual))
          .windows.matrix), residual)
        assert(single == expected, "single partition differs from Spark's joins")
        assert(expected.nonEmpty)
        for (algorithm <- Seq("mw", "nlw")) {
          val df = withBands(None)(wjoin(inputs, windows, algorithm, residual))
          val got = sorted(df)
          val exec = execOf(df)
          assert(exec.banded, s"$algorithm: not banded")
          assert(got == single, s"$algorithm, burst $burst: bands differ from one partition")
          assert(exec.metrics("numTimeBands").value > 1, s"$algorithm: only one band")
          assert(exec.metrics("numOutputRows").value == got.size)
          assert(exec.metrics("numInputRows").value == n * (rows + nulls), "rows counted once, not per band")
          assert(exec.metrics("numNullRows").value == n * nulls)
        }
      }
    }
  }

  test("EXPLAIN names the partitioning; a burst still spreads the work over several tasks") {
    withConf("spark.sql.shuffle.partitions" -> "7")(burstSpreads())
  }

  private def burstSpreads(): Unit = {
    val inputs = (0 until 3).map(i => input(7 + i, 400, 1000, burst = 0.6))
    val df = wjoin(inputs, "WINDOW = 4", "mw", residual = true)
    val explained = df.queryExecution.explainString(SimpleMode)
    assert(explained.contains("partitioning=time bands(<= 7, width >= 4)"), explained)
    assert(!explained.contains("SinglePartition"), explained)
    val exec = execOf(df)
    val perTask = exec.execute().mapPartitions(rows => Iterator(rows.size)).collect()
    assert(perTask.length == exec.metrics("numTimeBands").value && perTask.length > 3, perTask.length)
    assert(perTask.count(_ > 0) >= 3, s"output rows per task: ${perTask.mkString(", ")}")
    assert(perTask.sum == df.count())
    withBands(Some(1)) {
      val single = wjoin(inputs, "WINDOW = 4", "mw", residual = true)
      assert(single.queryExecution.explainString(SimpleMode).contains("partitioning=single partition"))
      assert(single.count() == perTask.sum)
    }
    val keyed = WJoin("A" -> inputs(0), "B" -> inputs(1)).on("x").time("t").window("4").toDF
    assert(keyed.queryExecution.explainString(SimpleMode).contains("partitioning=hash(keys)"))
  }

  test("every row is sent to at most 2 bands when the bands are at least the reach wide") {
    val inputs = (0 until 2).map(i => input(70 + i, 3000, 100000))
    val df = wjoin(inputs, "WINDOW = 10", "mw", residual = false)
    df.collect()
    val m = execOf(df).metrics
    assert(m("numReplicatedRows").value <= m("numInputRows").value)
    assert(m("numReplicatedRows").value > 0, "no row near a band boundary")
  }

  test("a bad band count is reported at planning") {
    val inputs = (0 until 2).map(i => input(80 + i, 10, 10))
    val e = intercept[IllegalArgumentException](withBands(None) {
      spark.conf.set(WJoinConf.TimeBandsKey, "0")
      wjoin(inputs, "WINDOW = 4", "mw", residual = false).queryExecution.executedPlan
    })
    assert(e.getMessage.contains("spark.wjoin.timeBands must be an integer >= 1"), e.getMessage)
  }

  test("the band count follows the rows: spark.wjoin.timeBandRows per band, at least one per core") {
    val inputs = (0 until 3).map(i => input(90 + i, 400, 1000))
    val single = withBands(Some(1))(sorted(wjoin(inputs, "WINDOW = 4", "mw", residual = true)))
    assert(single.nonEmpty)
    val cores = spark.sparkContext.defaultParallelism
    for ((rowsPerBand, expected) <- Seq(1L -> 4, 300L -> 4, 600L -> math.max(cores, 2).min(4), 100000L -> cores.min(4))) {
      withConf(WJoinConf.TimeBandRowsKey -> rowsPerBand.toString) {
        val df = withBands(None)(wjoin(inputs, "WINDOW = 4", "mw", residual = true))
        val got = sorted(df)
        val exec = execOf(df)
        assert(exec.partitioningText.startsWith("time bands(<= 4,"), exec.partitioningText)
        assert(exec.metrics("numTimeBands").value == expected, s"$rowsPerBand rows per band")
        assert(got == single, s"$rowsPerBand rows per band")
      }
    }
    val e = intercept[IllegalArgumentException](spark.conf.set(WJoinConf.TimeBandRowsKey, "0"))
    assert(e.getMessage.contains("spark.wjoin.timeBandRows must be an integer >= 1"), e.getMessage)
  }

  test("rows a generated input reuses are shuffled uncopied only where Spark's writer writes each at once") {
    import org.apache.spark.serializer.JavaSerializer
    import org.apache.spark.sql.execution.UnsafeRowSerializer
    import org.apache.spark.sql.wjoin.SparkBridge
    val conf = spark.sparkContext.getConf
    assert(SparkBridge.shuffleWritesRecordsAtOnce(7, new UnsafeRowSerializer(3)), "bypass-merge writer")
    assert(SparkBridge.shuffleWritesRecordsAtOnce(100000, new UnsafeRowSerializer(3)), "serialized writer")
    assert(SparkBridge.shuffleWritesRecordsAtOnce(7, new JavaSerializer(conf)), "bypass-merge writer")
    assert(!SparkBridge.shuffleWritesRecordsAtOnce(100000, new JavaSerializer(conf)), "the generic writer buffers objects")
    // Whole-stage code reuses one row object per partition: a row sent on uncopied to a writer
    // that kept it would come out as its partition's last row.
    val inputs = (0 until 3).map(i => spark.range(3000).selectExpr(s"(id * 7 + $i) % 5000 AS t", s"(id * 13 + $i) % 10 AS x", "id AS v"))
    val single = withBands(Some(1))(sorted(wjoin(inputs, "WINDOW = 4", "mw", residual = true)))
    withConf(WJoinConf.TimeBandRowsKey -> "100") {
      val df = withBands(None)(wjoin(inputs, "WINDOW = 4", "mw", residual = true))
      assert(sorted(df) == single)
      assert(execOf(df).metrics("numTimeBands").value > 1)
    }
    assert(single.size > 100, single.size)
  }
}
