"""Real clients, unmodified, against a live collector: Segment's and PostHog's Python libraries
from PyPI pointed at it by their host setting, and curl sending gzip NDJSON. Every event lands in
PostgreSQL exactly once (by id and by name, against the clients' own record), identities too."""
import collections
import datetime
import gzip
import json
import subprocess
import uuid

import pytest
from posthog import Posthog
from segment.analytics.client import Client as SegmentClient

from conftest import REPOSITORY, UNDER_TEST, count, envelope, query, stored_ids
from http_util import post, request


def errors_recorder():
    errors = []
    return errors, lambda error, *rest: errors.append(repr(error))


@pytest.mark.tally_only
def test_segment_python_library_track_screen_identify(collector, database):
    errors, on_error = errors_recorder()
    client = SegmentClient(write_key=collector.key, host=collector.url, on_error=on_error, gzip=True,
                           max_retries=3, upload_size=50)
    sent = collections.Counter()
    ids = []
    for index in range(120):
        name = ["Order Completed", "Product Viewed", "Episode Played"][index % 3]
        _, message = client.track(user_id=f"user-{index % 7}", event=name, properties={"index": index, "price": 9.5})
        sent[name] += 1
        ids.append(message["messageId"])
    for index in range(30):
        _, message = client.screen(user_id=f"user-{index % 7}", name="Episode List", properties={"index": index})
        sent["screen"] += 1
        ids.append(message["messageId"])
    identity_ids = []
    for index in range(10):
        _, message = client.identify(user_id=f"user-{index}", traits={"plan": "pro", "index": index})
        identity_ids.append(message["messageId"])
    client.flush()
    client.join()
    assert errors == []
    by_name = dict(query(database, "SELECT name, count(*) FROM tally.events GROUP BY name"))
    assert by_name == dict(sent)
    assert sorted(stored_ids(database)) == sorted(ids)
    assert count(database, "SELECT count(*) FROM tally.identities WHERE type = 'identify'") == 10
    assert sorted(stored_ids(database, "tally.identities")) == sorted(identity_ids)
    traits = query(database, "SELECT traits->>'plan' FROM tally.identities WHERE user_id = 'user-3'")
    assert traits == [("pro",)]


@pytest.mark.tally_only
def test_segment_python_library_resend_stores_nothing_twice(collector, database):
    """The same messages sent by two clients (as after a retry): each stored once."""
    message_ids = [str(uuid.uuid4()) for _ in range(40)]
    for _ in range(2):
        errors, on_error = errors_recorder()
        client = SegmentClient(write_key=collector.key, host=collector.url, on_error=on_error, upload_size=15)
        for index, message_id in enumerate(message_ids):
            client.track(user_id="user-1", event="Signed Up", properties={"index": index}, message_id=message_id,
                         timestamp=datetime.datetime(2026, 11, 20, 9, 0, index % 60))
        client.flush()
        client.join()
        assert errors == []
    assert count(database) == 40
    assert sorted(stored_ids(database)) == sorted(message_ids)


@pytest.mark.tally_only
def test_posthog_python_library_capture_screen_identify(collector, database):
    errors, on_error = errors_recorder()
    client = Posthog(collector.key, host=collector.url, on_error=on_error, flush_at=40, gzip=True,
                     enable_local_evaluation=False, max_retries=3)
    sent = collections.Counter()
    ids = []
    for index in range(100):
        name = ["signed_up", "episode_played"][index % 2]
        ids.append(client.capture(name, distinct_id=f"user-{index % 5}", properties={"index": index}))
        sent[name] += 1
    for index in range(25):
        # What PostHog's mobile SDKs send for a screen view.
        ids.append(client.capture("$screen", distinct_id=f"user-{index % 5}", properties={"$screen_name": "Home"}))
        sent["$screen"] += 1
    identity_ids = []
    for index in range(8):
        # posthog-python 7 has no identify(): this is the $identify event PostHog's JS and mobile
        # SDKs send for identify(), and alias() below is the library's own identity call.
        identity_ids.append(client.capture("$identify", distinct_id=f"user-{index}",
                                           properties={"$anon_distinct_id": f"anon-{index}",
                                                       "$set": {"plan": "free"}}))
    identity_ids.append(client.alias(previous_id="anon-99", distinct_id="user-99"))
    client.flush()
    client.shutdown()
    assert errors == []
    assert all(ids) and all(identity_ids)
    by_name = dict(query(database, "SELECT name, count(*) FROM tally.events GROUP BY name"))
    assert by_name == dict(sent)
    assert sorted(stored_ids(database)) == sorted(str(uuid.UUID(i)) for i in ids)
    assert count(database, "SELECT count(*) FROM tally.identities") == 9
    assert sorted(stored_ids(database, "tally.identities")) == sorted(str(uuid.UUID(i)) for i in identity_ids)
    assert count(database, "SELECT count(*) FROM tally.identities WHERE type = 'alias'") == 1


