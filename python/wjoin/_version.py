"""The versions of this package, the jar inside it and the Spark they were built for.

The one source of both numbers: pyproject.toml reads ``__version__`` and build.sbt reads both
(the jar records them in ``wjoin/version.properties``), so the wheel, the plain jar and the
Python package always agree. Spark checks them at run time: the extension against the running
Spark, the Connect plugin against the client's package, the Python API against the session.
"""
__version__ = "0.1.0"
spark_version = "4.3.0"
