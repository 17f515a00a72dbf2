"""The baseline collector for scripts/bench.sh --part collector: what a team would write in an afternoon
with the usual Python stack, written to be fast, not to lose (FastAPI on uvicorn with uvloop and
httptools, psycopg 3 with an async connection pool, COPY into a per-connection staging table, then
one INSERT … ON CONFLICT DO NOTHING into tally.events).

Same rules as `tally serve` on `POST /v1/events`: gzip NDJSON (or a JSON array) of tally envelopes,
body limit 500 KB as sent and 8 MB inflated (streamed, bounded), 32 KB per event, an optional
keys file (SHA-256 hashes, Bearer or Basic), events deduplicated by event_id, and a 2xx only after
the transaction that stored them committed (503 with Retry-After when the database fails).

Configuration through the environment, as uvicorn's workers are separate processes:
BASELINE_DATABASE_URL (required), BASELINE_KEYS (a tally keys file; none: no auth)."""
import base64
import contextlib
import datetime
import hashlib
import json
import os
import uuid
import zlib

import psycopg
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from psycopg_pool import AsyncConnectionPool

MAX_REQUEST_BYTES = 500 * 1024
MAX_INFLATED_BYTES = 8 * 1024 * 1024
MAX_EVENT_BYTES = 32 * 1024
# The namespace tally derives ids of id-less lines with (sql/0007_foreign_sources.sql).
ID_NAMESPACE = uuid.UUID("f105c21a-08e0-5751-8548-82d7eca2ad03")
COLUMNS = ("event_id", "occurred_at", "name", "feature", "properties", "sent_at", "received_at",
           "user_id", "anonymous_id", "session_id", "context", "schema_version")
COLUMN_LIST = ", ".join(COLUMNS)


def load_keys() -> set[str] | None:
    path = os.environ.get("BASELINE_KEYS")
    if not path:
        return None
    with open(path, encoding="utf-8") as file:
        return {entry["sha256"] for entry in json.load(file)["keys"] if entry.get("status") != "revoked"}


KEYS = load_keys()


async def configure(connection: psycopg.AsyncConnection) -> None:
    # Emptied by every commit: no TRUNCATE round trip per request.
    await connection.execute(f"""CREATE TEMP TABLE IF NOT EXISTS staging (
        event_id uuid, occurred_at timestamptz, name text, feature text, properties jsonb,
        sent_at timestamptz, received_at timestamptz, user_id text, anonymous_id text,
        session_id text, context jsonb, schema_version text) ON COMMIT DELETE ROWS""")
    await connection.commit()


pool = AsyncConnectionPool(os.environ["BASELINE_DATABASE_URL"], min_size=4, max_size=8, open=False,
                           configure=configure, timeout=5)
# Months whose partition this process has made sure of (tally.ensure_partitions is idempotent).
partitions: set[str] = set()
@contextlib.asynccontextmanager
async def lifespan(_: FastAPI):
    await pool.open()
    yield
    await pool.close()


app = FastAPI(openapi_url=None, docs_url=None, redoc_url=None, lifespan=lifespan)


def error(status: int, code: str, message: str, headers: dict | None = None) -> JSONResponse:
    return JSONResponse({"error": {"code": code, "message": message}}, status_code=status, headers=headers)


def authorized(request: Request) -> bool:
    if KEYS is None:
        return True
    header = request.headers.get("authorization", "")
    key = ""
    if header.startswith("Bearer "):
        key = header[7:]
    elif header.startswith("Basic "):
        try:
            key = base64.b64decode(header[6:]).decode().split(":", 1)[0]
        except ValueError:
            return False
    return bool(key) and hashlib.sha256(key.encode()).hexdigest() in KEYS


def inflate(body: bytes) -> bytes | None:
    """Streamed gzip/deflate inflate that stops at the cap (None: over it)."""
    inflater = zlib.decompressobj(47)  # 32 + 15: gzip or zlib header, detected
    output = inflater.decompress(body, MAX_INFLATED_BYTES + 1)
    if len(output) > MAX_INFLATED_BYTES or inflater.unconsumed_tail:
        return None
    if not inflater.eof:
        raise zlib.error("truncated compressed body")
    return output


