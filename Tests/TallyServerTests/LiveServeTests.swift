import Foundation
import TallyCompression
import TallyPostgres
import TallyTestSupport
import Testing

/// A real `tally serve` process in front of a real PostgreSQL, driven by curl: gzip NDJSON stored
/// exactly once, re-sends store nothing, a wrong key stores nothing, SIGTERM answers what is in
/// flight before the process exits 0.
@Suite("tally serve, live", .serialized)
struct LiveServeTests {
    struct Server {
        let child: ChildProcess
        let port: Int
        let key: String
        let work: String
    }

    static func start(_ database: TestDatabase) async throws -> Server {
        let work = NSTemporaryDirectory() + "tally-serve-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        #expect(try await TestDatabase.tally(["migrate", "--database-url", database.url]).status == 0)
        let added = try await TestDatabase.tally(["keys", "add", "--keys", work + "/keys.json", "--source", "curl"])
        let key = added.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(added.status == 0 && !key.isEmpty && !key.contains("\n"))
        let child = try ChildProcess(
            "tally",
            arguments: [
                "serve", "--port", "0", "--store", "postgres", "--database-url", database.url, "--keys",
                work + "/keys.json", "--data-dir", work + "/data",
            ]
        )
        let line = try await #require(child.standardErrorLine(containing: "listening on"))
        #expect(line.hasPrefix("tally serve: listening on http://127.0.0.1:"))
        let port = try #require(Int(line.split(separator: ":").last ?? ""))
        return Server(child: child, port: port, key: key, work: work)
    }

