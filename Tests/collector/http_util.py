"""Small HTTP helpers over http.client: one request on a fresh connection, status and parsed body."""
import http.client
import json
from dataclasses import dataclass


@dataclass
class Reply:
    status: int
    body: bytes
    headers: dict[str, str]

    def json(self):
        return json.loads(self.body)

    def error_code(self) -> str:
        return self.json()["error"]["code"]


def post(base_url: str, path: str, body: bytes, headers: dict[str, str] | None = None, timeout: float = 30) -> Reply:
    return request(base_url, "POST", path, body, headers, timeout)


def request(base_url: str, method: str, path: str, body: bytes | None = None, headers: dict[str, str] | None = None,
            timeout: float = 30) -> Reply:
    host, port = base_url.removeprefix("http://").rsplit(":", 1)
    connection = http.client.HTTPConnection(host, int(port), timeout=timeout)
    try:
        connection.request(method, path, body=body, headers=headers or {})
        response = connection.getresponse()
        return Reply(response.status, response.read(), {k.lower(): v for k, v in response.getheaders()})
    finally:
        connection.close()
