import TallyCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Output for commands: results on stdout, diagnostics on stderr.
package enum Terminal {
    package static func print(_ text: String) {
        try? FileDescriptorWriter.writeAll(Array((text + "\n").utf8), to: STDOUT_FILENO, path: "<stdout>")
    }

    package static func error(_ text: String) {
        try? FileDescriptorWriter.writeAll(Array(("tally: " + text + "\n").utf8), to: STDERR_FILENO, path: "<stderr>")
    }

    package static var stdoutIsTerminal: Bool { isatty(STDOUT_FILENO) == 1 }
    package static var stderrIsTerminal: Bool { isatty(STDERR_FILENO) == 1 }
}
