package wjoin.request

import java.util.Locale

import wjoin.core.{Named, NamedValues}
import wjoin.errors.WJoinErrors

/**
 * An option the user may leave to the W-join ("auto") or fix: the one model of "auto" in a
 * [[WJoinRequest]] (algorithm, window strategy, ...).
 */
sealed trait Choice[+A] {
  /** The fixed value, or `auto` when the W-join chooses. */
  def getOrElse[B >: A](auto: => B): B = this match {
    case Choice.Auto => auto
    case Choice.Fixed(a) => a
  }
  def toOption: Option[A] = this match {
    case Choice.Auto => None
    case Choice.Fixed(a) => Some(a)
  }
}

object Choice {
  /** The W-join chooses. */
  case object Auto extends Choice[Nothing] { override def toString: String = "auto" }
  /** The user's value. */
  final case class Fixed[A](value: A) extends Choice[A] { override def toString: String = value.toString }

  /**
   * "auto" (any case, surrounding blanks ignored) or one of `values` by name; anything else is
   * WJOIN_UNKNOWN_CHOICE naming `option` and the accepted names ("auto" first).
   */
  def parse[T <: Named](text: String, values: NamedValues[T], option: String): Choice[T] =
    Option(text).map(_.trim.toLowerCase(Locale.ROOT)) match {
      case Some("auto") => Auto
      case trimmed => trimmed.flatMap(values.byName).map(Fixed(_)).getOrElse(WJoinErrors.raise("WJOIN_UNKNOWN_CHOICE",
        "option" -> option, "value" -> text, "choices" -> ("auto" +: values.all.map(_.name).filter(_ != "auto"))))
    }
}
