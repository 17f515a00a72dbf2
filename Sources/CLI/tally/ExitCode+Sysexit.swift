import ArgumentParser
import TallyOperations

/// tally's exit codes (``Sysexit``) as swift-argument-parser's, for a command that exits without
/// a message of its own (its output says what was found).
extension ExitCode {
    init(_ sysexit: Sysexit) {
        self.init(sysexit.rawValue)
    }

    static let findings = ExitCode(Sysexit.findings)
    static let usage = ExitCode(Sysexit.usage)
    static let dataError = ExitCode(Sysexit.dataError)
    static let unavailable = ExitCode(Sysexit.unavailable)
    static let ioError = ExitCode(Sysexit.ioError)
}
