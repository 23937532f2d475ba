package wjoin.errors

import java.io.File

import scala.io.Source

import org.apache.spark.SparkThrowable
import org.apache.spark.sql.AnalysisException
import org.apache.spark.sql.catalyst.trees.Origin
import org.apache.spark.sql.wjoin.ThrowableApi
import org.scalatest.funsuite.AnyFunSuite

/** The error catalogue: well formed, every condition raised somewhere and documented, and the exception's shape. */
class WJoinErrorsSuite extends AnyFunSuite {
  /** A file of the repository (tests run in jvm/). */
  private def repoFile(path: String): File =
    Seq(new File(path), new File("..", path)).find(_.exists).getOrElse(fail(s"$path not found"))

  private def sources(dir: File, suffix: String): Seq[File] =
    Option(dir.listFiles).toSeq.flatten.flatMap(f => if (f.isDirectory) sources(f, suffix) else Seq(f))
      .filter(_.getName.endsWith(suffix))

  // The Python package raises the conditions the JVM cannot: no jar on the classpath, no Connect plugin.
  private lazy val raised: Set[String] =
    (sources(repoFile("jvm/src/main/scala"), ".scala") ++ sources(repoFile("python/wjoin"), ".py")).flatMap { f =>
      val text = Source.fromFile(f, "UTF-8").mkString
      "\"(WJOIN_[A-Z0-9_]+)\"".r.findAllMatchIn(text).map(_.group(1))
    }.toSet

  test("every condition has a WJOIN_ name, a message and a five-character SQLSTATE of a known class") {
    assert(WJoinErrors.conditions.nonEmpty)
    for ((name, c) <- WJoinErrors.conditions) {
      assert(name.matches("WJOIN_[A-Z0-9_]+"), name)
      assert(c.template.trim.nonEmpty, name)
      assert(c.sqlState.matches("[0-9A-Z]{5}"), s"$name: ${c.sqlState}")
      assert(Set("0A", "22", "42", "55", "54", "53", "XX").contains(c.sqlState.take(2)), s"$name: ${c.sqlState}")
    }
  }

  test("the code raises exactly the declared conditions") {
    assert(raised -- WJoinErrors.conditions.keySet == Set.empty, "raised but not declared")
    assert(WJoinErrors.conditions.keySet -- raised == Set.empty, "declared but never raised")
  }

  test("the user guide's table lists every condition with its SQLSTATE") {
    val guide = Source.fromFile(repoFile("docs/user-guide.md"), "UTF-8").mkString
    for ((name, c) <- WJoinErrors.conditions)
      assert(guide.contains(s"`$name`") && guide.contains(s"| `$name` | ${c.sqlState} |"), s"$name is not in the guide")
  }

  test("the exception: an AnalysisException and SparkThrowable with condition, parameters and SQLSTATE") {
    val e = WJoinErrors.error("WJOIN_NEGATIVE_WINDOW", "what" -> "window", "text" -> "-5")
    assert(e.isInstanceOf[AnalysisException] && e.isInstanceOf[SparkThrowable])
    assert(ThrowableApi.conditionOf(e) == "WJOIN_NEGATIVE_WINDOW" && e.getSqlState == "22023")
    assert(e.getMessageParameters.get("text") == "-5")
    assert(e.getMessage == "[WJOIN_NEGATIVE_WINDOW] window: a window cannot be negative, got '-5' SQLSTATE: 22023")
    assert(e.text == "window: a window cannot be negative, got '-5'")
    val positioned = e.withPosition(Origin(Some(3), Some(4)))
    assert(positioned.isInstanceOf[WJoinAnalysisException] && positioned.getSqlState == "22023")
  }

  test("a parameter without its placeholder, or an undeclared condition, is a bug of ours") {
    intercept[AssertionError](WJoinErrors.error("WJOIN_NEGATIVE_WINDOW", "nope" -> 1))
    intercept[AssertionError](WJoinErrors.error("WJOIN_NO_SUCH_THING"))
  }

  test("check computes its parameters only when it fails") {
    var computed = false
    WJoinErrors.check(ok = true, "WJOIN_NEGATIVE_WINDOW", { computed = true; Nil })
    assert(!computed)
    val e = intercept[WJoinAnalysisException](WJoinErrors.check(ok = false, "WJOIN_TOO_FEW_INPUTS", Seq("count" -> 1)))
    assert(e.text == "a W-join needs at least 2 inputs, got 1")
  }
}
