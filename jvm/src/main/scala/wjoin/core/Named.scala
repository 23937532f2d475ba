package wjoin.core

import java.util.Locale

/** One value of a closed set of named choices: an algorithm, a window strategy, an access path. */
abstract class Named(val name: String) extends Serializable {
  override def toString: String = name
}

/** The values of one set of [[Named]] choices. */
abstract class NamedValues[T <: Named] {
  def all: Seq[T]

  /** The value whose name is `text` in any case; None for null or an unknown name. */
  def byName(text: String): Option[T] =
    Option(text).flatMap(t => all.find(_.name == t.toLowerCase(Locale.ROOT)))
}
