package wjoin.exec

import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.execution.{CostMode, SimpleMode}
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanHelper
import org.apache.spark.sql.functions.{abs, col}
import org.scalatest.funsuite.AnyFunSuite

import wjoin.core.cost.AccessPath
import wjoin.errors.WJoinAnalysisException
import wjoin.exec.batch.WindowJoinExec
import wjoin.testkit.SharedSparkSession
import wjoin.WJoin


/** Access paths (Kang et al. Sec. 4.2, the ICEIS 2005 study) in Spark: band predicates, forced and cost-chosen access paths, EXPLAIN. */
class AccessPathSparkSuite extends AnyFunSuite with SharedSparkSession with AdaptiveSparkPlanHelper {
  import spark.implicits._

  private def stream(seed: Int, rows: Int, keys: Int, maxTime: Int, domain: Int): DataFrame = {
    val rnd = new scala.util.Random(seed)
    Seq.fill(rows)((rnd.nextInt(keys), rnd.nextInt(maxTime).toLong, rnd.nextInt(domain).toLong, rnd.nextInt(domain)))
      .toDF("k", "t", "x", "y")
  }

  private def sorted(df: DataFrame): Seq[String] = df.collect().map(_.mkString(",")).sorted.toSeq

  private def execOf(df: DataFrame): WindowJoinExec = {
    val nodes = collect(df.queryExecution.executedPlan) { case e: WindowJoinExec => e }
    assert(nodes.nonEmpty, s"no WindowJoinExec in\n${df.queryExecution.executedPlan}")
    nodes.head
  }

  private val paths = Seq("scan", "hash", "ttree", "bplustree")

  test("two inputs: every forced access-path pair gives Spark's join, with and without a key") {
    val (a, b) = (stream(1, 200, 3, 150, 30), stream(2, 200, 3, 150, 30))
    a.createOrReplaceTempView("pa"); b.createOrReplaceTempView("pb")
    val keyed = sorted(spark.sql("SELECT * FROM pa a JOIN pb b ON a.k = b.k AND abs(a.t - b.t) <= 6 " +
      "AND abs(a.x - b.x) <= 2"))
    val unkeyed = sorted(spark.sql("SELECT * FROM pa a JOIN pb b ON abs(a.t - b.t) <= 6 AND a.x < b.y"))
    assert(keyed.size > 20 && unkeyed.size > 20)
    for (pa <- paths; pb <- paths; algorithm <- Seq("auto", "hw", "mw")) {
      val df = WJoin("A" -> a, "B" -> b).on(col("A.k") === col("B.k") && abs(col("A.x") - col("B.x")) <= 2)
        .time("t").window("6").algorithm(algorithm).accessPaths(s"A:$pa, B:$pb").toDF
      assert(sorted(df) == keyed, s"keyed $algorithm A:$pa B:$pb")
      assert(execOf(df).enginePlan.accessPath.toSeq.map(_.name) == Seq(pa, pb))
    }
    for (pa <- paths.filter(_ != "hash"); pb <- paths.filter(_ != "hash"); algorithm <- Seq("auto", "mw")) {
      val df = WJoin("A" -> a, "B" -> b).on(col("A.x") < col("B.y")).time("t").window("6").algorithm(algorithm)
        .accessPaths(s"a:$pa,b:$pb").toDF
      assert(sorted(df) == unkeyed, s"unkeyed $algorithm A:$pa B:$pb")
    }
  }

  test("three inputs, joins on different attributes per pair (A.x = B.x AND B.y = C.y), BETWEEN bands") {
    val (a, b, c) = (stream(3, 120, 2, 100, 8), stream(4, 120, 2, 100, 8), stream(5, 120, 2, 100, 8))
    a.createOrReplaceTempView("qa"); b.createOrReplaceTempView("qb"); c.createOrReplaceTempView("qc")
    val expected = sorted(spark.sql("SELECT * FROM qa a, qb b, qc c WHERE a.x = b.x AND b.y = c.y AND " +
      "c.x BETWEEN a.x - 1 AND a.x + 1 AND abs(a.t - b.t) <= 8 AND abs(b.t - c.t) <= 8 AND abs(a.t - c.t) <= 8"))
    assert(expected.nonEmpty)
    val cond = col("A.x") === col("B.x") && col("B.y") === col("C.y") && col("C.x").between(col("A.x") - 1, col("A.x") + 1)
    for (spec <- Seq("auto", "cost", "A:ttree, B:bplustree, C:ttree", "A:scan, B:ttree, C:bplustree", "A:bplustree"))
      for (algorithm <- Seq("auto", "mw")) {
        val df = WJoin("A" -> a, "B" -> b, "C" -> c).on(cond).time("t").window("8").algorithm(algorithm)
          .accessPaths(spec).toDF
        assert(sorted(df) == expected, s"$algorithm $spec")
      }
    val nlw = WJoin("A" -> a, "B" -> b, "C" -> c).on(cond).time("t").window("8").algorithm("nlw").toDF
    assert(sorted(nlw) == expected)
    assert(execOf(nlw).enginePlan.accessPath.forall(_ == AccessPath.Scan))
  }

