package wjoin.exec.state

/**
 * What the state index knows of one stored chunk ([[StateRecordKind.RowChunk]]) without its
 * bytes: enough to decide when it can go and to count what goes with it.
 *
 * @param input   the input whose rows it holds
 * @param chunk   its id: the micro-batch that wrote it
 * @param maxTime the newest event time among its rows
 * @param rows    how many rows it holds
 */
final case class ChunkInfo(input: Int, chunk: Long, maxTime: Long, rows: Long)
