"""A client that resends whatever was not acknowledged, as the tally, Segment and PostHog SDKs do:
several threads, each posting 100-event gzip NDJSON batches of fresh events to /v1/events and
re-sending a batch (same bytes, same ids) until a 200 answers it. It records what was acknowledged,
so a test can check that every acknowledged event is stored, and that re-sends stored nothing twice."""
import gzip
import http.client
import json
import threading
import time
import uuid
from typing import Callable


class ResendingClients:
    def __init__(self, url: Callable[[], str], key: str, threads: int = 4, batch: int = 100,
                 batches_per_thread: int = 10**9):
        self.url, self.key, self.threads, self.batch = url, key, threads, batch
        self.batches_per_thread = batches_per_thread
        self.lock = threading.Lock()
        self.acknowledged: set[str] = set()  # event ids answered 200
        self.generated: set[str] = set()     # every id any batch held
        self.statuses: dict[object, int] = {}  # status (or exception class name) → count
        self.stop = threading.Event()
        self.workers: list[threading.Thread] = []
        self.failures: list[str] = []  # 200 replies that did not accept the whole batch

    def start(self) -> "ResendingClients":
        for number in range(self.threads):
            worker = threading.Thread(target=self.run, args=(number,), daemon=True)
            worker.start()
            self.workers.append(worker)
        return self

    def finish(self, timeout: float = 120) -> None:
        """Stops making new batches; returns once every batch made was acknowledged."""
        self.stop.set()
        for worker in self.workers:
            worker.join(timeout)
            assert not worker.is_alive(), "a client could not get its batch acknowledged in time"

    def count(self, status: object) -> None:
        with self.lock:
            self.statuses[status] = self.statuses.get(status, 0) + 1

    def run(self, number: int) -> None:
        for sequence in range(self.batches_per_thread):
            if self.stop.is_set():
                return
            events = [{"event_id": str(uuid.uuid4()), "name": "episode_played", "feature": "episode",
                       "properties": {"thread": number, "batch": sequence, "index": index},
                       "occurred_at": "2026-11-20T10:%02d:%02d.000Z" % (index % 60, sequence % 60),
                       "user_id": f"user-{number}-{index % 9}"} for index in range(self.batch)]
            ids = [event["event_id"] for event in events]
            body = gzip.compress("".join(json.dumps(e) + "\n" for e in events).encode(), compresslevel=1)
            with self.lock:
                self.generated.update(ids)
            while not self.send(body, ids):
                time.sleep(0.05)

    def send(self, body: bytes, ids: list[str]) -> bool:
        host, port = self.url().removeprefix("http://").rsplit(":", 1)
        connection = http.client.HTTPConnection(host, int(port), timeout=30)
        try:
            connection.request("POST", "/v1/events", body=body, headers={
                "Content-Type": "application/x-ndjson", "Content-Encoding": "gzip",
                "Authorization": f"Bearer {self.key}"})
            response = connection.getresponse()
            reply = response.read()
        except (OSError, http.client.HTTPException) as error:
            self.count(type(error).__name__)
            return False
        finally:
            connection.close()
        self.count(response.status)
        if response.status in (429, 503) and not response.getheader("Retry-After"):
            self.count("no Retry-After")
        if response.status != 200:
            return False
        answer = json.loads(reply)
        if answer.get("accepted") != len(ids) or answer.get("rejected"):
            self.failures.append(reply.decode()[:300])
        with self.lock:
            self.acknowledged.update(ids)
        return True

    def snapshot(self) -> set[str]:
        with self.lock:
            return set(self.acknowledged)
