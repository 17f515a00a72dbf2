/// Something the generator did that the plan's author should know: a name that is not a Swift
/// identifier as written, two names that collide once converted, a schema approximated by a
/// simpler Swift type. Reported on stderr by `tally schema generate`; never fatal.
package struct CodegenDiagnostic: Sendable, Hashable, CustomStringConvertible {
    /// The plan file's name (`episode.json`).
    package var file: String
    /// The JSON path in it (`$.events[1].properties.properties.3d`).
    package var path: String
    /// What was done.
    package var message: String

    package var description: String { "\(file) \(path): \(message)" }
}
