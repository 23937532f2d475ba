package wjoin.plan
package logical

import java.util.Locale

import wjoin.core.cost.{AccessPath, AccessRequest}
import wjoin.core.Durations

/**
 * How the user asked for the windows to be searched and expired (access paths, Kang et al.
 * Sec. 4.2; lazy expiration, Kang et al. Appendix A), as the text the API and the SQL
 * extension take. It is parsed once, where the [[WindowJoin]] is built ([[parse]]), so a bad
 * value fails at DataFrame construction and the logical node holds an [[AccessSpec]].
 *
 * @param paths      "auto" (default; "cost" is a synonym), and/or per-input forced paths "A:hash, B:ttree"
 * @param expiration the lazy expiration interval tau: "0" (eager, default), "eager", "auto" or a length
 */
final case class AccessOptions(paths: String = "auto", expiration: String = "0") {
  /**
   * The typed options for the inputs `names`: fails (IllegalArgumentException) on a bad length
   * (checked first) or an unknown input or path ([[AccessRequest.parse]]), with the messages of
   * those parsers.
   */
  def parse(names: Seq[String], integralTime: Boolean): AccessSpec = {
    val tau = Expiration.parse(expiration, integralTime, "expirationInterval")
    AccessSpec(AccessRequest.parse(paths, names), tau)
  }
}

/**
 * The lazy expiration interval tau (Kang et al. Appendix A): how long expired rows may stay
 * in a window before a purge removes them. The result never depends on it.
 */
sealed abstract class Expiration {
  /** tau in time units: None = chosen by the cost model, 0 = eager. */
  def interval: Option[Long]
}

object Expiration {
  /** The cost model picks tau (Kang et al. Sec. 4, unit-time cost). */
  case object Auto extends Expiration { def interval: Option[Long] = None }
  /** Every arrival evicts what it expired (tau = 0). */
  case object Eager extends Expiration { def interval: Option[Long] = Some(0L) }
  /** Purge every `length` time units (> 0). */
  final case class Every(length: Long) extends Expiration {
    assert(length > 0, s"an expiration interval is > 0, got $length (0 is eager)")
    def interval: Option[Long] = Some(length)
  }

  /**
   * "auto", "eager" / "0" / "" (eager) or a length ("5 seconds", 10); a length of 0 is eager.
   * A bad or negative length fails ([[Durations.parse]]), naming `what`.
   */
  def parse(text: String, integralTime: Boolean, what: String): Expiration =
    Option(text).getOrElse("0").trim.toLowerCase(Locale.ROOT) match {
      case "auto" => Auto
      case "eager" | "0" | "" => Eager
      case length => Durations.parse(length, integralTime, what) match {
        case 0L => Eager
        case units => Every(units)
      }
    }
}

/**
 * The parsed access options a [[WindowJoin]] holds.
 *
 * @param request    per input, the forced access path, if any (None: the cost model chooses)
 * @param expiration the lazy expiration interval asked for
 */
final case class AccessSpec(request: AccessRequest, expiration: Expiration) {
  /** Nothing forced, eager expiration: what a W-join gets when the user says nothing. */
  def isDefault: Boolean = request.forced.forall(_.isEmpty) && expiration == Expiration.Eager

  /** "access=A:hash, B:ttree, expiration=5 seconds", for the logical plan's EXPLAIN line. */
  def describe(names: Seq[String], integralTime: Boolean): String = {
    val forced = names.indices.flatMap(i => request.forced(i).map(p => s"${names(i)}:${p.name}"))
    val paths = if (forced.size == names.size) forced.mkString(", ") else ("auto" +: forced).mkString(", ")
    val tau = expiration match {
      case Expiration.Auto => "auto"
      case Expiration.Eager => "0"
      case Expiration.Every(length) => Durations.render(length, integralTime)
    }
    s"access=$paths, expiration=$tau"
  }
}

object AccessSpec {
  /** The default for `n` inputs: every path chosen by cost, eager expiration. */
  def default(n: Int): AccessSpec = AccessSpec(AccessRequest.none(n), Expiration.Eager)

  /** Forced paths, for tests and tools: paths(i) = None lets the cost model choose. */
  def forced(paths: Seq[Option[AccessPath]], expiration: Expiration = Expiration.Eager): AccessSpec =
    AccessSpec(AccessRequest(paths), expiration)
}
