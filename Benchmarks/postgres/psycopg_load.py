#!/usr/bin/env python3
"""Baseline for the NDJSON → PostgreSQL benchmark: json.loads each line, COPY the rows with
psycopg's cursor.copy() into the same staging-then-insert shape tally uses (ON CONFLICT DO
NOTHING into tally.events), without validation or rollups. Usage: psycopg_load.py URL FILE"""
import json
import sys

import psycopg

COLUMNS = ("event_id", "occurred_at", "name", "feature", "properties", "sent_at", "received_at",
           "user_id", "anonymous_id", "session_id", "context", "schema_version")


def main(url: str, path: str) -> None:
    with psycopg.connect(url) as connection, connection.cursor() as cursor:
        cursor.execute("""CREATE TEMP TABLE staging (
            event_id uuid, occurred_at timestamptz, name text, feature text, properties jsonb,
            sent_at timestamptz, received_at timestamptz, user_id text, anonymous_id text,
            session_id text, context jsonb, schema_version text)""")
        batch = []

        def flush() -> None:
            with cursor.copy(f"COPY staging ({', '.join(COLUMNS)}) FROM STDIN") as copy:
                for row in batch:
                    copy.write_row(row)
            cursor.execute(f"""INSERT INTO tally.events ({', '.join(COLUMNS)})
                SELECT {', '.join(COLUMNS)} FROM staging ON CONFLICT DO NOTHING""")
            cursor.execute("TRUNCATE staging")
            connection.commit()
            batch.clear()

        with open(path, encoding="utf-8") as lines:
            for line in lines:
                event = json.loads(line)
                batch.append((
                    event.get("event_id"), event["occurred_at"], event["name"], event.get("feature") or "",
                    json.dumps(event.get("properties") or {}), event.get("sent_at"), event.get("received_at"),
                    event.get("user_id"), event.get("anonymous_id"), event.get("session_id"),
                    json.dumps(event["context"]) if "context" in event else None, event.get("schema_version"),
                ))
                if len(batch) == 2000:
                    flush()
        if batch:
            flush()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
