import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Posts request bodies with URLSession (FoundationNetworking on Linux): nothing heavier in an app.
struct HTTPTransport: Sendable {
    private let session: URLSession

    init() {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = 1
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        session = URLSession(configuration: configuration)
    }

    /// POSTs `body` and returns the answer's status and `Retry-After`, or a transport failure.
    func post(
        _ url: URL,
        body: [UInt8],
        headers: [(String, String)],
        timeout: Duration
    ) async -> UploadStateMachine.Response {
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.httpBody = Data(body)
        request.timeoutInterval = max(1, Double(timeout.components.seconds))
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        do {
            let (_, response) = try await session.data(for: request)
            guard let http = response as? HTTPURLResponse else { return .transportFailure }
            let retryAfter = http.value(forHTTPHeaderField: "Retry-After").flatMap(Self.retryAfter)
            return .status(http.statusCode, retryAfter: retryAfter)
        } catch {
            return .transportFailure
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
