package wjoin.plan
package physical

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{AttributeReference, LessThan, Literal}
import org.apache.spark.sql.catalyst.plans.logical.{Filter, LocalRelation, LogicalPlan, Project, Repartition}
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.types.{IntegerType, LongType}
import org.apache.spark.sql.wjoin.WJoinConf
import org.scalatest.funsuite.AnyFunSuite

import wjoin.core.Algorithm
import wjoin.core.cost.{AccessPath, AccessRequest}
import wjoin.core.shedding.{Allocation, ResourceLimits}
import wjoin.errors.WJoinAnalysisException
import wjoin.plan.logical.AccessOptions
import wjoin.plan.logical.AccessSpec
import wjoin.plan.logical.Expiration
import wjoin.plan.logical.WindowJoin
import wjoin.plan.logical.WindowJoinBuilder
import wjoin.request.{Choice, TimeColumns, WJoinRequest}

/**
 * [[WindowJoinPlanner]] on logical W-joins over local relations, without a SparkSession or a
 * job: the algorithm rule, keys and residual, forced access paths, time bands and their
 * setting, and that EXPLAIN's planning errors are not swallowed.
 */
class WindowJoinPlannerSuite extends AnyFunSuite {
  private def input(): LogicalPlan = LocalRelation(AttributeReference("t", LongType)(),
    AttributeReference("k", IntegerType)(), AttributeReference("x", IntegerType)())

  private def join(on: Seq[String], windows: String, algorithm: String = "auto",
      access: AccessOptions = AccessOptions(), n: Int = 2): WindowJoin = {
    val names = Seq("A", "B", "C").take(n)
    WindowJoinBuilder.build(WJoinRequest(names.map(_ => input()), Some(names), on, time = TimeColumns.Same("t"),
      windows = Some(windows), algorithm = Choice.parse(algorithm, Algorithm, "algorithm"), accessPaths = access.paths,
      expirationInterval = access.expiration)).collectFirst { case w: WindowJoin => w }.get
  }

  /**
   * SQLConf with spark.wjoin.timeBands set to `value` (None: unset), 7 shuffle partitions,
   * spark.wjoin.smallInputBytes `small` (-1: the small-input plan off; these inputs are empty)
   * and spark.wjoin.broadcastBytes `broadcast` (-1: the broadcast plan off).
   */
  private def conf(value: Option[String], small: String = "-1", broadcast: String = "-1"): SQLConf = {
    val c = new SQLConf
    c.setConfString(SQLConf.SHUFFLE_PARTITIONS.key, "7")
    value.foreach(c.setConfString(WJoinConf.TimeBandsKey, _))
    c.setConfString(WJoinConf.SmallInputBytesKey, small)
    c.setConfString(WJoinConf.BroadcastBytesKey, broadcast)
    c
  }

  /** A local relation of `rows` rows (t, k, x): t = 0, 1, ..., k over `keys` values. */
  private def rowsInput(rows: Int, keys: Int): LogicalPlan = {
    val attrs = Seq(AttributeReference("t", LongType)(), AttributeReference("k", IntegerType)(),
      AttributeReference("x", IntegerType)())
    LocalRelation(attrs, (0 until rows).map(i => InternalRow(i.toLong, i % keys, i)))
  }

  private def joinOf(inputs: Seq[LogicalPlan], on: Seq[String], windows: String): WindowJoin = {
    val names = Seq("A", "B", "C").take(inputs.size)
    WindowJoinBuilder.build(WJoinRequest(inputs, Some(names), on, time = TimeColumns.Same("t"), windows = Some(windows)))
      .collectFirst { case w: WindowJoin => w }.get
  }

  test("auto: HW-join on a shared key; all inputs hashed, its equality leaves the residual; one partition") {
    val w = join(Seq("k"), "WINDOW(A,B) = 5", access = AccessOptions("A:hash, B:hash"))
    assert(w.algorithm.isEmpty)
    val c = WindowJoinPlanner.batch(w, conf(Some("4")))
    assert(c.algorithm == Algorithm.HW && c.hashed)
    assert(c.keys.map(_.map(_.sql)) == Seq(Seq("A.k"), Seq("B.k")))
    assert(c.access.paths == Seq(AccessPath.Hash, AccessPath.Hash))
    assert(c.residual.isEmpty, c.residual)
    assert(c.timeBands == 1, "a keyed join is hash-partitioned, never banded")
  }

