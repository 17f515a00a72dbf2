/// The frame of every page: the navigation, the range, feature and zone form (kept in the URL, so
/// a link shows a colleague the same view), the content, and the store it was read from.
package struct PageLayout: Sendable {
    /// The pages, in the navigation's order: path and title.
    package static let pages = [
        ("/", "Overview"), ("/events", "Events"), ("/funnels", "Funnels"), ("/retention", "Retention"),
        ("/plans", "Tracking plans"), ("/reports", "Saved reports"),
    ]

    /// The query parameters every page keeps.
    package static let sharedParameters = ["since", "until", "last", "tz", "feature"]

    package var path: String
    package var title: String
    /// The request's query.
    package var parameters: ReportParameters
    package var store: String

    /// The shared parameters as query items, for links between pages.
    package var sharedQuery: [(String, String)] {
        Self.sharedParameters.compactMap { name in parameters.first(name).map { (name, $0) } }
    }

    func link(_ path: String, _ extra: [(String, String)] = []) -> String {
        let query = HTML.query(sharedQuery + extra)
        return HTML.escape(query.isEmpty ? path : path + "?" + query)
    }

    /// The whole page around `content`; `hidden` are the page's own parameters, kept when the
    /// range form is sent.
    package func render(_ content: String, hidden: [(String, String)] = []) -> String {
        let navigation = Self.pages.map { page in
            let current = page.0 == path || (page.0 == "/reports" && path.hasPrefix("/reports"))
            return "<a href=\"\(link(page.0))\"\(current ? " aria-current=\"page\"" : "")>\(page.1)</a>"
        }.joined()
        let last = parameters.first("last") ?? (parameters.first("since") == nil ? "30d" : "")
        let options = [
            ("", "custom"), ("24h", "last 24 hours"), ("7d", "last 7 days"), ("30d", "last 30 days"),
            ("90d", "last 90 days"), ("52w", "last year"),
        ].map { value, label in
            "<option value=\"\(value)\"\(value == last ? " selected" : "")>\(label)</option>"
        }.joined()
        let hiddenFields = hidden.map {
            "<input type=\"hidden\" name=\"\(HTML.escape($0.0))\" value=\"\(HTML.escape($0.1))\">"
        }.joined()
        func field(_ name: String, _ label: String, _ placeholder: String) -> String {
            "<label>\(label)<input name=\"\(name)\" value=\"\(HTML.escape(parameters.first(name) ?? ""))\" placeholder=\"\(placeholder)\"></label>"
        }
        return """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <link rel="icon" href="data:,">
            <title>\(HTML.escape(title)) · tally</title>
            <style>\(Self.style)</style></head>
            <body><header><a class="brand" href="\(link("/"))">tally</a><nav>\(navigation)</nav></header>
            <form class="filters" method="get" action="\(HTML.escape(path))">\(hiddenFields)
            <label>Range<select name="last">\(options)</select></label>
            \(field("since", "From", "2026-11-01"))\(field("until", "Until", "2026-12-01"))
            \(field("feature", "Feature", "all"))\(field("tz", "Time zone", "UTC"))
            <button type="submit">Apply</button></form>
            <main><h1>\(HTML.escape(title))</h1>
            \(content)
            </main><footer>store: \(HTML.escape(store))</footer></body></html>
            """
    }

    /// An error page: what is wrong with the request, with the form to fix it.
    package func error(_ message: String) -> String {
        render("<p class=\"error\" role=\"alert\">\(HTML.escape(message))</p>")
    }

    static let style = """
        :root{--bg:#fff;--fg:#1b1f24;--muted:#5b6470;--line:#d8dde3;--panel:#f6f8fa;--accent:#2563eb;--bad:#b42318;\
        --c0:#2563eb;--c1:#e8590c;--c2:#2f9e44;--c3:#ae3ec9;--c4:#f59f00;--c5:#1098ad;--c6:#e03131;--c7:#5c940d;\
        color-scheme:light dark}
        @media (prefers-color-scheme:dark){:root{--bg:#111418;--fg:#e6e9ed;--muted:#9aa4b1;--line:#2c333b;\
        --panel:#181d23;--accent:#60a5fa;--bad:#f97066;--c0:#60a5fa;--c1:#fb923c;--c2:#4ade80;--c3:#d8b4fe;\
        --c4:#facc15;--c5:#22d3ee;--c6:#f87171;--c7:#a3e635}}
        *{box-sizing:border-box}body{margin:0;font:15px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;\
        background:var(--bg);color:var(--fg)}
        header{display:flex;flex-wrap:wrap;align-items:center;gap:.5rem 1.25rem;padding:.75rem 1rem;\
        border-bottom:1px solid var(--line)}
        .brand{font-weight:700;font-size:1.15rem;color:var(--fg);text-decoration:none}
        nav{display:flex;flex-wrap:wrap;gap:.25rem .9rem}nav a{color:var(--muted);text-decoration:none}
        nav a[aria-current]{color:var(--fg);font-weight:600;border-bottom:2px solid var(--accent)}
        .filters{display:flex;flex-wrap:wrap;gap:.5rem .75rem;align-items:end;padding:.6rem 1rem;\
        background:var(--panel);border-bottom:1px solid var(--line)}
        label{display:flex;flex-direction:column;font-size:.8rem;color:var(--muted);gap:.15rem}
        input,select,button{font:inherit;color:var(--fg);background:var(--bg);border:1px solid var(--line);\
        border-radius:6px;padding:.3rem .5rem;min-width:0}
        .filters input{width:9.5rem}button{background:var(--accent);color:#fff;border-color:var(--accent);cursor:pointer}
        main{padding:1rem;max-width:1400px;margin:0 auto}h1{font-size:1.35rem;margin:.25rem 0 1rem}
        h2{font-size:1.05rem;margin:0 0 .5rem}
        .grid{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(100%,560px),1fr));gap:1rem}
        section.panel{border:1px solid var(--line);border-radius:10px;padding:1rem;background:var(--bg);min-width:0}
        .figure{display:flex;flex-direction:column;gap:.5rem}.figure>svg{width:100%;height:auto}
        .table{overflow:auto;max-width:100%}.figure>.table{max-height:280px}
        .legend{display:flex;flex-wrap:wrap;gap:.25rem .9rem;font-size:.8rem;color:var(--muted)}
        .legend i{display:inline-block;width:.7rem;height:.7rem;border-radius:2px;margin-right:.3rem;vertical-align:-1px}
        table{border-collapse:collapse;font-variant-numeric:tabular-nums;width:100%}
        th,td{padding:.25rem .5rem;border-bottom:1px solid var(--line);text-align:left;white-space:nowrap}
        td.n,th.n{text-align:right}th{font-weight:600;font-size:.85rem;color:var(--muted);position:sticky;top:0;\
        background:var(--bg)}
        .links{font-size:.85rem;margin-top:.5rem;display:flex;gap:.75rem;flex-wrap:wrap}.links a{color:var(--accent)}
        .muted{color:var(--muted)}.error{color:var(--bad);font-weight:600}
        .stats{display:flex;flex-wrap:wrap;gap:1rem}.stat{padding:.5rem .75rem;border:1px solid var(--line);\
        border-radius:8px;min-width:8rem}.stat b{display:block;font-size:1.4rem}
        .up{color:var(--c2)}.down{color:var(--bad)}
        svg text{fill:var(--muted);font-size:12px}svg .grid line{stroke:var(--line)}svg .axis{stroke:var(--line)}
        form.build{display:grid;gap:.5rem;grid-template-columns:repeat(auto-fit,minmax(min(100%,220px),1fr));margin-bottom:1rem}
        form.build input{width:100%}
        footer{padding:1rem;color:var(--muted);font-size:.8rem;border-top:1px solid var(--line)}
        @media (max-width:600px){main{padding:.6rem}.filters input{width:7.5rem}section.panel{padding:.6rem}}
        """
}
