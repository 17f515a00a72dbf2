"""Write keys rotated and revoked with the CLI while clients send without a pause, each change
taken by `tally serve` on SIGHUP: no request in flight fails or is dropped, no connection is cut,
the new key works once reloaded, the revoked one gets 401 from the reload on, and a keys file
that is broken or missing at a reload leaves the keys as they were."""
import http.client
import json
import re
import signal
import socket
import subprocess
import threading
import time
import uuid

import pytest

from conftest import TALLY, envelope, query
from http_util import request

pytestmark = pytest.mark.tally_only


def keys_cli(*arguments: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(TALLY), "keys", *arguments], capture_output=True, text=True)


def metric(collector, name: str, labels: str) -> int:
    text = request(collector.url, "GET", "/metrics").body.decode()
    match = re.search(rf"^{re.escape(name)}\{{{re.escape(labels)}\}} (\d+)", text, re.M)
    return int(match.group(1)) if match else 0


def reload_keys(collector, outcome: str = "applied") -> float:
    """SIGHUP, then wait until /metrics counts the reload: the moment from which every request
    is checked against the reloaded keys (or, failed, still against the old ones)."""
    labels = f'outcome="{outcome}"'
    before = metric(collector, "tally_collector_keys_reloads_total", labels)
    collector.process.send_signal(signal.SIGHUP)
    deadline = time.monotonic() + 30
    while metric(collector, "tally_collector_keys_reloads_total", labels) == before:
        assert time.monotonic() < deadline, f"no {outcome} reload within 30 s\n" + collector.log()
        assert collector.alive(), collector.log()
        time.sleep(0.02)
    return time.monotonic()


class Sender(threading.Thread):
    """Sends 5 events a request, back to back, on one keep-alive connection with `key`, and
    records every request: when it started and ended, its status or its error."""

    def __init__(self, collector, key: str):
        super().__init__(daemon=True)
        self.key = key
        self.host, port = collector.url.removeprefix("http://").rsplit(":", 1)
        self.port = int(port)
        self.stop = threading.Event()
        self.records: list[dict] = []
        self.connections = 0

    def run(self) -> None:
        connection = http.client.HTTPConnection(self.host, self.port, timeout=30)
        while not self.stop.is_set():
            ids = [str(uuid.uuid4()) for _ in range(5)]
            body = "".join(json.dumps(envelope(event_id=i)) + "\n" for i in ids).encode()
            record = {"start": time.monotonic(), "ids": ids, "status": None, "error": None}
            try:
                if connection.sock is None:
                    self.connections += 1
                connection.request("POST", "/v1/events", body, {
                    "Authorization": f"Bearer {self.key}", "Content-Type": "application/x-ndjson"})
                response = connection.getresponse()
                response.read()
                record["status"] = response.status
                if response.getheader("Connection", "").lower() == "close":
                    connection.close()  # a refused key ends its connection (docs/collector.md)
            except (OSError, http.client.HTTPException) as error:
                record["error"] = repr(error)
                connection.close()
            record["end"] = time.monotonic()
            self.records.append(record)
        connection.close()