  test("a keyed input searched otherwise than by hash keeps the key equality in the residual") {
    val c = WindowJoinPlanner.choose(join(Seq("k"), "WINDOW(A,B) = 5", access = AccessOptions("A:hash, B:scan")))
    assert(c.hashed && c.access.paths == Seq(AccessPath.Hash, AccessPath.Scan))
    assert(c.residual.map(_.sql) == Seq("(A.k = B.k)"))
  }

  test("auto without a key: MW-join in at most spark.wjoin.timeBands bands (default: shuffle partitions)") {
    val w = join(Nil, "WINDOW(A,B) = 5")
    assert(WindowJoinPlanner.choose(w).algorithm == Algorithm.MW)
    assert(WindowJoinPlanner.batch(w, conf(Some("3"))).timeBands == 3)
    assert(WindowJoinPlanner.batch(w, conf(None)).timeBands == 7)
    assert(WindowJoinPlanner.batch(w, conf(Some("1"))).timeBands == 1)
  }

  test("ROWS windows count over the whole input: one partition, never bands") {
    val w = join(Nil, "WINDOW(A,B) = 5 AND ROWS(B) = 3")
    assert(WindowJoinPlanner.batch(w, conf(Some("4"))).timeBands == 1)
  }

  test("an explicit NLW-join keeps the key equality in the residual and is not hashed") {
    val c = WindowJoinPlanner.choose(join(Seq("k"), "WINDOW(A,B) = 5", algorithm = "nlw"))
    assert(c.algorithm == Algorithm.NLW && !c.hashed)
    assert(c.residual.map(_.sql) == Seq("(A.k = B.k)"))
    assert(c.access.paths.forall(_ == AccessPath.Scan))
  }

  test("the logical node holds typed values parsed where it is built") {
    val w = join(Seq("k"), "WINDOW(A,B) = 5", algorithm = "mw", access = AccessOptions("A:scan", "4"))
    assert(w.algorithm.contains(Algorithm.MW))
    assert(w.access.request.forced == Seq(Some(AccessPath.Scan), None))
    assert(w.access.expiration == Expiration.Every(4))
    assert(join(Nil, "WINDOW(A,B) = 5", access = AccessOptions("auto", "auto")).access.expiration == Expiration.Auto)
    assert(join(Nil, "WINDOW(A,B) = 5", access = AccessOptions("auto", "eager")).access.isDefault)
    val c = WindowJoinPlanner.choose(w)
    assert(c.algorithm == Algorithm.MW && c.access.paths.head == AccessPath.Scan)
  }

  test("bad access options fail when the node is built, with the parsers' messages") {
    def err(access: AccessOptions) =
      intercept[WJoinAnalysisException](join(Nil, "WINDOW(A,B) = 5", access = access)).getMessage
    assert(err(AccessOptions("Z:hash")).contains("access_paths: unknown input(s) Z"))
    assert(err(AccessOptions("A:fast")).contains("unknown access path 'fast'"))
    assert(err(AccessOptions(expiration = "-3")).contains("negative"))
  }

  test("a forced path that cannot apply fails in planning, and EXPLAIN's suffix does not hide it") {
    val w = join(Nil, "WINDOW(A,B) = 5")
    val bad = w.copy(access = AccessSpec.forced(Seq(Some(AccessPath.Hash), None)))
    val e = intercept[WJoinAnalysisException](WindowJoinPlanner.describe(bad))
    assert(e.getMessage.contains("cannot use a hash access path"), e.getMessage)
    assert(WindowJoinPlanner.describe(w).startsWith(", algorithm=mw, access paths=[A="))
  }

  test("a range predicate lets a forced T-tree search its input") {
    val w = join(Nil, "WINDOW(A,B) = 5", access = AccessOptions("B:ttree"))
    val a = w.children.head.output.find(_.name == "x").get
    val b = w.children(1).output.find(_.name == "x").get
    val c = WindowJoinPlanner.choose(w.copy(condition = Some(LessThan(a, b))))
    assert(c.access.paths(1) == AccessPath.TTree)
    assert(c.access.bindings.exists(_.target == 1))
  }

