"""The report definitions the stores are checked on, each as saved-report JSON (what reference.py
reads) and as the equivalent `tally report …` command line (what test_reports.py runs).

Assumptions about spellings docs/reports.md leaves open (the CLI and the docs should agree with
these, or these change with them):

Command line
 1. Ranges are given as `--since X --until Y` (RFC 3339 instants or dates); every case also gives
    `--tz ZONE` (also for UTC) and `--format json`.
 2. Trends take one `--event SELECTOR` per series (repeatable), `--measure count|actors|sum:P|avg:P|
    min:P|max:P|median:P|p90:P`, `--interval hour|day|week|month`, `--by FIELD`, `--top N`,
    `--compare`.
 3. Breakdown takes `--event SELECTOR` (optional: all events without it), `--by FIELD`, `--top N`.
 4. Funnels take `--step SELECTOR` (repeatable, in order), `--window N(h|d|w)`, `--order ordered|strict|
    unordered`, `--exclude SELECTOR --between A B` (repeatable pairs), `--by FIELD`, `--top N`.
 5. Retention takes `--start SELECTOR --return SELECTOR --period day|week|month --periods N` and
    `--cohort-mode first-time|recurring` (`--cohort` is the drill-down's option, below).
 6. Drill-downs: `tally report actors funnel … --reached K` (docs/reports.md writes `--step K`, but
    `--step` is the funnel's selector option: it cannot be both) or `--dropped-after K`, with
    `--value V` for a breakdown value of the funnel; `tally report actors retention … --cohort START
    --offset K` (START: the cohort's start as in the output, or a date); `tally report actors
    breakdown … --value V` (`(none)` and `(other)` included).
 7. In a filter, a bare value that is a JSON number is a number, any other bare word a string, and a
    value in double quotes a string (`"1.5"`, `"daily news"`); `in`/`not in` take `(a, b, c)`.

Saved-report JSON (the shape of the definitions below, and of the output's `report` member, where
every option is present, with its default when not given, and the range is absolute)
 8. Common: `kind`, `range` (`{"since", "until"}`, or `{"last"}`), `time_zone`, `filters` (a list
    of `{"field", "op", "value"}`; no `value` for `is set`/`is not set`; `in`/`not in` a list;
    ops written `=`, `!=`, `in`, `not in`, `contains`, `>`, `>=`, `<`, `<=`, `is set`, `is not set`,
    `eq`/`ne` read as `=`/`!=`), `feature` (--feature; null when absent), `merge_identities`
    (false for --no-merge).
 9. A selector is `{"events": [names], "filters": [...]}`.
10. trends: `events` (a list of selectors), `measure`, `interval`, `breakdown` (`{"field", "top"}`
    or null), `compare`; breakdown: `event` (a selector or null), `breakdown`; funnel: `steps`,
    `window` (as given, e.g. "1d"), `order`, `exclusions` (selectors with `"between": [A, B]`),
    `breakdown`; retention: `start`, `return`, `period`, `periods`, `cohort_mode`;
    actors: `{"kind": "actors", "of": <the funnel, retention or breakdown>, "select": {"reached": K}
    | {"dropped_after": K} | {"cohort": START, "offset": K} | {"value": V}}` (`value` may go with
    `reached` or `dropped_after`).
11. Defaults (not exercised here: every case gives them): top 10, measure count, interval day,
    window 1d, order ordered, period week, periods 8, cohort mode first-time.

The readings of the definitions themselves are listed in Tests/reports/README.md.
"""
from __future__ import annotations

import re
import shlex
from decimal import Decimal

from reference import NUMBER


def sel(names: str, *filters: dict) -> dict:
    return {"events": names.split("|"), "filters": list(filters)}


def f(field: str, op: str, value=None) -> dict:
    result = {"field": field, "op": op}
    if value is not None:
        result["value"] = value
    return result


def rng(since: str, until: str) -> dict:
    return {"since": since, "until": until}


