/// A line of a Swift file, as `verify` reports it: `Sources/Search/SearchEvent.swift:14`.
package struct SourceLocation: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The file, as found under a `--sources` directory.
    package var file: String
    /// The line, from 1.
    package var line: Int

    package var description: String { "\(file):\(line)" }

    package static func < (lhs: SourceLocation, rhs: SourceLocation) -> Bool {
        (lhs.file, lhs.line) < (rhs.file, rhs.line)
    }
}
