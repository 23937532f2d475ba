package wjoin.connect

import scala.jdk.CollectionConverters._

import org.apache.spark.connect.proto.{Expression, Project, Range, Relation}
import org.scalatest.funsuite.AnyFunSuite
import org.sparkproject.connect.protobuf.{Any => ProtoAny, ByteString, UnknownFieldSet}

import wjoin.connect.proto.{BudgetShares, InputColumn, InputColumns, NumberMap, StringList, WJoinRelation}
import wjoin.errors.WJoinAnalysisException
import wjoin.extension.BuildVersions
import wjoin.request.RequestLimits

/**
 * The Connect message, decoded and checked without a server: the plain map the classic API
 * passes, and every refusal of a malformed or hostile message (end to end, with a fuzz of the
 * message's fields against a real server: tests/on_connect/test_connect_hostile.py).
 */
class WJoinRelationDecoderSuite extends AnyFunSuite {
  private def strings(values: String*) = StringList.newBuilder().addAllValues(values.asJava).build()
  private def refused(f: => Any): WJoinAnalysisException = intercept[WJoinAnalysisException](f)
  private def bytes(b: Int*): ByteString = ByteString.copyFrom(b.map(_.toByte).toArray)
  private val range = Relation.newBuilder().setRange(Range.newBuilder().setEnd(10)).build()
  /** A message whose checks pass, with `inputs` inputs of any bytes (the checks do not read them). */
  private def message(inputs: Int, input: ByteString = range.toByteString) =
    WJoinRelation.newBuilder().addAllInputs(java.util.Collections.nCopies(inputs, input)).setWindow("5")
      .setClientVersion(BuildVersions.version)

  test("unset fields are absent, so RequestCodec.fromMap applies its defaults") {
    val args = WJoinRelationDecoder.arguments(WJoinRelation.newBuilder().setWindow("5").build(), None)
    assert(args == Map("window" -> "5"))
  }

  test("every field maps to its key in the arguments' own types") {
    val condition = new Object
    val m = WJoinRelation.newBuilder().setNames(strings("X", "Y")).addOn("k").setWindows(strings("WINDOW(X,Y) = 5"))
      .setAlgorithm("").setWindowStrategy("gca").setBidirectional(true).setAccessPaths("X:hash")
      .setExpirationInterval("auto").setHow("left")
      .setTimeByInput(InputColumns.newBuilder()
        .addColumns(InputColumn.newBuilder().setInput("Y").setColumn("t2"))
        .addColumns(InputColumn.newBuilder().setInput("X").setColumn("t1"))).build()
    val args = WJoinRelationDecoder.arguments(m, Some(condition))
    assert(args("names") == List("X", "Y").asJava && args("on") == List("k").asJava)
    assert(args("windows") == List("WINDOW(X,Y) = 5").asJava && !args.contains("window"))
    assert(args("algorithm") == "" && args("window_strategy") == "gca") // "" is passed on: an error there
    assert(args("bidirectional") == java.lang.Boolean.TRUE && (args("condition") eq condition))
    assert(args("access_paths") == "X:hash" && args("expiration_interval") == "auto" && args("how") == "left")
    val time = args("time").asInstanceOf[java.util.Map[String, String]].asScala.toSeq
    assert(time == Seq("Y" -> "t2", "X" -> "t1")) // the client's order
  }

  test("time as one column or one per input") {
    assert(WJoinRelationDecoder.arguments(WJoinRelation.newBuilder().setTimeColumn("ts").build(), None)("time") == "ts")
    val perInput = WJoinRelation.newBuilder().setTimePerInput(strings("a", "b")).build()
    assert(WJoinRelationDecoder.arguments(perInput, None)("time") == List("a", "b").asJava)
  }

  test("limits, allocation and seed become the map's limits / allocation / seed; an empty limits map is passed on") {
    val limits = NumberMap.newBuilder().putValues("state_rows", 10.0).putValues("probe_rate", 2.5).build()
    val shares = BudgetShares.newBuilder().putBudgets("state_rows", NumberMap.newBuilder().putValues("A", 1.0).build()).build()
    val args = WJoinRelationDecoder.arguments(WJoinRelation.newBuilder().setLimits(limits).setAllocationPerBudget(shares)
      .setSeed(7).build(), None)
    assert(args("limits") == Map("state_rows" -> 10.0, "probe_rate" -> 2.5).asJava)
    assert(args("allocation") == Map("state_rows" -> Map("A" -> 1.0).asJava).asJava)
    assert(args("seed") == java.lang.Long.valueOf(7))
    val named = WJoinRelationDecoder.arguments(WJoinRelation.newBuilder().setAllocationName("equal").build(), None)
    assert(named("allocation") == "equal" && !named.contains("limits") && !named.contains("seed"))
    val empty = WJoinRelationDecoder.arguments(WJoinRelation.newBuilder().setLimits(NumberMap.newBuilder()).build(), None)
    assert(empty("limits") == Map.empty[String, java.lang.Double].asJava)
  }

