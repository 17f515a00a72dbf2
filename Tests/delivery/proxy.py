"""A test proxy in front of `tally serve`: told per test to pass requests through, answer 413 for
bodies over N bytes, answer 429 with `Retry-After` (or any status) for the next k requests, reset
the connection (before or after forwarding), or answer slowly. It records every request: start and
end (monotonic clock), bytes as sent and inflated, the answer, and the event ids of the gunzipped
body, so a test can tell overlapping requests, re-sends and halved batches apart.

It runs an aiohttp server on its own event loop in a thread; the test's thread configures it."""
import asyncio
import gzip
import json
import socket
import struct
import threading
import time
import zlib
from collections import deque
from dataclasses import dataclass, field
from typing import Callable

import aiohttp
from aiohttp import web

# Not forwarded either way: hop-by-hop headers and those aiohttp recomputes.
HOP_BY_HOP = {"connection", "keep-alive", "transfer-encoding", "te", "upgrade", "proxy-connection", "host",
              "content-length", "expect", "trailer"}


@dataclass
class Recorded:
    """One request as the proxy saw it. `status` is the answer's status, or "reset" (the proxy
    reset the connection) or "unreachable" (no collector to forward to: the connection was reset)."""
    number: int
    method: str
    path: str
    start: float
    headers: dict[str, str]
    bytes: int = 0
    inflated_bytes: int = 0
    event_ids: list[str] = field(default_factory=list)
    names: list[str] = field(default_factory=list)
    session_ids: list[str | None] = field(default_factory=list)
    text: str = ""  # the inflated body, for assertions on what left the device
    parse_error: str | None = None
    end: float | None = None
    status: int | str | None = None
    answered_by: str = ""  # "proxy" or "collector"
    forwarded: bool = False  # the collector got the body (whatever the client then saw)
    client_gone: bool = False  # the client had closed its connection before the answer was ready

    @property
    def succeeded(self) -> bool:
        return isinstance(self.status, int) and 200 <= self.status < 300


@dataclass
class Answer:
    """A one-shot behaviour for the next request: a status of the proxy's own, or a reset."""
    status: int | None = None
    headers: dict[str, str] = field(default_factory=dict)
    reset: bool = False
    after_forward: bool = False  # reset only once the collector has answered (the answer is lost)


