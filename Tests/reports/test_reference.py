"""The reference itself, on tiny datasets whose answers are computed by hand from docs/reports.md.

    python3 -m pytest Tests/reports/test_reference.py
"""
import itertools
import sys
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import reference  # noqa: E402
from reference import Reference, ReportError, nearest_rank, ratio, round_half_even  # noqa: E402

_ids = itertools.count(1)
DAY_US = 86_400_000_000


def uid(n: int) -> str:
    return f"00000000-0000-4000-8000-{n:012d}"


def ev(name, at, user=None, anon=None, n=None, props=None, context=None, rate=None, **extra):
    event = {"event_id": uid(n if n is not None else 100_000 + next(_ids)), "name": name, "feature": "app",
             "occurred_at": at, "properties": props or {}}
    if user:
        event["user_id"] = user
    if anon:
        event["anonymous_id"] = anon
    if context:
        event["context"] = context
    if rate is not None:
        event["sample_rate"] = Decimal(str(rate))
    event.update(extra)
    return event


def identity(kind, at, n=None, **ids):
    return dict({"event_id": uid(n if n is not None else 100_000 + next(_ids)), "type": kind, "name": kind,
                 "occurred_at": at}, **ids)


def funnel(steps, window="1d", order="ordered", since="2026-03-01", until="2026-04-01", **extra):
    spec = {"kind": "funnel", "range": {"since": since, "until": until}, "time_zone": "UTC",
            "steps": [{"events": step.split("|")} if isinstance(step, str) else step for step in steps],
            "window": window, "order": order}
    spec.update(extra)
    return spec


def actors_of(spec, data, **select):
    return Reference(data).report({"kind": "actors", "of": spec, "select": select})["actors"]


def step_actors(report):
    return [step["actors"] for step in report["steps"]]


# MARK: Funnels


def test_window_end_is_inclusive_to_the_microsecond():
    data = [ev("a", "2026-03-02T10:00:00.000000Z", "exact"), ev("b", "2026-03-03T10:00:00.000000Z", "exact"),
            ev("a", "2026-03-02T10:00:00.000000Z", "over"), ev("b", "2026-03-03T10:00:00.000001Z", "over")]
    result = Reference(data).report(funnel(["a", "b"], window="1d"))
    assert step_actors(result) == [2, 1]
    assert result["window_us"] == DAY_US
    assert result["steps"][1]["median_us_from_previous"] == DAY_US
    assert actors_of(funnel(["a", "b"]), data, reached=2) == ["exact"]
    assert actors_of(funnel(["a", "b"]), data, dropped_after=1) == ["over"]


def test_steps_may_fall_after_until_within_the_window():
    data = [ev("a", "2026-03-31T23:00:00Z", "late"), ev("b", "2026-04-01T01:00:00Z", "late"),
            ev("a", "2026-02-28T23:00:00Z", "early"), ev("b", "2026-03-01T01:00:00Z", "early")]
    assert step_actors(Reference(data).report(funnel(["a", "b"]))) == [1, 1]  # only "late" starts in range


def test_equal_times_convert_in_any_order_but_a_chain_uses_an_event_once():
    same = "2026-03-02T10:00:00.123456Z"
    data = [ev("b", same, "u1", n=1), ev("a", same, "u1", n=2),  # b's id sorts first: still a chain
            ev("a", same, "u2"), ev("b", "2026-03-02T09:00:00Z", "u2"),  # b before a: no chain
            ev("a|b", same, "u3")]
    spec = funnel([{"events": ["a", "a|b"]}, {"events": ["b", "a|b"]}])
    result = Reference(data).report(spec)
    assert step_actors(result) == [3, 1]  # u3's one event matches both steps but counts once
    assert result["steps"][1]["median_us_from_previous"] == 0
    assert actors_of(spec, data, reached=2) == ["u1"]


def test_strict_needs_neighbours_ordered_by_time_then_event_id():
    same = "2026-03-02T10:00:00Z"
    data = [ev("a", "2026-03-02T09:00:00Z", "between"), ev("x", "2026-03-02T09:30:00Z", "between"),
            ev("b", "2026-03-02T10:00:00Z", "between"),
            ev("a", "2026-03-02T09:00:00Z", "next"), ev("b", "2026-03-02T09:00:01Z", "next"),
            ev("a", same, "tie-in-order", n=10), ev("b", same, "tie-in-order", n=11),
            ev("a", same, "tie-reversed", n=21), ev("b", same, "tie-reversed", n=20),
            # an event of another name, outside the range, still lies between
            ev("a", "2026-03-31T23:59:00Z", "outside"), ev("x", "2026-04-01T00:00:00Z", "outside"),
            ev("b", "2026-04-01T00:01:00Z", "outside")]
    strict = Reference(data).report(funnel(["a", "b"], order="strict"))
    assert step_actors(strict) == [5, 2]
    assert actors_of(funnel(["a", "b"], order="strict"), data, reached=2) == ["next", "tie-in-order"]
    ordered = Reference(data).report(funnel(["a", "b"]))
    assert step_actors(ordered) == [5, 5]


