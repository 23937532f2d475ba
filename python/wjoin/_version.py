"""The versions of this package, the jars inside it and the Sparks they are built for.

The one source of these numbers: pyproject.toml reads ``__version__``, build.sbt and bin/setup
read them all (each jar records them in ``wjoin/version.properties``), so the wheel, the jars and
the Python package always agree. ``spark_builds`` maps each supported Spark minor to the
pyspark release its jar is compiled against; any patch release of that minor runs it.
``scala_builds`` gives the Scala binary version of that jar. Spark
checks them at run time: the extension against the running Spark, the Connect plugin against
the client's package, the Python API against the session.
"""
__version__ = "0.1.0"
# The Maven group of the jars (spark.jars.packages=<group>:spark-wjoin_<minor>_<scala>:<version>).
maven_group = "io.github.sparkwjoin"
spark_builds = {"3.5": "3.5.7", "4.0": "4.0.5", "4.1": "4.1.4", "4.2": "4.2.1", "4.3": "4.3.0"}
# The Scala each minor's jar in the wheel is built for: its pyspark's (spark-wjoin_<minor>_<scala>).
scala_builds = {"3.5": "2.12", "4.0": "2.13", "4.1": "2.13", "4.2": "2.13", "4.3": "2.13"}
# Jars built for Maven only, in a second Scala (no pyspark of it to put them in the wheel for).
maven_only_builds = {"3.5": "2.13"}