  test("spark.wjoin.timeBands rejects values below 1, naming the key") {
    val e = intercept[IllegalArgumentException](WindowJoinPlanner.batch(join(Nil, "WINDOW(A,B) = 5"), conf(Some("0"))))
    assert(e.getMessage.contains("spark.wjoin.timeBands must be an integer >= 1"), e.getMessage)
    val notInt = intercept[IllegalArgumentException](WindowJoinPlanner.batch(join(Nil, "WINDOW(A,B) = 5"),
      conf(Some("many"))))
    assert(notInt.getMessage.contains(WJoinConf.TimeBandsKey), notInt.getMessage)
  }

  test("small inputs: one task (no bands) when Spark's size estimates sum to at most spark.wjoin.smallInputBytes") {
    val inputs = Seq(rowsInput(100, 10), rowsInput(100, 10))
    val bytes = inputs.map(_.stats.sizeInBytes).sum
    assert(bytes > 0)
    for (on <- Seq(Seq("k"), Nil)) {
      val w = joinOf(inputs, on, "WINDOW(A,B) = 5")
      val small = WindowJoinPlanner.batch(w, conf(Some("4"), small = bytes.toString))
      assert(small.singleTask && small.timeBands == 1 && small.inputSize.contains(InputSize(bytes, bytes.toLong)))
      assert(small.inputSize.get.computed.isEmpty, "local rows are in memory")
      val over = WindowJoinPlanner.batch(w, conf(Some("4"), small = (bytes - 1).toString))
      assert(!over.singleTask && over.inputSize.exists(!_.small))
      assert(over.timeBands == (if (on.isEmpty) 4 else 1))
      val off = WindowJoinPlanner.batch(w, conf(Some("4")))
      assert(!off.singleTask && off.inputSize.isEmpty)
    }
    assert(InputSize(BigInt(1288490), 10L << 20).describe == "inputs 1258.3 KiB <= spark.wjoin.smallInputBytes 10.0 MiB")
    assert(InputSize(BigInt(11L << 20), 10L << 20).describe == "inputs 11.0 MiB > spark.wjoin.smallInputBytes 10.0 MiB")
    val unknown = InputSize(BigInt(Long.MaxValue), Long.MaxValue, unknown = true)
    assert(!unknown.small && unknown.describe.startsWith("input size unknown to Spark > spark.wjoin.smallInputBytes"))
  }

  test("broadcast: all but the largest input when they fit spark.wjoin.broadcastBytes (default Spark's threshold)") {
    val inputs = Seq(rowsInput(100, 10), rowsInput(300, 10), rowsInput(100, 10))
    val sizes = inputs.map(_.stats.sizeInBytes)
    for (on <- Seq(Seq("k"), Nil)) {
      val w = joinOf(inputs, on, "WINDOW = 5")
      // Each broadcast input against the threshold, not their sum: Spark's rule for each build side.
      val each = sizes(0).max(sizes(2))
      assert(each < sizes(0) + sizes(2))
      val fits = WindowJoinPlanner.batch(w, conf(Some("4"), broadcast = each.toString))
      assert(fits.broadcast.map(_.streamed).contains(1) && fits.timeBands == 1 && !fits.singleTask)
      assert(fits.broadcast.get.bytes == sizes(0) + sizes(2))
      assert(fits.access.recheck.isEmpty, "no partition sees a slice of every input")
      assert(fits.broadcast.get.describe(Seq("A", "B", "C")).startsWith(
        s"broadcast A, C (${WJoinConf.bytesText(sizes(0) + sizes(2))} in all, each <= spark.wjoin.broadcastBytes "))
      assert(WindowJoinPlanner.batch(w, conf(Some("4"), broadcast = (each - 1).toString)).broadcast.isEmpty)
      assert(WindowJoinPlanner.batch(w, conf(Some("4"))).broadcast.isEmpty, "-1: off")
      val spark = conf(Some("4"), broadcast = "0")
      spark.unsetConf(WJoinConf.BroadcastBytesKey)
      assert(WindowJoinPlanner.batch(w, spark).broadcast.isDefined, "unset: Spark's 10 MB threshold")
      spark.setConfString(SQLConf.AUTO_BROADCASTJOIN_THRESHOLD.key, "-1")
      assert(WindowJoinPlanner.batch(w, spark).broadcast.isEmpty, "Spark's threshold -1: off")
      // Small inputs run in one task first.
      assert(WindowJoinPlanner.batch(w, conf(Some("4"), small = "10MB", broadcast = "10MB")).singleTask)
    }
    assert(WindowJoinPlanner.batch(joinOf(inputs, Seq("k"), "WINDOW = 5 AND ROWS(A) = 3"),
      conf(None, broadcast = "10MB")).broadcast.isEmpty, "ROWS windows count over every partition")
  }

