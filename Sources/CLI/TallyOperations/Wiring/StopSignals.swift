import Dispatch
import TallyCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// SIGINT and SIGTERM as a request to stop between two steps (a command that checks it finishes
/// what it must and exits 75); a second signal ends the process at once, as without handlers.
package final class StopSignals: Sendable {
    private let interruption = Interruption()
    private nonisolated(unsafe) let sources: [any DispatchSourceSignal]

    /// Installs the handlers for the life of the process.
    package init() {
        let interruption = interruption
        sources = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                if interruption.isRequested {
                    signal(number, SIG_DFL)
                    raise(number)
                }
                interruption.request()
            }
            source.resume()
            return source
        }
    }

    /// Whether a signal came, for `shouldStop` parameters.
    package var isRequested: @Sendable () -> Bool {
        { [interruption] in interruption.isRequested }
    }
}