  test("the client's version must be the jar's; the jar's Spark minor release the running one") {
    BuildVersions.requireSameClient(BuildVersions.version)
    BuildVersions.requireSameClient("")
    val e = intercept[WJoinAnalysisException](BuildVersions.requireSameClient("0.0.1"))
    assert(e.getMessage.contains(s"client's spark-wjoin is 0.0.1 but the server's jar is ${BuildVersions.version}"))
    BuildVersions.requireSupportedSpark()
    val s = intercept[WJoinAnalysisException](BuildVersions.requireSupportedSpark("3.4.1"))
    assert(s.condition == "WJOIN_UNSUPPORTED_SPARK_VERSION" && s.getSqlState == "0A000")
    val minor = BuildVersions.sparkVersion.split('.').take(2).mkString(".")
    assert(s.getMessage.contains(s"runs on Spark $minor, but this is Spark 3.4.1"), s.getMessage)
    assert(s.getMessage.contains(s"spark-wjoin_${minor}_${BuildVersions.scalaBinary}"), s.getMessage)
    assert(BuildVersions.scalaBinary == scala.util.Properties.versionNumberString.split('.').take(2).mkString("."))
  }

  test("the input count is checked before any input is read: a count is all it takes") {
    WJoinRelationDecoder.check(message(RequestLimits.MaxInputs).build())
    val garbage = bytes(0, 1, 2)
    val many = refused(WJoinRelationDecoder.check(message(10000, garbage).build()))
    assert(many.condition == "WJOIN_TOO_MANY_INPUTS" && many.parameters("count") == "10000")
    assert(refused(WJoinRelationDecoder.check(message(0).build())).condition == "WJOIN_TOO_FEW_INPUTS")
    // 2 inputs of garbage pass the checks of the message; reading them fails, naming the input
    WJoinRelationDecoder.check(message(2, garbage).build())
    val read = refused(WJoinRelationDecoder.relation(garbage, 1, 1024))
    assert(read.condition == "WJOIN_INVALID_CONNECT_MESSAGE" && read.getSqlState == "22023")
    assert(read.text.startsWith("the Spark Connect message's inputs[1] is not valid: Protocol message"), read.text)
  }

  test("fields the message type does not declare are refused, named by number, also inside a list") {
    val extra = UnknownFieldSet.newBuilder().addField(22, UnknownFieldSet.Field.newBuilder().addVarint(5).build()).build()
    val top = refused(WJoinRelationDecoder.check(message(2).setUnknownFields(extra).build()))
    assert(top.condition == "WJOIN_INVALID_CONNECT_MESSAGE" && top.parameters("field") == "WJoinRelation")
    assert(top.parameters("reason").startsWith("field number(s) 22 are not fields of spark-wjoin"), top.text)
    val inNames = message(2).setNames(strings("A", "B").toBuilder.setUnknownFields(extra)).build()
    assert(refused(WJoinRelationDecoder.check(inNames)).parameters("reason").startsWith("field number(s) names.22 "))
    // on the wire: a newer client's field 22 after the known ones
    val wire = ProtoAny.newBuilder().setTypeUrl("type.googleapis.com/wjoin.connect.WJoinRelation")
      .setValue(message(2).build().toByteString.concat(bytes(0xb0, 0x01, 0x05))).build()
    assert(refused(WJoinRelationDecoder.check(WJoinRelationDecoder.unpack(wire))).parameters("reason")
      .startsWith("field number(s) 22 "))
  }

