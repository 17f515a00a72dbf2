"""Runs the baseline collector like `tally serve` runs: `serve.py --port 0 --database-url URL
[--keys FILE] [--workers 2]`, printing `baseline: listening on http://HOST:PORT` on stderr once it
answers. uvicorn with uvloop and httptools, access log off (as one would deploy it)."""
import argparse
import os
import socket
import sys
import threading
import time
import urllib.request

import uvicorn


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8081)
    parser.add_argument("--database-url", default=os.environ.get("DATABASE_URL"))
    parser.add_argument("--keys")
    parser.add_argument("--workers", type=int, default=2)
    arguments = parser.parse_args()
    port = arguments.port
    if port == 0:
        probe = socket.socket()
        probe.bind((arguments.host, 0))
        port = probe.getsockname()[1]
        probe.close()
    os.environ["BASELINE_DATABASE_URL"] = arguments.database_url
    if arguments.keys:
        os.environ["BASELINE_KEYS"] = arguments.keys
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

    def announce() -> None:
        for _ in range(600):
            try:
                urllib.request.urlopen(f"http://{arguments.host}:{port}/healthz", timeout=1).read()
                print(f"baseline: listening on http://{arguments.host}:{port}", file=sys.stderr, flush=True)
                return
            except OSError:
                time.sleep(0.05)

    threading.Thread(target=announce, daemon=True).start()
    uvicorn.run("app:app", host=arguments.host, port=port, workers=arguments.workers, loop="uvloop",
                http="httptools", access_log=False, log_level="warning")


if __name__ == "__main__":
    main()
