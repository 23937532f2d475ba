package wjoin.core

import org.scalacheck.Gen
import org.scalatest.funsuite.AnyFunSuite
import org.scalatestplus.scalacheck.ScalaCheckPropertyChecks

import wjoin.core.cost.AccessPath
import wjoin.core.cost.AccessPath._

/**
 * Access paths, engine part: every combination of per-input access paths (scan, hash, T-tree,
 * B+tree), every algorithm, band and inequality predicates between inputs (on one or two
 * attributes per input), lazy expiration and given probe orders agree with the brute-force
 * reference.
 */
class AccessPathEngineSuite extends AnyFunSuite with ScalaCheckPropertyChecks {
  import EngineFixtures._

  /**
   * lo <= a.attr - b.attr' <= hi (Long.MinValue / Long.MaxValue: unbounded side), the shape
   * of every band the Spark side recognises; attributes 0 = x, 1 = y.
   */
  final case class Band(a: Int, aAttr: Int, b: Int, bAttr: Int, lo: Long, hi: Long) {
    private def v(r: TRow, attr: Int) = if (attr == 0) r.x else r.y
    def holds(t: Seq[TRow]): Boolean = {
      val diff = BigInt(v(t(a), aAttr)) - BigInt(v(t(b), bAttr)) // exact, no wrap-around
      (lo == Long.MinValue || diff >= lo) && (hi == Long.MaxValue || diff <= hi)
    }
    /** Target a given b: [x_b + lo, x_b + hi]; target b given a: [x_a - hi, x_a - lo]. */
    def bindings: Seq[RangeBinding] = Seq(
      RangeBinding(a, aAttr, b, bAttr, lo, hi),
      RangeBinding(b, bAttr, a, aAttr, if (hi == Long.MaxValue) Long.MinValue else -hi,
        if (lo == Long.MinValue) Long.MaxValue else -lo))
  }

  private def bandRows(n: Int, perInput: Int, maxTime: Int, keys: Int, domain: Int, seed: Long): Seq[TRow] = {
    val rnd = new scala.util.Random(seed)
    rows(n, perInput, maxTime, keys, seed).map(r => r.copy(x = rnd.nextInt(domain).toLong, y = rnd.nextInt(domain).toLong))
  }

  private def pathChoices(n: Int, keyed: Boolean, bands: Seq[Band]): Seq[Seq[AccessPath]] = {
    val allowed = (0 until n).map { j =>
      Seq(Scan) ++ (if (keyed) Seq(Hash) else Nil) ++
        (if (bands.exists(b => b.a == j || b.b == j)) Seq(TTree, BPlusTree) else Nil)
    }
    allowed.foldLeft(Seq(Seq.empty[AccessPath]))((acc, ps) => for (a <- acc; p <- ps) yield a :+ p)
  }

  /** Runs every algorithm x every path combination (or `sample` random ones) against the reference. */
  private def checkPaths(n: Int, rs: Seq[TRow], terms: Seq[WindowTerm], keyed: Boolean, bands: Seq[Band],
      sample: Option[Int] = None, tau: Long = 0L, seed: Long = 1L): Int = {
    val matrix = WindowMatrix.close(terms, names(n))
    val extra = (t: Seq[TRow]) => bands.forall(_.holds(t))
    val rowLimits = StreamRows.limits(terms, n)
    val expected = ReferenceWJoin.join(n, rs, matrix, keyed, extra, rowLimits.toSeq)
    val bindings = bands.flatMap(_.bindings)
    val all = pathChoices(n, keyed, bands)
    val combos = sample.fold(all)(k => new scala.util.Random(seed).shuffle(all).take(k))
    var runs = 0
    for (paths <- combos; algo <- Seq(Algorithm.NLW, Algorithm.HW, Algorithm.MW)) {
      val ok = algo match {
        case Algorithm.NLW => !keyed && paths.forall(_ == Scan)
        case Algorithm.HW => keyed
        case Algorithm.MW => true
      }
      if (ok) {
        val plan = new EnginePlan(matrix, algo, hashed = keyed && algo != Algorithm.NLW, paths, bindings,
          expirationInterval = tau, nodeSize = 3, rowLimits = rowLimits)
        val (got, stats) = EngineRunner.run(n, rs, plan, keyed, extra)
        assert(got == expected, s"$algo with paths ${paths.mkString(",")} differs from the reference " +
          s"(terms ${terms.map(_.text)}, bands $bands, tau $tau)")
        assert(stats.results == expected.size)
        runs += 1
      }
    }
    runs
  }

