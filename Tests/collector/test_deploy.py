"""deploy/: the collector's systemd unit run as systemd would run it (its ExecStart with the
environment file's variables, DATABASE_URL from the environment only), its hardening against the
ingest unit's, and the compose service."""
import json
import os
import re
import signal
import subprocess
import time

import pytest
import yaml

from conftest import LISTENING, REPOSITORY, TALLY, add_key, count, envelope
from http_util import post

SYSTEMD = REPOSITORY / "deploy/systemd"


def unit(name: str) -> dict[str, list[str]]:
    values: dict[str, list[str]] = {}
    for line in (SYSTEMD / name).read_text().splitlines():
        if line and not line.startswith(("#", "[")) and "=" in line:
            key, value = line.split("=", 1)
            values.setdefault(key, []).append(value)
    return values


def environment_file() -> dict[str, str]:
    return {k: v[0] for k, v in unit("tally.env.example").items()}


def test_serve_unit_is_hardened_at_least_like_the_ingest_unit():
    serve, ingest = unit("tally-serve.service"), unit("tally-ingest.service")
    hardening = {"NoNewPrivileges", "ProtectSystem", "ProtectHome", "PrivateTmp", "PrivateDevices",
                 "ProtectKernelTunables", "ProtectKernelModules", "ProtectControlGroups", "RestrictAddressFamilies",
                 "RestrictNamespaces", "LockPersonality", "MemoryDenyWriteExecute", "SystemCallArchitectures"}
    for key in hardening:
        assert serve.get(key) == ingest.get(key), key
    assert serve["User"] == ["tally"] and serve["EnvironmentFile"] == ["/etc/tally/tally.env"]
    assert serve["ReadWritePaths"] == ["/var/lib/tally"]
    assert serve["CapabilityBoundingSet"] == [""]
    # The database URL holds a password: it comes from the environment file, never argv (ps shows argv).
    assert "DATABASE_URL" not in serve["ExecStart"][0]
    env = environment_file()
    for variable in re.findall(r"\$\{(\w+)\}", serve["ExecStart"][0]):
        assert variable in env, f"ExecStart uses ${{{variable}}}, which tally.env.example does not set"


@pytest.mark.tally_only
def test_serve_unit_exec_start_runs_the_collector(database, tmp_path):
    env = environment_file()
    keys = tmp_path / "keys.json"
    key = add_key(keys, "ios-app")
    env.update(DATABASE_URL=database, TALLY_KEYS=str(keys), TALLY_SERVE_PORT="0",
               TALLY_REGISTRY=str(REPOSITORY / "Examples/registry"), TALLY_DATA_DIR=str(tmp_path / "data"))
    command = unit("tally-serve.service")["ExecStart"][0].split()
    assert command[0] == "/usr/local/bin/tally"
    # systemd's ${VAR} expansion, each variable one argument.
    arguments = [str(TALLY)] + [re.sub(r"\$\{(\w+)\}", lambda m: env[m.group(1)], a) for a in command[1:]]
    process = subprocess.Popen(arguments, env={**env, "PATH": os.environ["PATH"]}, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        for line in process.stderr:
            match = LISTENING.match(line)
            if match or time.monotonic() > deadline:
                break
        assert match, "no listening line"
        url = f"http://{match.group(1)}:{match.group(2)}"
        event = envelope(name="episode_list_viewed", feature="episode", properties={})
        reply = post(url, "/v1/events", json.dumps([event]).encode(),
                     {"Authorization": f"Bearer {key}", "Content-Type": "application/json"})
        assert reply.status == 200, reply.body
        assert count(database) == 1
        # `systemctl reload`: the unit's ExecReload with systemd's $MAINPID, after a revoke.
        reload = unit("tally-serve.service")["ExecReload"]
        assert reload == ["/bin/kill -HUP $MAINPID"]
        revoked = subprocess.run([str(TALLY), "keys", "revoke", "--keys", str(keys), key], capture_output=True, text=True)
        assert revoked.returncode == 0, revoked.stderr
        subprocess.run(reload[0].replace("$MAINPID", str(process.pid)).split(), check=True)
        deadline = time.monotonic() + 30
        while (status := post(url, "/v1/events", json.dumps([event]).encode(), {
                "Authorization": f"Bearer {key}", "Content-Type": "application/json"}).status) == 200:
            assert time.monotonic() < deadline and process.poll() is None, "the revoked key still accepted"
            time.sleep(0.05)
        assert status == 401
        process.send_signal(signal.SIGTERM)  # systemd's KillSignal
        assert process.wait(30) == 0
        assert key not in process.stderr.read()
    finally:
        process.kill()


def test_compose_serve_service():
    compose = yaml.safe_load((REPOSITORY / "deploy/container/compose.yaml").read_text())
    serve = compose["services"]["serve"]
    assert serve["image"] == "tally" and serve["command"][0] == "serve"
    assert "--keys" in serve["command"] and "DATABASE_URL" in serve["environment"]
    assert serve["ports"] == ["127.0.0.1:8080:8080"]
    assert serve["depends_on"]["migrate"]["condition"] == "service_completed_successfully"
    proxy = compose["services"]["proxy"]
    assert any("deploy/nginx" in v or "../nginx/tally-collector.conf" in v for v in proxy["volumes"])
