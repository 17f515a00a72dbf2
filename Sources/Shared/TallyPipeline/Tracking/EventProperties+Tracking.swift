package import TallyCore
package import Tracking

extension EventProperties {
    /// The properties of a typed event, as the values they are (no round trip through text).
    package init(typed event: any TypedTrackingEventContract) {
        self.init(pairs: event.typedProperties.map { (key: $0.key, value: PropertyValue($0.value)) })
    }
}

extension PropertyValue {
    /// A tracked value as stored: scalars in their typed cases, objects and arrays as raw JSON, JSON
    /// text as the value it holds (a string when it is not JSON); a number without a JSON value
    /// (infinity, NaN) is `null`, which the plan then judges.
    package init(_ value: TrackingValue) {
        switch value {
        case .string(let string): self = .string(string)
        case .integer(let integer): self = .integer(Int64(integer))
        case .number(let number): self = number.isFinite ? .number(number) : .null
        case .bool(let bool): self = .bool(bool)
        case .object, .array: self = .json(RawJSON(Self.jsonValue(value)))
        case .json(let text): self = (try? JSONParser.parse(text)).map(PropertyValue.init) ?? .string(text)
        }
    }

    private static func jsonValue(_ value: TrackingValue) -> JSONValue {
        switch value {
        case .string(let string): .string(string)
        case .integer(let integer): .number(JSONNumber(text: String(integer)))
        case .number(let number): number.isFinite ? .number(JSONNumber(text: JSONWriter.numberText(number))) : .null
        case .bool(let bool): .bool(bool)
        case .object(let members):
            .object(
                members.sorted { EventProperties.byteOrder($0.key, $1.key) }.map {
                    JSONMember(key: $0.key, value: jsonValue($0.value))
                }
            )
        case .array(let elements): .array(elements.map(jsonValue))
        case .json(let text): (try? JSONParser.parse(text)) ?? .string(text)
        }
    }
}
