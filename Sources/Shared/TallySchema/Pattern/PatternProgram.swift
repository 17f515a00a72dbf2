/// A compiled pattern: a Thompson NFA run as a Pike VM over Unicode scalars.
///
/// Linear in the input whatever the pattern (no catastrophic backtracking on hostile input), and
/// allocation-free per match once warmed up. Only answers "does the pattern match somewhere in the
/// string", which is all JSON Schema's `pattern` asks.
struct PatternProgram: Sendable {
    enum Instruction: Sendable {
        case scalars(Int)  // index into sets
        case split(Int, Int)
        case jump(Int)
        case inputStart
        case inputEnd
        case wordBoundary(negated: Bool)
        case match
    }

    private(set) var instructions: [Instruction] = []
    private(set) var sets: [ScalarSet] = []
    /// When the pattern starts with `^`, only position 0 can start a match.
    private var anchoredAtStart = false
    /// No branch and no word boundary: a fixed sequence of scalar sets between anchors
    /// (`^[A-Z]{3}$`), matched scalar by scalar without threads (``matchesInSequence(_:)``).
    private(set) var isSequence = false

    init(_ node: PatternNode) throws(PatternParseError) {
        if case .sequence(let items) = node, items.first == .inputStart { anchoredAtStart = true }
        if node == .inputStart { anchoredAtStart = true }
        try emit(node)
        instructions.append(.match)
        isSequence = instructions.allSatisfy { instruction in
            switch instruction {
            case .scalars, .inputStart, .inputEnd, .match: true
            case .split, .jump, .wordBoundary: false
            }
        }
    }

    /// ``matches(_:scratch:)`` for a program that ``isSequence``: each start position in turn
    /// (only the first when anchored), one set test per scalar. A currency code against
    /// `^[A-Z]{3}$` took ~1,000 instructions through the threads of the general run, ~100 so.
    func matchesInSequence<Unit: FixedWidthInteger & UnsignedInteger>(_ scalars: UnsafeBufferPointer<Unit>) -> Bool {
        for start in 0...(anchoredAtStart ? 0 : scalars.count) {
            var position = start
            var pc = 0
            step: while true {
                switch instructions[pc] {
                case .match: return true
                case .inputStart: guard position == 0 else { break step }
                case .inputEnd: guard position == scalars.count else { break step }
                case .scalars(let set):
                    guard position < scalars.count, sets[set].contains(UInt32(truncatingIfNeeded: scalars[position]))
                    else { break step }
                    position += 1
                case .split, .jump, .wordBoundary: return false  // not a sequence
                }
                pc += 1
            }
        }
        return false
    }

    private mutating func emit(_ node: PatternNode) throws(PatternParseError) {
        guard instructions.count < 10_000 else { throw .unsupported("pattern too large once repetitions are expanded") }
        switch node {
        case .empty: break
        case .scalars(let set):
            if let existing = sets.firstIndex(of: set) {
                instructions.append(.scalars(existing))
            } else {
                sets.append(set)
                instructions.append(.scalars(sets.count - 1))
            }
        case .sequence(let items):
            for item in items { try emit(item) }
        case .alternation(let branches):
            var jumps: [Int] = []
            for (position, branch) in branches.enumerated() {
                if position < branches.count - 1 {
                    let split = instructions.count
                    instructions.append(.split(split + 1, 0))
                    try emit(branch)
                    jumps.append(instructions.count)
                    instructions.append(.jump(0))
                    instructions[split] = .split(split + 1, instructions.count)
                } else {
                    try emit(branch)
                }
            }
            for jump in jumps { instructions[jump] = .jump(instructions.count) }
        case .repetition(let inner, let min, let max):
            for _ in 0..<min { try emit(inner) }
            if let max {
                // Optional copies: each may be skipped to the end.
                var splits: [Int] = []
                for _ in min..<max {
                    splits.append(instructions.count)
                    instructions.append(.split(instructions.count + 1, 0))
                    try emit(inner)
                }
                for split in splits { instructions[split] = .split(split + 1, instructions.count) }
            } else {
                let loop = instructions.count
                instructions.append(.split(loop + 1, 0))
                try emit(inner)
                instructions.append(.jump(loop))
                instructions[loop] = .split(loop + 1, instructions.count)
            }
        case .inputStart: instructions.append(.inputStart)
        case .inputEnd: instructions.append(.inputEnd)
        case .wordBoundary(let negated): instructions.append(.wordBoundary(negated: negated))
        }
    }

