package wjoin.exec.state

import org.apache.spark.sql.types.{BinaryType, IntegerType, LongType, StructType}

import wjoin.errors.WJoinErrors

/**
 * The versions of the W-join's state layout. The layout is versioned as Spark versions its
 * stream-stream join's (`SymmetricHashJoinStateManager`, `stateFormatVersion`): a checkpoint
 * keeps the format it was started with, recorded next to the state
 * ([[WindowJoinStateMetadata]]), and a run refuses, before its first micro-batch, a format it
 * cannot read.
 *
 * {{{
 *   version 1   one default store, key (input: int, chunk: bigint), value (maxTime: bigint,
 *               rows: binary); record kinds and their encodings in StateRecordKind. Also every
 *               checkpoint written before the format had a version (no metadata file).
 * }}}
 * A new layout gets the next version, its own codec beside [[StateRecordCodec]] (version 1),
 * chosen from the stored metadata, and is added to [[Readable]] once this code reads it.
 */
object StateFormat {
  val Version1: Int = 1

  /** The format new state is written in. */
  val Current: Int = Version1

  /** The formats this code continues. */
  val Readable: Set[Int] = Set(Version1)

  /** Key schema of the store in version 1: (input, chunk). */
  val keySchema: StructType = new StructType().add("input", IntegerType).add("chunk", LongType)

  /** Value schema of the store in version 1: (max time of the chunk, packed rows). */
  val valueSchema: StructType = new StructType().add("maxTime", LongType).add("rows", BinaryType)

  /**
   * The state at `path` is in format `stored`, which this code (writing `current`) cannot
   * read: fails, saying what to do. `createdBy`: the spark-wjoin version that started the
   * state, when the metadata says.
   */
  def incompatible(stored: Int, current: Int, path: String, createdBy: Option[String] = None): Nothing = {
    WJoinErrors.raise("WJOIN_STATE_FORMAT_MISMATCH", "path" -> path, "stored" -> stored,
      "createdBy" -> createdBy.map(v => s" (started by spark-wjoin $v)").getOrElse(""),
      "readable" -> Readable.toSeq.sorted, "current" -> current)
  }
}
