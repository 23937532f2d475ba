"""The Spark UI's SQL tab with a W-join, as a picture for the user guide ("EXPLAIN and metrics").

    .venv/bin/python docs/tools/ui_screenshot.py [OUT.png]     (default docs/img/spark-ui-wjoin.png)

Runs a small keyed batch W-join of two inputs with the Spark UI on (a local port chosen by Spark),
finds its execution through the REST API (`/api/v1/applications/<id>/sql`), and has headless
Chromium (Debian's `chromium` package) take a screenshot of that execution's page: the plan graph
with the W-join node and its SQL metrics. Needs nothing but this machine: the UI is local.

The page shows metrics inside the graph's nodes in its "detailed mode", a checkbox whose state the
page keeps in the browser's local storage. Chromium's `--screenshot` cannot click, so the UI is
reached through a small proxy on another local port: its `/detailed` page sets that state (same
origin as the proxied UI) and goes on to the execution's page.
"""
from __future__ import annotations

import http.server
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
os.environ["SPARK_LOCAL_IP"] = "127.0.0.1"
sys.path.insert(0, os.path.join(ROOT, "python"))

from pyspark.sql import SparkSession  # noqa: E402

import wjoin  # noqa: E402


def proxy(ui: str, page: str) -> http.server.ThreadingHTTPServer:
    """A local proxy of the Spark UI at `ui` whose `/detailed` turns on detailed mode, then opens `page`."""
    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (http.server's name)
            if self.path == "/detailed":
                body = ('<script>localStorage.setItem("detailed-labels-checked", "true");'
                        f'location.replace("{page}");</script>').encode()
                kind = "text/html"
            else:
                with urllib.request.urlopen(ui + self.path, timeout=120) as response:
                    body, kind = response.read(), response.headers.get("Content-Type", "text/html")
            self.send_response(200)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def main(out: str) -> None:
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        sys.exit("needs headless Chromium: apt-get install -y chromium")
    builder = (SparkSession.builder.master("local[2]").appName("wjoin-ui")
               .config("spark.ui.enabled", "true").config("spark.ui.port", "0")
               .config("spark.sql.shuffle.partitions", "2"))
    spark = wjoin.configure(builder).getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    try:
        a, b = [spark.range(20000).selectExpr("id % 50 as k", "timestamp_seconds(id) as ts").alias(n) for n in "AB"]
        a.wjoin(b, on="k", time="ts", window="5 minutes").write.format("noop").mode("overwrite").save()
        ui = spark.sparkContext.uiWebUrl
        api = f"{ui}/api/v1/applications/{spark.sparkContext.applicationId}/sql?details=true"
        with urllib.request.urlopen(api, timeout=120) as response:
            executions = json.load(response)
        execution = next(e["id"] for e in executions if any(n["nodeName"] == "WindowJoin" for n in e["nodes"]))
        server = proxy(ui, f"/SQL/execution/?id={execution}")
        try:
            with tempfile.TemporaryDirectory() as profile:
                subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                                f"--user-data-dir={profile}", "--window-size=1200,2000", "--virtual-time-budget=15000",
                                f"--screenshot={os.path.abspath(out)}",
                                f"http://127.0.0.1:{server.server_address[1]}/detailed"],
                               check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=600)
        finally:
            server.shutdown()
        print(f"wrote {out} (execution {execution})")
    finally:
        spark.stop()


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "docs", "img", "spark-ui-wjoin.png"))
