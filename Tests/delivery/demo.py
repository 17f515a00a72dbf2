"""`episode-demo` in app mode (--endpoint, --write-key, --outbox) as a process: its `--progress`
lines on stderr are followed as they come (the last one tells what a killed run had tracked), its
one JSON line on stdout is its result after a graceful end."""
import json
import os
import re
import signal
import subprocess
import threading
import time
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parents[2]
DEMO = Path(os.environ.get("TALLY_EPISODE_DEMO", REPOSITORY / ".build/debug/episode-demo"))
REGISTRY = REPOSITORY / "Examples" / "registry"
RESULT_KEYS = {"tracked", "written", "uploaded", "dropped", "dead_lettered", "outbox"}
OUTBOX_KEYS = {"written", "uploaded", "dropped", "dead_lettered", "waiting", "corrupt"}


class Demo:
    def __init__(self, endpoint: str, key: str, outbox: Path, arguments: list[str], run_id: str | None = None):
        self.endpoint, self.key, self.outbox, self.arguments, self.run_id = endpoint, key, outbox, arguments, run_id
        self.process: subprocess.Popen | None = None
        self.lock = threading.Lock()
        self.progress: list[tuple[float, dict]] = []  # (monotonic time, {"tracked", "written", "uploaded"})
        self.stderr_lines: list[str] = []
        self.stdout = ""
        self.readers: list[threading.Thread] = []

    def command(self) -> list[str]:
        # `--write-key=KEY`: a key may begin with "-" (URL-safe base64), which would read as an option.
        command = [str(DEMO), "--registry", str(REGISTRY), "--endpoint", self.endpoint, f"--write-key={self.key}",
                   "--outbox", str(self.outbox), "--progress", *self.arguments]
        if "--flush-timeout" not in self.arguments:
            # A graceful end returns as soon as the outbox is empty; on a busy machine the default
            # 10 s may not be enough for what a test expects to be uploaded by then.
            command += ["--flush-timeout", "60"]
        if self.run_id is not None:
            command += ["--run-id", self.run_id]
        return command

    def start(self) -> "Demo":
        self.process = subprocess.Popen(self.command(), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, text=True)

        def read_stderr(stream) -> None:
            for line in stream:
                line = line.rstrip("\n")
                now = time.monotonic()
                progress = parse_progress(line)
                with self.lock:
                    if progress is not None:
                        self.progress.append((now, progress))
                    else:
                        self.stderr_lines.append(line)

        def read_stdout(stream) -> None:
            text = stream.read()
            with self.lock:
                self.stdout = text

        assert self.process.stderr is not None and self.process.stdout is not None
        for target, stream in ((read_stderr, self.process.stderr), (read_stdout, self.process.stdout)):
            reader = threading.Thread(target=target, args=(stream,), daemon=True)
            reader.start()
            self.readers.append(reader)
        return self

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def last_progress(self) -> dict:
        with self.lock:
            return dict(self.progress[-1][1]) if self.progress else {"tracked": 0, "written": 0, "uploaded": 0}

    def wait_progress(self, condition, timeout: float, what: str) -> dict:
        """Waits for a progress line that satisfies `condition`; that line."""
        deadline = time.monotonic() + timeout
        while True:
            progress = self.last_progress()
            if condition(progress):
                return progress
            if not self.alive():
                raise AssertionError(f"episode-demo ended while waiting for {what}:\n{self.log()}")
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out after {timeout}s waiting for {what}; last progress {progress}\n"
                                     + self.log())
            time.sleep(0.02)

    def log(self) -> str:
        with self.lock:
            return "\n".join(self.stderr_lines[-30:])

    def kill(self) -> dict:
        """kill -9; the last progress line the killed run printed."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
        if self.process is not None:
            self.process.wait()
        self.join_readers()
        return self.last_progress()

    def terminate(self, timeout: float = 60) -> dict:
        """SIGTERM (graceful: the outbox flushed, uploads tried within --flush-timeout); the result."""
        assert self.process is not None
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        return self.wait(timeout)

    def wait(self, timeout: float = 60) -> dict:
        """The result line of a run that ends by itself (after --visits) or after terminate()."""
        assert self.process is not None
        try:
            status = self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise AssertionError(f"episode-demo did not end within {timeout}s\n{self.log()}")
        self.join_readers()
        assert status == 0, f"episode-demo exited {status}: {self.command()}\n{self.log()}\nstdout: {self.stdout}"
        return self.result()

    def result(self) -> dict:
        lines = [line for line in self.stdout.splitlines() if line.strip()]
        assert len(lines) == 1, f"expected exactly one JSON line on stdout, got {len(lines)}:\n{self.stdout[:2000]}"
        result = json.loads(lines[0])
        assert RESULT_KEYS <= result.keys(), f"result without {RESULT_KEYS - result.keys()}: {lines[0]}"
        assert OUTBOX_KEYS <= result["outbox"].keys(), f"outbox without {OUTBOX_KEYS - result['outbox'].keys()}"
        return result

    def join_readers(self) -> None:
        for reader in self.readers:
            reader.join(10)

    def rss_kib(self) -> int:
        status = Path(f"/proc/{self.pid}/status").read_text()
        return int(re.search(r"^VmRSS:\s+(\d+) kB", status, re.M).group(1))


def parse_progress(line: str) -> dict | None:
    if not line.startswith('{"progress"'):
        return None
    try:
        return json.loads(line)["progress"]
    except (ValueError, KeyError):
        return None


def run_demo(endpoint: str, key: str, outbox: Path, *arguments: str, run_id: str | None = None,
             timeout: float = 60) -> dict:
    """A run to its graceful end (after --visits); its result."""
    return Demo(endpoint, key, outbox, list(arguments), run_id=run_id).start().wait(timeout)