MARCH = rng("2026-03-01", "2026-04-01")
TEN_WEEKS = rng("2026-03-02", "2026-05-11")
PERIOD_A = rng("2026-03-01", "2026-05-15")
AUTUMN = rng("2026-10-19", "2026-11-02")
KOLKATA_MARCH = rng("2026-03-01", "2026-03-22")
FUNNEL_STEPS = [sel("episode_list_viewed"), sel("episode_list_episode_selected"), sel("player_opened")]
EXCLUDE_SEARCH = [{"events": ["search_viewed"], "filters": [], "between": [2, 3]}]


def trends(name, range_, tz, events, measure="count", interval="day", breakdown=None, compare=False, **common):
    return name, dict({"kind": "trends", "range": range_, "time_zone": tz, "events": events, "measure": measure,
                       "interval": interval, "breakdown": breakdown, "compare": compare}, **common)


def breakdown(name, range_, tz, event, field, top=10, **common):
    return name, dict({"kind": "breakdown", "range": range_, "time_zone": tz, "event": event,
                       "breakdown": {"field": field, "top": top}}, **common)


def funnel(name, range_, tz, steps, window="1d", order="ordered", exclusions=(), breakdown=None, **common):
    return name, dict({"kind": "funnel", "range": range_, "time_zone": tz, "steps": steps, "window": window,
                       "order": order, "exclusions": list(exclusions), "breakdown": breakdown}, **common)


def retention(name, range_, tz, start, returning, period="week", periods=8, cohort_mode="first-time", **common):
    return name, dict({"kind": "retention", "range": range_, "time_zone": tz, "start": start, "return": returning,
                       "period": period, "periods": periods, "cohort_mode": cohort_mode}, **common)


def actors(name, of, **select):
    return name, {"kind": "actors", "of": of[1], "select": select}


_march_funnel = funnel("f", MARCH, "Europe/Paris", FUNNEL_STEPS)
_weekly_retention = retention("r", TEN_WEEKS, "UTC", sel("app_opened"), sel("player_opened"), periods=8)
_platform_funnel = funnel("f", MARCH, "UTC", FUNNEL_STEPS, window="7d", breakdown={"field": "context.platform",
                                                                                    "top": 2})
_price_breakdown = breakdown("b", PERIOD_A, "UTC", sel("subscription_purchased"), "price", top=4)
_speed_breakdown = breakdown("b", PERIOD_A, "Europe/Paris", sel("player_speed_changed"), "speed", top=2)

