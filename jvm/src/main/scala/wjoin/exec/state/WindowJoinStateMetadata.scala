package wjoin.exec.state

import java.nio.charset.StandardCharsets

import scala.util.Try

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path
import org.apache.spark.sql.wjoin.StreamingClasses.CheckpointFileManager
import org.json4s._
import org.json4s.jackson.JsonMethods

import wjoin.errors.WJoinErrors
import wjoin.extension.BuildVersions

/**
 * What a streaming W-join records about its state, beside Spark's own operator metadata, and
 * checks when a query run starts. One small JSON file per operator, written by the driver
 * through Spark's `CheckpointFileManager` (atomically, on any Hadoop file system):
 * {{{
 *   <checkpoint>/state/<operator id>/_wjoin/metadata
 *     {"formatVersion":1,"createdBy":"0.1.0","query":{"inputs":"A, B, C", ...}}
 *
 *   formatVersion  the layout of the state (StateFormat): how every record is encoded
 *   createdBy      the spark-wjoin version that started the state (absent: not known)
 *   query          what the state depends on (StateQuery): inputs, columns, keys, windows,
 *                  algorithm, how, limits, partitioning (absent: not recorded yet)
 * }}}
 * A checkpoint without the file was written before the format had a version: it is version 1
 * (if the operator has state at all), and the file is written on its first run here; one
 * without `query` gets it on its first run here (nothing to compare it with then). Unknown
 * fields are ignored, so an older spark-wjoin of the same format reads a newer file.
 *
 * @param formatVersion the state format ([[StateFormat]])
 * @param createdBy     the spark-wjoin version that started the state
 * @param query         the query the state was written for
 */
final case class WindowJoinStateMetadata(formatVersion: Int, createdBy: Option[String] = None,
    query: Option[StateQuery] = None) {

  def json: String = {
    val fields = List("formatVersion" -> JInt(formatVersion)) ++ createdBy.map(v => "createdBy" -> JString(v)) ++
      query.map(q => "query" -> q.json)
    JsonMethods.compact(JsonMethods.render(JObject(fields)))
  }

  /**
   * Fails unless this code, whose metadata this is, can continue state described by `stored`
   * (found at `path`): the format version must be one it reads, and the query the same in
   * every setting the state depends on ([[StateQuery.requireSameAs]]).
   */
  def check(stored: WindowJoinStateMetadata, path: String): Unit = {
    if (!StateFormat.Readable(stored.formatVersion))
      StateFormat.incompatible(stored.formatVersion, formatVersion, path, stored.createdBy)
    for (was <- stored.query; now <- query) now.requireSameAs(was, path)
  }

  /** Writes this as the metadata `file` (replacing it). */
  def write(file: Path, hadoopConf: Configuration): Unit = {
    val fm = CheckpointFileManager.create(file.getParent, hadoopConf)
    fm.mkdirs(file.getParent)
    val out = fm.createAtomic(file, true)
    try {
      out.write(json.getBytes(StandardCharsets.UTF_8))
      out.close()
    } catch {
      case e: Throwable => out.cancel(); throw e
    }
  }
}

object WindowJoinStateMetadata {
  /** The folder of our files in the operator's state folder (Spark ignores `_` names there). */
  val DirName = "_wjoin"
  val FileName = "metadata"

  /** What this code writes for new state of `query`. */
  def current(query: Option[StateQuery] = None): WindowJoinStateMetadata =
    WindowJoinStateMetadata(StateFormat.Current, Try(BuildVersions.version).toOption, query)

  /** State written before the format had a version (no metadata file). */
  val unversioned: WindowJoinStateMetadata = WindowJoinStateMetadata(StateFormat.Version1)

  /** The metadata file of operator `operatorId` under `stateLocation` (`<checkpoint>/state`). */
  def path(stateLocation: String, operatorId: Long): Path =
    new Path(new Path(new Path(stateLocation, operatorId.toString), DirName), FileName)

  def parse(json: String, path: String): WindowJoinStateMetadata = {
    val parsed = Try(JsonMethods.parse(json)).getOrElse(JNothing)
    val version = parsed \ "formatVersion" match {
      case JInt(v) if v.isValidInt => v.toInt
      case _ => WJoinErrors.raise("WJOIN_STATE_METADATA_UNREADABLE", "path" -> path, "json" -> json)
    }
    WindowJoinStateMetadata(version, parsed \ "createdBy" match { case JString(v) => Some(v); case _ => None },
      StateQuery.parse(parsed \ "query"))
  }

  /** The metadata in `file`, if there is one. */
  def read(file: Path, hadoopConf: Configuration): Option[WindowJoinStateMetadata] = {
    val fm = CheckpointFileManager.create(file.getParent, hadoopConf)
    if (!fm.exists(file)) None
    else {
      val in = fm.open(file)
      val text = try new String(in.readAllBytes(), StandardCharsets.UTF_8) finally in.close()
      Some(parse(text, file.toString))
    }
  }

  /**
   * The check of a query run's first micro-batch, on the driver before any task runs (called
   * from `StreamingWindowJoinExec.validateAndMaybeEvolveStateSchema`, which Spark calls then):
   * the stored metadata of operator `operatorId` is checked against this code's and this
   * `query`'s, and refused ([[StateFormat.incompatible]], `WJOIN_STATE_QUERY_CHANGED`) when they
   * cannot continue it. Missing, it is written: version 1 when the operator already has state
   * (a checkpoint from before the format had a version), else this code's; without a query,
   * the query is added. Returns the metadata of the state.
   */
  def verify(stateLocation: String, operatorId: Long, hadoopConf: Configuration,
      query: Option[StateQuery] = None): WindowJoinStateMetadata = {
    val file = path(stateLocation, operatorId)
    val existing = read(file, hadoopConf)
    val stored = existing.getOrElse {
      val operatorDir = file.getParent.getParent
      val exists = CheckpointFileManager.create(operatorDir, hadoopConf).exists(operatorDir)
      if (exists) unversioned else current()
    }
    current(query).check(stored, file.toString)
    val recorded = if (stored.query.isEmpty && query.isDefined) stored.copy(query = query) else stored
    if (!existing.contains(recorded)) recorded.write(file, hadoopConf)
    recorded
  }
}