def test_strict_chain_may_not_skip_an_event_matching_a_later_step():
    data = [ev("a", "2026-03-02T09:00:00Z", "u"), ev("a", "2026-03-02T09:01:00Z", "u"),
            ev("b", "2026-03-02T09:02:00Z", "u")]
    assert step_actors(Reference(data).report(funnel(["a", "b"], order="strict"))) == [1, 1]  # from the 2nd a


def test_unordered_counts_any_k_steps_and_an_event_covers_one_step():
    data = [ev("b", "2026-03-02T10:00:00Z", "one-b"),  # any 1 of the steps: step 1 reached
            ev("b", "2026-03-02T10:00:00Z", "two-b"), ev("b", "2026-03-02T11:00:00Z", "two-b"),
            ev("c", "2026-03-02T10:00:00Z", "cba"), ev("b", "2026-03-02T11:00:00Z", "cba"),
            ev("a", "2026-03-02T12:00:00Z", "cba"),
            ev("c", "2026-03-02T10:00:00Z", "slow"), ev("a", "2026-03-04T12:00:00Z", "slow")]
    spec = funnel(["a|b", "b", "c"], order="unordered")
    result = Reference(data).report(spec)
    assert step_actors(result) == [4, 2, 1]
    # Unordered funnels have no previous step, so no times.
    assert result["steps"][2]["median_us_from_previous"] is None
    assert actors_of(spec, data, reached=2) == ["cba", "two-b"]
    ordered = Reference(data).report(funnel(["a|b", "b", "c"]))
    assert step_actors(ordered) == [4, 1, 0]  # only two-b has a b after its first step


def test_exclusions_cut_strictly_between_and_never_at_equal_times():
    t = lambda minutes: f"2026-03-02T10:{minutes:02d}:00Z"  # noqa: E731
    data = [ev("a", t(0), "at-a"), ev("x", t(0), "at-a"), ev("b", t(10), "at-a"),
            ev("a", t(0), "at-b"), ev("x", t(10), "at-b"), ev("b", t(10), "at-b"),
            ev("a", t(0), "cut"), ev("x", t(5), "cut"), ev("b", t(10), "cut"),
            ev("a", t(0), "recovers"), ev("x", t(5), "recovers"), ev("a", t(6), "recovers"), ev("b", t(10), "recovers"),
            ev("a", t(0), "before"), ev("x", "2026-03-02T09:00:00Z", "before"), ev("b", t(10), "before")]
    spec = funnel(["a", "b"], exclusions=[{"events": ["x"], "between": [1, 2]}])
    result = Reference(data).report(spec)
    assert step_actors(result) == [5, 4]
    assert actors_of(spec, data, dropped_after=1) == ["cut"]
    # recovers converts with its later a: 4 min; the others 10 min; median of [4, 10, 10, 10] is rank 2
    assert result["steps"][1]["median_us_from_previous"] == 600_000_000


def test_an_event_of_the_chain_never_cuts_it_but_another_copy_does():
    t = lambda minutes: f"2026-03-02T10:{minutes:02d}:00Z"  # noqa: E731
    data = [ev("a", t(0), "one-b"), ev("b", t(5), "one-b"), ev("c", t(10), "one-b"),
            ev("a", t(0), "two-b"), ev("b", t(5), "two-b"), ev("b", t(7), "two-b"), ev("c", t(10), "two-b")]
    spec = funnel(["a", "b", "c"], exclusions=[{"events": ["b"], "between": [1, 3]}])
    assert step_actors(Reference(data).report(spec)) == [2, 2, 1]
    assert actors_of(spec, data, reached=3) == ["one-b"]


def test_conversion_time_takes_earliest_last_step_then_latest_first_step():
    data = [ev("a", "2026-03-02T10:00:00Z", "u"), ev("a", "2026-03-02T11:00:00Z", "u"),
            ev("b", "2026-03-02T11:30:00Z", "u"), ev("b", "2026-03-02T11:40:00Z", "u"),
            ev("c", "2026-03-02T12:00:00Z", "u")]
    result = Reference(data).report(funnel(["a", "b", "c"]))
    # to b: earliest b 11:30, latest a 11:00 → 30 min; to c: c 12:00, latest a 11:00, latest b 11:40 → 20 min
    assert [s["median_us_from_previous"] for s in result["steps"]] == [None, 1_800_000_000, 1_200_000_000]
    assert [s["conversion_from_previous"] for s in result["steps"]] == [None, Decimal("1.0000"), Decimal("1.0000")]


def test_funnel_breakdown_by_the_first_event_counts_an_actor_under_each_value():
    data = [ev("a", "2026-03-02T10:00:00Z", "u1", context={"platform": "ios"}),
            ev("a", "2026-03-03T10:00:00Z", "u1", context={"platform": "android"}),
            ev("b", "2026-03-03T11:00:00Z", "u1"),
            ev("a", "2026-03-03T10:00:00Z", "u2"), ev("a", "2026-03-03T10:00:00Z", "u3", context={"platform": "web"})]
    spec = funnel(["a", "b"], breakdown={"field": "context.platform", "top": 2})
    result = Reference(data).report(spec)
    assert step_actors(result) == [3, 1]
    rows = {row["value"]: step_actors(row) for row in result["breakdown"]}
    assert list(rows) == ["(none)", "android", "(other)"]  # 1 actor each: by value bytes; ios, web beyond top 2
    assert rows == {"(none)": [1, 0], "android": [1, 1], "(other)": [2, 0]}


