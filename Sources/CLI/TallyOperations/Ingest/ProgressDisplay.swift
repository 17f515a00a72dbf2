import Foundation

/// A one-line progress display on stderr, redrawn at most four times a second.
package final class ProgressDisplay: @unchecked Sendable {
    // @unchecked: called from the ingest task only.
    private var lastDraw = Date.distantPast
    private var drawn = false

    package init() {}

    package func update(_ progress: IngestJob.Progress) {
        let now = Date()
        guard now.timeIntervalSince(lastDraw) >= 0.25 else { return }
        lastDraw = now
        var line = "\(progress.source): \(Self.megabytes(progress.bytesRead))"
        if let total = progress.totalBytes, total > 0 {
            let fraction = Double(progress.bytesRead) / Double(total)
            line += " / \(Self.megabytes(total)) (\(Int(fraction * 100))%)"
            if fraction > 0.01 {
                let remaining = progress.elapsedSeconds / fraction - progress.elapsedSeconds
                line += "  ETA \(Self.duration(remaining))"
            }
        }
        let rate = progress.elapsedSeconds > 0 ? Double(progress.accepted) / progress.elapsedSeconds : 0
        line += "  \(progress.accepted) events  \(Int(rate)) events/s"
        FileHandle.standardError.write(Data(("\r\u{1B}[2K" + line).utf8))
        drawn = true
    }

    package func finish() {
        if drawn { FileHandle.standardError.write(Data("\r\u{1B}[2K".utf8)) }
    }

    private static func megabytes(_ bytes: Int) -> String {
        String(format: "%.1f MB", Double(bytes) / 1_000_000)
    }

    private static func duration(_ seconds: Double) -> String {
        let whole = Int(seconds.rounded())
        return whole >= 3_600
            ? String(format: "%d:%02d:%02d", whole / 3_600, whole / 60 % 60, whole % 60)
            : String(format: "%d:%02d", whole / 60, whole % 60)
    }
}
