import Foundation

/// Charts drawn on the server as inline SVG: line, bar, stacked bar and heatmap. Every mark has a
/// `<title>` (its hover value); colours come from the page's palette, so they follow the dark
/// scheme; the numbers are always in a table beside the chart too.
package enum SVGChart {
    package struct Series: Sendable {
        package var name: String
        package var values: [Double?]

        package init(name: String, values: [Double?]) {
            self.name = name
            self.values = values
        }
    }

    static let width = 640.0
    static let height = 260.0
    static let left = 52.0
    static let right = 12.0
    static let top = 12.0
    static let bottom = 46.0

    static func color(_ index: Int) -> String { "var(--c\(index % 8))" }

    static func number(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(format: "%.4g", value)
    }

    /// A round scale maximum and its tick step.
    static func scale(_ maximum: Double) -> (top: Double, step: Double) {
        guard maximum > 0 else { return (1, 0.25) }
        let magnitude = pow(10, floor(log10(maximum)))
        for factor in [1.0, 2, 2.5, 5, 10] where factor * magnitude >= maximum {
            let top = factor * magnitude
            return (top, top / 4)
        }
        return (maximum, maximum / 4)
    }

    private static func frame(_ body: String, label: String, yTop: Double, step: Double, xLabels: [String]) -> String {
        let plotWidth = width - left - right
        let plotHeight = height - top - bottom
        var svg =
            "<svg viewBox=\"0 0 \(Int(width)) \(Int(height))\" role=\"img\" aria-label=\"\(HTML.escape(label))\" "
            + "xmlns=\"http://www.w3.org/2000/svg\"><g class=\"grid\">"
        var tick = 0.0
        while tick <= yTop + step / 2 {
            let y = top + plotHeight * (1 - tick / yTop)
            svg += "<line x1=\"\(left)\" x2=\"\(width - right)\" y1=\"\(y)\" y2=\"\(y)\"/>"
            svg += "<text x=\"\(left - 6)\" y=\"\(y + 4)\" text-anchor=\"end\">\(number(tick))</text>"
            tick += step
        }
        svg += "</g>"
        // At most 8 labels on the x axis, evenly spread.
        let every = max(1, Int(ceil(Double(xLabels.count) / 8)))
        for (index, label) in xLabels.enumerated() where index % every == 0 {
            let x = left + plotWidth * (Double(index) + 0.5) / Double(max(xLabels.count, 1))
            svg += "<text x=\"\(x)\" y=\"\(height - bottom + 16)\" text-anchor=\"middle\">\(HTML.escape(label))</text>"
        }
        return svg + body + "</svg>"
    }

    /// One line per series over the buckets.
    package static func line(_ series: [Series], xLabels: [String], titles: [String], label: String) -> String {
        let maximum = series.flatMap { $0.values.compactMap { $0 } }.max() ?? 0
        let (yTop, step) = scale(maximum)
        let plotWidth = width - left - right
        let plotHeight = height - top - bottom
        var body = ""
        for (index, entry) in series.enumerated() {
            let points = entry.values.enumerated().compactMap { position, value -> (Double, Double, Double)? in
                guard let value else { return nil }
                let x = left + plotWidth * (Double(position) + 0.5) / Double(max(entry.values.count, 1))
                return (x, top + plotHeight * (1 - value / yTop), value)
            }
            let path = points.map { "\(String(format: "%.1f", $0.0)),\(String(format: "%.1f", $0.1))" }.joined(
                separator: " "
            )
            body += "<polyline fill=\"none\" stroke=\"\(color(index))\" stroke-width=\"2\" points=\"\(path)\"/>"
            for (position, point) in points.enumerated() where points.count <= 200 {
                let title = position < titles.count ? titles[position] : ""
                body +=
                    "<circle cx=\"\(String(format: "%.1f", point.0))\" cy=\"\(String(format: "%.1f", point.1))\" r=\"3\" "
                    + "fill=\"\(color(index))\"><title>\(HTML.escape(entry.name)) · \(HTML.escape(title)): \(number(point.2))</title></circle>"
            }
        }
        return frame(body, label: label, yTop: yTop, step: step, xLabels: xLabels)
    }

    /// Buckets of stacked bars, one colour per series.
    package static func stacked(_ series: [Series], xLabels: [String], titles: [String], label: String) -> String {
        let count = xLabels.count
        let totals = (0..<count).map { index in series.reduce(0.0) { $0 + ($1.values[index] ?? 0) } }
        let (yTop, step) = scale(totals.max() ?? 0)
        let plotWidth = width - left - right
        let plotHeight = height - top - bottom
        let slot = plotWidth / Double(max(count, 1))
        var body = ""
        for index in 0..<count {
            var base = 0.0
            for (position, entry) in series.enumerated() {
                let value = entry.values[index] ?? 0
                guard value > 0 else { continue }
                let y = top + plotHeight * (1 - (base + value) / yTop)
                let barHeight = plotHeight * value / yTop
                let title = index < titles.count ? titles[index] : ""
                body +=
                    "<rect x=\"\(String(format: "%.1f", left + slot * Double(index) + slot * 0.1))\" y=\"\(String(format: "%.1f", y))\" "
                    + "width=\"\(String(format: "%.1f", slot * 0.8))\" height=\"\(String(format: "%.1f", barHeight))\" fill=\"\(color(position))\">"
                    + "<title>\(HTML.escape(entry.name)) · \(HTML.escape(title)): \(number(value))</title></rect>"
                base += value
            }
        }
        return frame(body, label: label, yTop: yTop, step: step, xLabels: xLabels)
    }

    /// Horizontal bars, one per item, with its value as text.
    package static func bars(_ items: [(label: String, value: Double, title: String)], label: String) -> String {
        let rowHeight = 26.0
        let chartHeight = max(rowHeight * Double(items.count) + 8, 40)
        let labelWidth = 190.0
        let maximum = items.map(\.value).max() ?? 0
        var svg =
            "<svg viewBox=\"0 0 \(Int(width)) \(Int(chartHeight))\" role=\"img\" aria-label=\"\(HTML.escape(label))\" "
            + "xmlns=\"http://www.w3.org/2000/svg\">"
        for (index, item) in items.enumerated() {
            let y = 4 + rowHeight * Double(index)
            let barWidth = maximum > 0 ? (width - labelWidth - 70) * item.value / maximum : 0
            let shown = item.label.count > 28 ? String(item.label.prefix(27)) + "…" : item.label
            svg += "<text x=\"\(labelWidth - 8)\" y=\"\(y + 16)\" text-anchor=\"end\">\(HTML.escape(shown))</text>"
            svg +=
                "<rect x=\"\(labelWidth)\" y=\"\(y + 3)\" width=\"\(String(format: "%.1f", max(barWidth, 0.5)))\" height=\"\(rowHeight - 8)\" "
                + "rx=\"3\" fill=\"\(color(0))\"><title>\(HTML.escape(item.title))</title></rect>"
            svg +=
                "<text x=\"\(String(format: "%.1f", labelWidth + barWidth + 6))\" y=\"\(y + 16)\">\(number(item.value))</text>"
        }
        return svg + "</svg>"
    }

    /// A grid of cells shaded by their share (0…1; nil: not known yet), with each row's label.
    package static func heatmap(
        rows: [(label: String, shares: [Double?], titles: [String])],
        columns: Int,
        label: String
    )
        -> String
    {
        let labelWidth = 120.0
        let cell = min(40.0, (width - labelWidth) / Double(max(columns, 1)))
        let rowHeight = 20.0
        let chartHeight = rowHeight * Double(rows.count + 1) + 4
        var svg =
            "<svg viewBox=\"0 0 \(Int(width)) \(Int(chartHeight))\" role=\"img\" aria-label=\"\(HTML.escape(label))\" "
            + "xmlns=\"http://www.w3.org/2000/svg\">"
        for column in 0..<columns {
            svg +=
                "<text x=\"\(labelWidth + cell * (Double(column) + 0.5))\" y=\"14\" text-anchor=\"middle\">\(column)</text>"
        }
        for (index, row) in rows.enumerated() {
            let y = rowHeight * Double(index + 1)
            svg += "<text x=\"\(labelWidth - 6)\" y=\"\(y + 14)\" text-anchor=\"end\">\(HTML.escape(row.label))</text>"
            for (column, share) in row.shares.enumerated() {
                guard let share else { continue }
                let title = column < row.titles.count ? row.titles[column] : ""
                svg +=
                    "<rect x=\"\(labelWidth + cell * Double(column) + 1)\" y=\"\(y + 1)\" width=\"\(cell - 2)\" height=\"\(rowHeight - 2)\" "
                    + "fill=\"var(--c0)\" fill-opacity=\"\(String(format: "%.3f", 0.08 + 0.92 * share))\">"
                    + "<title>\(HTML.escape(title))</title></rect>"
            }
        }
        return svg + "</svg>"
    }
}