def test_funnel_bad_definitions_are_usage_errors():
    with pytest.raises(ReportError):
        Reference([]).report(funnel(["a"]))
    with pytest.raises(ReportError):
        Reference([]).report(funnel(["a"] * 11))
    with pytest.raises(ReportError):
        Reference([]).report(funnel(["a", "b"], window="0d"))
    with pytest.raises(ReportError):
        Reference([]).report(funnel(["a", "b"], since="2026-03-02", until="2026-03-02"))
    with pytest.raises(ReportError):
        Reference([]).report(dict(funnel(["a", "b"]), time_zone="Mars/Olympus"))


# MARK: Identity merging


def test_merging_follows_first_links_and_a_cycle_is_its_smallest_id():
    data = [identity("identify", "2026-03-05T00:00:00Z", user_id="u1", anonymous_id="anon"),
            identity("alias", "2026-03-05T00:00:00Z", previous_id="u1", user_id="u2"),
            identity("alias", "2026-03-05T00:00:00Z", previous_id="u2", user_id="u3"),
            identity("alias", "2026-03-05T00:00:00Z", previous_id="u3", user_id="u1"),
            # two users for one anonymous id: the earlier record wins, then the smaller event_id
            identity("identify", "2026-03-09T00:00:00Z", n=5, user_id="late", anonymous_id="shared"),
            identity("identify", "2026-03-07T00:00:00Z", n=9, user_id="second", anonymous_id="shared"),
            identity("identify", "2026-03-07T00:00:00Z", n=8, user_id="first", anonymous_id="shared"),
            identity("identify", "2026-02-01T00:00:00Z", user_id="self", anonymous_id="self"),
            identity("group", "2026-02-01T00:00:00Z", user_id="grouped", group_id="g1")]
    store = Reference(data).store
    assert store.resolve("anon") == "u1"  # anon, u1, u2, u3, then u1 again: the cycle u1, u2, u3
    assert store.resolve("u1") == "u1"
    assert store.resolve("u2") == "u1"
    assert store.resolve("u3") == "u1"
    assert store.resolve("shared") == "first"
    assert store.resolve("self") == "self"
    assert store.resolve("grouped") == "grouped"


def test_merged_actors_count_once_before_and_after_the_link_and_no_merge_counts_ids():
    data = [ev("a", "2026-03-02T10:00:00Z", anon="anon-1"),
            ev("b", "2026-03-02T10:05:00Z", user="user-1", anon="anon-1"),
            identity("identify", "2026-03-02T10:04:00Z", user_id="user-1", anonymous_id="anon-1"),
            ev("a", "2026-03-02T10:00:00Z", anon="anon-2"),
            identity("identify", "2026-01-01T00:00:00Z", user_id="user-2", anonymous_id="anon-2"),  # outside range
            ev("a", "2026-03-02T10:00:00Z")]  # no actor
    merged = Reference(data).report(funnel(["a", "b"]))
    assert step_actors(merged) == [2, 1]
    assert actors_of(funnel(["a", "b"]), data, reached=1) == ["user-1", "user-2"]
    unmerged = Reference(data).report(funnel(["a", "b"], merge_identities=False))
    assert step_actors(unmerged) == [2, 0]
    assert unmerged["merge_identities"] is False
    trend = Reference(data).report({"kind": "trends", "range": {"since": "2026-03-02", "until": "2026-03-03"},
                                    "events": [{"events": ["a", "b"]}], "measure": "actors", "interval": "day"})
    assert trend["series"][0]["values"] == [2]
    count = Reference(data).report({"kind": "trends", "range": {"since": "2026-03-02", "until": "2026-03-03"},
                                    "events": [{"events": ["a"]}], "measure": "count", "interval": "day"})
    assert count["series"][0]["values"] == [3]  # the event without an actor counts as an event


# MARK: Time zones and buckets


def trend(data, since, until, tz, interval="day", **extra):
    spec = {"kind": "trends", "range": {"since": since, "until": until}, "time_zone": tz,
            "events": [{"events": ["a"]}], "measure": "count", "interval": interval}
    spec.update(extra)
    return Reference(data).report(spec)


