import Foundation

/// This process's peak resident memory.
enum ProcessMemory {
    /// Peak resident set size in bytes: `VmHWM` on Linux (per address space, so a parent's memory
    /// before `exec` does not count), else `getrusage`.
    static func peakResidentBytes() -> Int? {
        #if os(Linux)
            if let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
                let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
                let kilobytes = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
            {
                return kilobytes * 1024
            }
            return nil
        #else
            var usage = rusage()
            guard getrusage(RUSAGE_SELF, &usage) == 0 else { return nil }
            return Int(usage.ru_maxrss)
        #endif
    }
}
