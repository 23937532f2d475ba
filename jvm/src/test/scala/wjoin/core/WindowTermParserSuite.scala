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

  test("any input name, between backquotes: spaces, commas, parentheses, AND, '=' and backquotes in it") {
    val odd = Seq("Cam 1", "x, y (and) z = 2", "tick`s")
    def named(text: String) = WindowTermParser.parse(text, odd, integralTime = true)
    val written = odd.map(WindowTermParser.nameText)
    assert(written == Seq("`Cam 1`", "`x, y (and) z = 2`", "`tick``s`"))
    assert(WindowTermParser.nameText("Cam_1") == "Cam_1")
    val terms = named(s"WINDOW(${written(0)},${written(1)}) = 5 AND DWINDOW(${written(1)}, ${written(2)}) = [1, 3] AND " +
      s"RANGE(${written(2)}) = 4 and ROWS(${written(0)}) = 2")
    assert(terms.map(_.getClass.getSimpleName) == Seq("PairWindow", "DirectedWindow", "StreamRange", "StreamRows"))
    assert(terms.head == PairWindow(0, 1, 5, s"WINDOW(${written(0)},${written(1)}) = 5"))
    assert(terms(1) == DirectedWindow(1, 2, 1, 3, s"DWINDOW(${written(1)}, ${written(2)}) = [1, 3]"))
    // A name that is no input is reported as such, never read as terms; a plain name still
    // resolves when written between backquotes.
    val unknown = intercept[WJoinAnalysisException](parse("WINDOW(A,`B) = 100 AND DWINDOW(A,B`) = 5"))
    assert(unknown.condition == "WJOIN_UNKNOWN_INPUT_IN_WINDOW")
    assert(unknown.getMessage.contains("names input 'B) = 100 AND DWINDOW(A,B'"))
    assert(parse("WINDOW(`A`,`b`) = 5") == Seq(PairWindow(0, 1, 5, "WINDOW(`A`,`b`) = 5")))
    assert(condition("WINDOW(`A`,`A`) = 5") == "WJOIN_WINDOW_TERM_SELF")
    assert(condition("WINDOW(A,`B) = 5") == "WJOIN_WINDOW_TERM_SYNTAX") // an unclosed quote
  }
}