def test_paris_days_of_23_and_25_hours():
    data = [ev("a", "2026-03-28T23:30:00Z"),   # 00:30+01:00 on the 29th
            ev("a", "2026-03-29T21:59:59.999999Z"),  # 23:59:59.999999+02:00 on the 29th
            ev("a", "2026-03-29T22:00:00Z"),   # 00:00+02:00 on the 30th
            ev("a", "2026-10-24T22:00:00Z"),   # 00:00+02:00 on 25 October
            ev("a", "2026-10-25T00:30:00Z"), ev("a", "2026-10-25T01:30:00Z"),  # 02:30 twice
            ev("a", "2026-10-25T22:59:59Z"),   # 23:59:59+01:00 on the 25th
            ev("a", "2026-10-25T23:00:00Z")]   # the 26th
    spring = trend(data, "2026-03-28", "2026-03-31", "Europe/Paris")
    assert spring["buckets"] == ["2026-03-28T00:00:00+01:00", "2026-03-29T00:00:00+01:00", "2026-03-30T00:00:00+02:00"]
    assert spring["series"][0]["values"] == [0, 2, 1]
    assert spring["since"] == "2026-03-28T00:00:00+01:00" and spring["until"] == "2026-03-31T00:00:00+02:00"
    autumn = trend(data, "2026-10-25", "2026-10-27", "Europe/Paris")
    assert autumn["buckets"] == ["2026-10-25T00:00:00+02:00", "2026-10-26T00:00:00+01:00"]
    assert autumn["series"][0]["values"] == [4, 1]
    hours = trend(data, "2026-10-25T00:00:00+02:00", "2026-10-25T04:00:00+01:00", "Europe/Paris", "hour")
    assert hours["buckets"] == ["2026-10-25T00:00:00+02:00", "2026-10-25T01:00:00+02:00",
                                "2026-10-25T02:00:00+02:00", "2026-10-25T02:00:00+01:00",
                                "2026-10-25T03:00:00+01:00"]
    assert hours["series"][0]["values"] == [1, 0, 1, 1, 0]
    spring_hours = trend(data, "2026-03-29T00:00:00+01:00", "2026-03-29T04:00:00+02:00", "Europe/Paris", "hour")
    assert spring_hours["buckets"] == ["2026-03-29T00:00:00+01:00", "2026-03-29T01:00:00+01:00",
                                       "2026-03-29T03:00:00+02:00"]


def test_weeks_and_months_start_at_local_midnight():
    data = [ev("a", "2026-03-29T22:30:00Z"), ev("a", "2026-03-31T22:30:00Z")]  # Monday 30th 00:30, 1 April 00:30
    weeks = trend(data, "2026-03-23", "2026-04-06", "Europe/Paris", "week")
    assert weeks["buckets"] == ["2026-03-23T00:00:00+01:00", "2026-03-30T00:00:00+02:00"]
    assert weeks["series"][0]["values"] == [0, 2]
    months = trend(data, "2026-03-15", "2026-04-15", "Europe/Paris", "month")
    assert months["buckets"] == ["2026-03-01T00:00:00+01:00", "2026-04-01T00:00:00+02:00"]
    assert months["series"][0]["values"] == [1, 1]
    utc = trend(data, "2026-03-15", "2026-04-15", "UTC", "month")
    assert utc["buckets"] == ["2026-03-01T00:00:00+00:00", "2026-04-01T00:00:00+00:00"]
    assert utc["series"][0]["values"] == [2, 0]


def test_kolkata_days_start_at_half_past_six_utc():
    data = [ev("a", "2026-03-02T18:29:59.999999Z"), ev("a", "2026-03-02T18:30:00Z"), ev("a", "2026-03-03T00:00:00Z")]
    result = trend(data, "2026-03-02", "2026-03-05", "Asia/Kolkata")
    assert result["buckets"] == ["2026-03-02T00:00:00+05:30", "2026-03-03T00:00:00+05:30", "2026-03-04T00:00:00+05:30"]
    assert result["series"][0]["values"] == [1, 2, 0]
    hours = trend(data, "2026-03-02T23:00:00+05:30", "2026-03-03T01:00:00+05:30", "Asia/Kolkata", "hour")
    assert hours["buckets"] == ["2026-03-02T23:00:00+05:30", "2026-03-03T00:00:00+05:30"]
    assert hours["series"][0]["values"] == [1, 1]
    weeks = trend(data, "2026-03-02", "2026-03-10", "Asia/Kolkata", "week")
    assert weeks["buckets"] == ["2026-03-02T00:00:00+05:30", "2026-03-09T00:00:00+05:30"]


def test_a_range_that_starts_mid_bucket_lists_that_bucket_and_counts_only_the_range():
    data = [ev("a", "2026-03-02T05:00:00Z"), ev("a", "2026-03-02T07:00:00Z")]
    result = trend(data, "2026-03-02T06:00:00Z", "2026-03-03T00:00:00Z", "UTC")
    assert result["buckets"] == ["2026-03-02T00:00:00+00:00"]
    assert result["series"][0]["values"] == [1]
    assert result["since"] == "2026-03-02T06:00:00+00:00"


def test_compare_moves_the_range_back_by_its_length():
    data = [ev("a", "2026-03-01T12:00:00Z"), ev("a", "2026-03-03T12:00:00Z"), ev("a", "2026-03-04T12:00:00Z"),
            ev("a", "2026-03-04T13:00:00Z")]
    result = trend(data, "2026-03-03", "2026-03-05", "UTC", compare=True)
    series = result["series"][0]
    assert series["values"] == [1, 2] and series["previous"] == [1, 0] and series["previous_total"] == 1


