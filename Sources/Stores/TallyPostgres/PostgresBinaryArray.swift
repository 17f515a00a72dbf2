import TallyCore

/// A one-dimensional PostgreSQL array in the binary wire format (what `array_recv` reads), sent
/// as one binary parameter: a whole column of rollup rows in one value, with nothing for either
/// side to escape or parse (text array literals of timestamps had cost a quarter of the server's
/// time for the rollup statement).
///
/// Layout: dimensions (1, or 0 when empty), a has-nulls flag, the element type's OID, the length
/// and lower bound (1), then each element as a length and its bytes.
struct PostgresBinaryArray {
    /// Element types, by OID.
    enum Element: UInt32 {
        case int4 = 23
        case int8 = 20
        case text = 25
        case date = 1082
        case timestamptz = 1184
        case float8 = 701
    }

    private var elements: [UInt8] = []
    private let element: Element
    private(set) var count = 0

    init(of element: Element) {
        self.element = element
    }

    /// Microseconds between 1970-01-01 and 2000-01-01, PostgreSQL's epoch.
    private static let postgresEpochMicroseconds: Int64 = 946_684_800_000_000

    mutating func append(text bytes: UnsafeRawBufferPointer) {
        precondition(element == .text)
        Self.appendInt32(Int32(bytes.count), to: &elements)
        elements.append(contentsOf: bytes)
        count += 1
    }

    mutating func append(int64 value: Int64) {
        precondition(element == .int8)
        appendFixed(value)
    }

    mutating func append(int32 value: Int32) {
        precondition(element == .int4)
        Self.appendInt32(4, to: &elements)
        Self.appendInt32(value, to: &elements)
        count += 1
    }

    /// A `double precision`.
    mutating func append(double value: Double) {
        precondition(element == .float8)
        appendFixed(Int64(bitPattern: value.bitPattern))
    }

    /// A `timestamptz`, to the microsecond (rounded down, as tally stores occurred_at).
    mutating func append(timestamp: Timestamp) {
        precondition(element == .timestamptz)
        let nanoseconds = timestamp.nanosecondsSinceEpoch
        let microseconds = nanoseconds >= 0 ? nanoseconds / 1_000 : (nanoseconds - 999) / 1_000
        appendFixed(microseconds - Self.postgresEpochMicroseconds)
    }

    /// A `date`, as days since 1970-01-01.
    mutating func append(daysSinceEpoch days: Int64) {
        precondition(element == .date)
        Self.appendInt32(4, to: &elements)
        Self.appendInt32(Int32(truncatingIfNeeded: days - 10_957), to: &elements)  // 2000-01-01 is day 10,957
        count += 1
    }

    /// The array's wire bytes.
    var bytes: [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(20 + elements.count)
        Self.appendInt32(count == 0 ? 0 : 1, to: &bytes)  // dimensions
        Self.appendInt32(0, to: &bytes)  // no NULLs
        Self.appendInt32(Int32(bitPattern: element.rawValue), to: &bytes)
        if count > 0 {
            Self.appendInt32(Int32(count), to: &bytes)
            Self.appendInt32(1, to: &bytes)  // lower bound
        }
        bytes.append(contentsOf: elements)
        return bytes
    }

    private mutating func appendFixed(_ value: Int64) {
        Self.appendInt32(8, to: &elements)
        withUnsafeBytes(of: value.bigEndian) { elements.append(contentsOf: $0) }
        count += 1
    }

    private static func appendInt32(_ value: Int32, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
    }
}
