package wjoin.core.cost

import org.scalatest.funsuite.AnyFunSuite

import wjoin.core.cost.AccessPath._
import wjoin.core.{EnginePlan, RangeBinding}
import wjoin.errors.WJoinAnalysisException

/** The per-input access-path choice, probe orders and tau, without Spark. */
class AccessPlannerSuite extends AnyFunSuite {
  private val names2 = Seq("A", "B")
  private val band = Seq(RangeBinding(0, 0, 1, 0, -3, 3), RangeBinding(1, 0, 0, 0, -3, 3))

  private def stats(rows: Double, span: Double, distinct: Double = 1, domain: Double = 1e5) =
    InputStats(rows, span, distinct, Map(0 -> domain), "data")

  test("parse: forced paths by name (any case), modes, and errors naming the culprit") {
    val r = AccessRequest.parse("a:hash, B=T-tree", Seq("A", "B", "C"))
    assert(r.forced == Seq(Some(Hash), Some(TTree), None))
    assert(AccessRequest.parse("cost, C:nlj", Seq("A", "B", "C")) == AccessRequest(Seq(None, None, Some(Scan))))
    assert(AccessRequest.parse("auto", names2) == AccessRequest.none(2))
    assert(AccessRequest.parse(null, names2) == AccessRequest.none(2))
    def err(text: String) = intercept[WJoinAnalysisException](AccessRequest.parse(text, names2)).getMessage
    assert(err("Z:scan").contains("access_paths: unknown input(s) Z; the inputs are A, B"))
    assert(err("A:quadtree").contains("unknown access path 'quadtree' for input A"))
    assert(err("A:scan, a:hash").contains("input A has two access paths"))
    assert(err("fast").contains("is not input:path"))
  }

  test("key and band: the keyed tree wins under any assumed distinct count, forced paths still apply, EXPLAIN names it") {
    val names3 = Seq("A", "B", "C")
    val chain = Seq(RangeBinding(0, 0, 1, 0, -1, 1), RangeBinding(1, 0, 0, 0, -1, 1),
      RangeBinding(1, 0, 2, 0, -1, 1), RangeBinding(2, 0, 1, 0, -1, 1))
    for (distinct <- Seq(1.0, 3.0, 1000.0, 1e6)) {
      val d = AccessPlanner.plan(names3, Seq(100L, 100L, 100L), keyed = true, chain,
        Seq.fill(3)(InputStats(20000, 1000, distinct, Map(0 -> 1e5), "assumed")), AccessRequest.none(3), scanOnly = false, None)
      assert(d.paths.forall(p => p == HashTTree || p == HashBPlusTree), s"$distinct keys: ${d.paths}")
      assert(d.describe(names3).contains("=hash+"), d.describe(names3))
      assert(d.describe(names3).contains("hash buckets=[A ~"), d.describe(names3))
    }
    val forced = AccessPlanner.plan(names3, Seq(100L, 100L, 100L), keyed = true, chain,
      Seq.fill(3)(InputStats(20000, 1000, 1000, Map(0 -> 1e5))), AccessRequest.parse("A:hash, C:hash+ttree", names3),
      scanOnly = false, None)
    assert(forced.paths(0) == Hash && forced.paths(2) == HashTTree && forced.paths(1) != Hash)
    assert(AccessRequest.parse("A:hash+btree, B:HASH+BPLUSTREE, C:hash+t-tree", names3).forced ==
      Seq(Some(HashBPlusTree), Some(HashBPlusTree), Some(HashTTree)))
    def err(req: String, keyed: Boolean, bs: Seq[RangeBinding]) = intercept[WJoinAnalysisException](
      AccessPlanner.allowed(1, keyed, bs, AccessRequest.parse(req, names2), scanOnly = false, names2)).getMessage
    assert(err("B:hash+bplustree", keyed = false, band).contains("input B cannot use a hash access path"))
    assert(err("B:hash+ttree", keyed = true, Nil).contains("input B cannot use a hash+ttree access path"))
  }

