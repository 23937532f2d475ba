"""The Python API's tests again, through a Spark Connect session against a real Connect server."""
