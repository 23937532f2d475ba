package org.apache.spark.sql.wjoin

import org.apache.spark.sql.catalyst.parser.ParserInterface

/** Spark 3.5's `ParserInterface`: the members of [[DelegatingParserBase]], nothing more. */
abstract class DelegatingParser(delegate: ParserInterface) extends DelegatingParserBase(delegate)