# MARK: Measures


def test_decimal_measures_exact_with_nearest_rank_percentiles():
    prices = [Decimal("25.00"), Decimal("1e2"), Decimal("0.5"), "9.99", True, None, {"amount": 3}]
    data = [ev("buy", "2026-03-02T10:00:00Z", "u", props={"price": p}) for p in prices]
    data.append(ev("buy", "2026-03-02T11:00:00Z", "u", props={}))
    results = {}
    for measure in ["sum", "avg", "min", "max", "median", "p90"]:
        result = Reference(data).report({"kind": "trends", "range": {"since": "2026-03-02", "until": "2026-03-04"},
                                         "events": [{"events": ["buy"]}], "measure": f"{measure}:price",
                                         "interval": "day"})
        series = result["series"][0]
        assert series["values"][1] is None and series["values_used"] == [3, 0] and series["values_used_total"] == 3
        assert "estimated" not in series
        results[measure] = series["total"]
    assert results == {"sum": Decimal("125.5"), "avg": Decimal("41.833333"), "min": Decimal("0.5"),
                       "max": Decimal(100), "median": Decimal(25), "p90": Decimal(100)}


def test_nearest_rank_and_half_to_even():
    assert nearest_rank([1, 2, 3, 4], Fraction(1, 2)) == 2
    assert nearest_rank([1, 2, 3, 4, 5], Fraction(1, 2)) == 3
    assert nearest_rank(list(range(1, 11)), Fraction(9, 10)) == 9
    assert nearest_rank(list(range(1, 12)), Fraction(9, 10)) == 10  # ⌈9.9⌉
    assert nearest_rank([7], Fraction(9, 10)) == 7
    assert nearest_rank([], Fraction(1, 2)) is None
    assert ratio(1, 32) == Decimal("0.0312") and ratio(3, 32) == Decimal("0.0938")
    assert str(ratio(1, 2)) == "0.5000" and str(ratio(0, 0)) == "0.0000"
    assert round_half_even(Fraction(3, 2_000_000), 6) == Decimal("0.000002")
    assert round_half_even(Fraction(5, 2_000_000), 6) == Decimal("0.000002")
    assert round_half_even(Fraction(-5, 2_000_000), 6) == Decimal("-0.000002")


def test_avg_rounds_half_to_even_at_six_digits():
    data = [ev("buy", "2026-03-02T10:00:00Z", "u", props={"price": Decimal(p)}) for p in ("0.000002", "0.000003")]
    result = Reference(data).report({"kind": "trends", "range": {"since": "2026-03-02", "until": "2026-03-03"},
                                     "events": [{"events": ["buy"]}], "measure": "avg:price", "interval": "day"})
    assert result["series"][0]["total"] == Decimal("0.000002")  # 0.0000025 → even


def test_shares_round_half_to_even_in_funnels_and_retention():
    data = []
    for i in range(32):
        data.append(ev("a", "2026-03-02T10:00:00Z", f"u{i:02d}"))
        if i < 3:
            data.append(ev("b", "2026-03-02T11:00:00Z", f"u{i:02d}"))
        if i < 1:
            data.append(ev("a", "2026-03-09T11:00:00Z", f"u{i:02d}"))
    result = Reference(data).report(funnel(["a", "b"]))
    assert result["steps"][1]["conversion_from_first"] == Decimal("0.0938")
    retention = Reference(data).report({"kind": "retention", "range": {"since": "2026-03-02", "until": "2026-03-16"},
                                        "start": {"events": ["a"]}, "return": {"events": ["a"]}, "period": "week",
                                        "periods": 1})
    assert retention["cohorts"][0]["shares"] == [Decimal("1.0000"), Decimal("0.0312")]


def test_count_estimates_sampled_events_and_says_sampled():
    data = [ev("s", "2026-03-02T10:00:00Z", "u", rate="0.25"), ev("s", "2026-03-02T10:00:00Z", "u", rate="0.3"),
            ev("s", "2026-03-02T11:00:00Z", "u"), ev("s", "2026-03-03T11:00:00Z", "u", rate="0.3")]
    result = trend([dict(e, name="a") for e in data], "2026-03-02", "2026-03-04", "UTC")
    series = result["series"][0]
    assert series["values"] == [3, 1] and series["estimated"] == [8, 3]  # 4 + 10/3 + 1 = 8.33; 3.33
    assert series["estimated_total"] == 12 and series["total"] == 4  # 11.67 over the range, not 8 + 3
    assert result["sampled"] is True
    assert trend([ev("a", "2026-03-02T10:00:00Z")], "2026-03-02", "2026-03-03", "UTC")["sampled"] is False


