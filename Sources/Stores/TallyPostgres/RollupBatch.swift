package import TallyCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The hourly rollup rows and per-day actors (by feature, and by event name) of one batch whose
/// every event is being inserted, aggregated from the batch's binary COPY rows.
///
/// Features, names and actor ids are hashed and compared as the bytes already encoded for COPY:
/// byte-exact, as PostgreSQL compares text, and without retaining or hashing a `String` per event
/// (that pass had cost as much client CPU as encoding the rows; rollup upkeep is held to 15 % of
/// ingest time). Only the few distinct rows become strings, in ``parameters(excluding:)``.
package struct RollupBatch {
    /// Where one encoded row's text fields sit in the COPY buffer.
    package struct Row {
        package var occurredAt: Timestamp
        package var fields: CopyBinaryEncoder.TextFields
        /// What the event adds to `unsampled_estimate`: 1 / rate - 1 when sampled, else 0.
        package var unsampled: Double
        /// Whether the event carries a sample rate.
        package var sampled: Bool

        package init(occurredAt: Timestamp, fields: CopyBinaryEncoder.TextFields, sampleRate: Double? = nil) {
            self.occurredAt = occurredAt
            self.fields = fields
            unsampled = sampleRate.map { 1 / $0 - 1 } ?? 0
            sampled = sampleRate != nil
        }
    }

    /// The statement's parameters (binary arrays, see ``PostgresSink/rollupStatement``), and the
    /// actors they add (to remember once committed).
    package struct Parameters {
        package var arrays: [[UInt8]]
        package var newActors: NewActors
    }

    /// The actors a batch adds: entries of its own sets (by feature, by name), to remember once the
    /// transaction commits.
    package struct NewActors {
        package var set = ActorSet(capacity: 0)
        package var entries: [Int] = []
        package var count: Int { entries.count }
        package var nameSet = ActorSet(capacity: 0)
        package var nameEntries: [Int] = []

        package init() {}
    }

    private struct Cell {
        var hour: Int64
        var pair: Int
        var count: Int
        var first: Timestamp
        var last: Timestamp
        var unsampled: Double
    }

    private struct Pair {
        var feature: Range<Int>
        var name: Range<Int>
        /// The index of the first pair with the same feature: features numbered by first use.
        var featureIndex: Int
        /// The same for its name.
        var nameIndex: Int
    }

    private struct Group: Hashable {
        var day: Int64
        var featureIndex: Int
    }

    private let bytes: [UInt8]
    private var pairs: [Pair] = []
    private var pairSlots = HashSlots()
    private var cells: [Cell] = []
    /// The batch's distinct (day, feature, actor) keys, and each one's feature index.
    private var actors: ActorSet
    private var actorFeature: [Int] = []
    /// The batch's distinct (day, name, actor) keys, each one's name index, and the (day, name)
    /// groups with a sampled event of an actor.
    private var nameActors: ActorSet
    private var nameActorName: [Int] = []
    private var sampledNameDays = Set<Group>()

    /// Aggregates `rows`, encoded in `bytes`; `userSets: false` skips the actors, `nameSets: false`
    /// those by event name.
    package init(rows: [Row], in bytes: [UInt8], userSets: Bool, nameSets: Bool = true) {
        self.bytes = bytes
        // Room for every row: many users with few events each make nearly every event a new key.
        actors = ActorSet(capacity: userSets ? rows.count : 0)
        nameActors = ActorSet(capacity: userSets && nameSets ? rows.count : 0)
        var cellOfPairInHour: [Int64: [Int]] = [:]
        var currentHour = Int64.min
        var current: [Int] = []
        bytes.withUnsafeBufferPointer { buffer in
            for row in rows {
                let seconds = row.occurredAt.secondsSinceEpoch
                let hour = seconds - ((seconds % 3_600) + 3_600) % 3_600
                if hour != currentHour {
                    if currentHour != .min { cellOfPairInHour[currentHour] = current }
                    current = cellOfPairInHour[hour] ?? []
                    currentHour = hour
                }
                let pair = pairIndex(row.fields.feature, row.fields.name, in: buffer)
                if current.count <= pair {
                    current.append(contentsOf: repeatElement(-1, count: pair + 1 - current.count))
                }
                let time = row.occurredAt
                if current[pair] < 0 {
                    current[pair] = cells.count
                    cells.append(
                        Cell(hour: hour, pair: pair, count: 1, first: time, last: time, unsampled: row.unsampled)
                    )
                } else {
                    let cell = current[pair]
                    cells[cell].count += 1
                    cells[cell].unsampled += row.unsampled
                    if time < cells[cell].first { cells[cell].first = time }
                    if cells[cell].last < time { cells[cell].last = time }
                }
                if userSets, let id = row.fields.userID ?? row.fields.anonymousID {
                    let day = hour >= 0 ? hour / 86_400 : (hour + 1) / 86_400 - 1
                    let feature = Self.raw(buffer, pairs[pair].feature)
                    let actor = Self.raw(buffer, id)
                    let hash = ActorSet.hash(day: day, feature: feature, id: actor)
                    if actors.insert(day: day, feature: feature, id: actor, hash: hash) {
                        actorFeature.append(pairs[pair].featureIndex)
                    }
                    guard nameSets else { continue }
                    let name = Self.raw(buffer, pairs[pair].name)
                    let nameHash = ActorSet.hash(day: day, feature: name, id: actor)
                    if nameActors.insert(day: day, feature: name, id: actor, hash: nameHash) {
                        nameActorName.append(pairs[pair].nameIndex)
                    }
                    if row.sampled { sampledNameDays.insert(Group(day: day, featureIndex: pairs[pair].nameIndex)) }
                }
            }
        }
    }

    /// The index of the (feature, name) pair, added if new.
    private mutating func pairIndex(_ feature: Range<Int>, _ name: Range<Int>, in buffer: UnsafeBufferPointer<UInt8>)
        -> Int
    {
        let hash = ByteHash.finish(
            ByteHash.combine(ByteHash.combine(ByteHash.start(), Self.raw(buffer, feature)), Self.raw(buffer, name))
        )
        if let found = pairSlots.find(
            hash,
            where: {
                Self.equal(pairs[$0].feature, feature, in: buffer) && Self.equal(pairs[$0].name, name, in: buffer)
            }
        ) {
            return found
        }
        // A new pair (a few per batch): its feature's number by a linear search.
        let featureIndex = pairs.firstIndex { Self.equal($0.feature, feature, in: buffer) } ?? pairs.count
        let nameIndex = pairs.firstIndex { Self.equal($0.name, name, in: buffer) } ?? pairs.count
        pairs.append(Pair(feature: feature, name: name, featureIndex: featureIndex, nameIndex: nameIndex))
        pairSlots.insert(hash, index: pairs.count - 1)
        return pairs.count - 1
    }

    private static func raw(_ buffer: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: buffer[range]))
    }

    private static func equal(_ left: Range<Int>, _ right: Range<Int>, in buffer: UnsafeBufferPointer<UInt8>) -> Bool {
        left.count == right.count
            && (left.isEmpty
                || memcmp(buffer.baseAddress! + left.lowerBound, buffer.baseAddress! + right.lowerBound, left.count)
                    == 0)
    }

    /// Byte order of two ranges, as PostgreSQL's "C" collation sorts.
    private static func less(_ left: Range<Int>, _ right: Range<Int>, in buffer: UnsafeBufferPointer<UInt8>) -> Bool {
        let common = min(left.count, right.count)
        let order =
            common == 0
            ? 0 : memcmp(buffer.baseAddress! + left.lowerBound, buffer.baseAddress! + right.lowerBound, common)
        return order != 0 ? order < 0 : left.count < right.count
    }

    /// The rollup statement's parameters: rollup rows in key order, so that concurrent loads lock
    /// them in the same order (they wait briefly instead of deadlocking); the actors not in `known`
    /// (already stored) as one slice of a flat array per (day, feature), and those not in
    /// `knownByName` per (day, name) with whether the group holds a sampled event.
    package func parameters(excluding known: ActorSet, knownByName: ActorSet = ActorSet(capacity: 0)) -> Parameters {
        var hours = PostgresBinaryArray(of: .timestamptz)
        var features = PostgresBinaryArray(of: .text)
        var names = PostgresBinaryArray(of: .text)
        var counts = PostgresBinaryArray(of: .int8)
        var firsts = PostgresBinaryArray(of: .timestamptz)
        var lasts = PostgresBinaryArray(of: .timestamptz)
        var unsampled = PostgresBinaryArray(of: .float8)
        bytes.withUnsafeBufferPointer { buffer in
            var rank = [Int](repeating: 0, count: pairs.count)
            let byKey = pairs.indices.sorted { left, right in
                let (a, b) = (pairs[left], pairs[right])
                if !Self.equal(a.feature, b.feature, in: buffer) { return Self.less(a.feature, b.feature, in: buffer) }
                return Self.less(a.name, b.name, in: buffer)
            }
            for (position, pair) in byKey.enumerated() { rank[pair] = position }
            for cell in cells.sorted(by: { ($0.hour, rank[$0.pair]) < ($1.hour, rank[$1.pair]) }) {
                hours.append(timestamp: Timestamp(secondsSinceEpoch: cell.hour))
                features.append(text: Self.raw(buffer, pairs[cell.pair].feature))
                names.append(text: Self.raw(buffer, pairs[cell.pair].name))
                counts.append(int64: Int64(cell.count))
                firsts.append(timestamp: cell.first)
                lasts.append(timestamp: cell.last)
                unsampled.append(double: cell.unsampled)
            }
        }
        var days = PostgresBinaryArray(of: .date)
        var groupFeatures = PostgresBinaryArray(of: .text)
        var firstIndices = PostgresBinaryArray(of: .int4)
        var lastIndices = PostgresBinaryArray(of: .int4)
        var ids = PostgresBinaryArray(of: .text)
        var newActors = NewActors()
        newActors.set = actors
        newActors.entries.reserveCapacity(actors.count)
        actors.bytes.withUnsafeBytes { stored in
            // The few (day, feature) groups of a batch, found by a linear search from the last one.
            var groups: [(key: Group, members: [Int])] = []
            var last = -1
            for (index, actor) in actors.entries.enumerated() {
                let feature = UnsafeRawBufferPointer(rebasing: stored[actor.feature])
                let id = UnsafeRawBufferPointer(rebasing: stored[actor.id])
                guard !known.contains(day: actor.day, feature: feature, id: id, hash: actor.hash) else { continue }
                let key = Group(day: actor.day, featureIndex: actorFeature[index])
                if last < 0 || groups[last].key != key {
                    last = groups.firstIndex { $0.key == key } ?? groups.count
                    if last == groups.count { groups.append((key, [])) }
                }
                groups[last].members.append(index)
            }
            groups.sort { ($0.key.day, $0.key.featureIndex) < ($1.key.day, $1.key.featureIndex) }
            for (group, members) in groups {
                let feature = UnsafeRawBufferPointer(rebasing: stored[actors.entries[members[0]].feature])
                days.append(daysSinceEpoch: group.day)
                groupFeatures.append(text: feature)
                firstIndices.append(int32: Int32(ids.count + 1))
                for member in members {
                    let actor = actors.entries[member]
                    ids.append(text: UnsafeRawBufferPointer(rebasing: stored[actor.id]))
                    newActors.entries.append(member)
                }
                lastIndices.append(int32: Int32(ids.count))
            }
        }
        let byName = nameParameters(excluding: knownByName, into: &newActors)
        return Parameters(
            arrays: [
                hours, features, names, counts, firsts, lasts, days, groupFeatures, firstIndices, lastIndices, ids,
                unsampled,
            ]
            .map(\.bytes) + byName,
            newActors: newActors
        )
    }

    /// The (day, name) actor sets' parameters: days, names, slice bounds, the flat array of actor
    /// ids, and a 1 for each group with a sampled event (a group of known actors only is sent
    /// for that, with an empty slice).
    private func nameParameters(excluding known: ActorSet, into newActors: inout NewActors) -> [[UInt8]] {
        var days = PostgresBinaryArray(of: .date)
        var groupNames = PostgresBinaryArray(of: .text)
        var firstIndices = PostgresBinaryArray(of: .int4)
        var lastIndices = PostgresBinaryArray(of: .int4)
        var ids = PostgresBinaryArray(of: .text)
        var sampled = PostgresBinaryArray(of: .int4)
        newActors.nameSet = nameActors
        newActors.nameEntries.reserveCapacity(nameActors.count)
        bytes.withUnsafeBufferPointer { buffer in
            nameActors.bytes.withUnsafeBytes { stored in
                var groups: [Group: [Int]] = [:]
                for group in sampledNameDays { groups[group] = [] }
                for (index, actor) in nameActors.entries.enumerated() {
                    let name = UnsafeRawBufferPointer(rebasing: stored[actor.feature])
                    let id = UnsafeRawBufferPointer(rebasing: stored[actor.id])
                    guard !known.contains(day: actor.day, feature: name, id: id, hash: actor.hash) else { continue }
                    groups[Group(day: actor.day, featureIndex: nameActorName[index]), default: []].append(index)
                }
                // In (day, name) order, the names in byte order.
                let ordered = groups.keys.sorted { left, right in
                    if left.day != right.day { return left.day < right.day }
                    return Self.less(pairs[left.featureIndex].name, pairs[right.featureIndex].name, in: buffer)
                }
                for group in ordered {
                    days.append(daysSinceEpoch: group.day)
                    groupNames.append(text: Self.raw(buffer, pairs[group.featureIndex].name))
                    sampled.append(int32: sampledNameDays.contains(group) ? 1 : 0)
                    firstIndices.append(int32: Int32(ids.count + 1))
                    for member in groups[group]! {
                        ids.append(text: UnsafeRawBufferPointer(rebasing: stored[nameActors.entries[member].id]))
                        newActors.nameEntries.append(member)
                    }
                    lastIndices.append(int32: Int32(ids.count))
                }
            }
        }
        return [days, groupNames, firstIndices, lastIndices, ids, sampled].map(\.bytes)
    }
}