  test("count-based ROWS windows over tree, hash and scan windows, with lazy expiration") {
    val band = Band(0, 0, 1, 0, -3, 3)
    for (seed <- 1L to 6L; tau <- Seq(0L, 4L)) {
      val rs = bandRows(3, 9, 30, 2, 12, seed)
      val terms = WindowTermParser.parse("ROWS(A) = 3 AND ROWS(B) = 2 AND WINDOW(A,C) = 8 AND WINDOW(B,C) = 8",
        names(3), integralTime = true)
      assert(checkPaths(3, rs, terms, keyed = seed % 2 == 0, Seq(band), tau = tau) > 0)
    }
  }

  test("two inputs: every access-path pair, every algorithm, every band shape") {
    val shapes = Seq(
      "abs(A.x - B.x) <= 2" -> Band(0, 0, 1, 0, -2, 2),
      "A.x < B.x" -> Band(0, 0, 1, 0, Long.MinValue, -1),
      "A.x >= B.x" -> Band(0, 0, 1, 0, 0, Long.MaxValue),
      "A.x BETWEEN B.x - 1 AND B.x + 3" -> Band(0, 0, 1, 0, -1, 3),
      "A.x = B.x (a zero-width band)" -> Band(0, 0, 1, 0, 0, 0))
    for ((text, band) <- shapes; keyed <- Seq(false, true); seed <- 1 to 3) {
      val rs = bandRows(2, 25, 30, if (keyed) 2 else 1, 8, seed * 7L)
      val runs = checkPaths(2, rs, Seq(UniformWindow(6, "WINDOW = 6")), keyed, Seq(band))
      assert(runs >= (if (keyed) 2 * 3 * 3 else 1 + 3 * 3), s"$text: only $runs plans ran")
    }
  }

  test("three and four inputs: bands on different attributes per pair, all window shapes") {
    for (n <- Seq(3, 4); (shape, terms) <- shapes(n); keyed <- Seq(false, true)) {
      // A.x ~ B.x, B.y < C.x (the join graph is a path), and for n = 4, D.y within C.y +- 2
      val bands = Seq(Band(0, 0, 1, 0, -3, 3), Band(1, 1, 2, 0, Long.MinValue, -1)) ++
        (if (n == 4) Seq(Band(3, 1, 2, 1, -2, 2)) else Nil)
      val rs = bandRows(n, if (n == 3) 11 else 7, 25, if (keyed) 2 else 1, 10, n * 13L + shape.length)
      val runs = checkPaths(n, rs, terms, keyed, bands, sample = if (n == 4) Some(12) else None, seed = shape.length)
      assert(runs > 0, shape)
    }
  }

  test("lazy expiration (tau) changes buffered rows, never results") {
    val n = 3
    val bands = Seq(Band(0, 0, 1, 0, -2, 2), Band(2, 0, 1, 0, Long.MinValue, 0))
    val rs = bandRows(n, 60, 200, 2, 12, 5)
    for (tau <- Seq(0L, 1L, 5L, 40L)) checkPaths(n, rs, Seq(UniformWindow(7, "WINDOW = 7")), keyed = true, bands,
      sample = Some(6), tau = tau, seed = tau)
    val matrix = WindowMatrix.uniform(n, 7)
    def peak(tau: Long) = EngineRunner.run(n, rs, new EnginePlan(matrix, Algorithm.HW, true, Seq(Hash, TTree, Scan),
      bands.flatMap(_.bindings), expirationInterval = tau), sameKey = true, t => bands.forall(_.holds(t)))._2.peakBuffered
    assert(peak(40) > peak(0), "a 40-unit expiration interval should hold more rows than eager expiration")
  }

