#!/usr/bin/env python3
"""Cuts an NDJSON file into 100-event gzip bodies for wrk: BODIES (the gzip members back to back)
and LENGTHS (one byte length a line). Usage: bodies.py EVENTS.ndjson BODIES LENGTHS [PER_BODY]"""
import gzip
import sys


def main(source: str, bodies: str, lengths: str, per_body: int = 100) -> None:
    with open(source, "rb") as lines, open(bodies, "wb") as out, open(lengths, "w") as index:
        batch: list[bytes] = []

        def flush() -> None:
            # Level 6: what gzip and the SDKs use by default.
            body = gzip.compress(b"".join(batch), compresslevel=6, mtime=0)
            out.write(body)
            index.write(f"{len(body)}\n")
            batch.clear()

        for line in lines:
            batch.append(line)
            if len(batch) == per_body:
                flush()
        if batch:
            flush()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3], *(int(a) for a in sys.argv[4:5]))
