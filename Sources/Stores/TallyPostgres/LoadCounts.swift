/// What a ``PostgresSink`` stored, summed over its loaders.
struct LoadCounts: Sendable {
    var inserted = 0
    var duplicates = 0
    var identitiesInserted = 0
    var failed = 0
}