  test("given probe orders are made valid: an indexed input waits for a source of its range") {
    val n = 4
    // C is searched by range from B only; D from A only.
    val bindings = Seq(RangeBinding(2, 0, 1, 0, -1, 1), RangeBinding(3, 0, 0, 0, -1, 1))
    val plan = new EnginePlan(WindowMatrix.uniform(n, 5), Algorithm.MW, hashed = false,
      Seq(Scan, Scan, TTree, BPlusTree), bindings, orders = Seq(Seq(3, 2, 1), Seq(3, 2, 0), Seq(3, 1, 0), Seq(2, 1, 0)))
    assert(plan.probeOrder(0).toSeq == Seq(3, 1, 2)) // D bound by the origin A; C after B
    assert(plan.probeOrder(1).toSeq == Seq(2, 0, 3)) // C bound by the origin B; D after A
    assert(plan.probeOrder(2).toSeq == Seq(1, 0, 3)) // D after A: B, A kept in the given order
    assert(plan.probeOrder(3).toSeq == Seq(1, 2, 0)) // C waits for B
    val sources = (j: Int) => plan.bindingsOf(j).map(_.source).toSeq
    for (o <- 0 until n) assert(EnginePlan.isValidOrder(o, plan.probeOrder(o).toSeq, sources))
    // and the result is still the reference's
    val rs = bandRows(n, 8, 20, 1, 5, 3)
    val bands = Seq(Band(2, 0, 1, 0, -1, 1), Band(3, 0, 0, 0, -1, 1))
    val expected = ReferenceWJoin.join(n, rs, plan.matrix, sameKey = false, t => bands.forall(_.holds(t)))
    assert(EngineRunner.run(n, rs, plan, sameKey = false, t => bands.forall(_.holds(t)))._1 == expected)
  }

  test("impossible plans are refused with a message naming the input") {
    val m = WindowMatrix.uniform(2, 5)
    val tree = intercept[AssertionError](new EnginePlan(m, Algorithm.MW, hashed = false, Seq(Scan, TTree)))
    assert(tree.getMessage.contains("input 1 has access path ttree but no band or inequality predicate"))
    val hash = intercept[AssertionError](new EnginePlan(m, Algorithm.MW, hashed = false, Seq(Hash, Scan)))
    assert(hash.getMessage.contains("hash access path needs the equality key"))
    val nlw = intercept[AssertionError](new EnginePlan(m, Algorithm.NLW, hashed = false, Seq(Scan, TTree),
      Seq(RangeBinding(1, 0, 0, 0, 0, 0))))
    assert(nlw.getMessage.contains("NLW-join scans every window"))
    assert(intercept[AssertionError](RangeBinding(0, 0, 1, 0, 3, 2)).getMessage.contains("empty"))
  }

  test("range offsets saturate instead of overflowing") {
    val b = RangeBinding(0, 0, 1, 0, -5, 5)
    assert(b.high(Long.MaxValue - 2) == Long.MaxValue && b.low(Long.MinValue + 1) == Long.MinValue)
    assert(b.low(10) == 5 && b.high(10) == 15)
    val rs = Seq(TRow(0, 0, 0, 1, x = Long.MaxValue), TRow(1, 1, 0, 2, x = Long.MaxValue - 3),
      TRow(1, 1, 0, 3, x = Long.MinValue))
    val band = Band(0, 0, 1, 0, -5, 5)
    for (p <- Seq(TTree, BPlusTree)) {
      val plan = new EnginePlan(WindowMatrix.uniform(2, 5), Algorithm.MW, hashed = false, Seq(p, p), band.bindings)
      assert(EngineRunner.run(2, rs, plan, sameKey = false, band.holds)._1 == Seq(Seq(1, 2)))
    }
  }

