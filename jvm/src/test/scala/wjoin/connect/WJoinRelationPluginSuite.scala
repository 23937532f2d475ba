package wjoin.connect

import scala.jdk.CollectionConverters._

import org.scalatest.funsuite.AnyFunSuite

import wjoin.connect.proto.{BudgetShares, InputColumn, InputColumns, NumberMap, StringList, WJoinRelation}
import wjoin.errors.WJoinAnalysisException
import wjoin.extension.BuildVersions

/** The Connect message becomes the plain map the classic API passes (end to end: tests/on_connect). */
class WJoinRelationPluginSuite extends AnyFunSuite {
  private def strings(values: String*) = StringList.newBuilder().addAllValues(values.asJava).build()

  test("unset fields are absent, so RequestCodec.fromMap applies its defaults") {
    val args = WJoinRelationPlugin.arguments(WJoinRelation.newBuilder().setWindow("5").build(), None)
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
    val args = WJoinRelationPlugin.arguments(m, Some(condition))
    assert(args("names") == List("X", "Y").asJava && args("on") == List("k").asJava)
    assert(args("windows") == List("WINDOW(X,Y) = 5").asJava && !args.contains("window"))
    assert(args("algorithm") == "" && args("window_strategy") == "gca") // "" is passed on: an error there
    assert(args("bidirectional") == java.lang.Boolean.TRUE && (args("condition") eq condition))
    assert(args("access_paths") == "X:hash" && args("expiration_interval") == "auto" && args("how") == "left")
    val time = args("time").asInstanceOf[java.util.Map[String, String]].asScala.toSeq
    assert(time == Seq("Y" -> "t2", "X" -> "t1")) // the client's order
  }

  test("time as one column or one per input") {
    assert(WJoinRelationPlugin.arguments(WJoinRelation.newBuilder().setTimeColumn("ts").build(), None)("time") == "ts")
    val perInput = WJoinRelation.newBuilder().setTimePerInput(strings("a", "b")).build()
    assert(WJoinRelationPlugin.arguments(perInput, None)("time") == List("a", "b").asJava)
  }

  test("limits, allocation and seed become the map's limits / allocation / seed; an empty limits map is passed on") {
    val limits = NumberMap.newBuilder().putValues("state_rows", 10.0).putValues("probe_rate", 2.5).build()
    val shares = BudgetShares.newBuilder().putBudgets("state_rows", NumberMap.newBuilder().putValues("A", 1.0).build()).build()
    val args = WJoinRelationPlugin.arguments(WJoinRelation.newBuilder().setLimits(limits).setAllocationPerBudget(shares)
      .setSeed(7).build(), None)
    assert(args("limits") == Map("state_rows" -> 10.0, "probe_rate" -> 2.5).asJava)
    assert(args("allocation") == Map("state_rows" -> Map("A" -> 1.0).asJava).asJava)
    assert(args("seed") == java.lang.Long.valueOf(7))
    val named = WJoinRelationPlugin.arguments(WJoinRelation.newBuilder().setAllocationName("equal").build(), None)
    assert(named("allocation") == "equal" && !named.contains("limits") && !named.contains("seed"))
    val empty = WJoinRelationPlugin.arguments(WJoinRelation.newBuilder().setLimits(NumberMap.newBuilder()).build(), None)
    assert(empty("limits") == Map.empty[String, java.lang.Double].asJava)
  }

  test("the client's version must be the jar's; the jar's Spark minor release the running one") {
    BuildVersions.requireSameClient(BuildVersions.version)
    BuildVersions.requireSameClient("")
    val e = intercept[WJoinAnalysisException](BuildVersions.requireSameClient("0.0.1"))
    assert(e.getMessage.contains(s"client's spark-wjoin is 0.0.1 but the server's jar is ${BuildVersions.version}"))
    BuildVersions.requireSupportedSpark()
    val s = intercept[WJoinAnalysisException](BuildVersions.requireSupportedSpark("3.5.1"))
    assert(s.getCondition == "WJOIN_UNSUPPORTED_SPARK_VERSION" && s.getSqlState == "0A000")
    val minor = BuildVersions.sparkVersion.split('.').take(2).mkString(".")
    assert(s.getMessage.contains(s"runs on Spark $minor, but this is Spark 3.5.1"), s.getMessage)
    assert(s.getMessage.contains("spark-wjoin_3.5_2.13"), s.getMessage)
  }
}
