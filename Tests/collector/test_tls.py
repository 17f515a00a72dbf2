"""TLS through the documented reverse proxy: nginx runs deploy/nginx/tally-collector.conf (only its
ports and certificate paths replaced) with a self-signed certificate in front of a live collector,
and real clients send over https."""
import gzip
import json
import os
import socket
import subprocess
import time
import uuid

import pytest
from segment.analytics.client import Client as SegmentClient

from conftest import REPOSITORY, count, envelope, stored_ids

SITE = REPOSITORY / "deploy/nginx/tally-collector.conf"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def https(collector, tmp_path):
    """nginx with the deploy configuration in front of `collector`; yields (https URL, CA file)."""
    certificate, key = tmp_path / "collector.crt", tmp_path / "collector.key"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=localhost",
                    "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1", "-keyout", str(key), "-out",
                    str(certificate)], check=True, capture_output=True)
    port = free_port()
    site = SITE.read_text()
    replacements = {
        "server 127.0.0.1:8080;": f"server 127.0.0.1:{collector.port};",
        "listen 443 ssl http2;": f"listen 127.0.0.1:{port} ssl http2;",
        "listen [::]:443 ssl http2;": "",
        "/etc/ssl/tally/collector.crt": str(certificate),
        "/etc/ssl/tally/collector.key": str(key),
    }
    for old, new in replacements.items():
        assert old in site, f"{SITE.name} no longer has {old!r}: update this test with it"
        site = site.replace(old, new)
    (tmp_path / "site.conf").write_text(site)
    user = "user root;" if os.geteuid() == 0 else ""
    (tmp_path / "nginx.conf").write_text(f"""{user}
worker_processes 1;
daemon off;
pid {tmp_path}/nginx.pid;
error_log {tmp_path}/nginx-error.log;
events {{}}
http {{
    access_log off;
    client_body_temp_path {tmp_path}/body;
    proxy_temp_path {tmp_path}/proxy;
    include {tmp_path}/site.conf;
}}
""")
    nginx = subprocess.Popen(["nginx", "-p", str(tmp_path), "-c", str(tmp_path / "nginx.conf")],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 20
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            if nginx.poll() is not None or time.monotonic() > deadline:
                nginx.kill()
                pytest.fail("nginx did not start: " + nginx.stderr.read() + (tmp_path / "nginx-error.log").read_text())
            time.sleep(0.05)
    yield f"https://localhost:{port}", str(certificate)
    nginx.terminate()
    nginx.wait(20)


def curl(url: str, ca: str, body: bytes, headers: list[str], tmp_path) -> tuple[int, str]:
    path = tmp_path / "request-body"
    path.write_bytes(body)
    command = ["curl", "-sS", "--cacert", ca, "-o", str(tmp_path / "reply"), "-w", "%{http_code}", "-X", "POST",
               url, "--data-binary", f"@{path}"]
    for header in headers:
        command += ["-H", header]
    result = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    return int(result.stdout), (tmp_path / "reply").read_text()


def test_gzip_ndjson_over_https(https, collector, database, tmp_path):
    url, ca = https
    events = [envelope() for _ in range(100)]
    body = gzip.compress("".join(json.dumps(e) + "\n" for e in events).encode())
    headers = ["Content-Type: application/x-ndjson", "Content-Encoding: gzip", f"Authorization: Bearer {collector.key}"]
    status, reply = curl(url + "/v1/events", ca, body, headers, tmp_path)
    assert status == 200, reply
    assert json.loads(reply)["accepted"] == 100
    assert sorted(stored_ids(database)) == sorted(e["event_id"] for e in events)
    # A body over the limit is refused by nginx already; the certificate is checked (no -k).
    status, _ = curl(url + "/v1/events", ca, os.urandom(600 * 1024), headers, tmp_path)
    assert status == 413
    unverified = subprocess.run(["curl", "-sS", url + "/healthz"], capture_output=True, text=True)
    assert unverified.returncode != 0  # self-signed: refused without the CA
    assert count(database) == 100


@pytest.mark.tally_only
def test_segment_library_over_https(https, collector, database, monkeypatch):
    url, ca = https
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", ca)  # requests, inside the library, trusts the test CA
    errors = []
    client = SegmentClient(write_key=collector.key, host=url, on_error=lambda e, *_: errors.append(repr(e)))
    ids = [client.track(user_id="user-1", event="Order Completed", properties={"i": i})[1]["messageId"]
           for i in range(50)]
    client.flush()
    client.join()
    assert errors == []
    assert sorted(stored_ids(database)) == sorted(str(uuid.UUID(i)) for i in ids)
