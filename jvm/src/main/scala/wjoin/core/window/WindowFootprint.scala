package wjoin.core.window

/**
 * Heap bytes of the windows' own structures, for [[WindowMemory]]: the object layout of a
 * 64-bit HotSpot JVM (12-byte object headers with compressed class pointers, 16-byte array
 * headers, 8-byte alignment, references of 4 bytes with compressed oops, i.e. heaps under
 * 32 GiB, else 8). The rows themselves are sized by the codec (`WindowMemory.Sizes`).
 *
 * {{{
 *   every window      ring buffers: exact, by capacity (TimeSortedBuffer reports each resize)
 *   hash window       + per bucket (key): Bucket object, its ring (2 slots at first), the key,
 *                       the HashMap node and the table's slots (<= 8 / 3 per key at load 0.75)
 *   T-tree / B+tree   + per row: its entry (range key, time, row) and its index slot
 *                       ((8 + ref) bytes a slot, nodes at least half full, node headers)
 * }}}
 *
 * The per-row constants are upper bounds of what `WindowMemorySuite` measures with Spark's
 * `SizeEstimator` on windows that slid for a while (so trees have split, merged and emptied
 * nodes), so the account errs on the side of more bytes.
 */
object WindowFootprint {
  /** Bytes of a reference. */
  val Ref: Int = if (compressedOops) 4 else 8
  private val Header = 12
  private val ArrayHeader = 16

  /** `bytes` rounded up to the 8-byte object alignment. */
  def align(bytes: Long): Long = (bytes + 7) & ~7L

  /** An object with `fields` bytes of fields. */
  def obj(fields: Long): Long = align(Header + fields)

  /** An array of `length` elements of `element` bytes. */
  def array(length: Long, element: Int): Long = align(ArrayHeader + length * element)

  /**
   * A [[TimeSortedBuffer]] of `capacity` slots: the object (4 ints, 3 references and
   * `fields` more bytes), its times and its rows.
   */
  def ring(capacity: Int, fields: Int = 0): Long =
    obj(4L * 4 + 3 * Ref + fields) + array(capacity, 8) + array(capacity, Ref)

  /** A hash bucket ([[Bucket]]) of `capacity` slots: a ring with its key field. */
  def bucket(capacity: Int): Long = ring(capacity, Ref)

  /** A bucket's place in the hash map: the HashMap node and the table's slots (<= 8 / 3 per key); also
   *  covers a [[LongBucketMap]]'s 2-4 slots of a long and a reference. */
  val BucketEntry: Long = obj(4L + 3 * Ref) + (8 * Ref + 2) / 3

  /**
   * One key's bucket of a keyed range window ([[KeyedRangeWindow]]) besides its rows and its
   * ring: the bucket and RangeWindow objects, the tree object with one node or leaf of `nodeSize`
   * slots (a key's first rows fill it), and the bucket's place in the hash map.
   */
  def keyedBucket(nodeSize: Int): Long =
    obj(2L * Ref) + obj(2L * Ref) + obj(4L * 4 + 2 * Ref) + obj(4L * 4 + 4 * Ref) +
      array(nodeSize + 1L, 8) + array(nodeSize + 1L, Ref) + BucketEntry

  /** An indexed window's row besides the row: its entry and its slot in the T-tree / B+tree. */
  val IndexedEntry: Long = obj(8L + 8 + Ref) + 2 * (8 + Ref) + 4

  /** A stamp of a ROWS window around a row (`wjoin.core.Stamped`): the object and its counts. */
  def stamp(inputs: Int): Long = obj(8L + 2 * Ref) + array(inputs, 8)

  private def compressedOops: Boolean = try {
    val bean = java.lang.management.ManagementFactory.getPlatformMXBean(
      classOf[com.sun.management.HotSpotDiagnosticMXBean])
    bean.getVMOption("UseCompressedOops").getValue == "true"
  } catch {
    case _: Throwable => Runtime.getRuntime.maxMemory < (32L << 30)
  }
}
