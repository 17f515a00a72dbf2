/// A plain text table: columns padded to their widest cell, numbers right-aligned.
struct TextGrid {
    private var rows: [[String]] = []
    private var rightAligned: Set<Int> = []

    init(header: [String], rightAligned: Set<Int>) {
        rows = [header]
        self.rightAligned = rightAligned
    }

    mutating func add(_ row: [String]) { rows.append(row) }

    func render() -> String {
        let columns = rows.map(\.count).max() ?? 0
        var widths = [Int](repeating: 0, count: columns)
        for row in rows {
            for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.count) }
        }
        return rows.map { row in
            row.enumerated().map { index, cell in
                let padding = String(repeating: " ", count: widths[index] - cell.count)
                return rightAligned.contains(index) ? padding + cell : cell + padding
            }.joined(separator: "  ").replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression)
        }.joined(separator: "\n") + "\n"
    }

    /// A bar of `share` (0…1) out of `width` cells.
    static func bar(_ share: Double, width: Int = 20) -> String {
        let filled = Int((share * Double(width)).rounded())
        return String(repeating: "█", count: max(0, min(width, filled)))
    }

    /// `43.2 %`.
    static func percent(_ count: Int, _ total: Int) -> String {
        guard total > 0 else { return "–" }
        let tenths = (count * 1000 + total / 2) / total
        return "\(tenths / 10).\(tenths % 10) %"
    }

    /// `2m 14s`, `3h 05m`, `1d 2h`, `850ms` for a duration in nanoseconds.
    static func duration(_ nanoseconds: Int64) -> String {
        let milliseconds = nanoseconds / 1_000_000
        if milliseconds < 1_000 { return "\(milliseconds)ms" }
        let seconds = milliseconds / 1_000
        if seconds < 60 { return "\(seconds)s" }
        if seconds < 3_600 { return "\(seconds / 60)m \(seconds % 60)s" }
        if seconds < 86_400 { return "\(seconds / 3_600)h \(seconds / 60 % 60)m" }
        return "\(seconds / 86_400)d \(seconds / 3_600 % 24)h"
    }
}