  test("the keyed range cost: a hash lookup plus the tree's search and matches in one key's bucket") {
    val w = WeightFactors.default
    val shape = WindowShape(20000, 20000 / 1000.0, 100, matchesPerProbe = 2000, keys = 1000)
    val bucket = WindowShape(20, 20, KeyedNodeSize, 2)
    assert(UnitTimeCost.probeCost(HashBPlusTree, shape, w) ==
      w.hashProbe + (UnitTimeCost.bplusSearch(bucket) + 2) * w.bplusProbe)
    assert(UnitTimeCost.maintenanceCost(HashTTree, shape, w) ==
      2 * w.hashUpdate + 2 * UnitTimeCost.ttreeSearch(bucket) * w.ttreeUpdate)
    // One key: the keyed tree costs its plain tree plus the hash lookup, at most; hash scans the window.
    val one = WindowShape(20000, 20000, 100, matchesPerProbe = 2, keys = 1)
    assert(UnitTimeCost.probeCost(HashBPlusTree, one, w) <= UnitTimeCost.probeCost(BPlusTree, one, w) + w.hashProbe)
    assert(UnitTimeCost.probeCost(Hash, one, w) > 100 * UnitTimeCost.probeCost(HashBPlusTree, one, w))
  }

  test("allowed paths: hash needs the key, trees a binding, nlw scans; forced paths alone") {
    val none = AccessRequest.none(2)
    assert(AccessPlanner.allowed(0, keyed = false, band, none, scanOnly = false, names2) == Seq(Scan, TTree, BPlusTree))
    // key and band: only the keyed trees, whatever the statistics (a wrong distinct count cannot make it quadratic)
    assert(AccessPlanner.allowed(0, keyed = true, band, none, scanOnly = false, names2) == Seq(HashTTree, HashBPlusTree))
    assert(AccessPlanner.allowed(0, keyed = false, Nil, none, scanOnly = false, names2) == Seq(Scan))
    assert(AccessPlanner.allowed(0, keyed = true, Nil, none, scanOnly = false, names2) == Seq(Hash, Scan))
    assert(AccessPlanner.allowed(1, keyed = true, band, none, scanOnly = true, names2) == Seq(Scan))
    val forced = AccessRequest(Seq(None, Some(BPlusTree)))
    assert(AccessPlanner.allowed(1, keyed = false, band, forced, scanOnly = false, names2) == Seq(BPlusTree))
    def err(req: AccessRequest, keyed: Boolean, bs: Seq[RangeBinding], scanOnly: Boolean = false) =
      intercept[WJoinAnalysisException](AccessPlanner.allowed(1, keyed, bs, req, scanOnly, names2)).getMessage
    assert(err(AccessRequest(Seq(None, Some(Hash))), keyed = false, band).contains("input B cannot use a hash access path"))
    assert(err(forced, keyed = true, Nil).contains("input B cannot use a bplustree access path: no band"))
    assert(err(forced, keyed = false, band, scanOnly = true).contains("algorithm nlw scans every window"))
  }

  test("a band over a wide window gets trees, a narrow window scans; the runner-up swaps one input") {
    def choose(window: Long) = AccessPlanner.plan(names2, Seq(window, window), keyed = false, band,
      Seq(stats(3000, 3000), stats(3000, 3000)), AccessRequest.none(2), scanOnly = false, Some(0L))
    val wide = choose(1000)
    assert(wide.paths.forall(p => p == TTree || p == BPlusTree), wide)
    val narrow = choose(1)
    assert(narrow.paths == Seq(Scan, Scan), narrow)
    for (d <- Seq(wide, narrow)) {
      val (ps, c) = d.runnerUp.get
      assert(ps.zip(d.paths).count { case (x, y) => x != y } == 1 && c >= d.cost)
    }
    assert(wide.describe(names2).matches("cost=\\S+ \\[A=\\w+, B=\\w+\\], runner-up=\\S+ \\[.*\\] \\(unit-time cost, Kang et al.; stats: data\\)"))
  }

  test("scan competes with hash: a window of a few rows scans, a large one hashes; forced paths win") {
    def plan(window: Long, rows: Double, distinct: Double) = AccessPlanner.plan(names2, Seq(window, window), keyed = true, Nil,
      Seq(stats(rows, 1000, distinct), stats(rows, 1000, distinct)), AccessRequest.none(2), false, Some(0L))
    assert(plan(1, 100, 2).paths == Seq(Scan, Scan)) // 0.1 rows per window: a scan is cheaper than a hash lookup
    assert(plan(1000, 100000, 500).paths == Seq(Hash, Hash))
    val forced = AccessPlanner.plan(names2, Seq(1000L, 1000L), keyed = true, band, Seq(stats(3000, 3000, 300), stats(3000, 3000, 300)),
      AccessRequest(Seq(Some(Scan), Some(TTree))), false, Some(0L))
    assert(forced.paths == Seq(Scan, TTree) && forced.runnerUp.isEmpty)
  }