  test("small inputs not in memory: broadcast rather than one task (which would compute them on one core)") {
    val local = Seq(rowsInput(100, 10), rowsInput(300, 10), rowsInput(100, 10))
    assert(local.forall(InputSize.inMemory) && InputSize.inMemory(Filter(Literal(true), Project(local(0).output, local(0)))))
    val computed = local.map(Repartition(2, shuffle = true, _))
    assert(!computed.exists(InputSize.inMemory))
    val both = conf(Some("4"), small = "10MB", broadcast = "10MB")
    for (on <- Seq(Seq("k"), Nil)) {
      assert(WindowJoinPlanner.batch(joinOf(local, on, "WINDOW = 5"), both).singleTask, "in memory: one task first")
      val w = joinOf(Seq(local(0), local(1), computed(2)), on, "WINDOW = 5")
      val c = WindowJoinPlanner.batch(w, both)
      assert(c.broadcast.map(_.streamed).contains(1) && !c.singleTask && c.inputSize.isEmpty, c)
      val text = c.broadcast.get.describe(Seq("A", "B", "C"))
      assert(text.contains("without a shuffle; not one task: C computed, not in memory (inputs ") &&
        text.endsWith("<= spark.wjoin.smallInputBytes 10.0 MiB)"), text)
      assert(WindowJoinPlanner.batch(w, conf(Some("4"), small = "10MB")).singleTask, "no broadcast plan: one task")
      assert(WindowJoinPlanner.batch(w, conf(Some("4"), small = "1", broadcast = "10MB")).broadcast.get.overOneTask.isEmpty,
        "too large for one task: nothing to say")
    }
  }

  test("broadcast with a key: a broadcast input the planner scans is hashed, the streamed one keeps its path") {
    val inputs = Seq(rowsInput(100, 10), rowsInput(300, 10), rowsInput(100, 10))
    val w = joinOf(inputs, Seq("k"), "WINDOW = 5")
    val access = WindowJoinPlanner.choose(w).access
    val plan = BroadcastPlan.of(w, access.copy(paths = Seq.fill(3)(AccessPath.Hash)), conf(None, broadcast = "10MB")).get
    assert(plan.streamed == 1)
    def pathsOf(p: Seq[AccessPath]) = BroadcastPlan.accessOf(access.copy(paths = p), plan, Nil).paths
    assert(pathsOf(Seq(AccessPath.Hash, AccessPath.Hash, AccessPath.Scan)) == Seq.fill(3)(AccessPath.Hash))
    assert(pathsOf(Seq(AccessPath.Scan, AccessPath.Scan, AccessPath.Hash)) ==
      Seq(AccessPath.Hash, AccessPath.Scan, AccessPath.Hash), "B streams: its path stays")
    assert(pathsOf(Seq.fill(3)(AccessPath.Scan)) == Seq.fill(3)(AccessPath.Scan), "nothing hashed: no key to hash on")
    assert(BroadcastPlan.accessOf(access.copy(paths = Seq(AccessPath.Hash, AccessPath.Hash, AccessPath.Scan)), plan,
      Seq(None, None, Some(AccessPath.Scan))).paths(2) == AccessPath.Scan, "a requested scan stays")
    // The planner's broadcast choice: a requested scan is kept.
    val chosen = WindowJoinPlanner.batch(w.copy(access =
      w.access.copy(request = AccessRequest(Seq(Some(AccessPath.Hash), Some(AccessPath.Hash), Some(AccessPath.Scan))))),
      conf(None, broadcast = "10MB"))
    assert(chosen.broadcast.isDefined && chosen.access.paths(2) == AccessPath.Scan, chosen.access.paths)
  }

