import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Posts request bodies with URLSession (FoundationNetworking on Linux): nothing heavier in an app.
///
/// One session serves every uploader of the process, and a request runs to its own timeout even
/// when the calling task is cancelled. Both work around FoundationNetworking on Linux: tearing a
/// session down while libcurl still holds its sockets, and cancelling a task whose request fails
/// fast (a refused connection), are known use-after-free and double-callback races there
/// (swift-corelibs-foundation #4791, #5412, SR-11310). The timeout bounds the wait: the uploader
/// passes what is left of its deadline.
struct HTTPTransport: Sendable {
    private static let session: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        return URLSession(configuration: configuration)
    }()

    /// An answer: its status and `Retry-After` (or a transport failure), and for a 2xx the events
    /// the collector refused one by one (on either wire, when it lists them).
    struct Reply: Sendable {
        var response: UploadStateMachine.Response
        var rejected: ServerRejects = ServerRejects()
    }

    /// POSTs `body` and returns the answer.
    func post(
        _ url: URL,
        body: [UInt8],
        headers: [(String, String)],
        timeout: Duration
    ) async -> Reply {
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.httpBody = Data(body)
        request.timeoutInterval = max(1, Double(timeout.components.seconds))
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        return await withCheckedContinuation { continuation in
            let task = Self.session.dataTask(with: request) { data, response, error in
                guard error == nil, let http = response as? HTTPURLResponse else {
                    continuation.resume(returning: Reply(response: .transportFailure))
                    return
                }
                let retryAfter = http.value(forHTTPHeaderField: "Retry-After").flatMap(Self.retryAfter)
                var reply = Reply(response: .status(http.statusCode, retryAfter: retryAfter))
                if (200..<300).contains(http.statusCode), let data { reply.rejected = ServerRejects(reply: data) }
                continuation.resume(returning: reply)
            }
            task.resume()
        }
    }

    /// `Retry-After` as delay seconds or an HTTP date (RFC 9110 §10.2.3).
    static func retryAfter(_ value: String) -> Duration? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if let seconds = Int(trimmed) { return .seconds(max(0, seconds)) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = formatter.date(from: trimmed) else { return nil }
        return .seconds(max(0, Int(date.timeIntervalSinceNow.rounded(.up))))
    }
}