def test_duplicates_count_once_and_future_events_take_their_placed_time():
    first = ev("a", "2026-03-02T10:00:00Z", "u", n=7)
    copy = dict(first, sent_at="2026-03-02T10:00:05Z", received_at="2026-03-02T10:00:06Z")
    future = ev("a", "2027-01-01T00:00:00Z", "u", sent_at="2027-01-01T00:00:05Z",
                received_at="2026-03-03T12:00:00Z")
    no_sent = ev("a", "2027-01-01T00:00:00Z", "u", received_at="2026-03-03T13:00:00Z")
    result = trend([first, copy, first, future, no_sent], "2026-03-02", "2026-03-04", "UTC")
    assert result["series"][0]["values"] == [1, 2]
    store = Reference([future]).store
    assert store.events[0].t == reference.parse_instant("2026-03-03T11:59:55Z")


# MARK: Filters and breakdowns


FILTER_DATA = [
    ev("e", "2026-03-02T10:00:00Z", "n1", props={"v": Decimal("1.0"), "s": "1", "b": True, "o": {"k": 1}}),
    ev("e", "2026-03-02T10:00:00Z", "n2", props={"v": Decimal(2), "s": "hello world", "b": False, "a": [1]}),
    ev("e", "2026-03-02T10:00:00Z", "n3", props={"v": "2", "s": None}),
    ev("e", "2026-03-02T10:00:00Z", "n4", props={"v": Decimal("2.50")}, context={"platform": "ios"}),
]


@pytest.mark.parametrize("flt, expected", [
    ({"field": "v", "op": "=", "value": 1}, ["n1"]),
    ({"field": "properties.v", "op": "eq", "value": "2"}, ["n2", "n3"]),  # number 2 and string "2"
    ({"field": "v", "op": "!=", "value": 2}, ["n1", "n4"]),
    ({"field": "s", "op": "ne", "value": "1"}, ["n2", "n3", "n4"]),  # unset matches !=
    ({"field": "v", "op": "in", "value": [1, "2.5"]}, ["n1", "n4"]),
    ({"field": "v", "op": "not in", "value": [1, 2]}, ["n4"]),
    ({"field": "s", "op": "not in", "value": ["1"]}, ["n2", "n3", "n4"]),
    ({"field": "s", "op": "contains", "value": "o w"}, ["n2"]),
    ({"field": "s", "op": "contains", "value": "O"}, []),
    ({"field": "v", "op": ">", "value": 1}, ["n2", "n4"]),  # the string "2" is no number
    ({"field": "v", "op": ">=", "value": "2.5"}, ["n4"]),
    ({"field": "v", "op": "<", "value": 2}, ["n1"]),
    ({"field": "v", "op": "<=", "value": 2}, ["n1", "n2"]),
    ({"field": "s", "op": "is set"}, ["n1", "n2"]),  # null is unset
    ({"field": "s", "op": "is not set"}, ["n3", "n4"]),
    ({"field": "b", "op": "=", "value": "true"}, ["n1"]),
    ({"field": "b", "op": "=", "value": False}, ["n2"]),
    ({"field": "o", "op": "=", "value": "{\"k\":1}"}, []),  # objects match only !=, not in, is set
    ({"field": "o", "op": "!=", "value": "x"}, ["n1", "n2", "n3", "n4"]),
    ({"field": "a", "op": "is set"}, ["n2"]),
    ({"field": "context.platform", "op": "=", "value": "ios"}, ["n4"]),
    ({"field": "name", "op": "=", "value": "e"}, ["n1", "n2", "n3", "n4"]),
    ({"field": "user_id", "op": "in", "value": ["n1", "n3"]}, ["n1", "n3"]),
])
def test_filter_operators(flt, expected):
    spec = {"kind": "breakdown", "range": {"since": "2026-03-02", "until": "2026-03-03"},
            "event": {"events": ["e"]}, "filters": [flt], "breakdown": {"field": "user_id", "top": 10}}
    assert [row["value"] for row in Reference(FILTER_DATA).report(spec)["rows"]] == expected


def test_a_numeric_operator_needs_a_number():
    with pytest.raises(ReportError):
        Reference([]).report({"kind": "breakdown", "range": {"since": "2026-03-02", "until": "2026-03-03"},
                              "filters": [{"field": "v", "op": ">", "value": "abc"}],
                              "breakdown": {"field": "name", "top": 10}})


def test_breakdown_values_top_and_other():
    data = [ev("e", "2026-03-02T10:00:00Z", f"u{i}", props={"p": p}, rate=r)
            for i, (p, r) in enumerate([(Decimal("25.00"), None), (Decimal(25), None), ("x", "0.5"), ("x", None),
                                        ({"b": 1, "a": [True, None]}, None), (None, None), (Decimal("1e2"), None),
                                        ("y", None)])]
    data.append(ev("e", "2026-03-02T10:00:00Z", "u0", props={"p": "y"}))
    spec = {"kind": "breakdown", "range": {"since": "2026-03-02", "until": "2026-03-03"},
            "event": {"events": ["e"]}, "breakdown": {"field": "p", "top": 3}}
    result = Reference(data).report(spec)
    assert result["rows"] == [
        {"value": "25", "events": 2, "actors": 2, "estimated": 2},
        {"value": "x", "events": 2, "actors": 2, "estimated": 3},
        {"value": "y", "events": 2, "actors": 2, "estimated": 2},
        {"value": "(other)", "events": 3, "actors": 3, "estimated": 3},  # (none), 100, {"a":[true,null],"b":1}
    ]
    assert result["total"] == {"events": 9, "actors": 8, "estimated": 10}
    assert result["sampled"] is True
    everything = Reference(data).report(dict(spec, breakdown={"field": "p", "top": 10}))
    assert [row["value"] for row in everything["rows"]] == ["25", "x", "y", "(none)", "100", '{"a":[true,null],"b":1}']
    assert actors_of(spec, data, value="(other)") == ["u4", "u5", "u6"]
    assert actors_of(spec, data, value="y") == ["u0", "u7"]


