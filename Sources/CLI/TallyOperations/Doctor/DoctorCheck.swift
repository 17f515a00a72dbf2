/// One finding of `tally doctor`: what was checked, how it stands, and what to do about it.
package struct DoctorCheck: Sendable, Hashable {
    /// How a check stands. Only ``failure`` needs an operator: the store cannot take or serve
    /// events as it should. A ``warning`` is worth a look (rejected events, little disk left).
    package enum Status: String, Sendable, Hashable, Comparable {
        case ok
        case warning = "warn"
        case failure = "fail"

        private var rank: Int {
            switch self {
            case .ok: 0
            case .warning: 1
            case .failure: 2
            }
        }

        package static func < (lhs: Status, rhs: Status) -> Bool { lhs.rank < rhs.rank }
    }

    /// The check's short name (`migrations`, `disk space`).
    package var name: String
    /// How it stands.
    package var status: Status
    /// What was found (`9 of 9 applied`).
    package var message: String
    /// What to do, for a warning or a failure.
    package var advice: String?

    package init(_ name: String, _ status: Status, _ message: String, advice: String? = nil) {
        self.name = name
        self.status = status
        self.message = message
        self.advice = status == .ok ? nil : advice
    }
}