CASES: list[tuple[str, dict]] = [
    # Trends: each interval, zone, measure; breakdowns, compare, empty buckets.
    trends("trends-count-day-utc", MARCH, "UTC", [sel("episode_list_viewed")]),
    trends("trends-count-day-paris-spring", rng("2026-03-23", "2026-04-06"), "Europe/Paris", [sel("app_opened")]),
    trends("trends-count-hour-paris-spring", rng("2026-03-28T22:00:00+01:00", "2026-03-29T06:00:00+02:00"),
           "Europe/Paris", [sel("app_opened"), sel("app_crashed|episode_list_viewed")], interval="hour"),
    trends("trends-count-hour-paris-autumn", rng("2026-10-24T22:00:00+02:00", "2026-10-25T06:00:00+01:00"),
           "Europe/Paris", [sel("app_opened")], interval="hour"),
    trends("trends-count-day-paris-autumn", AUTUMN, "Europe/Paris", [sel("app_opened"), sel("player_opened")]),
    trends("trends-count-hour-kolkata", rng("2026-03-04T20:00:00+05:30", "2026-03-05T04:00:00+05:30"),
           "Asia/Kolkata", [sel("app_opened")], interval="hour"),
    trends("trends-count-day-kolkata", KOLKATA_MARCH, "Asia/Kolkata", [sel("app_opened")]),
    trends("trends-actors-week-kolkata", TEN_WEEKS, "Asia/Kolkata", [sel("app_opened")], measure="actors",
           interval="week"),
    trends("trends-actors-month-paris", PERIOD_A, "Europe/Paris", [sel("player_opened")], measure="actors",
           interval="month"),
    trends("trends-actors-day-no-merge", MARCH, "UTC", [sel("app_opened")], measure="actors", merge_identities=False),
    trends("trends-count-empty-outage", rng("2026-04-12", "2026-04-19"), "UTC",
           [sel("app_opened"), sel("no_such_event")]),
    trends("trends-sum-price-week", PERIOD_A, "UTC", [sel("subscription_purchased")], measure="sum:price",
           interval="week"),
    trends("trends-avg-price-month-paris", PERIOD_A, "Europe/Paris", [sel("subscription_purchased")],
           measure="avg:price", interval="month"),
    trends("trends-min-price-day", rng("2026-03-15", "2026-03-22"), "UTC", [sel("subscription_purchased")],
           measure="min:price"),
    trends("trends-max-duration-week-kolkata", TEN_WEEKS, "Asia/Kolkata", [sel("player_opened")],
           measure="max:duration_s", interval="week"),
    trends("trends-median-duration-week-paris", TEN_WEEKS, "Europe/Paris", [sel("player_opened")],
           measure="median:duration_s", interval="week"),
    trends("trends-p90-results-month", PERIOD_A, "UTC", [sel("search_query_submitted")], measure="p90:results",
           interval="month"),
    trends("trends-p90-speed-breakdown", PERIOD_A, "UTC", [sel("player_speed_changed")], measure="p90:speed",
           interval="month", breakdown={"field": "context.platform", "top": 10}),
    trends("trends-sampled-day", rng("2026-03-09", "2026-03-23"), "UTC", [sel("player_buffering")]),
    trends("trends-actors-by-version-top2", PERIOD_A, "Europe/Paris", [sel("player_opened")], measure="actors",
           interval="week", breakdown={"field": "context.app_version", "top": 2}),
    trends("trends-count-by-platform", MARCH, "UTC", [sel("app_opened"), sel("episode_list_viewed")],
           breakdown={"field": "context.platform", "top": 10}),
    trends("trends-sum-by-plan", PERIOD_A, "UTC", [sel("subscription_purchased")], measure="sum:price",
           interval="month", breakdown={"field": "plan", "top": 3}),
    trends("trends-count-by-speed-top2", PERIOD_A, "UTC", [sel("player_speed_changed")], interval="week",
           breakdown={"field": "speed", "top": 2}),
    trends("trends-compare-day", rng("2026-03-16", "2026-03-30"), "UTC", [sel("player_opened")], compare=True),
    # Ranges off whole hours (as `--last` gives): PostgreSQL counts the hours between from its
    # rollups and reads the hours holding a boundary from the events.
    trends("trends-count-all-by-feature-off-hours", rng("2026-03-10T10:30:00Z", "2026-03-24T15:45:10.5Z"), "UTC",
           [{"events": [], "filters": []}], breakdown={"field": "feature", "top": 3}, compare=True),
    trends("trends-count-by-name-off-hours-paris", rng("2026-03-02T08:20:00+01:00", "2026-03-30T18:00:00+02:00"),
           "Europe/Paris", [sel("app_opened"), sel("player_opened|episode_list_viewed")], interval="week",
           breakdown={"field": "name", "top": 5}),
    trends("trends-sampled-off-hours", rng("2026-03-09T05:30:00Z", "2026-03-23T07:15:00Z"), "UTC",
           [sel("player_buffering")]),
    trends("trends-compare-week-paris-dst", rng("2026-03-16", "2026-04-13"), "Europe/Paris",
           [sel("app_opened")], measure="actors", interval="week", compare=True),
    trends("trends-compare-breakdown-avg", rng("2026-04-01", "2026-05-01"), "UTC", [sel("player_opened")],
           measure="avg:duration_s", interval="week", breakdown={"field": "context.platform", "top": 1},
           compare=True),
    trends("trends-filters-feature", MARCH, "Europe/Paris",
           [sel("episode_list_episode_selected", f("position", "<", 3)),
            sel("episode_detail_viewed", f("source", "in", ["list", "search"]), f("downloaded", "=", "true")),
            sel("episode_detail_viewed", f("source", "not in", ["list"]))],
           feature="episode", filters=[f("context.platform", "!=", "ios")]),
    trends("trends-filters-strings", PERIOD_A, "UTC",
           [sel("search_query_submitted", f("query", "contains", "news")),
            sel("search_query_submitted", f("query", "=", "daily news")),
            sel("search_query_submitted", f("results", ">", 10), f("results", "<=", 30))],
           interval="week"),
    trends("trends-filters-set", PERIOD_A, "UTC",
           [sel("subscription_purchased", f("price", "is set")), sel("subscription_purchased", f("price", "is not set")),
            sel("player_speed_changed", f("speed", ">=", Decimal("1.5"))),
            sel("player_speed_changed", f("speed", "=", "1.5")),
            sel("app_opened", f("context.platform", "is not set"))],
           interval="month"),
    # Breakdown.
    breakdown("breakdown-speed", PERIOD_A, "Europe/Paris", sel("player_speed_changed"), "speed"),
    breakdown("breakdown-names-top5", MARCH, "UTC", None, "name", top=5),
    breakdown("breakdown-price-top4", PERIOD_A, "UTC", sel("subscription_purchased"), "price", top=4),
    breakdown("breakdown-plan", PERIOD_A, "UTC", sel("subscription_purchased"), "plan"),
    breakdown("breakdown-tags", PERIOD_A, "UTC", sel("subscription_purchased"), "properties.tags"),
    breakdown("breakdown-platform-sampled", TEN_WEEKS, "Asia/Kolkata", sel("player_buffering"), "context.platform"),
    breakdown("breakdown-version-filtered", MARCH, "UTC", sel("episode_detail_viewed"), "context.app_version",
              filters=[f("source", "in", ["list", "search"]), f("episode_id", "!=", "ep-7")]),
    breakdown("breakdown-users-no-merge", MARCH, "UTC", sel("app_opened"), "user_id", top=3,
              merge_identities=False),
    # Funnels.
    funnel("funnel-ordered-1d", MARCH, "UTC", FUNNEL_STEPS),
    funnel("funnel-ordered-paris", MARCH, "Europe/Paris", FUNNEL_STEPS),
    funnel("funnel-strict-1d", MARCH, "UTC", FUNNEL_STEPS, order="strict"),
    funnel("funnel-unordered-1d", MARCH, "UTC", FUNNEL_STEPS, order="unordered"),
    funnel("funnel-strict-play", PERIOD_A, "Europe/Paris",
           [sel("episode_detail_play_tapped"), sel("player_opened"), sel("player_speed_changed|player_buffering")],
           window="1h", order="strict"),
    funnel("funnel-exclusion", MARCH, "UTC", FUNNEL_STEPS, exclusions=EXCLUDE_SEARCH),
    funnel("funnel-exclusion-strict-12h", TEN_WEEKS, "Asia/Kolkata", FUNNEL_STEPS, window="12h", order="strict",
           exclusions=[{"events": ["search_viewed"], "filters": [], "between": [1, 3]}]),
    funnel("funnel-multi-match", MARCH, "UTC",
           [sel("episode_detail_play_tapped|player_opened"), sel("player_opened"), sel("player_speed_changed")],
           window="1h"),
    funnel("funnel-multi-match-unordered", MARCH, "UTC",
           [sel("episode_detail_play_tapped|player_opened"), sel("player_opened"), sel("player_speed_changed")],
           window="1h", order="unordered"),
    funnel("funnel-step-filters-7d", TEN_WEEKS, "Europe/Paris",
           [sel("app_opened"), sel("episode_list_episode_selected", f("position", "<", 3)),
            sel("player_opened|episode_detail_play_tapped"), sel("player_speed_changed", f("speed", "!=", 1))],
           window="7d", filters=[f("context.platform", "in", ["ios", "android"])]),
    funnel("funnel-breakdown-platform", MARCH, "UTC", FUNNEL_STEPS, window="7d",
           breakdown={"field": "context.platform", "top": 2}),
    funnel("funnel-no-merge", MARCH, "UTC", [sel("app_opened"), sel("player_opened")], window="1w",
           merge_identities=False),
    funnel("funnel-merged-identities", MARCH, "UTC", [sel("app_opened"), sel("player_opened")], window="1w"),
    funnel("funnel-autumn-paris", AUTUMN, "Europe/Paris",
           [sel("app_opened"), sel("episode_list_viewed"), sel("episode_detail_viewed"),
            sel("episode_detail_play_tapped"), sel("player_opened")], window="1h"),
    funnel("funnel-ten-steps", PERIOD_A, "UTC",
           [sel("app_opened"), sel("episode_list_viewed"), sel("episode_list_episode_selected"),
            sel("episode_detail_viewed"), sel("episode_detail_play_tapped"), sel("player_opened"),
            sel("episode_list_episode_selected"), sel("episode_detail_viewed"), sel("episode_detail_play_tapped"),
            sel("player_opened")], window="1d"),
    # Retention.
    retention("retention-first-week", TEN_WEEKS, "UTC", sel("app_opened"), sel("player_opened"), periods=8),
    retention("retention-recurring-week-paris", TEN_WEEKS, "Europe/Paris", sel("app_opened"), sel("player_opened"),
              periods=10, cohort_mode="recurring"),
    retention("retention-first-day-kolkata", KOLKATA_MARCH, "Asia/Kolkata", sel("app_opened"), sel("app_opened"),
              period="day", periods=14),
    retention("retention-recurring-day-utc", rng("2026-03-25", "2026-04-05"), "UTC",
              sel("episode_list_viewed"), sel("player_opened"), period="day", periods=7, cohort_mode="recurring"),
    retention("retention-first-month-paris", PERIOD_A, "Europe/Paris", sel("app_opened"), sel("player_opened"),
              period="month", periods=3),
    retention("retention-recurring-month-utc", PERIOD_A, "UTC", sel("player_opened"), sel("player_opened"),
              period="month", periods=2, cohort_mode="recurring"),
    retention("retention-no-merge", TEN_WEEKS, "UTC", sel("app_opened"), sel("player_opened"), periods=4,
              merge_identities=False),
    retention("retention-filtered", TEN_WEEKS, "UTC", sel("app_opened", f("cold_start", "=", "true")),
              sel("player_opened"), periods=6, filters=[f("context.platform", "=", "ios")]),
    retention("retention-autumn-week-paris", AUTUMN, "Europe/Paris", sel("app_opened"), sel("app_opened"),
              periods=2),
    # Actors.
    actors("actors-funnel-reached-3", _march_funnel, reached=3),
    actors("actors-funnel-dropped-after-1", _march_funnel, dropped_after=1),
    actors("actors-funnel-strict-reached-2", funnel("f", MARCH, "UTC", FUNNEL_STEPS, order="strict"), reached=2),
    actors("actors-funnel-breakdown-value", _platform_funnel, dropped_after=1, value="ios"),
    actors("actors-funnel-breakdown-beyond-top", _platform_funnel, reached=3, value="android"),
    actors("actors-funnel-breakdown-other", _platform_funnel, reached=1, value="(other)"),
    actors("actors-funnel-no-merge", funnel("f", MARCH, "UTC", [sel("app_opened"), sel("player_opened")],
                                            window="1w", merge_identities=False), reached=2),
    actors("actors-retention-cell", _weekly_retention, cohort="2026-03-09", offset=2),
    actors("actors-retention-size", _weekly_retention, cohort="2026-03-02T00:00:00+00:00", offset=0),
    actors("actors-breakdown-value", _speed_breakdown, value="1.5"),
    actors("actors-breakdown-other", _speed_breakdown, value="(other)"),
    actors("actors-breakdown-beyond-top", _speed_breakdown, value="0.75"),
    actors("actors-breakdown-none", _price_breakdown, value="(none)"),
]


