package wjoin.request

import wjoin.core.{Named, NamedValues}
import wjoin.errors.WJoinErrors

/**
 * How the W-join names its output columns.
 *
 * {{{
 *   join       as DataFrame.join (the SPEC's default): every column under its input's name, each
 *              `on` key once; same-schema inputs give repeated names (k, ts, v, ts, v, ...),
 *              told apart by qualifier (A.ts) but not writable to files
 *   prefixed   every column but the `on` keys named <input>_<column> (k, A_ts, A_v, B_ts, ...),
 *              still qualified by its input (A.A_ts): unique names a file sink can write
 * }}}
 *
 * The argument `output_names`; unset, the session setting `spark.wjoin.outputNames`
 * (`org.apache.spark.sql.wjoin.WJoinConf.OutputNames`), which is how SQL gets it.
 */
sealed abstract class OutputNames(name: String) extends Named(name)

object OutputNames extends NamedValues[OutputNames] {
  case object Join extends OutputNames("join")
  case object Prefixed extends OutputNames("prefixed")

  val all: Seq[OutputNames] = Seq(Join, Prefixed)

  /** The naming called `text` (any case, blanks around ignored); WJOIN_UNKNOWN_CHOICE otherwise. */
  def parseOrFail(text: String): OutputNames = byName(Option(text).map(_.trim).orNull).getOrElse(
    WJoinErrors.raise("WJOIN_UNKNOWN_CHOICE", "option" -> "output_names", "value" -> text, "choices" -> all.map(_.name)))
}
