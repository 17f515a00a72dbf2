/// Actor ids as small integers for one evaluation: sets of actors are then sets of integers.
package struct ActorTable: Sendable {
    private var indices: [String: Int32] = [:]
    private(set) var ids: [String] = []

    package init() {}

    package mutating func index(_ id: String) -> Int32 {
        if let index = indices[id] { return index }
        let index = Int32(ids.count)
        indices[id] = index
        ids.append(id)
        return index
    }

    /// Adds an id the caller knows is new (a store's distinct ids without merging), without
    /// indexing it: ``index(_:)`` will not find it, so a table filled so is filled only so.
    package mutating func add(new id: String) -> Int32 {
        ids.append(id)
        return Int32(ids.count - 1)
    }

    package func id(_ index: Int32) -> String { ids[Int(index)] }

    /// `indices` as ids sorted by their UTF-8 bytes.
    package func sortedIDs<S: Sequence>(_ indices: S) -> [String] where S.Element == Int32 {
        indices.map { ids[Int($0)] }.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
    }
}