# MARK: Command lines


PLAIN = re.compile(r"^[A-Za-z0-9_.:+/@-]+$")


def value_text(value) -> str:
    """A filter value as the CLI reads it: a number bare, a string bare when it cannot be mistaken
    for a number and has no space, comma, parenthesis or quote, else in double quotes."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, Decimal)):
        return str(value)
    if isinstance(value, str) and PLAIN.match(value) and not NUMBER.match(value):
        return value
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def filter_text(item: dict) -> str:
    op = item["op"]
    if op in ("is set", "is not set"):
        return f"{item['field']} {op}"
    if op in ("in", "not in"):
        return f"{item['field']} {op} (" + ", ".join(value_text(v) for v in item["value"]) + ")"
    return f"{item['field']} {op} {value_text(item['value'])}"


def selector_text(selector: dict) -> str:
    names = "|".join(n if re.match(r"^[^\s|\"']+$", n) else '"' + n + '"' for n in selector["events"])
    filters = selector.get("filters") or []
    return names + (" where " + " and ".join(filter_text(item) for item in filters) if filters else "")


def common_arguments(spec: dict) -> list[str]:
    arguments = ["--since", spec["range"]["since"], "--until", spec["range"]["until"],
                 "--tz", spec.get("time_zone", "UTC")]
    for item in spec.get("filters", []):
        arguments += ["--where", filter_text(item)]
    if spec.get("feature"):
        arguments += ["--feature", spec["feature"]]
    if spec.get("merge_identities") is False:
        arguments.append("--no-merge")
    return arguments


def breakdown_arguments(spec: dict) -> list[str]:
    if not spec.get("breakdown"):
        return []
    return ["--by", spec["breakdown"]["field"], "--top", str(spec["breakdown"]["top"])]


def kind_arguments(spec: dict) -> list[str]:
    kind = spec["kind"]
    arguments = [kind]
    if kind == "trends":
        for item in spec["events"]:
            # Every event: the CLI's default when no --event is given.
            if item["events"] or item["filters"]:
                arguments += ["--event", selector_text(item)]
        arguments += ["--measure", spec["measure"], "--interval", spec["interval"]] + breakdown_arguments(spec)
        if spec.get("compare"):
            arguments.append("--compare")
    elif kind == "breakdown":
        if spec.get("event"):
            arguments += ["--event", selector_text(spec["event"])]
        arguments += breakdown_arguments(spec)
    elif kind == "funnel":
        for item in spec["steps"]:
            arguments += ["--step", selector_text(item)]
        arguments += ["--window", spec["window"], "--order", spec["order"]]
        for item in spec.get("exclusions", []):
            arguments += ["--exclude", selector_text(item), "--between", str(item["between"][0]),
                          str(item["between"][1])]
        arguments += breakdown_arguments(spec)
    elif kind == "retention":
        arguments += ["--start", selector_text(spec["start"]), "--return", selector_text(spec["return"]),
                      "--period", spec["period"], "--periods", str(spec["periods"]),
                      "--cohort-mode", spec["cohort_mode"]]
    return arguments + common_arguments(spec)


def command(spec: dict) -> list[str]:
    """The arguments after `tally report` (without the store options), ending in `--format json`."""
    if spec["kind"] == "actors":
        select = spec["select"]
        arguments = ["actors"] + kind_arguments(spec["of"])
        if "reached" in select:
            arguments += ["--reached", str(select["reached"])]
        if "dropped_after" in select:
            arguments += ["--dropped-after", str(select["dropped_after"])]
        if "cohort" in select:
            arguments += ["--cohort", select["cohort"], "--offset", str(select["offset"])]
        if "value" in select:
            arguments += ["--value", select["value"]]
    else:
        arguments = kind_arguments(spec)
    return arguments + ["--format", "json"]


def shell(spec: dict) -> str:
    return "tally report " + " ".join(shlex.quote(argument) for argument in command(spec))


if __name__ == "__main__":
    for name, spec in CASES:
        print(f"# {name}\n{shell(spec)}\n")
