#!/usr/bin/env python3
"""Pre-converts NDJSON events to CSV for the `psql \\copy` baseline (not timed)."""
import csv
import json
import sys

COLUMNS = ("event_id", "occurred_at", "name", "feature", "properties", "sent_at", "received_at",
           "user_id", "anonymous_id", "session_id", "context", "schema_version")

with open(sys.argv[1], encoding="utf-8") as source, open(sys.argv[2], "w", newline="", encoding="utf-8") as target:
    writer = csv.writer(target)
    for line in source:
        event = json.loads(line)
        writer.writerow([
            event.get("event_id"), event["occurred_at"], event["name"], event.get("feature") or "",
            json.dumps(event.get("properties") or {}), event.get("sent_at") or "", event.get("received_at") or "",
            event.get("user_id") or "", event.get("anonymous_id") or "", event.get("session_id") or "",
            json.dumps(event["context"]) if "context" in event else "", event.get("schema_version") or "",
        ])
