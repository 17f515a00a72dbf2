/// Where a byte offset falls in JSON text as a person editing the file sees it: line and column,
/// both from 1 (the column counts bytes).
package struct JSONTextPosition: Sendable, Hashable, CustomStringConvertible {
    package var line: Int
    package var column: Int

    /// The position of `offset` in `bytes`.
    package init(of offset: Int, in bytes: UnsafeBufferPointer<UInt8>) {
        let offset = max(offset, 0)
        var line = 1
        var lineStart = 0
        for index in 0..<min(offset, bytes.count) where bytes[index] == UInt8(ascii: "\n") {
            line += 1
            lineStart = index + 1
        }
        self.line = line
        column = offset - lineStart + 1
    }

    /// `line 3, column 14`.
    package var description: String { "line \(line), column \(column)" }
}
