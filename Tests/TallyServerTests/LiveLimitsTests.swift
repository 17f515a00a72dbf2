import Foundation
import TallyTestSupport
import Testing

/// What only a real socket shows: `Expect: 100-continue` answered, a request trickled in closed
/// by the read timeout, an idle connection closed, a body cut off refused, too many headers
/// refused, connections of requests refused before they were read let go. The file sink, no key.
@Suite("tally serve, live limits", .serialized)
struct LiveLimitsTests {
    static func start(
        _ work: String,
        timeouts: [String] = ["--read-timeout", "1", "--idle-timeout", "6"]
    ) async throws -> (ChildProcess, Int) {
        let child = try ChildProcess(
            "tally",
            arguments: [
                "serve", "--port", "0", "--allow-anonymous", "--data-dir", work + "/data", "--max-header-count", "20",
            ] + timeouts
        )
        let line = try await #require(child.standardErrorLine(containing: "listening on"))
        return (child, try #require(Int(line.split(separator: ":").last ?? "")))
    }

    /// Runs a Python snippet with the port as its argument; returns what it printed.
    static func python(_ code: String, port: Int) async throws -> String {
        let result = try await Script.run(
            ["-c", #"python3 -c "$1" "$2""#, "py", code, String(port)],
            timeout: .seconds(60)
        )
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Sends `prefix` (no more), then waits for the server to close: "closed SECONDS", or "error …".
    static func closing(afterSending prefix: String, port: Int) async throws -> String {
        try await python(
            """
            import socket, sys, time
            s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
            s.sendall(b"\(prefix)")
            t = time.time()
            s.settimeout(30)
            try:
                while s.recv(4096): pass
            except Exception as e:
                print("error", e); sys.exit()
            print("closed", round(time.time() - t))
            """,
            port: port
        )
    }

    @Test("100-continue, read and idle timeouts, header count")
    func limits() async throws {
        let work = NSTemporaryDirectory() + "tally-serve-limits-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: work) }
        let (child, port) = try await Self.start(work)

        // curl waits up to --expect100-timeout for the 100 before it sends the body.
        let line = #"{"name":"episode_list_viewed","occurred_at":"2026-11-22T10:00:00Z"}"#
        try (line + "\n").write(toFile: work + "/one.ndjson", atomically: true, encoding: .utf8)
        let started = ContinuousClock.now
        let curl = try await Script.run([
            "-c",
            #"curl -s -o /dev/null -w '%{http_code}' --expect100-timeout 30 -H 'Expect: 100-continue' --data-binary @"$1" "$2""#,
            "curl", work + "/one.ndjson", "http://127.0.0.1:\(port)/v1/events",
        ])
        #expect(curl.stdout == "200")
        #expect(ContinuousClock.now - started < .seconds(20), "the 100 came from the server, not curl's timeout")

        // A head that stops arriving: closed by the read timeout (1 s), which runs from the
        // request's first byte, well before the idle timeout (6 s).
        let head = try await Self.closing(afterSending: "POST /v1/ev", port: port)
        #expect(head.hasPrefix("closed"), "\(head)")
        #expect((Int(head.split(separator: " ").last ?? "") ?? 99) < 5, "\(head)")

        // A body that stops arriving: the connection is closed by the read timeout (1 s).
        let trickled = try await Self.closing(
            afterSending: #"POST /v1/events HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n{"#,
            port: port
        )
        #expect(trickled.hasPrefix("closed"), "\(trickled)")
        #expect((Int(trickled.split(separator: " ").last ?? "") ?? 99) < 5, "\(trickled)")

        // A connection that sends nothing is closed by the idle timeout (2 s).
        let idle = try await Self.closing(afterSending: "", port: port)
        #expect(idle.hasPrefix("closed"), "\(idle)")
        #expect(
            (Int(idle.split(separator: " ").last ?? "") ?? 0) >= 5,
            "the idle timeout, not the read timeout: \(idle)"
        )

        // A body cut off (the client half-closes mid-chunk): closed or 4xx, never a 5xx.
        let cut = try await Self.python(
            """
            import socket, sys
            s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
            s.sendall(b"POST /v1/events HTTP/1.1\\r\\nHost: x\\r\\nTransfer-Encoding: chunked\\r\\n\\r\\n10\\r\\n{\\"name\\"")
            s.shutdown(socket.SHUT_WR)
            s.settimeout(30)
            try:
                print(s.recv(4096).split(b"\\r\\n")[0].decode() or "closed")
            except ConnectionResetError:
                print("closed")
            """,
            port: port
        )
        #expect(cut == "closed" || cut.hasPrefix("HTTP/1.1 4"), "\(cut)")

        // More header fields than --max-header-count: 400 and closed.
        let headers = try await Self.python(
            """
            import socket, sys
            s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
            extra = "".join("X-H%d: v\\r\\n" % i for i in range(50))
            s.sendall(("GET /healthz HTTP/1.1\\r\\nHost: x\\r\\n" + extra + "\\r\\n").encode())
            s.settimeout(30)
            print(s.recv(4096).split(b"\\r\\n")[0].decode())
            """,
            port: port
        )
        #expect(headers.hasPrefix("HTTP/1.1 4"), "\(headers)")

        child.signal(SIGTERM)
        #expect(await child.wait(timeout: .seconds(60)).status == 0)
    }

    /// Sends `request`, reads the answer, closes, then watches the collector's sockets (argv[3]
    /// is its pid): the status line, whether the answer said `Connection: close`, and whether
    /// the collector let the connection go (`released`) or still held it 60 s later (`held`).
    static let refusedClient = """
        import os, socket, sys, time
        def sockets():
            n = 0
            for fd in os.listdir("/proc/%s/fd" % sys.argv[3]):
                try:
                    n += os.readlink("/proc/%s/fd/%s" % (sys.argv[3], fd)).startswith("socket:")
                except FileNotFoundError:
                    pass
            return n
        before = sockets()
        s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
        try:
            s.sendall(eval(sys.argv[2]))
        except OSError:
            pass
        s.settimeout(60)
        try:
            head = s.recv(65536).split(b"\\r\\n\\r\\n")[0]
        except OSError as e:
            print("no answer", e); sys.exit()
        s.close()
        deadline = time.monotonic() + 60
        while sockets() > before and time.monotonic() < deadline:
            time.sleep(0.05)
        print(head.split(b"\\r\\n")[0].decode(), "close" if b"connection: close" in head.lower() else "open",
              "held" if sockets() > before else "released")
        """

    @Test("a request answered before it was read whole: Connection: close, released once the client is done")
    func refusedUnread() async throws {
        let work = NSTemporaryDirectory() + "tally-serve-refused-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: work) }
        // Timeouts far past the client's 60 s: only reading on to the client's FIN can end these.
        let (child, port) = try await Self.start(work, timeouts: ["--read-timeout", "600", "--idle-timeout", "600"])
        let requests = [
            // A head over --max-header-bytes: 400 from NIO's parser, most of it unread.
            #"b"POST /v1/events HTTP/1.1\r\nHost: x\r\nX-Big: " + b"x" * 300000 + b"\r\n\r\n""#,
            // A body over --max-request-bytes by its Content-Length: 413 before it is read.
            #"b"POST /v1/events HTTP/1.1\r\nHost: x\r\nContent-Length: 2000000\r\n\r\n" + b"x" * 600000"#,
        ]
        for request in requests {
            let result = try await Script.run(
                [
                    "-c", #"python3 -c "$1" "$2" "$3" "$4""#, "py", Self.refusedClient, String(port), request,
                    String(child.process.processIdentifier),
                ],
                timeout: .seconds(120)
            )
            let answer = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(answer.hasPrefix("HTTP/1.1 4") && answer.hasSuffix(" close released"), "\(answer)")
        }
        child.signal(SIGTERM)
        #expect(await child.wait(timeout: .seconds(60)).status == 0)
    }
}
