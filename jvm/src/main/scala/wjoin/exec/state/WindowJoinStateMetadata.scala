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
 *     {"formatVersion":1,"createdBy":"0.1.0"}
 *
 *   formatVersion  the layout of the state (StateFormat): how every record is encoded
 *   createdBy      the spark-wjoin version that started the state (absent: not known)
 * }}}
 * A checkpoint without the file was written before the format had a version: it is version 1
 * (if the operator has state at all), and the file is written on its first run here. Later
 * fields (inputs, keys, windows, algorithm, how, limits) go into this class with a default for
 * files that lack them; [[check]] compares those a restart must keep. Unknown fields are
 * ignored, so an older spark-wjoin of the same format reads a newer file.
 *
 * @param formatVersion the state format ([[StateFormat]])
 * @param createdBy     the spark-wjoin version that started the state
 */
final case class WindowJoinStateMetadata(formatVersion: Int, createdBy: Option[String] = None) {

  def json: String = {
    val fields = List("formatVersion" -> JInt(formatVersion)) ++ createdBy.map(v => "createdBy" -> JString(v))
    JsonMethods.compact(JsonMethods.render(JObject(fields)))
  }

  /**
   * Fails unless this code, whose metadata this is, can continue state described by `stored`
   * (found at `path`): today, the format version must be one it reads.
   */
  def check(stored: WindowJoinStateMetadata, path: String): Unit =
    if (!StateFormat.Readable(stored.formatVersion))
      StateFormat.incompatible(stored.formatVersion, formatVersion, path, stored.createdBy)

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

  /** What this code writes for new state. */
  def current: WindowJoinStateMetadata =
    WindowJoinStateMetadata(StateFormat.Current, Try(BuildVersions.version).toOption)

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
    WindowJoinStateMetadata(version, parsed \ "createdBy" match { case JString(v) => Some(v); case _ => None })
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
   * the stored metadata of operator `operatorId` is checked against this code's and refused
   * ([[StateFormat.incompatible]]) when this code cannot continue it; missing, it is written:
   * version 1 when the operator already has state (a checkpoint from before the format had a
   * version), else this code's. Returns the metadata of the state.
   */
  def verify(stateLocation: String, operatorId: Long, hadoopConf: Configuration): WindowJoinStateMetadata = {
    val file = path(stateLocation, operatorId)
    val stored = read(file, hadoopConf).getOrElse {
      val operatorDir = file.getParent.getParent
      val found = if (CheckpointFileManager.create(operatorDir, hadoopConf).exists(operatorDir)) unversioned else current
      found.write(file, hadoopConf)
      found
    }
    current.check(stored, file.toString)
    stored
  }
}
