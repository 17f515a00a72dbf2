import TallyCore
import TallyPipeline

extension FileSink: ReadinessProbe {
    /// Whether the store's directory exists (or can be made) and is writable.
    package func isReachable() async -> Bool {
        (try? Directory.checkWritable(layout.root)) != nil
    }
}