def test_curl_gzip_ndjson(collector, database, tmp_path):
    events = [envelope(name=["episode_list_viewed", "player_playback_paused"][i % 2],
                       feature=["episode", "player"][i % 2]) for i in range(250)]
    body = tmp_path / "events.ndjson.gz"
    body.write_bytes(gzip.compress("".join(json.dumps(e) + "\n" for e in events).encode()))
    for attempt in range(2):  # the second send is a re-send: all duplicates
        result = subprocess.run(
            ["curl", "-sS", "--fail-with-body", "-X", "POST", f"{collector.url}/v1/events",
             "-H", "Content-Type: application/x-ndjson", "-H", "Content-Encoding: gzip",
             "-H", f"Authorization: Bearer {collector.key}", "--data-binary", f"@{body}",
             "-D", str(tmp_path / "headers")],
            capture_output=True, text=True, timeout=60)
        assert result.returncode == 0, result.stdout + result.stderr
        reply = json.loads(result.stdout)
        assert reply["accepted"] == 250
        assert reply.get("rejected", []) == []
        if "duplicates" in reply:  # optional in the contract; the rows below are what counts
            assert reply["duplicates"] == (250 if attempt else 0)
        if UNDER_TEST != "baseline":  # the baseline sets no request ids
            assert "x-request-id" in (tmp_path / "headers").read_text().lower()
    assert count(database) == 250
    assert sorted(stored_ids(database)) == sorted(e["event_id"] for e in events)
    by_name = dict(query(database, "SELECT name, count(*) FROM tally.events GROUP BY name"))
    assert by_name == {"episode_list_viewed": 125, "player_playback_paused": 125}


def test_rejected_event_is_answered_with_its_index(collector, database):
    events = [envelope(), {"name": "episode_list_viewed", "feature": "episode"}, envelope()]
    reply = post(collector.url, "/v1/events", "".join(json.dumps(e) + "\n" for e in events).encode(),
                 {**collector.auth(), "Content-Type": "application/x-ndjson"})
    assert reply.status == 200, reply.body
    body = reply.json()
    assert body["accepted"] == 2
    assert [r["index"] for r in body["rejected"]] == [1]
    assert body["rejected"][0]["reason"]
    assert count(database) == 2


@pytest.mark.tally_only
def test_segment_reply_lists_refused_messages_and_segment_clients_take_it_as_success(start_collector, database):
    """On Segment's routes a 200 lists the messages the plans refused beside `"success":true`, as
    /v1/events does (tally's uploader counts them); Segment's own client reads the status only."""
    collector = start_collector("--registry", str(REPOSITORY / "Examples" / "registry"))
    context = {"feature": "episode"}  # the plans do not declare build_flavor

    def message(properties: dict) -> dict:
        return {"type": "track", "event": "episode_list_viewed", "userId": "u", "messageId": str(uuid.uuid4()),
                "properties": properties, "context": context, "timestamp": "2026-11-20T10:00:00Z"}

    batch = {"batch": [message({}), message({"build_flavor": "beta"}), message({})]}
    reply = post(collector.url, "/v1/batch", json.dumps(batch).encode(),
                 {**collector.auth(), "Content-Type": "application/json"})
    assert reply.status == 200, reply.body
    body = reply.json()
    assert body["success"] is True and [r["index"] for r in body["rejected"]] == [1], body
    assert body["rejected"][0]["reason"] and body["rejected"][0]["path"]
    reply = post(collector.url, "/v1/batch", json.dumps({"batch": [message({})]}).encode(),
                 {**collector.auth(), "Content-Type": "application/json"})
    assert reply.json() == {"success": True}, "a batch without refusals gets Segment's answer unchanged"

    errors, on_error = errors_recorder()
    client = SegmentClient(write_key=collector.key, host=collector.url, on_error=on_error, max_retries=0)
    client.track(user_id="u", event="episode_list_viewed", properties={"build_flavor": "beta"}, context=context)
    client.track(user_id="u", event="episode_list_viewed", context=context)
    client.flush()
    client.join()
    assert errors == []
    assert count(database) == 2 + 1 + 1
    assert count(database, "SELECT count(*) FROM tally.failed_events") == 2


@pytest.mark.tally_only
def test_health_readiness_and_metrics(collector):
    assert request(collector.url, "GET", "/healthz").status == 200
    assert request(collector.url, "GET", "/readyz").status == 200
    post(collector.url, "/v1/events", json.dumps([envelope()]).encode(),
         {**collector.auth(), "Content-Type": "application/json"})
    metrics = request(collector.url, "GET", "/metrics")
    assert metrics.status == 200
    text = metrics.body.decode()
    assert collector.key not in text
    assert "# TYPE" in text


@pytest.mark.tally_only
def test_segment_settings_and_no_key_in_metrics_or_logs(collector):
    """What Segment's mobile SDKs fetch before they start; the key is in its path, and must not
    reach /metrics or the log through it."""
    reply = request(collector.url, "GET", f"/v1/projects/{collector.key}/settings")
    assert reply.status == 200, reply.body
    settings = reply.json()
    assert "Segment.io" in settings["integrations"]
    assert settings["integrations"]["Segment.io"].get("apiHost")
    assert request(collector.url, "GET", f"/v1/projects/{collector.key}/settings/").status == 200
    metrics = request(collector.url, "GET", "/metrics").body.decode()
    assert collector.key not in metrics
    assert collector.terminate() == 0
    assert collector.key not in "\n".join(collector.stderr_lines)


@pytest.mark.tally_only
def test_graceful_shutdown_exits_zero(collector, database):
    post(collector.url, "/v1/events", json.dumps([envelope()]).encode(),
         {**collector.auth(), "Content-Type": "application/json"})
    assert collector.terminate() == 0
    assert count(database) == 1
    assert collector.key not in "\n".join(collector.stderr_lines)
