package wjoin.request

import scala.jdk.CollectionConverters._

import org.scalatest.funsuite.AnyFunSuite

import wjoin.errors.WJoinAnalysisException
import wjoin.plan.logical.WindowJoinBuilder

/** The size limits every front end shares: inputs, texts, lists and maps. */
class RequestLimitsSuite extends AnyFunSuite {
  import RequestLimits._

  private def refused(f: => Any): WJoinAnalysisException = intercept[WJoinAnalysisException](f)
  private def text(n: Int) = "x" * n

  test("2 to 64 inputs, in the one rule WindowJoinBuilder and the Connect plugin apply") {
    requireInputCount(2)
    WindowJoinBuilder.requireInputCount(MaxInputs)
    assert(refused(requireInputCount(1)).condition == "WJOIN_TOO_FEW_INPUTS")
    val e = refused(WindowJoinBuilder.requireInputCount(MaxInputs + 1))
    assert(e.condition == "WJOIN_TOO_MANY_INPUTS" && e.getSqlState == "54000")
    assert(e.text == "a W-join takes at most 64 inputs, got 65")
    assert(refused(requireInputCount(Int.MaxValue)).condition == "WJOIN_TOO_MANY_INPUTS")
  }

  test("a text of more than 4096 characters is refused, naming the argument and the limit, not the text") {
    requireText("window", text(MaxTextLength))
    requireText("window", null)
    val e = refused(requireText("window", text(1 << 20)))
    assert(e.condition == "WJOIN_ARGUMENT_TOO_LONG" && e.getSqlState == "54000")
    assert(e.text == "window has 1048576 characters, but a W-join argument may have at most 4096 characters")
  }

  test("the plain arguments: every string, list entry, map key and value, at any depth") {
    def args(entries: (String, AnyRef)*): Map[String, AnyRef] = entries.toMap
    val fine = args("window" -> text(MaxTextLength), "names" -> java.util.Arrays.asList("A", "B"),
      "allocation" -> java.util.Map.of("state_rows", java.util.Map.of("A", java.lang.Double.valueOf(1))),
      "seed" -> java.lang.Long.valueOf(-1), "condition" -> new Object)
    requireArguments(fine)
    def argument(a: Map[String, AnyRef]) = {
      val e = refused(requireArguments(a))
      assert(e.condition == "WJOIN_ARGUMENT_TOO_LONG")
      (e.parameters("argument"), e.parameters("unit"))
    }
    assert(argument(args("algorithm" -> text(MaxTextLength + 1))) == ("algorithm", "characters"))
    assert(argument(args("names" -> java.util.Arrays.asList("A", text(5000)))) == ("names[1]", "characters"))
    assert(argument(args("on" -> java.util.Collections.nCopies(MaxEntries + 1, "k"))) == ("on", "entries"))
    assert(argument(args("limits" -> java.util.Map.of(text(5000), java.lang.Double.valueOf(1)))) ==
      ("limits (a key)", "characters"))
    assert(argument(args("allocation" -> java.util.Map.of("state_rows", java.util.Map.of("A", text(5000))))) ==
      ("allocation[state_rows][A]", "characters"))
    val many = new java.util.HashMap[String, AnyRef]()
    (0 to MaxEntries).foreach(i => many.put(s"S$i", "ts"))
    assert(argument(args("time" -> many)) == ("time", "entries"))
  }

  test("the request's texts, whichever front end built it: the window terms joined by AND count as one") {
    requireRequest(WJoinRequest(Nil, windows = Some(text(MaxTextLength)), time = TimeColumns.ByInput(Seq("A" -> "ts"))))
    def argument(r: WJoinRequest) = refused(requireRequest(r)).parameters("argument")
    val terms = Seq.fill(300)("WINDOW(A,B) = 5")
    assert(argument(WJoinRequest(Nil, windows = Some(terms.mkString(" AND ")))) == "windows (the terms joined by AND)")
    assert(argument(WJoinRequest(Nil, window = Some(text(5000)))) == "window")
    assert(argument(WJoinRequest(Nil, names = Some(Seq("A", text(5000))))) == "names[1]")
    assert(argument(WJoinRequest(Nil, on = Seq.fill(MaxEntries + 1)("k"))) == "on")
    assert(argument(WJoinRequest(Nil, time = TimeColumns.PerInput(Seq("ts", text(5000))))) == "time[1]")
    assert(argument(WJoinRequest(Nil, time = TimeColumns.ByInput(Seq("A" -> text(5000))))) == "time[A]")
    assert(argument(WJoinRequest(Nil, accessPaths = text(5000))) == "access_paths")
    assert(argument(WJoinRequest(Nil, expirationInterval = text(5000))) == "expiration_interval")
  }

  test("RequestCodec.fromMap checks the sizes before it reads a value") {
    val args = Map[String, AnyRef]("algorithm" -> text(1 << 16)).asJava
    assert(refused(RequestCodec.fromMap(Nil, args, _ => None)).condition == "WJOIN_ARGUMENT_TOO_LONG")
  }
}