def test_trend_breakdown_top_by_range_total_and_other_over_the_union():
    data = [ev("e", "2026-03-02T10:00:00Z", "u1", context={"platform": "ios"}),
            ev("e", "2026-03-02T11:00:00Z", "u1", context={"platform": "ios"}),
            ev("e", "2026-03-02T10:00:00Z", "u2", context={"platform": "android"}),
            ev("e", "2026-03-03T10:00:00Z", "u3", context={"platform": "android"}),
            ev("e", "2026-03-03T10:00:00Z", "u1", context={"platform": "web"}),
            ev("e", "2026-03-03T10:00:00Z", "u1")]
    spec = {"kind": "trends", "range": {"since": "2026-03-02", "until": "2026-03-04"},
            "events": [{"events": ["e"]}], "measure": "actors", "interval": "day",
            "breakdown": {"field": "context.platform", "top": 1}}
    result = Reference(data).report(spec)
    # actors over the range: android 2, ios 1, web 1, (none) 1 → android, then (other) = {u1}
    assert [(s["breakdown"], s["values"], s["total"]) for s in result["series"]] == [
        ("android", [1, 1], 2), ("(other)", [1, 1], 1)]


# MARK: Retention


def test_retention_first_time_cohorts_and_cells_not_yet_known():
    data = [ev("start", "2026-02-20T10:00:00Z", "old"), ev("start", "2026-03-03T10:00:00Z", "old"),
            ev("back", "2026-03-10T10:00:00Z", "old"),
            ev("start", "2026-03-03T10:00:00Z", "w1"), ev("back", "2026-03-10T10:00:00Z", "w1"),
            ev("back", "2026-03-11T10:00:00Z", "w1"),
            ev("start", "2026-03-04T10:00:00Z", "w1b"), ev("back", "2026-03-04T12:00:00Z", "w1b"),
            ev("start", "2026-03-10T10:00:00Z", "w2"), ev("back", "2026-03-17T10:00:00Z", "w2")]
    spec = {"kind": "retention", "range": {"since": "2026-03-02", "until": "2026-03-16"}, "time_zone": "UTC",
            "start": {"events": ["start"]}, "return": {"events": ["back"]}, "period": "week", "periods": 3}
    result = Reference(data).report(spec)
    assert result["cohorts"] == [
        {"start": "2026-03-02T00:00:00+00:00", "size": 2, "counts": [2, 1, None, None],
         "shares": [Decimal("1.0000"), Decimal("0.5000"), None, None]},
        {"start": "2026-03-09T00:00:00+00:00", "size": 1, "counts": [1, None, None, None],
         "shares": [Decimal("1.0000"), None, None, None]}]
    assert actors_of(spec, data, cohort="2026-03-02", offset=1) == ["w1"]
    assert actors_of(spec, data, cohort="2026-03-09T00:00:00Z", offset=0) == ["w2"]
    recurring = Reference(data).report(dict(spec, cohort_mode="recurring"))
    assert [c["counts"] for c in recurring["cohorts"]] == [[3, 2, None, None], [1, None, None, None]]


def test_retention_first_cohort_is_the_period_holding_since():
    data = [ev("start", "2026-03-02T10:00:00Z", "before-since"), ev("start", "2026-03-05T10:00:00Z", "in"),
            ev("back", "2026-03-12T10:00:00Z", "in"), ev("back", "2026-03-09T01:00:00Z", "before-since")]
    spec = {"kind": "retention", "range": {"since": "2026-03-04", "until": "2026-03-23"}, "time_zone": "UTC",
            "start": {"events": ["start"]}, "return": {"events": ["back"]}, "period": "week", "periods": 2}
    result = Reference(data).report(spec)
    assert [(c["start"], c["counts"]) for c in result["cohorts"]] == [
        ("2026-03-02T00:00:00+00:00", [1, 1, 0]), ("2026-03-09T00:00:00+00:00", [0, 0, None]),
        ("2026-03-16T00:00:00+00:00", [0, None, None])]
    assert result["cohorts"][1]["shares"] == [Decimal("0.0000"), Decimal("0.0000"), None]


