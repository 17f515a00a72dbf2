import TallyPipeline

/// `/readyz` with `--sink clickhouse`: ready while a node answers.
extension ClickHouseSink: ReadinessProbe {}