class SlowRequest:
    """A request whose head (with its key) and half its body are sent now, the rest later."""

    def __init__(self, collector, key: str):
        self.ids = [str(uuid.uuid4()) for _ in range(20)]
        self.body = "".join(json.dumps(envelope(event_id=i)) + "\n" for i in self.ids).encode()
        host, port = collector.url.removeprefix("http://").rsplit(":", 1)
        self.socket = socket.create_connection((host, int(port)), timeout=30)
        head = (f"POST /v1/events HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {key}\r\n"
                f"Content-Type: application/x-ndjson\r\nContent-Length: {len(self.body)}\r\n\r\n")
        self.socket.sendall(head.encode() + self.body[: len(self.body) // 2])

    def finish(self) -> int:
        self.socket.sendall(self.body[len(self.body) // 2:])
        response = http.client.HTTPResponse(self.socket)
        response.begin()
        response.read()
        self.socket.close()
        return response.status


def test_rotate_and_revoke_under_load_with_sighup(start_collector, database):
    collector = start_collector()
    keys_file, old_key = str(collector.keys_file), collector.key
    listed = keys_cli("list", "--keys", keys_file)
    assert listed.returncode == 0, listed.stderr
    old_id = listed.stdout.split("\t")[0]
    assert re.fullmatch(r"[0-9a-f]{12}", old_id), listed.stdout

    senders_old = [Sender(collector, old_key) for _ in range(3)]
    for sender in senders_old:
        sender.start()
    time.sleep(0.5)

    # Rotate: the new key is printed once; the running collector knows it only after SIGHUP.
    rotated = keys_cli("rotate", "--keys", keys_file, old_id)
    assert rotated.returncode == 0, rotated.stderr
    new_key = rotated.stdout.strip()
    probe = lambda key: request(collector.url, "POST", "/v1/events", json.dumps([envelope()]).encode(),
                                {"Authorization": f"Bearer {key}", "Content-Type": "application/json"}).status
    assert probe(new_key) == 401
    reload_keys(collector)
    assert probe(new_key) == 200
    senders_new = [Sender(collector, new_key) for _ in range(2)]
    for sender in senders_new:
        sender.start()
    time.sleep(0.5)
    assert metric(collector, "tally_collector_rotated_key_requests_total", f'key_id="{old_id}"') > 0

    # A request with the old key, in flight (head and half its body sent) while the key is
    # revoked and the keys reloaded: it finishes as it started, 200 and stored.
    slow = SlowRequest(collector, old_key)
    time.sleep(0.5)
    revoked = keys_cli("revoke", "--keys", keys_file, old_key)  # by the key itself
    assert revoked.returncode == 0, revoked.stderr
    revoke_sent = time.monotonic()
    revoke_applied = reload_keys(collector)
    assert slow.finish() == 200
    time.sleep(1)
    assert probe(old_key) == 401

    # A keys file that cannot be read at a reload changes nothing: the new key still works,
    # the revoked one is still refused, the collector keeps running.
    good = collector.keys_file.read_text()
    for broken in ['{"keys": [', None]:
        if broken is None:
            collector.keys_file.unlink()
        else:
            collector.keys_file.write_text(broken)
        reload_keys(collector, "failed")
        time.sleep(0.5)
        assert probe(new_key) == 200 and probe(old_key) == 401
    assert sum("cannot reload the keys:" in line for line in collector.stderr_lines) == 2, collector.log()
    collector.keys_file.write_text(good)
    reload_keys(collector)
    time.sleep(0.5)

    for sender in senders_old + senders_new:
        sender.stop.set()
    for sender in senders_old + senders_new:
        sender.join(30)
    assert collector.terminate() == 0

    # No request failed or was dropped: each got a status, none an error.
    records = [r for s in senders_old + senders_new for r in s.records]
    errors = [r["error"] for r in records if r["error"]]
    assert not errors, errors[:5]
    # The new key's clients kept their one connection through four reloads, every request 200.
    for sender in senders_new:
        assert sender.connections == 1
        assert sender.records and all(r["status"] == 200 for r in sender.records)
    # The old key: 200 until the revoke was sent, 401 once it was reloaded, either in between.
    old_records = [r for s in senders_old for r in s.records]
    for record in old_records:
        if record["end"] < revoke_sent:
            assert record["status"] == 200, record
        elif record["start"] > revoke_applied:
            assert record["status"] == 401, record
        else:
            assert record["status"] in (200, 401), record
    assert sum(r["status"] == 401 for r in old_records) > 0
    assert sum(r["status"] == 200 and r["end"] < revoke_sent for r in old_records) > 0

    # Every acknowledged event is stored, no refused one is.
    acknowledged = {i for r in records if r["status"] == 200 for i in r["ids"]} | set(slow.ids)
    refused = {i for r in records if r["status"] == 401 for i in r["ids"]}
    stored = {str(row[0]) for row in query(database, "SELECT event_id FROM tally.events")}
    assert acknowledged <= stored
    assert not refused & stored
    print(f"{len(records)} requests: {sum(r['status'] == 200 for r in records)} 200, "
          f"{sum(r['status'] == 401 for r in records)} 401 (the revoked key after its reload)")
    assert old_key not in "\n".join(collector.stderr_lines) and new_key not in "\n".join(collector.stderr_lines)
