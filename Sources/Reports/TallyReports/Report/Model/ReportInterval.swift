/// A trend's bucket or a retention's period, in the report's time zone.
package enum ReportInterval: String, Sendable, Hashable, CaseIterable {
    case hour, day, week, month
}
