import AsyncHTTPClient
import NIOCore
import TallyCore

/// Statements to ClickHouse's HTTP interface (port 8123) through async-http-client's shared client:
/// one request per statement, results in RowBinary, settings as URL parameters.
///
/// Given several nodes (`--clickhouse-url http://ch1:8123,http://ch2:8123`), a request that cannot
/// reach one goes to the next at once, and later requests start from the node that answered: any
/// node of the cluster takes writes (its `Distributed` tables route them) and answers reports.
/// Only connection failures move on; an error the server answered is the caller's.
package struct ClickHouseClient: Sendable {
    /// The nodes, in the order given.
    package let endpoints: [ClickHouseEndpoint]
    /// How long one request may take, its answer included.
    package var timeout: Duration
    /// The node that answered last (shared by copies of this client).
    private let preferred = Locked(0)

    package init(endpoints: [ClickHouseEndpoint], timeout: Duration = .seconds(60)) {
        precondition(!endpoints.isEmpty, "a ClickHouse client needs a node")
        self.endpoints = endpoints
        self.timeout = timeout
    }

    /// A client for the comma-separated `urls`.
    package init(urls: String, timeout: Duration = .seconds(60)) throws(ClickHouseError) {
        self.init(endpoints: try ClickHouseEndpoint.list(urls), timeout: timeout)
    }

    /// The same settings on one node only (migrations run on each node in turn).
    package func node(_ index: Int) -> ClickHouseClient {
        ClickHouseClient(endpoints: [endpoints[index]], timeout: timeout)
    }

    /// Runs a statement that returns nothing worth reading (DDL, `INSERT … VALUES`).
    package func execute(_ sql: String, settings: [(String, String)] = []) async throws {
        _ = try await query(sql, settings: settings)
    }

    /// A query's whole result, `FORMAT RowBinary` appended when the statement names no format.
    package func query(_ sql: String, settings: [(String, String)] = []) async throws -> [UInt8] {
        let response = try await send(body: Array(sql.utf8), parameters: settings)
        var buffer = try await Self.collect(response.body)
        return buffer.readBytes(length: buffer.readableBytes) ?? []
    }

    /// Inserts `data` (rows in the format `statement` names: `INSERT INTO t (…) FORMAT RowBinary`).
    package func insert(_ statement: String, data: [UInt8], settings: [(String, String)] = []) async throws {
        let response = try await send(body: data, parameters: [("query", statement)] + settings)
        _ = try await Self.collect(response.body)
    }

    /// Streams a query's result: `body` gets the bytes as they arrive, with the bytes it left over
    /// (an incomplete row) before them, and returns how many of them it used.
    package func stream(
        _ sql: String,
        settings: [(String, String)] = [],
        _ body: ([UInt8]) throws -> Int
    ) async throws {
        let response = try await send(body: Array(sql.utf8), parameters: settings)
        var pending: [UInt8] = []
        for try await chunk in response.body {
            try Task.checkCancellation()
            pending.append(contentsOf: chunk.readableBytesView)
            let used = try body(pending)
            pending.removeFirst(used)
        }
        guard pending.isEmpty else {
            // A query that fails after its first rows appends the exception to the body.
            let text = String(decoding: pending.suffix(2_000), as: UTF8.self)
            if let start = text.firstRange(of: "Code: ") {
                throw ClickHouseError(status: 200, body: String(text[start.lowerBound...]))
            }
            throw ClickHouseError(.response, message: "the result ended in the middle of a row")
        }
    }

    /// Whether a node answers `/ping`.
    package func ping() async -> Bool {
        (try? await execute("SELECT 1")) != nil
    }

    // MARK: Requests

    private func send(body: [UInt8], parameters: [(String, String)]) async throws -> HTTPClientResponse {
        let first = preferred.withLock { $0 }
        var lastError: (any Error)?
        for step in 0..<endpoints.count {
            let index = (first + step) % endpoints.count
            do {
                let response = try await send(to: endpoints[index], body: body, parameters: parameters)
                if step > 0 { preferred.withLock { $0 = index } }
                return response
            } catch let error as ClickHouseError where error.code == .connection {
                lastError = error
                try Task.checkCancellation()
            }
        }
        throw lastError ?? ClickHouseError(.connection, message: "no node answered")
    }

    private func send(
        to endpoint: ClickHouseEndpoint,
        body: [UInt8],
        parameters: [(String, String)]
    ) async throws -> HTTPClientResponse {
        var request = HTTPClientRequest(url: endpoint.base + "/?" + Self.query(parameters))
        request.method = .POST
        if let user = endpoint.user { request.headers.add(name: "X-ClickHouse-User", value: user) }
        if let password = endpoint.password { request.headers.add(name: "X-ClickHouse-Key", value: password) }
        request.body = .bytes(ByteBuffer(bytes: body))
        let response: HTTPClientResponse
        do {
            response = try await HTTPClient.shared.execute(request, timeout: Self.timeAmount(timeout))
        } catch is CancellationError {
            throw CancellationError()
        } catch let error as HTTPClientError where error == .cancelled {
            throw CancellationError()
        } catch {
            throw ClickHouseError(.connection, message: "\(endpoint): \(error)")
        }
        guard response.status.code == 200 else {
            let text = (try? await Self.collect(response.body)).map { String(buffer: $0) } ?? ""
            throw ClickHouseError(status: Int(response.status.code), body: text)
        }
        return response
    }

    private static func collect(_ body: HTTPClientResponse.Body) async throws -> ByteBuffer {
        do {
            return try await body.collect(upTo: 1 << 30)
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            throw ClickHouseError(.connection, message: "the answer broke off: \(error)")
        }
    }

    /// `key=value&…`, percent-encoded.
    static func query(_ parameters: [(String, String)]) -> String {
        parameters.map { escape($0.0) + "=" + escape($0.1) }.joined(separator: "&")
    }

    static func escape(_ text: String) -> String {
        var result: [UInt8] = []
        let hex = Array("0123456789ABCDEF".utf8)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."),
                UInt8(ascii: "~"):
                result.append(byte)
            default:
                result += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: result, as: UTF8.self)
    }

    private static func timeAmount(_ duration: Duration) -> TimeAmount {
        .nanoseconds(duration.nanoseconds)
    }
}
