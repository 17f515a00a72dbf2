extension Duration {
    /// Whole nanoseconds, saturating at `Int64`'s bounds.
    package var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (product, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        return overflow ? (seconds < 0 ? .min : .max) : product &+ attoseconds / 1_000_000_000
    }
}
