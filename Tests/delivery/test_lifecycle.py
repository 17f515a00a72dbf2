"""Lifecycle events from an injected platform hook (episode-demo's simulated background and
foreground), through the real outbox and uploader into a live `tally serve` whose plans know
nothing of them: Segment's names, once each; across relaunches the install is reported once and
an update when the version changes (the previous version from identity.json)."""
from conftest import count, query


def test_lifecycle_events_once_each_across_relaunches(collector, database, outbox, demos):
    arguments = ["--visits", "3", "--lifecycle", "--background-after", "2"]
    for version, build in (("1.0.0", "1"), ("1.0.0", "1"), ("1.1.0", "2")):
        result = demos(collector.url, collector.key, outbox, *arguments, "--app-version", version,
                       "--app-build", build).wait()
        assert result["dropped"] == 0 and result["outbox"]["waiting"] == 0, result

    counts = dict(query(database, "SELECT name, count(*) FROM tally.events WHERE feature = 'tally' "
                                  "AND name LIKE 'Application %%' GROUP BY 1"))
    assert counts == {"Application Installed": 1, "Application Updated": 1, "Application Opened": 3,
                      "Application Backgrounded": 3, "Application Foregrounded": 3}, counts
    installed = query(database, "SELECT properties FROM tally.events WHERE name = 'Application Installed'")
    assert installed[0][0] == {"version": "1.0.0", "build": "1"}
    updated = query(database, "SELECT properties FROM tally.events WHERE name = 'Application Updated'")
    assert updated[0][0] == {"version": "1.1.0", "build": "2", "previous_version": "1.0.0", "previous_build": "1"}
    opened = query(database, "SELECT properties FROM tally.events WHERE name = 'Application Opened'")
    assert all(row[0]["from_background"] is False for row in opened)
    # In each run: opened first, then the background and the foreground after the second visit.
    order = query(database, "SELECT name FROM tally.events WHERE name LIKE 'Application %%' AND name <> "
                            "'Application Installed' AND name <> 'Application Updated' ORDER BY occurred_at")
    assert [row[0] for row in order] == ["Application Opened", "Application Backgrounded",
                                         "Application Foregrounded"] * 3
    assert count(database, "SELECT count(*) FROM tally.failed_events") == 0
