package org.apache.spark.sql.wjoin

import org.apache.spark.sql.catalyst.parser.ParserInterface
import org.apache.spark.sql.types.StructType

/** Spark 4.0 adds routine parameters to [[DelegatingParserBase]]'s members. */
abstract class DelegatingParser(delegate: ParserInterface) extends DelegatingParserBase(delegate) {
  override def parseRoutineParam(sqlText: String): StructType = delegate.parseRoutineParam(sqlText)
}
