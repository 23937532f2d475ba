package wjoin.core

import org.scalatest.funsuite.AnyFunSuite

import wjoin.errors.WJoinAnalysisException
import wjoin.request.RequestLimits

/** Travel-time intervals `[lo, hi]` as written, and terms as long as a request may send (RequestLimits). */
class WindowTermParserSuite extends AnyFunSuite {
  private val names = Seq("A", "B")
  private def parse(text: String) = WindowTermParser.parse(text, names, integralTime = true)
  private def condition(text: String) = intercept[WJoinAnalysisException](parse(text)).condition

  test("an interval: lo up to the first comma, hi up to the bracket, blanks anywhere around them") {
    assert(parse("DWINDOW(A,B) = [-2, 8]") == Seq(DirectedWindow(0, 1, -2, 8, "DWINDOW(A,B) = [-2, 8]")))
    assert(parse("DWINDOW(A,B)=[ 1 ,\n 3 ]").map { case d: DirectedWindow => (d.lo, d.hi) } == Seq((1L, 3L)))
    assert(condition("DWINDOW(A,B) = [5, 1]") == "WJOIN_EMPTY_INTERVAL")
    assert(condition("WINDOW(A,B) = [1, 3]") == "WJOIN_INVALID_WINDOW_TERM") // an interval needs DWINDOW
    assert(condition("DWINDOW(A,B) = [1, 2, 3]") == "WJOIN_INVALID_LENGTH") // hi = "2, 3"
    assert(condition("DWINDOW(A,B) = [ , 3]") == "WJOIN_INVALID_LENGTH") // no lo: not an interval, not a length
  }

  test("terms of the longest text a request may hold, blanks around the comma included, are read at once") {
    val half = (RequestLimits.MaxTextLength - 30) / 2
    val blanks = s"DWINDOW(A,B) = [1${" " * half},${" " * half}x]"
    assert(blanks.length <= RequestLimits.MaxTextLength)
    assert(condition(blanks) == "WJOIN_INVALID_LENGTH") // the old pattern backtracked for hours on this
    val spaced = s"DWINDOW(A,B) = [1${" " * half},${" " * half}2]"
    assert(parse(spaced).map { case d: DirectedWindow => (d.lo, d.hi) } == Seq((1L, 2L)))
  }
}
