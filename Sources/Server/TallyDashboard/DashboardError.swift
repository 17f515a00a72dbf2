package import HTTPTypes

/// What a dashboard request could not do: bad input (400, with what is wrong), no access (401), a
/// report that ran out of time or a store that cannot be read (503, with a message and
/// `Retry-After`). Never the store's own error text, which may name tables or values.
package struct DashboardError: Error, Sendable {
    package var status: HTTPResponse.Status
    package var message: String

    package init(_ status: HTTPResponse.Status, _ message: String) {
        self.status = status
        self.message = message
    }

    package static func badRequest(_ message: String) -> DashboardError { DashboardError(.badRequest, message) }

    package static let timedOut = DashboardError(
        .serviceUnavailable,
        "this report took longer than the dashboard's time limit: narrow its range or filters, or ask again later"
    )

    package static let storeUnavailable = DashboardError(
        .serviceUnavailable,
        "the store cannot be read right now; the dashboard's log says why"
    )
}