  test("hash buckets: the expected keys a window holds, more for larger windows, shown in EXPLAIN") {
    def keys(window: Long, rows: Double, distinct: Double) = AccessPlanner.plan(names2, Seq(window, window), keyed = true, Nil,
      Seq(stats(rows, 10000, distinct), stats(rows, 10000, distinct)), AccessRequest.none(2), false, Some(0L))
    val big = keys(1000, 50000, 500) // 5000 rows of 500 keys: nearly all keys present
    assert(big.paths == Seq(Hash, Hash) && math.abs(big.windowKeys(0) - 500 * (1 - math.pow(1 - 1.0 / 500, 5000))) < 1e-6)
    val small = keys(20, 50000, 500) // 100 rows of 500 keys: about 91 distinct
    assert(small.windowKeys(0) > 85 && small.windowKeys(0) < 95, small.windowKeys)
    assert(big.describe(names2).contains(f"hash buckets=[A ~${big.windowKeys(0)}%.0f, B ~${big.windowKeys(1)}%.0f]"), big.describe(names2))
    val forced = AccessPlanner.plan(names2, Seq(1000L, 1000L), keyed = true, band, Seq(stats(3000, 3000, 300), stats(3000, 3000, 300)),
      AccessRequest(Seq(Some(Scan), Some(TTree))), false, Some(0L))
    assert(!forced.describe(names2).contains("hash buckets"))
  }

  test("forward evaluation: a slow row's window spans many fast rows, so the fast input is not scanned") {
    // Kang et al.'s band workload at p = 0.95: RANGE(A) = 5000 / 0.95, RANGE(B) = 5000 / 0.05, one row
    // per time unit in total; the MW-join sweeps a B row over the A rows of B's whole window.
    val (ta, tb) = (5264L, 100000L)
    val upper = Seq(Seq(0L, tb), Seq(ta, 0L)) // upper(j)(o): how far j may follow o
    val st = Seq(stats(95000, 100000, domain = 25000), stats(5000, 100000, domain = 25000))
    val bandOf2 = Seq(RangeBinding(0, 0, 1, 0, -2, 2), RangeBinding(1, 0, 0, 0, -2, 2))
    def plan(forward: Boolean, forced: Option[Seq[AccessPath]] = None) = AccessPlanner.plan(names2, Seq(ta, tb), keyed = false,
      bandOf2, st, forced.fold(AccessRequest.none(2))(f => AccessRequest(f.map(Some(_)))), false, Some(0L),
      forwardUpper = if (forward) Some(upper) else None)
    val scanFast = Seq(Scan, TTree)
    // Backward, A's probes come from B's rare rows over A's own 5000 rows; forward, over 95,000.
    assert(plan(forward = true, Some(scanFast)).cost > 10 * plan(forward = false, Some(scanFast)).cost)
    val chosen = plan(forward = true)
    assert(chosen.paths(0) != Scan, chosen)
    assert(chosen.tau == 0)
  }

  test("orders are valid through the join graph: a tree after the source of its range") {
    val names = Seq("A", "B", "C", "D")
    // C is searched from B, D from C: a path A - B - C - D of bands
    val bs = Seq(RangeBinding(2, 0, 1, 0, -1, 1), RangeBinding(3, 0, 2, 0, -1, 1))
    val d = AccessPlanner.plan(names, Seq.fill(4)(500L), keyed = false, bs, Seq.fill(4)(stats(5000, 1000)),
      AccessRequest(Seq(None, None, Some(TTree), Some(BPlusTree))), false, Some(0L))
    val sources = (j: Int) => bs.filter(_.target == j).map(_.source)
    for (o <- 0 until 4) assert(EnginePlan.isValidOrder(o, d.orders(o), sources), s"origin $o: ${d.orders(o)}")
  }

  test("tau auto: T x (1 + b) / 100 with b = 1 for our windows (Golab & Özsu Fig. 4a), larger windows larger tau") {
    def tau(window: Long, distinct: Double) = AccessPlanner.plan(names2, Seq(window, window), keyed = true, Nil,
      Seq(stats(1000, 1000, distinct), stats(1000, 1000, distinct)), AccessRequest.none(2), false, None).tau
    assert(tau(100, 2) == 2 && tau(100, 30) == 2 && tau(1000, 30) == 20 && tau(10, 2) == 0)
    assert(AccessPlanner.plan(names2, Seq(100L, 1000L), keyed = false, Nil, Seq(stats(1000, 1000), stats(1000, 1000)),
      AccessRequest.none(2), false, None).tau == 2) // one interval for all windows: the smallest
    assert(AccessPlanner.plan(names2, Seq(100L, 100L), keyed = true, Nil, Seq(stats(1000, 1000, 30), stats(1000, 1000, 30)),
      AccessRequest.none(2), false, Some(0L)).tau == 0)
  }

}
