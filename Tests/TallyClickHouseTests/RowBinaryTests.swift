import TallyClickHouse
import TallyCore
import TallyPipeline
import Testing

/// The RowBinary encoding, URL parsing and error classification, without a server.
@Suite("ClickHouse RowBinary and errors")
struct RowBinaryTests {
    @Test("values read back as written, a short buffer is incomplete")
    func roundTrip() throws {
        var writer = RowBinaryWriter()
        let id = EventID(high: 0x0192_F5E4_8C3A_7B21, low: 0x9F00_1A2B_3C4D_5E6F)
        writer.uuid(id)
        writer.int64(-5)
        writer.string(String(repeating: "é", count: 100))
        writer.nullableString(nil)
        writer.nullableFloat64(2.5)
        writer.micros(Timestamp(nanosecondsSinceEpoch: -1_500))
        var reader = RowBinaryReader(writer.bytes)
        #expect(try reader.uuid() == id)
        #expect(try reader.int64() == -5)
        #expect(try reader.string() == String(repeating: "é", count: 100))
        #expect(try reader.nullableString() == nil)
        #expect(try reader.nullableFloat64() == 2.5)
        #expect(try reader.int64() == -2)
        #expect(reader.isAtEnd)
        var short = RowBinaryReader(Array(writer.bytes.prefix(20)))
        _ = try short.uuid()
        #expect(throws: RowBinaryReader.Incomplete.self) { try short.string() }
    }

    @Test("URLs: credentials apart, no path, several nodes")
    func endpoints() throws {
        let nodes = try ClickHouseEndpoint.list("http://w:s%40cret@ch1:8123/, https://ch2:8443")
        #expect(nodes.map(\.base) == ["http://ch1:8123", "https://ch2:8443"])
        #expect(nodes[0].user == "w" && nodes[0].password == "s@cret")
        #expect(!"\(nodes[0])".contains("cret"))
        #expect(throws: ClickHouseError.self) { try ClickHouseEndpoint(url: "ch1:8123") }
        #expect(throws: ClickHouseError.self) { try ClickHouseEndpoint(url: "http://ch1:8123/db") }
    }

    @Test("a type error is permanent, a connection or memory error transient")
    func classification() {
        let type = ClickHouseError(status: 400, body: "Code: 53, e.displayText() = DB::Exception: Type mismatch")
        #expect(type.serverCode == 53 && type.errorClass == .permanent)
        #expect(type.message == "HTTP 400: Type mismatch")
        let memory = ClickHouseError(status: 500, body: "Code: 241, e.displayText() = DB::Exception: Memory limit")
        #expect(memory.errorClass == .transient)
        #expect(ClickHouseError(.connection, message: "refused").errorClass == .transient)
    }
}
