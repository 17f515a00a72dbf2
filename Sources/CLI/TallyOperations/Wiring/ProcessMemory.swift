import CMalloc
import Foundation

/// This process's memory: its peak, and how malloc may grow it.
package enum ProcessMemory {
    /// Two malloc arenas, unless `MALLOC_ARENA_MAX` says otherwise. glibc gives each thread that
    /// contends for malloc an arena of its own (up to eight per core) and keeps what was freed in
    /// each; events are allocated on the reading thread and freed on the sink's, so a PostgreSQL
    /// ingest of 1M lines peaked at 79–82 MB instead of 63–64 MB, at the same speed. Call first.
    package static func limitMallocArenas() {
        #if os(Linux) && canImport(Glibc)
            if getenv("MALLOC_ARENA_MAX") == nil { _ = mallopt(M_ARENA_MAX, 2) }
        #endif
    }

    /// Peak resident set size in bytes: `VmHWM` on Linux (per address space, so a parent's memory
    /// before `exec` does not count), else `getrusage`.
    package static func peakResidentBytes() -> Int? {
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