  test("the cost model picks a tree for a wide window probed by a band, a scan for a narrow one") {
    val (a, b) = (stream(6, 3000, 1, 3000, 100000), stream(7, 3000, 1, 3000, 100000))
    def plan(window: String) = execOf(WJoin("A" -> a, "B" -> b).on(abs(col("A.x") - col("B.x")) <= 3)
      .time("t").window(window).toDF).enginePlan
    val wide = plan("1000")
    assert(wide.accessPath.forall(p => p == AccessPath.TTree || p == AccessPath.BPlusTree), wide.describePaths(Seq("A", "B")))
    val narrow = plan("1")
    assert(narrow.accessPath.forall(_ == AccessPath.Scan), narrow.describePaths(Seq("A", "B")))
  }

  test("scan competes with hash: many keys hash, a key with one value scans; both give the same rows") {
    def keyed(a: DataFrame, b: DataFrame, paths: String) =
      WJoin("A" -> a, "B" -> b).on(col("A.k") === col("B.k")).time("t").window("1000").accessPaths(paths).toDF
    val (ma, mb) = (stream(11, 3000, 300, 3000, 1000), stream(12, 3000, 300, 3000, 1000))
    val many = execOf(keyed(ma, mb, "auto")).enginePlan
    assert(many.accessPath.forall(_ == AccessPath.Hash) && many.allHashed, many.describePaths(Seq("A", "B")))
    val (oa, ob) = (stream(13, 300, 1, 3000, 1000), stream(14, 300, 1, 3000, 1000)) // k = 0 everywhere
    val one = execOf(keyed(oa, ob, "auto")).enginePlan
    assert(one.accessPath.forall(_ == AccessPath.Scan) && !one.allHashed, one.describePaths(Seq("A", "B")))
    assert(sorted(keyed(oa, ob, "auto")) == sorted(keyed(oa, ob, "A:hash, B:hash")))
  }

  test("same key AND a double band over three inputs: the keyed range path is chosen and gives Spark's join") {
    // Few key values (the same site, a reading within 0.5), NaN, -0.0 and 0.0 among the readings.
    def readings(seed: Int) = {
      val rnd = new scala.util.Random(seed)
      val special = Seq(Double.NaN, -0.0, 0.0)
      Seq.fill(150)((rnd.nextInt(3), rnd.nextInt(200).toLong,
        if (rnd.nextInt(10) == 0) special(rnd.nextInt(3)) else rnd.nextInt(100) / 10.0)).toDF("k", "t", "x")
    }
    val (a, b, c) = (readings(21), readings(22), readings(23))
    a.createOrReplaceTempView("ka"); b.createOrReplaceTempView("kb"); c.createOrReplaceTempView("kc")
    val expected = sorted(spark.sql("SELECT a.k, a.t, a.x, b.t, b.x, c.t, c.x FROM ka a, kb b, kc c WHERE a.k = b.k AND b.k = c.k AND " +
      "abs(a.x - b.x) < 0.5 AND abs(b.x - c.x) < 0.5 AND abs(a.t - b.t) <= 40 AND abs(b.t - c.t) <= 40 AND abs(a.t - c.t) <= 40"))
    assert(expected.size > 20, expected.size) // NaN never matches abs(NaN - x) < 0.5; -0.0 matches 0.0
    def join(algorithm: String, paths: String) = WJoin("A" -> a, "B" -> b, "C" -> c).on("k")
      .on(abs(col("A.x") - col("B.x")) < 0.5 && abs(col("B.x") - col("C.x")) < 0.5).time("t").window("40")
      .algorithm(algorithm).accessPaths(paths).toDF
    val auto = join("auto", "auto")
    val plan = execOf(auto).enginePlan
    assert(plan.accessPath.forall(_.bucketsByKey) && plan.accessPath.forall(_.indexed) && plan.allHashed,
      plan.describePaths(Seq("A", "B", "C")))
    assert(auto.queryExecution.explainString(SimpleMode).matches("(?s).*access paths=\\[A=hash\\+(ttree|bplustree)\\(A.x\\), .*"))
    assert(sorted(auto) == expected)
    for (algorithm <- Seq("hw", "mw")) {
      assert(sorted(join(algorithm, "A:hash+ttree, B:hash+bplustree, C:hash")) == expected, algorithm)
    }
  }

