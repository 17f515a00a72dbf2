import TallyCore

#if canImport(Network)
    import Dispatch
    import Network
#endif

/// Segment's `network` context member (`{"wifi":true,"cellular":false}`) where the platform tells
/// it: Apple's Network framework (a path monitor started once); nil elsewhere (Linux).
// @unchecked: the monitor is only configured in `init`; the value it updates is behind a lock.
final class NetworkStatus: @unchecked Sendable {
    #if canImport(Network)
        private let latest = Locked<PropertyValue?>(nil)
        private let monitor = NWPathMonitor()

        init() {
            let latest = self.latest
            monitor.pathUpdateHandler = { path in
                let member = PropertyValue.json(
                    RawJSON(
                        .object([
                            JSONMember(key: "wifi", value: .bool(path.usesInterfaceType(.wifi))),
                            JSONMember(key: "cellular", value: .bool(path.usesInterfaceType(.cellular))),
                        ])
                    )
                )
                latest.withLock { $0 = path.status == .satisfied ? member : nil }
            }
            monitor.start(queue: DispatchQueue(label: "tally.network"))
        }

        deinit { monitor.cancel() }

        /// The member as of the last path update.
        var current: PropertyValue? { latest.withLock { $0 } }
    #else
        init() {}

        /// The platform does not tell.
        var current: PropertyValue? { nil }
    #endif
}
