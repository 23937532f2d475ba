package wjoin.core.cost

import java.util.Properties

/**
 * Kang et al.'s weight factors: the cost of touching one tuple in a data structure, during a
 * search (`P_d`, "probe") and during an update (`I_d`, insert or invalidate), for each
 * access path d. The cost model counts touched tuples; these factors turn counts into time.
 * Units are whatever the calibration measured: nanoseconds per touched tuple for
 * `wjoin.core.cost.Calibration` (bench project), the paper's own unit for [[WeightFactors.Paper2003]]. Only ratios matter
 * for choosing an access path.
 */
final case class WeightFactors(
    scanProbe: Double, scanUpdate: Double,
    hashProbe: Double, hashUpdate: Double,
    ttreeProbe: Double, ttreeUpdate: Double,
    bplusProbe: Double, bplusUpdate: Double) {

  def probe(path: AccessPath): Double = path match {
    case AccessPath.Scan => scanProbe
    case AccessPath.Hash => hashProbe
    case AccessPath.TTree => ttreeProbe
    case AccessPath.BPlusTree => bplusProbe
    case keyed => probe(keyed.tree.get) // the tree part; `UnitTimeCost` adds the hash lookup
  }

  def update(path: AccessPath): Double = path match {
    case AccessPath.Scan => scanUpdate
    case AccessPath.Hash => hashUpdate
    case AccessPath.TTree => ttreeUpdate
    case AccessPath.BPlusTree => bplusUpdate
    case keyed => update(keyed.tree.get)
  }

  def toProperties: Properties = {
    val p = new Properties()
    for (path <- AccessPath.all) {
      p.setProperty(s"${path.name}.probe", probe(path).toString)
      p.setProperty(s"${path.name}.update", update(path).toString)
    }
    p
  }

  override def toString: String =
    AccessPath.all.map(p => f"${p.name}: P=${probe(p)}%.3g I=${update(p)}%.3g").mkString("WeightFactors(", "; ", ")")
}

object WeightFactors {

  /**
   * The factors Kang et al. measured (Eq. 7), in its unit: P_n = 3e-4, I_n = 1e-4,
   * P_h = 5.5e-4, I_h = 7.8e-4, P_b = I_b = 2.6e-4, P_t = 2.6e-4, I_t = 2.7e-4.
   * With them the model reproduces the paper's Table 3 and crossover points.
   */
  val Paper2003: WeightFactors = WeightFactors(
    scanProbe = 3e-4, scanUpdate = 1e-4,
    hashProbe = 5.5e-4, hashUpdate = 7.8e-4,
    ttreeProbe = 2.6e-4, ttreeUpdate = 2.7e-4,
    bplusProbe = 2.6e-4, bplusUpdate = 2.6e-4)

  /** Where `Calibration --write` stores this machine's factors so they ship with the build. */
  val ResourcePath = "wjoin/cost/weights.properties"

  def fromProperties(p: Properties): WeightFactors = {
    def get(path: AccessPath, what: String): Double = {
      val v = p.getProperty(s"${path.name}.$what")
      assert(v != null, s"weight factor ${path.name}.$what is missing")
      v.toDouble
    }
    WeightFactors(
      get(AccessPath.Scan, "probe"), get(AccessPath.Scan, "update"),
      get(AccessPath.Hash, "probe"), get(AccessPath.Hash, "update"),
      get(AccessPath.TTree, "probe"), get(AccessPath.TTree, "update"),
      get(AccessPath.BPlusTree, "probe"), get(AccessPath.BPlusTree, "update"))
  }

  /** The factors calibrated when the build was made, if the resource is on the classpath. */
  lazy val bundled: Option[WeightFactors] =
    Option(getClass.getClassLoader.getResourceAsStream(ResourcePath)).map { in =>
      try { val p = new Properties(); p.load(in); fromProperties(p) } finally in.close()
    }

  /** Bundled factors, else the paper's (their ratios still rank the access paths sensibly). */
  def default: WeightFactors = bundled.getOrElse(Paper2003)
}