  test("MW-join is costed as forward evaluation: a skewed band keeps the fast input out of a scan") {
    // Kang et al.'s band workload at p = 0.95 (docs/design/access-paths.md): a slow B row of the
    // MW-join probes the A rows of B's whole 10,000-unit window.
    val fast = stream(15, 9500, 1, 10000, 25000)
    val slow = stream(16, 500, 1, 10000, 25000)
    def join(algorithm: String, paths: String = "auto") = WJoin("A" -> fast, "B" -> slow)
      .on(abs(col("A.x") - col("B.x")) <= 2).time("t").windows("RANGE(A) = 500 AND RANGE(B) = 10000")
      .algorithm(algorithm).accessPaths(paths).toDF
    val mw = execOf(join("mw")).enginePlan
    assert(mw.forward && mw.accessPath(0) != AccessPath.Scan, mw.describePaths(Seq("A", "B")))
    assert(sorted(join("mw")) == sorted(join("mw", "A:scan, B:scan")))
  }

  test("EXPLAIN shows access paths, probe orders, the chosen and runner-up costs; cost mode too") {
    val (a, b, c) = (stream(8, 100, 2, 100, 50), stream(9, 100, 2, 100, 50), stream(10, 100, 2, 100, 50))
    val df = WJoin("A" -> a, "B" -> b, "C" -> c).on("k").on(col("A.x") < col("B.x"))
      .time("t").window("10").accessPaths("A:hash, B:ttree").expirationInterval("3").toDF
    val text = df.queryExecution.explainString(SimpleMode)
    assert(text.contains("access paths=[A=hash, B=ttree(B.x), C=hash]"), text)
    assert(text.contains("expiration=every 3"), text)
    assert(text.contains("probe order=[A: "), text)
    assert(text.matches("(?s).*cost=[0-9.e+]+ \\[A=hash, B=ttree, C=hash\\], runner-up=.*"), text)
    val cost = df.queryExecution.explainString(CostMode)
    val logicalLine = cost.linesIterator.find(l => l.contains("WindowJoin auto") && l.contains("Statistics("))
    assert(logicalLine.exists(_.contains("cost=")), cost)
    assert(logicalLine.exists(_.contains("runner-up=")), cost)
    // MW-join sweeps rows out after their turn: no expiration interval applies
    val mw = WJoin("A" -> a, "B" -> b).time("t").window("10").algorithm("mw").toDF
    assert(mw.queryExecution.explainString(SimpleMode).contains("expiration=after sweep"))
  }

  test("lazy expiration (a number or auto) keeps results and shows in EXPLAIN") {
    val (a, b) = (stream(11, 300, 3, 400, 20), stream(12, 300, 3, 400, 20))
    val base = WJoin("A" -> a, "B" -> b).on("k").on(abs(col("A.x") - col("B.x")) <= 3).time("t").window("5")
    val expected = sorted(base.toDF)
    for (tau <- Seq("0", "1", "7", "50", "auto")) {
      val df = base.expirationInterval(tau).accessPaths("A:hash, B:bplustree").toDF
      assert(sorted(df) == expected, tau)
    }
    assert(execOf(base.expirationInterval("7").toDF).enginePlan.expirationInterval == 7)
  }

  test("impossible or unknown forced paths are refused before any job runs, naming the input") {
    val (a, b) = (stream(13, 10, 2, 10, 5), stream(14, 10, 2, 10, 5))
    def err(f: => Any): String = intercept[WJoinAnalysisException](f).getMessage
    val noKey = err(WJoin("A" -> a, "B" -> b).time("t").window("2").accessPaths("A:hash").toDF)
    assert(noKey.contains("input A cannot use a hash access path"), noKey)
    val noBand = err(WJoin("A" -> a, "B" -> b).on("k").time("t").window("2").accessPaths("B:ttree").toDF)
    assert(noBand.contains("input B cannot use a ttree access path: no band or inequality predicate"), noBand)
    val nlw = err(WJoin("A" -> a, "B" -> b).on(col("A.x") < col("B.x")).time("t").window("2").algorithm("nlw")
      .accessPaths("A:bplustree").toDF)
    assert(nlw.contains("algorithm nlw scans every window"), nlw)
    assert(err(WJoin("A" -> a, "B" -> b).time("t").window("2").accessPaths("Z:scan").toDF)
      .contains("access_paths: unknown input(s) Z"))
    assert(err(WJoin("A" -> a, "B" -> b).time("t").window("2").accessPaths("A:quadtree").toDF)
      .contains("unknown access path 'quadtree' for input A"))
    assert(err(WJoin("A" -> a, "B" -> b).time("t").window("2").accessPaths("A").toDF).contains("is not input:path"))
    assert(err(WJoin("A" -> a, "B" -> b).time("t").window("2").expirationInterval("-3").toDF).contains("negative"))
  }
}
