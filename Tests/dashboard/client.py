"""HTTP to the dashboard with the standard library, and the translation of an API URL into the
`tally report` command line that must print the same JSON."""
import base64
import urllib.error
import urllib.parse
import urllib.request


def get(url: str, key: str | None = None, basic: bool = False, timeout: float = 60) -> tuple[int, dict, bytes]:
    request = urllib.request.Request(url)
    if key is not None:
        if basic:
            request.add_header("Authorization", "Basic " + base64.b64encode(f"reader:{key}".encode()).decode())
        else:
            request.add_header("Authorization", f"Bearer {key}")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


# The API's query names that are the CLI's flags or options under another spelling.
FLAGS = {"compare": "--compare"}
RENAMED = {"cohort_mode": "--cohort-mode", "dropped_after": "--dropped-after"}


def command(api_url: str) -> list[str]:
    """`/api/v1/report/KIND?name=value…` as `report KIND --name value …` (without the store)."""
    parsed = urllib.parse.urlsplit(api_url)
    kind = parsed.path.rsplit("/", 1)[1]
    pairs = urllib.parse.parse_qsl(parsed.query, keep_blank_values=True)
    arguments = ["report", kind]
    of = dict(pairs).get("of")
    if kind == "actors":
        arguments.append(of)
    for name, value in pairs:
        if name in ("format", "of") or value == "":
            continue
        if name in FLAGS:
            if value in ("1", "true", "on"):
                arguments.append(FLAGS[name])
            continue
        if name == "merge":
            if value == "off":
                arguments.append("--no-merge")
            continue
        arguments += [RENAMED.get(name, "--" + name), value]
    return arguments + ["--format", "json"]
