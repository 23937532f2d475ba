package wjoin.request

import java.util.Locale

import scala.jdk.CollectionConverters._

import wjoin.core.shedding.{Allocation, ResourceLimits}
import wjoin.core.WindowTermParser
import wjoin.errors.WJoinErrors

/**
 * The resource-limit arguments of a W-join as the user gives them (Python dicts through py4j
 * are java.util.Map, Scala callers give Scala maps), checked and resolved to input indices in
 * one place, before any job runs ([[resolve]]):
 *
 * {{{
 *   limits     {"state_rows": M, "probe_rate": mu}             either or both; numbers >= 0
 *   allocation "auto" | "equal" | "proportional"                (default "auto")
 *              {input: share, ...}                              the same split of both budgets
 *              {"state_rows": {input: share}, "probe_rate": {input: share}}   one split per budget
 *                                                                 (only budgets that limits sets)
 *   seed       a whole number                                   (default 0)
 * }}}
 *
 * Shares are numbers >= 0 normalized to sum 1; an input not named gets 0.
 *
 * @param limits     the `limits` map, or None
 * @param allocation "auto", "equal", "proportional" or a map, or None (= auto)
 * @param seed       the seed, or None
 */
final case class LimitsArgument(limits: Option[Any] = None, allocation: Option[Any] = None, seed: Option[Any] = None) {
  import LimitsArgument._

  def isEmpty: Boolean = limits.isEmpty && allocation.isEmpty && seed.isEmpty

  /** The limits resolved against the input names; a `WJOIN_` error naming what is wrong. */
  def resolve(inputNames: Seq[String]): Option[ResourceLimits] = limits match {
    case None =>
      WJoinErrors.check(allocation.isEmpty, "WJOIN_ARGUMENT_NEEDS_LIMITS", Seq("argument" -> "allocation"))
      WJoinErrors.check(seed.isEmpty, "WJOIN_ARGUMENT_NEEDS_LIMITS", Seq("argument" -> "seed"))
      None
    case Some(raw) =>
      val entries = asMap(raw, "limits", "a map {\"state_rows\": M, \"probe_rate\": mu}")
      val known = ResourceLimits.Keys.map(_._1)
      val unknown = entries.keys.filterNot(known.contains).toSeq.sorted
      invalid(unknown.isEmpty, "limits", s"unknown limit ${unknown.map(k => s"'$k'").mkString(", ")}; use " +
        ResourceLimits.Keys.map { case (k, what) => s"$k ($what)" }.mkString(" and/or "))
      invalid(entries.nonEmpty, "limits", "give state_rows, probe_rate or both (an empty map limits nothing; drop it)")
      val stateRows = entries.get("state_rows").map(v => wholeNumber(v, "limits: state_rows"))
      stateRows.foreach(m => invalid(m >= 0, "limits", s"state_rows must be >= 0 rows, got $m"))
      val probeRate = entries.get("probe_rate").map(v => number(v, "limits: probe_rate"))
      probeRate.foreach(mu => invalid(mu >= 0 && !mu.isInfinite && !mu.isNaN, "limits",
        s"probe_rate must be a finite number >= 0 (probes per second of event time), got $mu"))
      Some(ResourceLimits(stateRows, probeRate, allocationOf(inputNames, entries.keySet),
        seed.map(wholeNumber(_, "seed")).getOrElse(ResourceLimits.DefaultSeed)))
  }

  /** `limited`: the budgets `limits` sets; a map per budget may only share those. */
  private def allocationOf(names: Seq[String], limited: Set[String]): Allocation = allocation match {
    case None => Allocation.Auto
    case Some(s: String) => Allocation.byName(s.trim).getOrElse(WJoinErrors.raise("WJOIN_UNKNOWN_CHOICE",
      "option" -> "allocation", "value" -> s, "choices" -> s"${Allocation.all.map(_.name).mkString(", ")}, or a map {input: share}"))
    case Some(raw) =>
      val entries = asMap(raw, "allocation", "\"auto\", \"equal\", \"proportional\" or a map {input: share}")
      val budgets = ResourceLimits.Keys.map(_._1)
      val perBudget = entries.nonEmpty &&
        (entries.keys.forall(budgets.contains) || entries.values.exists(isMap))
      if (perBudget) {
        val unknown = entries.keys.filterNot(budgets.contains).toSeq.sorted
        invalid(unknown.isEmpty, "allocation", s"unknown budget ${unknown.map(k => s"'$k'").mkString(", ")}; " +
          s"a map per budget has the keys ${budgets.mkString(" and/or ")}")
        val unlimited = entries.keys.filterNot(limited.contains).toSeq.sorted
        invalid(unlimited.isEmpty, "allocation", s"shares of ${unlimited.mkString(", ")}, which limits does not " +
          "set: add it to limits or drop its shares")
        def one(key: String) = entries.get(key).map(v => shares(asMap(v, s"allocation[$key]", "a map {input: share}"),
          names, s"allocation[$key]")).getOrElse(IndexedSeq.fill(names.size)(1.0 / names.size))
        Allocation.Shares(one("state_rows"), one("probe_rate"))
      } else {
        val s = shares(entries, names, "allocation")
        Allocation.Shares(s, s)
      }
  }
}