    /// Whether the pattern matches anywhere in `scalars`.
    func matches<Unit: FixedWidthInteger & UnsignedInteger>(
        _ scalars: UnsafeBufferPointer<Unit>,
        scratch: inout PatternScratch
    ) -> Bool {
        scratch.prepare(for: instructions.count)
        var current = 0
        for position in 0...scalars.count {
            if position == 0 || !anchoredAtStart {
                if addThread(0, at: position, in: scalars, list: current, scratch: &scratch) { return true }
            }
            if scratch.count(current) == 0 {
                if anchoredAtStart || position == scalars.count { return false }
                scratch.nextGeneration()
                continue
            }
            guard position < scalars.count else { break }
            let scalar = UInt32(truncatingIfNeeded: scalars[position])
            let next = 1 - current
            scratch.clear(next)
            scratch.nextGeneration()
            for threadIndex in 0..<scratch.count(current) {
                let pc = scratch.thread(current, threadIndex)
                if case .scalars(let set) = instructions[pc], sets[set].contains(scalar) {
                    if addThread(pc + 1, at: position + 1, in: scalars, list: next, scratch: &scratch) { return true }
                }
            }
            current = next
            scratch.clear(1 - current)
        }
        return false
    }

    /// Adds `pc` and everything reachable from it without consuming input; true when `match` is reached.
    private func addThread<Unit: FixedWidthInteger & UnsignedInteger>(
        _ pc: Int,
        at position: Int,
        in scalars: UnsafeBufferPointer<Unit>,
        list: Int,
        scratch: inout PatternScratch
    ) -> Bool {
        guard scratch.mark(pc) else { return false }
        switch instructions[pc] {
        case .match: return true
        case .scalars: scratch.append(pc, to: list)
        case .jump(let target): return addThread(target, at: position, in: scalars, list: list, scratch: &scratch)
        case .split(let first, let second):
            return addThread(first, at: position, in: scalars, list: list, scratch: &scratch)
                || addThread(second, at: position, in: scalars, list: list, scratch: &scratch)
        case .inputStart:
            if position == 0 { return addThread(pc + 1, at: position, in: scalars, list: list, scratch: &scratch) }
        case .inputEnd:
            if position == scalars.count {
                return addThread(pc + 1, at: position, in: scalars, list: list, scratch: &scratch)
            }
        case .wordBoundary(let negated):
            let before = position > 0 && ScalarSet.word.contains(UInt32(truncatingIfNeeded: scalars[position - 1]))
            let after =
                position < scalars.count && ScalarSet.word.contains(UInt32(truncatingIfNeeded: scalars[position]))
            if (before != after) != negated {
                return addThread(pc + 1, at: position, in: scalars, list: list, scratch: &scratch)
            }
        }
        return false
    }
}

/// Working memory of one match: visited marks and two thread lists, on the stack.
struct PatternScratch {
    private let marks: UnsafeMutableBufferPointer<Int>
    private let lists: (UnsafeMutableBufferPointer<Int>, UnsafeMutableBufferPointer<Int>)
    private var counts = (0, 0)
    private var generation = 1

    /// Runs `body` with scratch space for a program of `size` instructions.
    static func with<Result>(size: Int, _ body: (inout PatternScratch) -> Result) -> Result {
        withUnsafeTemporaryAllocation(of: Int.self, capacity: 3 * max(size, 1)) { buffer in
            let size = max(size, 1)
            // Only the marks are read before written; the lists are filled before use.
            UnsafeMutableBufferPointer(rebasing: buffer[0..<size]).initialize(repeating: 0)
            var scratch = PatternScratch(
                marks: UnsafeMutableBufferPointer(rebasing: buffer[0..<size]),
                lists: (
                    UnsafeMutableBufferPointer(rebasing: buffer[size..<2 * size]),
                    UnsafeMutableBufferPointer(rebasing: buffer[2 * size..<3 * size])
                )
            )
            return body(&scratch)
        }
    }

    private init(
        marks: UnsafeMutableBufferPointer<Int>,
        lists: (UnsafeMutableBufferPointer<Int>, UnsafeMutableBufferPointer<Int>)
    ) {
        self.marks = marks
        self.lists = lists
    }

    mutating func prepare(for size: Int) {
        counts = (0, 0)
        nextGeneration()
    }

    @inline(__always)
    mutating func nextGeneration() { generation += 1 }

    /// Marks `pc` as visited in this step; false if it already was.
    @inline(__always)
    mutating func mark(_ pc: Int) -> Bool {
        if marks[pc] == generation { return false }
        marks[pc] = generation
        return true
    }

    @inline(__always) func count(_ list: Int) -> Int { list == 0 ? counts.0 : counts.1 }
    @inline(__always) func thread(_ list: Int, _ index: Int) -> Int { list == 0 ? lists.0[index] : lists.1[index] }

    @inline(__always)
    mutating func clear(_ list: Int) {
        if list == 0 { counts.0 = 0 } else { counts.1 = 0 }
    }

    @inline(__always)
    mutating func append(_ pc: Int, to list: Int) {
        if list == 0 {
            lists.0[counts.0] = pc
            counts.0 += 1
        } else {
            lists.1[counts.1] = pc
            counts.1 += 1
        }
    }
}
