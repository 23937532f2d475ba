package org.apache.spark.sql.wjoin

import org.apache.spark.sql.catalyst.parser.ParserInterface

/** Spark 4.0's `ParserInterface`: the members of [[DelegatingParserBase]], nothing more. */
abstract class DelegatingParser(delegate: ParserInterface) extends DelegatingParserBase(delegate)
