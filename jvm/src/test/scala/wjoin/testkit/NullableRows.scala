package wjoin.testkit

import org.apache.spark.sql.{DataFrame, SparkSession}

/** Test inputs (k, t, v, id) with some NULL keys (1 in 10) and NULL times (1 in 12). */
object NullableRows {
  /** `rows` rows: keys below `keys`, times below `maxTime`, ids from `idBase`. */
  def apply(spark: SparkSession, seed: Int, rows: Int, keys: Int, maxTime: Int, idBase: Int): DataFrame = {
    import spark.implicits._
    val rnd = new scala.util.Random(seed)
    Seq.tabulate(rows) { i =>
      val k = if (rnd.nextInt(10) == 0) None else Some(rnd.nextInt(keys))
      val t = if (rnd.nextInt(12) == 0) None else Some(rnd.nextInt(maxTime).toLong)
      (k, t, rnd.nextInt(1000), idBase + i)
    }.toDF("k", "t", "v", "id")
  }
}