class TestProxy:
    __test__ = False  # not a pytest class

    def __init__(self, upstream: Callable[[], str | None]):
        """`upstream()` gives the collector's base URL, or None while there is none."""
        self.upstream = upstream
        self.lock = threading.Lock()
        self.records: list[Recorded] = []
        self.answers: deque[Answer] = deque()
        self.max_body: int | None = None
        self.delay = 0.0
        self.loop: asyncio.AbstractEventLoop | None = None
        self.runner: web.AppRunner | None = None
        self.session: aiohttp.ClientSession | None = None
        self.port = 0
        self.thread: threading.Thread | None = None

    # Configuration (any thread) ------------------------------------------------------------

    def pass_through(self) -> None:
        with self.lock:
            self.answers.clear()
            self.max_body, self.delay = None, 0.0

    def reject_over(self, max_bytes: int | None) -> None:
        """413 for every request body over `max_bytes` as sent; None: no limit."""
        with self.lock:
            self.max_body = max_bytes

    def answer(self, count: int, status: int, headers: dict[str, str] | None = None) -> None:
        """The next `count` requests are answered `status` by the proxy, not forwarded."""
        with self.lock:
            self.answers.extend(Answer(status=status, headers=dict(headers or {})) for _ in range(count))

    def forward(self, count: int) -> None:
        """The next `count` requests pass through (ahead of the behaviours queued after them)."""
        with self.lock:
            self.answers.extend(Answer() for _ in range(count))

    def throttle(self, count: int, retry_after: int) -> None:
        self.answer(count, 429, {"Retry-After": str(retry_after)})

    def reset(self, count: int, after_forward: bool = False) -> None:
        """The next `count` requests get their connection reset: before forwarding (the collector
        never sees them) or after (it stored them, the client never hears so)."""
        with self.lock:
            self.answers.extend(Answer(reset=True, after_forward=after_forward) for _ in range(count))

    def slow(self, delay: float) -> None:
        """Every request waits `delay` seconds before it is forwarded (0: no delay)."""
        with self.lock:
            self.delay = delay

    # Observation ----------------------------------------------------------------------------

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def requests(self) -> list[Recorded]:
        with self.lock:
            return list(self.records)

    def in_flight(self) -> int:
        with self.lock:
            return sum(1 for record in self.records if record.end is None)

    def wait_for(self, condition: Callable[["TestProxy"], bool], timeout: float, what: str) -> None:
        deadline = time.monotonic() + timeout
        while not condition(self):
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out after {timeout}s waiting for {what}; requests:\n{self.describe()}")
            time.sleep(0.02)

    def describe(self, last: int = 30) -> str:
        """The last requests, one line each, for assertion messages."""
        lines = []
        for record in self.requests[-last:]:
            duration = "open" if record.end is None else "%.3fs" % (record.end - record.start)
            lines.append(f"#{record.number} {record.method} {record.path} {record.bytes} B "
                         f"{len(record.event_ids)} events → {record.status} by {record.answered_by or '-'} "
                         f"({duration})")
        return "\n".join(lines)

    # Lifecycle ------------------------------------------------------------------------------

    def start(self) -> "TestProxy":
        started = threading.Event()
        failure: list[BaseException] = []

        def run() -> None:
            self.loop = asyncio.new_event_loop()
            try:
                self.loop.run_until_complete(self.serve())
            except BaseException as error:  # reported to start()'s caller
                failure.append(error)
                started.set()
                return
            started.set()
            self.loop.run_forever()

        self.thread = threading.Thread(target=run, name="test-proxy", daemon=True)
        self.thread.start()
        started.wait(30)
        if failure or not self.port:
            raise AssertionError(f"the test proxy did not start: {failure}")
        return self

    async def serve(self) -> None:
        application = web.Application(client_max_size=64 * 1024 * 1024)
        application.router.add_route("*", "/{tail:.*}", self.handle)
        # No keep-alive: every request is its own connection, so a reset reaches only that one. The body
        # is kept as sent (auto_decompress=False): forwarded byte for byte, counted as the client sent it.
        self.runner = web.AppRunner(application, access_log=None, keepalive_timeout=0, auto_decompress=False)
        await self.runner.setup()
        site = web.TCPSite(self.runner, "127.0.0.1", 0)
        await site.start()
        self.port = site._server.sockets[0].getsockname()[1]
        self.session = aiohttp.ClientSession(auto_decompress=False, timeout=aiohttp.ClientTimeout(total=120),
                                             connector=aiohttp.TCPConnector(limit=0, force_close=True))

    def stop(self) -> None:
        if self.loop is None:
            return

        async def close() -> None:
            if self.session is not None:
                await self.session.close()
            if self.runner is not None:
                await self.runner.cleanup()

        asyncio.run_coroutine_threadsafe(close(), self.loop).result(30)
        self.loop.call_soon_threadsafe(self.loop.stop)
        assert self.thread is not None
        self.thread.join(30)

    # The handler ----------------------------------------------------------------------------

    async def handle(self, request: web.Request) -> web.StreamResponse:
        with self.lock:
            record = Recorded(number=len(self.records) + 1, method=request.method, path=request.path_qs,
                              start=time.monotonic(), headers={k.lower(): v for k, v in request.headers.items()})
            self.records.append(record)
        try:
            return await self.answer_request(request, record)
        finally:
            with self.lock:
                record.end = time.monotonic()

    async def answer_request(self, request: web.Request, record: Recorded) -> web.StreamResponse:
        body = await request.read()
        record.bytes = len(body)
        parse_events(body, record)
        with self.lock:
            max_body, delay = self.max_body, self.delay
            answer = self.answers.popleft() if self.answers else None
        if max_body is not None and len(body) > max_body:
            if answer is not None:  # the one-shot behaviour waits for the next request
                with self.lock:
                    self.answers.appendleft(answer)
            return self.own(record, 413, {}, {"error": {"code": "request_too_large", "message": "test proxy"}})
        if answer is not None and answer.status is not None:
            return self.own(record, answer.status, answer.headers, {"error": {"code": "test_proxy"}})
        if answer is not None and answer.reset and not answer.after_forward:
            return self.reset_connection(request, record, "reset")
        if delay:
            await asyncio.sleep(delay)
        base = self.upstream()
        if base is None:
            return self.reset_connection(request, record, "unreachable")
        headers = {k: v for k, v in request.headers.items() if k.lower() not in HOP_BY_HOP}
        assert self.session is not None
        try:
            async with self.session.request(request.method, base + request.path_qs, data=body,
                                            headers=headers) as upstream:
                reply = await upstream.read()
                status, reply_headers = upstream.status, upstream.headers
        except (aiohttp.ClientError, OSError, asyncio.TimeoutError):
            return self.reset_connection(request, record, "unreachable")
        record.forwarded = True
        record.client_gone = request.transport is None or request.transport.is_closing()
        if answer is not None and answer.reset:
            return self.reset_connection(request, record, "reset")
        record.status, record.answered_by = status, "collector"
        response = web.Response(status=status, body=reply,
                                headers={k: v for k, v in reply_headers.items() if k.lower() not in HOP_BY_HOP})
        return response

    def own(self, record: Recorded, status: int, headers: dict[str, str], body: dict) -> web.Response:
        record.status, record.answered_by = status, "proxy"
        return web.json_response(body, status=status, headers=headers)

    def reset_connection(self, request: web.Request, record: Recorded, status: str) -> web.StreamResponse:
        """A TCP reset (SO_LINGER 0, then abort): the client sees the connection fail, no answer."""
        record.status, record.answered_by = status, "proxy"
        transport = request.transport
        if transport is not None:
            sock = transport.get_extra_info("socket")
            if sock is not None:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            transport.abort()
        raise asyncio.CancelledError()