  test("property: random bands, paths, keys and windows agree with the reference") {
    val bandGen: Int => Gen[Band] = n => for {
      a <- Gen.choose(0, n - 1); b <- Gen.choose(0, n - 1) suchThat (_ != a)
      aAttr <- Gen.choose(0, 1); bAttr <- Gen.choose(0, 1); kind <- Gen.choose(0, 3); d <- Gen.choose(0, 4)
    } yield kind match {
      case 0 => Band(a, aAttr, b, bAttr, -d, d)
      case 1 => Band(a, aAttr, b, bAttr, Long.MinValue, -d)
      case 2 => Band(a, aAttr, b, bAttr, d - 2, Long.MaxValue)
      case _ => Band(a, aAttr, b, bAttr, -d, d + 2)
    }
    val gen = for {
      n <- Gen.choose(2, 4); bands <- Gen.choose(1, 3).flatMap(k => Gen.listOfN(k, bandGen(n)))
      keys <- Gen.choose(1, 3); w <- Gen.choose(0, 9); perInput <- Gen.choose(0, 10); seed <- Gen.choose(0L, 100000L)
    } yield (n, bands, keys, w, perInput, seed)
    forAll(gen, minSuccessful(60)) { case (n, bands, keys, w, perInput, seed) =>
      val rs = bandRows(n, perInput, 30, keys, 8, seed)
      checkPaths(n, rs, Seq(UniformWindow(w, s"WINDOW = $w")), keyed = keys > 1, bands, sample = Some(4), seed = seed)
    }
  }

  test("streaming micro-batches: indexed and mixed windows rebuilt from the state equal the batch W-join") {
    val n = 3
    val bands = Seq(Band(0, 0, 1, 0, -2, 2), Band(2, 0, 1, 1, Long.MinValue, 1))
    val matrix = WindowMatrix.uniform(n, 6)
    val extra = (t: Seq[TRow]) => bands.forall(_.holds(t))
    for (seed <- 1 to 3; keyed <- Seq(false, true); paths <- Seq(Seq(TTree, BPlusTree, TTree),
        Seq(if (keyed) Hash else Scan, TTree, BPlusTree), Seq(BPlusTree, Scan, Scan)); algo <- Seq(Algorithm.HW, Algorithm.MW)
        if keyed || algo == Algorithm.MW) {
      val rs = bandRows(n, 30, 60, if (keyed) 2 else 1, 8, seed)
      val rnd = new scala.util.Random(seed)
      val batches = rs.groupBy(r => r.time / 8 + rnd.nextInt(2)).toSeq.sortBy(_._1).map(_._2)
      val plan = new EnginePlan(matrix, algo, keyed, paths, bands.flatMap(_.bindings), nodeSize = 2)
      var state = Vector.empty[TRow]
      val out = Seq.newBuilder[Seq[Int]]
      val accepted = Seq.newBuilder[TRow]
      var maxSeen = Long.MinValue
      var lateBound = Long.MinValue
      val delay = 5L
      val flush = rs.map(_.time).max + plan.horizon.max + 1
      val evictedRows = scala.collection.mutable.ArrayBuffer.empty[TRow]
      def engineRow(r: TRow) = EngineRow(r.input, r.time, if (keyed) Integer.valueOf(r.key) else null, r)
      var step: MicroBatchWJoin = null
      for ((batch, b) <- (batches :+ Nil).zipWithIndex) {
        val w = if (b == batches.size) flush else if (maxSeen == Long.MinValue) Long.MinValue else maxSeen - delay
        val kept = batch.filter(_.time > lateBound)
        accepted ++= kept
        // Kept across batches, rebuilt from the state rows every third batch (as after a restart).
        if (step == null || b % 3 == 2) {
          step = new MicroBatchWJoin(plan, EngineRunner.filter(n, plan, keyed, extra), TRow.ranges,
            listener = new EngineListener {
              override def evicted(i: Int, t: Long, r: AnyRef): Unit = evictedRows += r.asInstanceOf[TRow]
            })
          step.restore(state.map(engineRow))
        }
        evictedRows.clear()
        step.results(w, kept.sortBy(_.time).map(engineRow).iterator)
          .foreach(t => out += t.toSeq.map(_.asInstanceOf[TRow].id))
        state = (state ++ kept).filterNot(r => evictedRows.exists(_ eq r))
        lateBound = w
        if (batch.nonEmpty) maxSeen = math.max(maxSeen, batch.map(_.time).max)
      }
      assert(state.isEmpty, "the final watermark must empty the state")
      val expected = ReferenceWJoin.join(n, accepted.result(), matrix, keyed, extra)
      assert(out.result().sortBy(_.mkString(",")) == expected, s"$algo ${paths.mkString(",")} keyed=$keyed seed=$seed")
    }
  }

}