def events_of(text: bytes) -> list[tuple[bytes, dict]]:
    stripped = text.lstrip()
    if stripped.startswith(b"["):
        return [(json.dumps(item).encode(), item) for item in json.loads(stripped)]
    return [(line, json.loads(line)) for line in text.split(b"\n") if line.strip()]


@app.post("/v1/events")
@app.post("/v1/events/")
async def events(request: Request) -> JSONResponse:
    if not authorized(request):
        return error(401, "unauthorized", "unknown or missing write key")
    length = request.headers.get("content-length")
    if length is not None and int(length) > MAX_REQUEST_BYTES:
        return error(413, "request_too_large", f"body over {MAX_REQUEST_BYTES} bytes")
    body = await request.body()
    if len(body) > MAX_REQUEST_BYTES:
        return error(413, "request_too_large", f"body over {MAX_REQUEST_BYTES} bytes")
    encoding = request.headers.get("content-encoding", "").lower()
    if encoding in ("gzip", "deflate") or body[:2] == b"\x1f\x8b":
        try:
            inflated = inflate(body)
        except zlib.error as failure:
            return error(400, "invalid_encoding", str(failure))
        if inflated is None:
            return error(413, "decompressed_too_large", f"body inflates past {MAX_INFLATED_BYTES} bytes")
        body = inflated
    elif encoding not in ("", "identity"):
        return error(415, "unsupported_encoding", f"Content-Encoding {encoding}")
    try:
        parsed = events_of(body)
    except (ValueError, UnicodeDecodeError) as failure:
        return error(400, "invalid_json", str(failure))
    if not parsed:
        return error(400, "no_events", "the body holds no events")
    received = datetime.datetime.now(datetime.timezone.utc)
    rows, rejected, months = [], [], set()
    for index, (raw, event) in enumerate(parsed):
        if len(raw) > MAX_EVENT_BYTES:
            rejected.append({"index": index, "reason": "too_large", "path": "$",
                             "message": f"{len(raw)} bytes, over the {MAX_EVENT_BYTES}-byte event limit"})
            continue
        if not isinstance(event, dict) or not isinstance(event.get("name"), str) or "occurred_at" not in event:
            rejected.append({"index": index, "reason": "missing_field", "message": "name and occurred_at are required"})
            continue
        try:
            occurred = datetime.datetime.fromisoformat(event["occurred_at"].replace("Z", "+00:00"))
        except (AttributeError, ValueError):
            rejected.append({"index": index, "reason": "invalid_timestamp", "path": "/occurred_at",
                             "message": "occurred_at is not RFC 3339"})
            continue
        months.add(occurred.strftime("%Y-%m-01"))
        rows.append((
            event.get("event_id") or str(uuid.uuid5(ID_NAMESPACE, raw.decode())), occurred, event["name"],
            event.get("feature") or "", json.dumps(event.get("properties") or {}), event.get("sent_at"), received,
            event.get("user_id"), event.get("anonymous_id"), event.get("session_id"),
            json.dumps(event["context"]) if "context" in event else None, event.get("schema_version"),
        ))
    stored = 0
    if rows:
        try:
            async with pool.connection() as connection:
                async with connection.cursor() as cursor:
                    for month in months - partitions:
                        await cursor.execute("SELECT tally.ensure_partitions(%s::date, %s::date)", (month, month))
                    async with cursor.copy(f"COPY staging ({COLUMN_LIST}) FROM STDIN") as copy:
                        for row in rows:
                            await copy.write_row(row)
                    await cursor.execute(f"INSERT INTO tally.events ({COLUMN_LIST}) "
                                         f"SELECT {COLUMN_LIST} FROM staging ON CONFLICT DO NOTHING")
                    stored = cursor.rowcount
                # The pool's context manager commits here; the reply goes out only after it.
            partitions.update(months)
        except (psycopg.Error, OSError) as failure:
            return error(503, "unavailable", type(failure).__name__, {"Retry-After": "1"})
    # Rejected events are answered, not stored: the baseline keeps no dead letters (tally does).
    return JSONResponse({"accepted": len(rows), "duplicates": len(rows) - stored, "rejected": rejected})


@app.get("/healthz")
async def healthz() -> JSONResponse:
    return JSONResponse({"status": "ok"})
