import ArgumentParser
import Foundation
import TallyOperations

/// `--clickhouse-url URL[,URL…]`, else `$TALLY_CLICKHOUSE_URL`: the ClickHouse nodes a command
/// writes to or reads from (the first that answers; credentials in the URL travel in headers).
struct ClickHouseOption: ParsableArguments {
    @Option(
        name: .long,
        help: "ClickHouse nodes' HTTP URLs, comma-separated (default: $TALLY_CLICKHOUSE_URL)."
    )
    var clickhouseURL: String?

    @Option(
        name: .long,
        help: "With replicated tables: replicas that must have written a batch before it counts as stored."
    )
    var clickhouseInsertQuorum: Int?

    /// The nodes given; their URLs nil when neither the option nor the variable is set.
    var nodes: ClickHouseNodes {
        var urls = clickhouseURL
        if urls == nil, let url = ProcessInfo.processInfo.environment["TALLY_CLICKHOUSE_URL"], !url.isEmpty {
            urls = url
        }
        return ClickHouseNodes(urls: urls, insertQuorum: clickhouseInsertQuorum)
    }
}