def parse_events(body: bytes, record: Recorded) -> None:
    """The event ids, names and session ids of a tally NDJSON or Segment batch body (gzip or not)."""
    try:
        if record.headers.get("content-encoding", "").lower() == "gzip" or body[:2] == b"\x1f\x8b":
            body = gzip.decompress(body)
        record.inflated_bytes = len(body)
        text = body.decode()
        record.text = text
        stripped = text.lstrip()
        if stripped.startswith("{") and '"batch"' in stripped[:200] and "\n" not in stripped.rstrip("\n"):
            messages = json.loads(text)["batch"]
            for message in messages:
                record.event_ids.append(str(message.get("messageId")).lower())
                record.names.append(str(message.get("event") or message.get("type")))
                record.session_ids.append(session_of(message))
            return
        for line in text.splitlines():
            if not line.strip():
                continue
            event = json.loads(line)
            record.event_ids.append(str(event.get("event_id")).lower())
            record.names.append(str(event.get("name")))
            record.session_ids.append(event.get("session_id"))
    except (OSError, EOFError, zlib.error, UnicodeDecodeError, ValueError, KeyError, TypeError) as error:
        record.parse_error = f"{type(error).__name__}: {error}"


def session_of(message: dict) -> str | None:
    for holder in (message, message.get("properties") or {}, message.get("context") or {}):
        for key in ("session_id", "sessionId", "$session_id"):
            if isinstance(holder, dict) and holder.get(key) is not None:
                return str(holder[key])
    return None


def overlapping(records: list[Recorded]) -> list[tuple[Recorded, Recorded]]:
    """Pairs of requests that were open at the same time (an open request overlaps everything after it)."""
    ordered = sorted(records, key=lambda record: record.start)
    pairs = []
    for index, first in enumerate(ordered):
        for second in ordered[index + 1:]:
            first_end = first.end if first.end is not None else float("inf")
            if second.start < first_end:
                pairs.append((first, second))
            else:
                break
    return pairs


def resends(records: list[Recorded], acknowledged: bool = False) -> list[tuple[Recorded, Recorded]]:
    """(earlier, later) pairs where a later request carried event ids an earlier one already had;
    with `acknowledged`, only where the earlier one was answered 2xx (a re-send after a 503 or a
    reset is what a client must do; after a 2xx it is a duplicate)."""
    seen: dict[str, Recorded] = {}
    pairs = []
    for record in sorted(records, key=lambda record: record.start):
        earlier = {id(seen[event_id]): seen[event_id] for event_id in record.event_ids if event_id in seen}
        pairs.extend((first, record) for first in earlier.values() if first.succeeded or not acknowledged)
        for event_id in record.event_ids:
            seen[event_id] = record
    return pairs