    /// `count` tally envelopes with ids `start…`, gzip-compressed, in a file of `work`.
    static func gzipBody(_ work: String, _ name: String, count: Int, start: Int) throws -> String {
        var text = ""
        for index in start..<(start + count) {
            text +=
                #"{"event_id":"0190c5a2-0000-7000-8000-\#(String(format: "%012d", index))","name":"episode_list_viewed","occurred_at":"2026-11-22T10:00:00.000Z","sent_at":"2026-11-22T10:00:05.000Z","user_id":"u\#(index % 7)"}"#
                + "\n"
        }
        let path = work + "/" + name
        try Data(Deflater.compress(Array(text.utf8), format: .gzip)).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// curl's status code for a POST of `file` (gzip NDJSON) with `authorization`.
    static func post(_ server: Server, _ file: String, authorization: String) async throws -> Int {
        let result = try await Script.run(
            [
                "-c",
                #"curl -s -o /dev/null -w '%{http_code}' -H "Authorization: $1" -H 'Content-Encoding: gzip' -H 'Content-Type: application/x-ndjson' --data-binary @"$2" "$3""#,
                "post", authorization, file, "http://127.0.0.1:\(server.port)/v1/events",
            ]
        )
        return Int(result.stdout) ?? -1
    }

    static func count(_ url: String, _ sql: String) async throws -> Int {
        let connection = try await PostgresConnection.connect(url)
        let rows = try await connection.query(sql)
        await connection.close()
        return Int(rows[0][0] ?? "") ?? -1
    }

    @Test("gzip NDJSON with curl: rows exactly once, a re-send stores nothing, a wrong key 401 and no row")
    func exactlyOnce() async throws {
        let database = try await TestDatabase.create()
        let server = try await Self.start(database)
        defer { try? FileManager.default.removeItem(atPath: server.work) }
        let body = try Self.gzipBody(server.work, "a.gz", count: 100, start: 0)
        await #expect(try Self.post(server, body, authorization: "Bearer \(server.key)") == 200)
        #expect(try await TestDatabase.eventCount(database.url) == 100)
        await #expect(try Self.post(server, body, authorization: "Bearer \(server.key)") == 200)
        #expect(try await TestDatabase.eventCount(database.url) == 100)
        // HEAD is GET without a body: a GET after it on the same connection still reads right.
        let head = try await Script.run(
            [
                "-c",
                #"curl -s -I -o /dev/null -w '%{http_code} ' "$1" --next -s -o /dev/null -w '%{http_code}' "$1""#,
                "head", "http://127.0.0.1:\(server.port)/healthz",
            ]
        )
        #expect(head.stdout == "200 200", "\(head.stdout) \(head.stderr)")
        let other = try Self.gzipBody(server.work, "b.gz", count: 10, start: 1000)
        await #expect(try Self.post(server, other, authorization: "Bearer not-a-key") == 401)
        #expect(try await TestDatabase.eventCount(database.url) == 100)
        #expect(
            try await Self.count(
                database.url,
                "SELECT count(*) FROM tally.events WHERE corrected_at = received_at - interval '5 seconds'"
            ) == 100
        )
        server.child.signal(SIGTERM)
        let result = await server.child.wait(timeout: .seconds(60))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stderr.contains(server.key))
        await database.drop()
    }

    @Test("SIGTERM while requests are in flight: each 200 is stored, then exit 0")
    func drainsOnSigterm() async throws {
        let database = try await TestDatabase.create()
        let server = try await Self.start(database)
        defer { try? FileManager.default.removeItem(atPath: server.work) }
        let requests = 40
        for index in 0..<requests {
            _ = try Self.gzipBody(server.work, "r\(index).gz", count: 100, start: index * 100)
        }
        // Every request in the background; SIGTERM once the first rows are in.
        let script = #"""
            cd "$1"; for i in $(seq 0 $(($3 - 1))); do
              curl -s -o /dev/null -w "$i %{http_code}\n" -H "Authorization: Bearer $2" -H 'Content-Encoding: gzip' \
                --data-binary @r$i.gz "http://127.0.0.1:$4/v1/events" > status-$i &
            done; wait; cat status-*
            """#
        let pid = server.child.process.processIdentifier
        async let terminated: Void = {
            _ = try? await TestDatabase.waitForRows(database.url, timeout: .seconds(60))
            kill(pid, SIGTERM)
        }()
        let sent = try await Script.run(
            ["-c", script, "send", server.work, server.key, String(requests), String(server.port)],
            timeout: .seconds(120)
        )
        await terminated
        let result = await server.child.wait(timeout: .seconds(60))
        #expect(result.status == 0, "\(result.stderr)")
        var acknowledged: [Int] = []
        for line in sent.stdout.split(separator: "\n") {
            let fields = line.split(separator: " ")
            if fields.count == 2, fields[1] == "200", let index = Int(fields[0]) { acknowledged.append(index) }
        }
        #expect(!acknowledged.isEmpty)
        for index in acknowledged {
            let stored = try await Self.count(
                database.url,
                """
                SELECT count(*) FROM tally.events WHERE event_id BETWEEN
                '0190c5a2-0000-7000-8000-\(String(format: "%012d", index * 100))' AND
                '0190c5a2-0000-7000-8000-\(String(format: "%012d", index * 100 + 99))'
                """
            )
            #expect(stored == 100, "request \(index) was acknowledged")
        }
        await database.drop()
    }

    @Test("Segment identify lands in tally.identities, once")
    func identities() async throws {
        let database = try await TestDatabase.create()
        let server = try await Self.start(database)
        defer { try? FileManager.default.removeItem(atPath: server.work) }
        let body =
            #"{"batch":[{"type":"identify","userId":"u1","messageId":"id-1","traits":{"plan":"pro"},"timestamp":"2026-11-22T10:00:00Z"}],"sentAt":"2026-11-22T10:00:01Z"}"#
        let script =
            #"curl -s -o /dev/null -w '%{http_code}' -u "$1:" -H 'Content-Type: application/json' -d "$2" "$3""#
        for _ in 0..<2 {
            let result = try await Script.run(
                ["-c", script, "post", server.key, body, "http://127.0.0.1:\(server.port)/v1/batch"]
            )
            #expect(result.stdout == "200")
        }
        #expect(try await Self.count(database.url, "SELECT count(*) FROM tally.identities") == 1)
        server.child.signal(SIGTERM)
        #expect(await server.child.wait(timeout: .seconds(60)).status == 0)
        await database.drop()
    }
}
