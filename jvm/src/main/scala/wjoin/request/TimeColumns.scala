package wjoin.request

/** The event-time columns of a W-join as given, before input names are resolved. */
sealed trait TimeColumns

object TimeColumns {
  /** Each input's only timestamp (or timestamp_ntz) column. */
  case object Default extends TimeColumns
  /** The same column name in every input. */
  final case class Same(column: String) extends TimeColumns
  /** One column per input, in input order. */
  final case class PerInput(columns: Seq[String]) extends TimeColumns
  /** Input name -> column, every input once (names resolved as in window terms). */
  final case class ByInput(columns: Seq[(String, String)]) extends TimeColumns

  /** None, one name for all inputs, or one per input (what the SQL clause gives). */
  def of(columns: Seq[String]): TimeColumns = columns match {
    case Seq() => Default
    case Seq(one) => Same(one)
    case many => PerInput(many)
  }
}