object LimitsArgument {
  private def invalid(ok: Boolean, argument: => String, reason: => String): Unit =
    WJoinErrors.check(ok, "WJOIN_INVALID_ARGUMENT", Seq("argument" -> argument, "reason" -> reason))

  private def isMap(v: Any): Boolean = v.isInstanceOf[java.util.Map[_, _]] || v.isInstanceOf[scala.collection.Map[_, _]]

  private def asMap(v: Any, what: String, expected: String): Map[String, Any] = v match {
    case m: java.util.Map[_, _] => asMap(m.asScala.toMap, what, expected)
    case m: scala.collection.Map[_, _] =>
      m.map {
        case (k: String, value) => k -> value
        case (k, _) => WJoinErrors.raise("WJOIN_INVALID_ARGUMENT", "argument" -> what, "reason" -> s"keys must be strings, got $k")
      }.toMap
    case other => WJoinErrors.raise("WJOIN_INVALID_ARGUMENT", "argument" -> what,
      "reason" -> s"expected $expected, got ${describe(other)}")
  }

  private def shares(entries: Map[String, Any], names: Seq[String], what: String): IndexedSeq[Double] = {
    val resolved = entries.toSeq.map { case (name, v) => (WindowTermParser.indexOfName(name, names), name, v) }
    val unknown = resolved.collect { case (None, name, _) => name }.sorted
    WJoinErrors.check(unknown.isEmpty, "WJOIN_UNKNOWN_INPUT", Seq("what" -> s"$what:", "names" -> unknown, "inputs" -> names))
    val byIndex = resolved.groupBy(_._1.get)
    byIndex.find(_._2.size > 1).foreach { case (i, _) =>
      WJoinErrors.raise("WJOIN_INPUT_GIVEN_TWICE", "what" -> what, "input" -> names(i)) }
    Allocation.normalized(names.indices.map(i => byIndex.get(i).fold(0.0)(e => number(e.head._3, s"$what[${names(i)}]"))),
      what)
  }

  private def number(v: Any, what: String): Double = v match {
    case n: java.lang.Number => n.doubleValue
    case n: Int => n.toDouble
    case n: Long => n.toDouble
    case n: Double => n
    case other => WJoinErrors.raise("WJOIN_INVALID_ARGUMENT", "argument" -> what, "reason" -> s"expected a number, got ${describe(other)}")
  }

  private def wholeNumber(v: Any, what: String): Long = v match {
    case n @ (_: java.lang.Integer | _: java.lang.Long | _: java.lang.Short | _: java.lang.Byte) =>
      n.asInstanceOf[java.lang.Number].longValue
    case n: java.math.BigInteger if n.bitLength < 64 => n.longValue
    case d: java.lang.Number if d.doubleValue == math.rint(d.doubleValue) && math.abs(d.doubleValue) < 9e15 =>
      d.longValue
    case other => WJoinErrors.raise("WJOIN_INVALID_ARGUMENT", "argument" -> what,
      "reason" -> (s"expected a whole number of at most 64 bits (at most 9e15 when given as a floating-point number), " +
        s"got ${describe(other)}"))
  }

  private def describe(v: Any): String =
    if (v == null) "null" else s"${v.getClass.getSimpleName.toLowerCase(Locale.ROOT)} $v"
}