  test("bytes that are not a WJoinRelation, a Relation or an Expression are refused with the field") {
    def any(value: ByteString) = ProtoAny.newBuilder().setTypeUrl("type.googleapis.com/wjoin.connect.WJoinRelation")
      .setValue(value).build()
    val message = refused(WJoinRelationDecoder.unpack(any(bytes(0, 1, 2))))
    assert(message.condition == "WJOIN_INVALID_CONNECT_MESSAGE" && message.parameters("field") == "WJoinRelation")
    val badUtf8 = refused(WJoinRelationDecoder.unpack(any(bytes(0x42, 1, 0xff)))) // window = "\xff"
    assert(badUtf8.parameters("reason").contains("UTF-8"), badUtf8.text)
    val truncated = range.toByteString.substring(0, range.getSerializedSize - 1)
    assert(refused(WJoinRelationDecoder.relation(truncated, 0, 1024)).parameters("field") == "inputs[0]")
    val empty = refused(WJoinRelationDecoder.relation(ByteString.EMPTY, 3, 1024))
    assert(empty.parameters("reason") == "an empty spark.connect.Relation (no relation type set)")
    assert(WJoinRelationDecoder.relation(range.toByteString, 0, 1024) == range)
    val noExpression = refused(WJoinRelationDecoder.expression(ByteString.EMPTY, 1024))
    assert(noExpression.parameters("field") == "condition" && noExpression.parameters("reason").contains("empty"))
    assert(refused(WJoinRelationDecoder.expression(bytes(0), 1024)).parameters("field") == "condition")
    val column = Expression.newBuilder().setUnresolvedAttribute(
      Expression.UnresolvedAttribute.newBuilder().setUnparsedIdentifier("A.k")).build()
    assert(WJoinRelationDecoder.expression(column.toByteString, 1024) == column)
  }

  test("inputs are parsed with Spark's recursion limit") {
    val deep = (1 to 40).foldLeft(range)((input, _) =>
      Relation.newBuilder().setProject(Project.newBuilder().setInput(input)).build()).toByteString
    assert(WJoinRelationDecoder.relation(deep, 0, 1024).hasProject)
    val e = refused(WJoinRelationDecoder.relation(deep, 0, 50))
    assert(e.condition == "WJOIN_INVALID_CONNECT_MESSAGE" && e.parameters("reason").contains("too many levels"), e.text)
  }

  test("texts, lists and maps of the message over the limits, the client's version included") {
    def argument(m: WJoinRelation.Builder) = {
      val e = refused(WJoinRelationDecoder.check(m.build()))
      assert(e.condition == "WJOIN_ARGUMENT_TOO_LONG", e.text)
      e.parameters("argument")
    }
    WJoinRelationDecoder.check(message(2).setWindow("5 " * 2048).build())
    assert(argument(message(2).setWindow("9" * (1 << 20))) == "window")
    assert(argument(message(2).setClientVersion("0" * 5000)) == "client_version")
    assert(argument(message(2).addAllOn(java.util.Collections.nCopies(RequestLimits.MaxEntries + 1, "k"))) == "on")
    assert(argument(message(2).setLimits(NumberMap.newBuilder().putValues("s" * 5000, 1.0))) == "limits (a key)")
    val longInput = InputColumns.newBuilder().addColumns(InputColumn.newBuilder().setInput("A" * 5000).setColumn("t"))
    assert(argument(message(2).setTimeByInput(longInput)) == "time (an input name)")
  }

  test("an input given twice in time_by_input is refused (a dict cannot hold it twice, a message can)") {
    val twice = InputColumns.newBuilder()
      .addColumns(InputColumn.newBuilder().setInput("A").setColumn("t1"))
      .addColumns(InputColumn.newBuilder().setInput("A").setColumn("t2"))
    val e = refused(WJoinRelationDecoder.check(message(2).setTimeByInput(twice).build()))
    assert(e.condition == "WJOIN_INPUT_GIVEN_TWICE" && e.text == "time: input A is given twice")
  }

  test("W-joins nest at most 16 deep on a thread; the count is restored after a failure") {
    def nest(levels: Int): Int = WJoinRelationDecoder.nested(if (levels == 1) 1 else 1 + nest(levels - 1))
    assert(nest(WJoinRelationDecoder.MaxNesting) == 16)
    val e = refused(nest(WJoinRelationDecoder.MaxNesting + 1))
    assert(e.condition == "WJOIN_NESTING_TOO_DEEP" && e.getSqlState == "54000" && e.parameters("max") == "16")
    intercept[IllegalStateException](WJoinRelationDecoder.nested(throw new IllegalStateException("in a nested plan")))
    assert(nest(WJoinRelationDecoder.MaxNesting) == 16)
  }
}