def test_output_head_and_echoed_definition():
    spec = {"kind": "funnel", "range": {"since": "2026-03-29", "until": "2026-04-01"}, "time_zone": "Europe/Paris",
            "feature": "app", "filters": [{"field": "platform", "op": "eq", "value": "ios"}],
            "steps": [{"events": ["a"]}, {"events": ["b", "c"], "filters": [{"field": "x", "op": "is set"}]}],
            "window": "2h", "exclusions": [{"events": ["x"], "between": [1, 2]}]}
    result = Reference([]).report(spec)
    assert list(result)[:7] == ["kind", "since", "until", "time_zone", "merge_identities", "sampled", "report"]
    assert result["since"] == "2026-03-29T00:00:00+01:00" and result["until"] == "2026-04-01T00:00:00+02:00"
    assert result["report"] == {
        "kind": "funnel", "range": {"since": "2026-03-29T00:00:00+01:00", "until": "2026-04-01T00:00:00+02:00"},
        "time_zone": "Europe/Paris", "filters": [{"field": "platform", "op": "=", "value": "ios"}], "feature": "app",
        "merge_identities": True,
        "steps": [{"events": ["a"], "filters": []}, {"events": ["b", "c"], "filters": [{"field": "x", "op": "is set"}]}],
        "window": "2h", "order": "ordered", "exclusions": [{"events": ["x"], "filters": [], "between": [1, 2]}],
        "breakdown": None}
    assert result["steps"][1]["label"] == "b|c" and result["window_us"] == 7_200_000_000
    assert result["steps"][0]["conversion_from_first"] == Decimal("0.0000")


# MARK: The chain search against plain enumeration


def enumerate_bests(d, events):
    """The funnel's definition applied literally: every tuple of distinct events of the actor."""
    ordered_events = sorted(events, key=lambda e: (e.t, e.id))
    position = {e.id: i for i, e in enumerate(ordered_events)}
    steps = len(d.steps)
    bests = {}

    def valid(chain, sorted_chain):
        times = [e.t for e in sorted_chain]
        if not d.since <= times[0] < d.until or times[-1] - times[0] > d.window:
            return False
        k = len(chain)
        for selector, a, b in d.exclusions:
            if b > k:
                continue
            t_a, t_b = sorted_chain[a - 1].t, sorted_chain[b - 1].t
            if any(selector.matches(x) and x not in chain and t_a < x.t < t_b for x in events):
                return False
        return True

    for k in range(1, steps + 1):
        for chain in itertools.permutations(events, k):
            if d.order == "unordered":
                if [position[e.id] for e in chain] != sorted(position[e.id] for e in chain):
                    continue  # each set once, in (time, id) order
                if not any(all(d.steps[s].matches(e) for s, e in zip(assignment, chain))
                           for assignment in itertools.permutations(range(steps), k)):
                    continue
            else:
                if not all(d.steps[j].matches(e) for j, e in enumerate(chain)):
                    continue
                if any(chain[j].t > chain[j + 1].t for j in range(k - 1)):
                    continue
                if d.order == "strict" and any(position[chain[j + 1].id] != position[chain[j].id] + 1
                                               for j in range(k - 1)):
                    continue
            if not valid(chain, chain):
                continue
            value = reference.breakdown_value(chain[0], d.breakdown_field) if d.breakdown_field else None
            key = (chain[-1].t, -chain[0].t, -chain[-2].t if k > 1 else 0)
            keys = bests.setdefault(value, {})
            if k not in keys or key < keys[k]:
                keys[k] = key
    return bests


@pytest.mark.parametrize("seed", range(500))
def test_chain_search_finds_what_enumerating_every_chain_finds(seed):
    import random
    rng = random.Random(seed)
    names = ["a", "b", "c", "x"]
    data = []
    for actor in ("p", "q"):
        for _ in range(rng.randint(1, 7)):
            minute = rng.choice([0, 0, 1, 2, 3, 5, 8, 13, 59, 60, 61])  # ties, the range's ends, the window's
            data.append(ev(rng.choice(names), f"2026-03-02T{10 + minute // 60}:{minute % 60:02d}:00Z", actor,
                           n=rng.randrange(10**6), context={"platform": rng.choice(["ios", "web"])}))
    step_pool = ["a", "b", "c", "a|b", "b|c", "x"]
    steps = [rng.choice(step_pool) for _ in range(rng.randint(2, 4))]
    exclusions = []
    if rng.random() < 0.6:
        a = rng.randint(1, len(steps) - 1)
        exclusions.append({"events": [rng.choice(["x", "b", "c"])], "between": [a, rng.randint(a + 1, len(steps))]})
    order = rng.choice(["ordered", "strict", "unordered"])
    breakdown = {"field": "context.platform", "top": 10} if rng.random() < 0.5 else None
    if order == "unordered":  # it takes no exclusions and no breakdown
        exclusions, breakdown = [], None
    spec = funnel(steps, window=rng.choice(["1h", "2h"]), order=order,
                  since="2026-03-02T10:01:00Z", until="2026-03-02T11:00:00Z", exclusions=exclusions,
                  breakdown=breakdown)
    ref = Reference(data)
    d = reference.Definition(spec)
    for actor, events in ref.store.by_actor(True).items():
        expected = {value: keys for value, keys in enumerate_bests(d, events).items() if keys}
        assert reference.ChainSearch(d, events).bests() == expected, (actor, spec)