  test("small inputs under resource limits: budgets for one partition, not for the hash partitions") {
    val w = joinOf(Seq(rowsInput(300, 50), rowsInput(300, 50), rowsInput(300, 50)), Seq("k"), "WINDOW = 5")
      .copy(limits = Some(ResourceLimits(Some(40L), Some(20.0), Allocation.Auto, 0L)))
    val small = WindowJoinPlanner.batch(w, conf(None, small = "10MB"))
    val onePartition = conf(None)
    onePartition.setConfString(SQLConf.SHUFFLE_PARTITIONS.key, "1")
    val shuffledInOne = WindowJoinPlanner.batch(w, onePartition)
    val shuffled = WindowJoinPlanner.batch(w, conf(None))
    assert(small.singleTask && small.shed.isDefined)
    assert(small.shed == shuffledInOne.shed, "one task = one partition of the whole input")
    assert(small.shed != shuffled.shed, "7 hash partitions see a seventh of the rates each")
  }

  test("spark.wjoin.smallInputBytes rejects values below -1 and non-sizes, naming the key") {
    for (bad <- Seq("-2", "lots")) {
      val e = intercept[IllegalArgumentException](WindowJoinPlanner.batch(join(Seq("k"), "WINDOW(A,B) = 5"),
        conf(None, small = bad)))
      assert(e.getMessage.contains(WJoinConf.SmallInputBytesKey), e.getMessage)
    }
  }

  test("streams: state partitions follow the checkpoint only when hash-partitioned") {
    val keyed = join(Seq("k"), "WINDOW(A,B) = 5")
    assert(WindowJoinPlanner.statePartitions(keyed, WindowJoinPlanner.choose(keyed), 9) == 9)
    val unkeyed = join(Nil, "WINDOW(A,B) = 5")
    assert(WindowJoinPlanner.statePartitions(unkeyed, WindowJoinPlanner.choose(unkeyed), 9) == 1)
  }

  test("streaming re-planning is stable: same paths keep the last probe orders; other paths need a clear gain") {
    val w = join(Seq("k"), "WINDOW = 5", n = 3)
    val fresh = WindowJoinPlanner.choose(w)
    assert(WindowJoinPlanner.chooseStreaming(w, Nil, None) == fresh, "the first batch: the fresh plan")
    // The same paths with other (valid) orders and tau: kept as they were.
    val reordered = fresh.access.copy(orders = fresh.access.orders.map(_.reverse), tau = fresh.access.tau + 1)
    val same = WindowJoinPlanner.chooseStreaming(w, Nil, Some(reordered))
    assert(same.access.paths == fresh.access.paths)
    assert(same.access.orders == reordered.orders && same.access.tau == reordered.tau)
    // The other path on every input (hash <-> scan): a switch only if it saves at least 1 - ReplanGain.
    val flipped = fresh.access.paths.map(p => if (p == AccessPath.Hash) AccessPath.Scan else AccessPath.Hash)
    val other = fresh.access.copy(paths = flipped)
    val forced = WindowJoinPlanner.choose(join(Seq("k"), "WINDOW = 5", n = 3,
      access = AccessOptions(Seq("A", "B", "C").zip(flipped).map { case (nm, p) => s"$nm:${p.name}" }.mkString(", "))))
    assert(forced.access.paths == flipped)
    val next = WindowJoinPlanner.chooseStreaming(w, Nil, Some(other))
    val gain = fresh.access.decision.cost < WindowJoinPlanner.ReplanGain * forced.access.decision.cost
    assert(next.access.paths == (if (gain) fresh.access.paths else flipped), s"gain=$gain")
    // Kept paths come with the residual they need (a scanned input tests the key equality).
    if (!gain) assert(next.residual.map(_.sql) == forced.residual.map(_.sql) && next.access.orders == other.orders)
  }
}
