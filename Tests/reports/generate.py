"""A deterministic (seeded) NDJSON dataset for the report tests: a small podcast app's events over
two periods (2026-03-01 to 2026-05-15, across the spring clock change, and 2026-10-12 to
2026-11-08, across the autumn one), plus hand-made actors ("edge-…") for every case the
definitions of docs/reports.md care about. Every line is a tally envelope `tally ingest` accepts
without a registry.

    python3 generate.py [--seed N] [OUTPUT]      # default: stdout

What is in it (see EDGE below for the hand-made actors):
* sessions of ~100 devices: app_opened → episode_list_viewed → episode_list_episode_selected →
  episode_detail_viewed → episode_detail_play_tapped → player_opened → …, with drop-off, searches
  (search_viewed, the funnels' exclusion) between steps, speeds, buffering, purchases;
* anonymous devices that sign in (identify before and after their events), users only, alias
  chains, an alias cycle, an anonymous id linked to two users, identify records at equal times,
  a self-link, group records, identity records outside every range;
* sampled events (`player_buffering`, sample_rate 0.25, 0.3, 0.1, kept or dropped per device);
* numbers for sum/avg/…: `25.00`, `1e2`, `2.5e1`, `4.99`, integers, and non-numbers (`"9.99"`,
  true, null, objects), nested objects and arrays, context fields (app_version, platform), events
  without context, without any actor;
* events exactly on the clock changes in Europe/Paris (the repeated hour, local midnights) and on
  Asia/Kolkata's half-hour day starts; a day and a half without any event (an "outage");
* duplicates: the same line twice, re-sends with sent_at/received_at (other bytes, same id), an
  id in upper case; an event dated in the future (placed at its receipt); lines in receipt order,
  not time order.
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import random
import sys
from decimal import Decimal

UTC = dt.timezone.utc
EPOCH = dt.datetime(1970, 1, 1, tzinfo=UTC)
S = 1_000_000
MINUTE = 60 * S
HOUR = 3600 * S
DAY = 24 * HOUR
DEFAULT_SEED = 39

PERIODS = [  # (first day, end, devices)
    (dt.datetime(2026, 3, 1, tzinfo=UTC), dt.datetime(2026, 5, 15, tzinfo=UTC), 75),
    (dt.datetime(2026, 10, 12, tzinfo=UTC), dt.datetime(2026, 11, 8, tzinfo=UTC), 30),
]
OUTAGE = (dt.datetime(2026, 4, 14, 18, tzinfo=UTC), dt.datetime(2026, 4, 16, 6, tzinfo=UTC))
RELEASES = [("4.2.1", dt.datetime(2026, 1, 1, tzinfo=UTC)), ("4.3.0", dt.datetime(2026, 3, 20, tzinfo=UTC)),
            ("4.10.0", dt.datetime(2026, 4, 20, tzinfo=UTC)), ("4.11.0", dt.datetime(2026, 10, 20, tzinfo=UTC))]
QUERIES = ["news", "daily news", "true crime", "science", "tech news", "history", "comedy", "Newsroom"]


class Num:
    """A JSON number written exactly as given (`25.00`, `1e2`)."""

    def __init__(self, text: str):
        self.text = text


def dump(value) -> str:
    """Compact JSON keeping key order and the spelling of Num and Decimal numbers."""
    if isinstance(value, Num):
        return value.text
    if value is None or isinstance(value, (bool, str)):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, (int, Decimal)):
        return str(value)
    if isinstance(value, list):
        return "[" + ",".join(dump(item) for item in value) + "]"
    if isinstance(value, dict):
        return "{" + ",".join(json.dumps(k, ensure_ascii=False) + ":" + dump(v) for k, v in value.items()) + "}"
    raise TypeError(value)


def us_of(moment: dt.datetime) -> int:
    return (moment - EPOCH) // dt.timedelta(microseconds=1)


def rfc3339(us: int, digits: int = 6) -> str:
    moment = EPOCH + dt.timedelta(microseconds=us)
    text = moment.strftime("%Y-%m-%dT%H:%M:%S")
    if digits:
        text += "." + ("%06d" % moment.microsecond)[:digits]
    return text + "Z"


def at(text: str) -> int:
    return us_of(dt.datetime.fromisoformat(text.replace("Z", "+00:00")))


class Generator:
    def __init__(self, seed: int):
        self.rng = random.Random(seed)
        self.lines: list[tuple[int, int, str]] = []  # (receipt, order, line)
        self.envelopes: list[dict] = []

    # Ids: UUIDv7 (the event's milliseconds, then random bits), or given.

    def event_id(self, us: int, suffix: int | None = None) -> str:
        ms = us // 1000
        random_bits = self.rng.getrandbits(74) if suffix is None else suffix
        value = (ms << 80) | (0x7 << 76) | ((random_bits >> 62) << 64) | (0b10 << 62) | (random_bits & ((1 << 62) - 1))
        text = "%032x" % value
        return f"{text[:8]}-{text[8:12]}-{text[12:16]}-{text[16:20]}-{text[20:]}"

    def emit(self, name: str, feature: str, t: int, *, user=None, anon=None, session=None, props=None, context=None,
             rate=None, event_id=None, occurred_at=None, kind=None, **extra) -> dict:
        envelope = {"event_id": event_id or self.event_id(t)}
        if kind:
            envelope["type"] = kind
        envelope["name"] = name
        if feature:
            envelope["feature"] = feature
        if props is not None:
            envelope["properties"] = props
        envelope["occurred_at"] = occurred_at or rfc3339(t)
        for key, value in (("user_id", user), ("anonymous_id", anon), ("session_id", session)):
            if value is not None:
                envelope[key] = value
        if context is not None:
            envelope["context"] = context
        if rate is not None:
            envelope["sample_rate"] = Num(rate)
        envelope.update(extra)
        self.envelopes.append(envelope)
        return envelope

    def identify(self, t: int, user: str, anon: str, **extra) -> dict:
        return self.emit("identify", None, t, user=user, anon=anon, kind="identify",
                         props={"plan": "free"}, **extra)

    def alias(self, t: int, previous: str, user: str, **extra) -> dict:
        return self.emit("alias", None, t, user=user, kind="alias", previous_id=previous, **extra)

    # Traffic

    def version(self, t: int, lag_days: int) -> str:
        moment = EPOCH + dt.timedelta(microseconds=t - lag_days * DAY)
        return [name for name, date in RELEASES if date <= moment][-1]

    def simulate_device(self, number: int, first: dt.datetime, end: dt.datetime, period: int) -> None:
        rng = self.rng
        anon = f"install-{period}{number:03d}"
        user = f"user-{period}{number:03d}"
        platform = rng.choices(["ios", "android", "macos"], [0.5, 0.4, 0.1])[0]
        lag = rng.choice([0, 0, 1, 3, 10, 30])
        home = rng.choice([-5, 1, 1, 2, 5.5])  # hours from UTC of the device's evenings
        identity = rng.choices(["anonymous", "signs-in", "identified-first", "user-only"], [0.35, 0.4, 0.15, 0.1])[0]
        sampled_rate = {"ios": "0.25", "android": "0.3", "macos": "0.1"}[platform]
        keeps_buffering = rng.random() < float(sampled_rate)
        span_days = (end - first).days
        start_day = int(rng.random() ** 1.5 * span_days * 0.8)
        sign_in_session = rng.randint(1, 6)
        signed_in = identity in ("user-only",)
        sessions = 0
        day0 = us_of(first)
        if identity == "identified-first":
            self.identify(day0 + start_day * DAY - rng.randint(1, 20) * HOUR, user, anon)
        for day in range(start_day, span_days):
            age = day - start_day
            if rng.random() > 0.55 * 0.94**age + 0.07:
                continue
            for _ in range(rng.choice([1, 1, 1, 2, 3])):
                hour = (rng.uniform(7, 23.5) - home) % 24
                t = day0 + day * DAY + int(hour * HOUR) + rng.randrange(HOUR // 60) * 60 + rng.randrange(S)
                if t >= us_of(end):
                    continue
                sessions += 1
                if identity == "signs-in" and sessions == sign_in_session:
                    self.identify(t - rng.randint(1, 50) * S, user, anon)
                    signed_in = True
                ids = {"user": user if signed_in else None, "anon": None if identity == "user-only" else anon}
                if identity == "identified-first":
                    ids = {"user": None, "anon": anon}
                self.session(t, f"s-{anon}-{sessions}", ids, platform, lag, keeps_buffering, sampled_rate)

    def session(self, t: int, session: str, ids: dict, platform: str, lag: int, keeps_buffering: bool,
                rate: str) -> None:
        rng = self.rng
        clock = [t]

        def step(name: str, feature: str, props=None, gap=(2, 90), **extra):
            low, high = gap
            if high:
                clock[0] += rng.randint(low * S, high * S)
            context = {"app_version": self.version(clock[0], lag), "platform": platform, "locale": "en-US"}
            if rng.random() < 0.03:
                context = None  # some old clients send no context
            elif rng.random() < 0.05:
                del context["platform"]
            self.emit(name, feature, clock[0], user=ids["user"], anon=ids["anon"], session=session,
                      props=props if props is not None else {}, context=context, **extra)

        step("app_opened", "app", {"cold_start": rng.random() < 0.4}, gap=(0, 0))
        if rng.random() > 0.9:
            return
        step("episode_list_viewed", "episode", {})
        for _ in range(rng.choice([1, 1, 2, 3])):
            if rng.random() < 0.15:
                step("search_viewed", "search", {})
                if rng.random() < 0.8:
                    query = rng.choice(QUERIES)
                    step("search_query_submitted", "search",
                         {"query": query, "query_length": len(query), "results": rng.randint(0, 40)})
            if rng.random() > 0.7:
                break
            episode = f"ep-{rng.randint(1, 60)}"
            step("episode_list_episode_selected", "episode", {"position": rng.randint(0, 15), "episode_id": episode})
            step("episode_detail_viewed", "episode",
                 {"episode_id": episode, "source": rng.choice(["list", "list", "search", "deep_link"]),
                  "downloaded": rng.random() < 0.3})
            if rng.random() > 0.6:
                continue
            step("episode_detail_play_tapped", "episode", {"episode_id": episode})
            if rng.random() < 0.9:
                step("player_opened", "player", {"episode_id": episode, "duration_s": rng.randint(300, 5400)})
                if rng.random() < 0.25:
                    speed = rng.choice([Num("1.25"), Num("1.5"), Num("2"), Num("0.75"), "1.5", Num("1.50")])
                    step("player_speed_changed", "player", {"speed": speed})
                if keeps_buffering and rng.random() < 0.5:
                    step("player_buffering", "player", {"stall_ms": rng.randint(100, 4000)}, rate=rate)
        if ids["user"] and rng.random() < 0.12:
            price = rng.choice([Num("4.99"), Num("9.99"), Num("25.00"), Num("1e2"), Num("2.5e1"), Num("12"), "9.99",
                                None, Num("0.5"), Num("19.90")])
            props = {"currency": "EUR", "plan": {"tier": rng.choice(["pro", "family"]), "months": rng.choice([1, 12])},
                     "tags": rng.choice([["promo"], [], ["promo", "spring"]])}
            if price is not None or rng.random() < 0.5:
                props["price"] = price
            step("subscription_purchased", "billing", props)

    # Hand-made actors

    def edge_cases(self) -> None:
        """Actors named edge-… whose every event is placed by hand (see EDGE)."""
        ctx = {"app_version": "4.2.1", "platform": "ios"}

        def chain(actor, steps, **kw):
            for name, when, *rest in steps:
                feature = name.split("_")[0]
                suffix = rest[0] if rest else None
                self.emit(name, feature, at(when), user=actor, context=ctx, props={"position": 1},
                          event_id=self.event_id(at(when), suffix) if suffix is not None else None, **kw)

        # The window (1d): exactly W converts, W + 1 µs does not.
        chain("edge-window-exact", [("episode_list_viewed", "2026-03-10T08:00:00.000000Z"),
                                    ("episode_list_episode_selected", "2026-03-10T08:01:00.000000Z"),
                                    ("player_opened", "2026-03-11T08:00:00.000000Z")])
        chain("edge-window-over", [("episode_list_viewed", "2026-03-10T08:00:00.000000Z"),
                                   ("episode_list_episode_selected", "2026-03-10T08:01:00.000000Z"),
                                   ("player_opened", "2026-03-11T08:00:00.000001Z")])
        # Three steps at the same microsecond; by event_id: selected < viewed < opened (strict: no).
        same = "2026-03-12T09:15:30.123456Z"
        chain("edge-same-us", [("episode_list_episode_selected", same, 1), ("episode_list_viewed", same, 2),
                               ("player_opened", same, 3)])
        # The same, with ids in step order (strict: yes).
        chain("edge-strict-tie", [("episode_list_viewed", same, 11), ("episode_list_episode_selected", same, 12),
                                  ("player_opened", same, 13)])
        # Another event between two steps (strict: no; ordered: yes).
        chain("edge-strict-gap", [("episode_list_viewed", "2026-03-12T10:00:00Z"),
                                  ("search_viewed", "2026-03-12T10:00:10Z"),
                                  ("episode_list_episode_selected", "2026-03-12T10:00:20Z"),
                                  ("player_opened", "2026-03-12T10:00:30Z")])
        # Exclusion (search_viewed between steps 2 and 3): strictly between cuts; at eA's or eB's time not.
        chain("edge-excl-between", [("episode_list_viewed", "2026-03-13T10:00:00Z"),
                                    ("episode_list_episode_selected", "2026-03-13T10:01:00Z"),
                                    ("search_viewed", "2026-03-13T10:02:00Z"),
                                    ("player_opened", "2026-03-13T10:03:00Z")])
        chain("edge-excl-at-a", [("episode_list_viewed", "2026-03-13T10:00:00Z"),
                                 ("episode_list_episode_selected", "2026-03-13T10:01:00.500000Z"),
                                 ("search_viewed", "2026-03-13T10:01:00.500000Z"),
                                 ("player_opened", "2026-03-13T10:03:00Z")])
        chain("edge-excl-at-b", [("episode_list_viewed", "2026-03-13T10:00:00Z"),
                                 ("episode_list_episode_selected", "2026-03-13T10:01:00Z"),
                                 ("search_viewed", "2026-03-13T10:03:00.250000Z"),
                                 ("player_opened", "2026-03-13T10:03:00.250000Z")])
        chain("edge-excl-recovers", [("episode_list_viewed", "2026-03-13T10:00:00Z"),
                                     ("episode_list_episode_selected", "2026-03-13T10:01:00Z"),
                                     ("search_viewed", "2026-03-13T10:02:00Z"),
                                     ("episode_list_episode_selected", "2026-03-13T10:04:00Z"),
                                     ("player_opened", "2026-03-13T10:05:00Z")])
        # One event matching two steps (play_tapped|player_opened, then player_opened) is used once.
        chain("edge-multi-one", [("player_opened", "2026-03-14T10:00:00Z")])
        chain("edge-multi-two", [("player_opened", "2026-03-14T10:00:00Z"), ("player_opened", "2026-03-14T10:00:00Z")])
        # Starts on the last day of March (Paris) and finishes after the range, within the window.
        chain("edge-late-start", [("episode_list_viewed", "2026-03-31T21:30:00Z"),
                                  ("episode_list_episode_selected", "2026-03-31T21:45:00Z"),
                                  ("player_opened", "2026-04-01T03:00:00Z")])
        # Starts before the range (Paris, March), converts inside it: not counted.
        chain("edge-early-start", [("episode_list_viewed", "2026-02-28T22:30:00Z"),
                                   ("episode_list_episode_selected", "2026-02-28T23:15:00Z"),
                                   ("player_opened", "2026-03-01T01:00:00Z")])

        # Identities.
        # Anonymous, signs in, then both ids (the identify between the events).
        self.emit("app_opened", "app", at("2026-03-05T09:00:00Z"), anon="anon-edge-a", context=ctx, props={})
        self.emit("episode_list_viewed", "episode", at("2026-03-05T09:00:05Z"), anon="anon-edge-a", context=ctx,
                  props={})
        self.identify(at("2026-03-05T09:01:00Z"), "user-edge-a", "anon-edge-a")
        self.emit("player_opened", "player", at("2026-03-05T09:02:00Z"), user="user-edge-a", anon="anon-edge-a",
                  context=ctx, props={"episode_id": "ep-1", "duration_s": 600})
        self.emit("app_opened", "app", at("2026-03-16T09:00:00Z"), user="user-edge-a", context=ctx, props={})
        # Identified before any event; its events carry only the anonymous id.
        self.identify(at("2026-01-15T12:00:00Z"), "user-edge-b", "anon-edge-b")
        for when in ("2026-03-06T10:00:00Z", "2026-03-13T10:00:00Z", "2026-04-03T10:00:00Z"):
            self.emit("app_opened", "app", at(when), anon="anon-edge-b", context=ctx, props={})
            self.emit("player_opened", "player", at(when) + MINUTE, anon="anon-edge-b", context=ctx,
                      props={"episode_id": "ep-2", "duration_s": 700})
        # An alias chain: anon-edge-c → user-edge-c1 → user-edge-c2 → user-edge-c3.
        self.identify(at("2026-03-07T08:00:00Z"), "user-edge-c1", "anon-edge-c")
        self.alias(at("2026-03-20T08:00:00Z"), "user-edge-c1", "user-edge-c2")
        self.alias(at("2026-04-02T08:00:00Z"), "user-edge-c2", "user-edge-c3")
        for actor, when in (({"anon": "anon-edge-c"}, "2026-03-07T07:00:00Z"),
                            ({"user": "user-edge-c1"}, "2026-03-14T07:00:00Z"),
                            ({"user": "user-edge-c2"}, "2026-03-21T07:00:00Z"),
                            ({"user": "user-edge-c3"}, "2026-04-04T07:00:00Z")):
            self.emit("app_opened", "app", at(when), context=ctx, props={}, **actor)
            self.emit("player_opened", "player", at(when) + 2 * MINUTE, context=ctx,
                      props={"episode_id": "ep-3", "duration_s": 800}, **actor)
        # An alias cycle: p → q → r → p (each id resolves to the last id before the cycle closes).
        self.alias(at("2026-03-08T08:00:00Z"), "user-cycle-p", "user-cycle-q")
        self.alias(at("2026-03-08T08:00:01Z"), "user-cycle-q", "user-cycle-r")
        self.alias(at("2026-03-08T08:00:02Z"), "user-cycle-r", "user-cycle-p")
        for actor, when in (("user-cycle-p", "2026-03-09T10:00:00Z"), ("user-cycle-q", "2026-03-16T10:00:00Z"),
                            ("user-cycle-r", "2026-03-23T10:00:00Z")):
            self.emit("app_opened", "app", at(when), user=actor, context=ctx, props={})
            self.emit("episode_list_viewed", "episode", at(when) + S, user=actor, context=ctx, props={})
            self.emit("player_opened", "player", at(when) + 3 * S, user=actor, context=ctx,
                      props={"episode_id": "ep-4", "duration_s": 900})
        # One anonymous id linked to two users: the earlier record wins.
        self.identify(at("2026-03-10T12:00:00Z"), "user-edge-d1", "anon-edge-d")
        self.identify(at("2026-03-24T12:00:00Z"), "user-edge-d2", "anon-edge-d")
        self.emit("app_opened", "app", at("2026-03-10T11:00:00Z"), anon="anon-edge-d", context=ctx, props={})
        self.emit("app_opened", "app", at("2026-03-25T11:00:00Z"), user="user-edge-d2", anon="anon-edge-d",
                  context=ctx, props={})
        self.emit("player_opened", "player", at("2026-03-25T11:05:00Z"), user="user-edge-d2", context=ctx,
                  props={"episode_id": "ep-5", "duration_s": 500})
        # Two identify records at the same microsecond: the smaller event_id wins (e1 before e2).
        tie = at("2026-03-11T12:00:00Z")
        self.identify(tie, "user-edge-e2", "anon-edge-e", event_id=self.event_id(tie, 2))
        self.identify(tie, "user-edge-e1", "anon-edge-e", event_id=self.event_id(tie, 1))
        self.emit("app_opened", "app", at("2026-03-11T11:00:00Z"), anon="anon-edge-e", context=ctx, props={})
        self.emit("app_opened", "app", at("2026-03-18T11:00:00Z"), user="user-edge-e1", context=ctx, props={})
        # Links that link nothing: to itself, and group records.
        self.identify(at("2026-03-02T00:00:00Z"), "edge-self", "edge-self")
        self.emit("group", None, at("2026-03-02T00:00:01Z"), user="user-edge-a", kind="group", group_id="team-1")
        self.emit("app_opened", "app", at("2026-03-02T08:00:00Z"), user="edge-self", context=ctx, props={})

        # Events without any actor.
        for when in ("2026-03-03T12:00:00Z", "2026-03-29T00:30:00Z", "2026-04-20T12:00:00Z", "2026-10-25T00:30:00Z"):
            self.emit("app_crashed", "app", at(when), context=ctx, props={"signal": 11})
            self.emit("episode_list_viewed", "episode", at(when) + S, context=ctx, props={})

        # The clock changes in Europe/Paris and Asia/Kolkata's half-hour day starts.
        clock_times = [
            "2026-03-28T22:59:59.999999Z",  # Paris 23:59:59.999999+01:00 on the 28th
            "2026-03-28T23:00:00Z",         # Paris midnight of the 29th
            "2026-03-29T00:59:59.999999Z",  # 01:59:59.999999+01:00, the last instant before the change
            "2026-03-29T01:00:00Z",         # 03:00+02:00
            "2026-03-29T21:59:59.999999Z",  # 23:59:59.999999+02:00 on the 29th (a 23-hour day)
            "2026-03-29T22:00:00Z",         # midnight of the 30th
            "2026-10-24T21:59:59.999999Z", "2026-10-24T22:00:00Z",  # midnight of 25 October, +02:00
            "2026-10-25T00:00:00Z",         # 02:00+02:00, the first of the repeated hour
            "2026-10-25T00:30:00Z", "2026-10-25T00:59:59.999999Z",
            "2026-10-25T01:00:00Z",         # 02:00+01:00, the second
            "2026-10-25T01:30:00Z",
            "2026-10-25T22:59:59.999999Z", "2026-10-25T23:00:00Z",  # midnight of the 26th, +01:00 (a 25-hour day)
            "2026-03-04T18:29:59.999999Z", "2026-03-04T18:30:00Z",  # Kolkata midnight of 5 March
            "2026-03-08T18:29:59.999999Z", "2026-03-08T18:30:00Z",  # Kolkata Monday 9 March
            "2026-03-31T18:29:59.999999Z", "2026-03-31T18:30:00Z",  # Kolkata 1 April
        ]
        for number, when in enumerate(clock_times):
            actor = f"edge-clock-{number % 3}"
            self.emit("app_opened", "app", at(when), user=actor, context={"app_version": "4.3.0", "platform": "macos"},
                      props={"cold_start": True})
        # Other spellings of occurred_at: an offset, a short fraction.
        self.emit("app_opened", "app", at("2026-03-29T01:30:00Z"), user="edge-clock-0", context=ctx, props={},
                  occurred_at="2026-03-29T03:30:00+02:00")
        self.emit("app_opened", "app", at("2026-03-04T18:45:00.5Z"), user="edge-clock-1", context=ctx, props={},
                  occurred_at="2026-03-05T00:15:00.5+05:30")
        self.emit("app_opened", "app", at("2026-10-25T01:15:00.25Z"), user="edge-clock-2", context=ctx, props={},
                  occurred_at="2026-10-25T02:15:00.250+01:00")
        # An id that is not a UUID (becomes a version-5 UUID).
        self.emit("app_opened", "app", at("2026-03-18T15:00:00Z"), user="edge-legacy", context=ctx, props={},
                  event_id="msg-legacy-42")
        # An event dated in the future: placed at received_at − (sent_at − occurred_at) = 2026-03-20T11:59:50Z.
        self.emit("app_opened", "app", at("2027-06-01T00:00:00Z"), user="edge-future", context=ctx, props={},
                  sent_at="2027-06-01T00:00:10.000000Z", received_at="2026-03-20T12:00:00.000000Z")
        self.emit("player_opened", "player", at("2026-03-20T12:30:00Z"), user="edge-future", context=ctx,
                  props={"episode_id": "ep-6", "duration_s": 100})
        # Purchases with every kind of price, one actor, one day.
        for number, price in enumerate([Num("25.00"), Num("1e2"), Num("2.5e1"), "9.99", True, None, {"amount": 3},
                                        Num("0.000001"), Num("-1.5")]):
            props = {"currency": "EUR", "plan": {"months": 1, "tier": "pro"}, "tags": ["edge"], "price": price}
            self.emit("subscription_purchased", "billing", at("2026-03-17T10:00:00Z") + number * S,
                      user="edge-buyer", context=ctx, props=props)
        # Returns across weeks and months for retention: every Monday from 2 March to 11 May.
        for week in range(11):
            when = at("2026-03-02T07:00:00Z") + week * 7 * DAY
            if week in (0, 4, 9):
                self.emit("app_opened", "app", when, user="edge-weekly", context=ctx, props={})
            if week in (1, 2, 5, 9):
                self.emit("player_opened", "player", when + HOUR, user="edge-weekly", context=ctx,
                          props={"episode_id": "ep-7", "duration_s": 1200})

    # Output

    def lines_in_receipt_order(self) -> list[str]:
        """Each envelope as a line at its receipt time, plus re-sent copies; later copies, and
        devices that were offline, arrive out of time order."""
        rng = self.rng
        out = []
        for number, envelope in enumerate(self.envelopes):
            t = at(envelope["received_at"]) if "received_at" in envelope else at(envelope["occurred_at"])
            delay = rng.choices([rng.randint(0, 60 * S), rng.randint(MINUTE, 6 * HOUR), rng.randint(DAY, 5 * DAY)],
                                [0.9, 0.08, 0.02])[0]
            line = dump(envelope)
            out.append((t + delay, number, line))
            draw = rng.random()
            if draw < 0.02:
                out.append((t + delay + rng.randint(0, 10 * DAY), number, line))  # the same line again
            elif draw < 0.04 and "received_at" not in envelope:
                resent = dict(envelope)  # re-sent by the device later: other bytes, the same event
                sent = t + delay + rng.randint(MINUTE, 20 * HOUR)
                resent["sent_at"] = rfc3339(sent)
                resent["received_at"] = rfc3339(sent + rng.randint(0, 2 * S))
                out.append((sent, number, dump(resent)))
            elif draw < 0.045:
                reordered = dict(reversed(list(envelope.items())))  # other key order
                out.append((t + delay + HOUR, number, dump(reordered)))
        # One re-send with the id in upper case without dashes: the same UUID.
        first = next(e for e in self.envelopes if e["name"] == "player_opened" and "type" not in e)
        shouting = dict(first, event_id=first["event_id"].replace("-", "").upper())
        out.append((at(first["occurred_at"]) + DAY, -1, dump(shouting)))
        out.sort(key=lambda item: (item[0], item[1]))
        return [line for _, _, line in out]


def generate(seed: int = DEFAULT_SEED) -> list[str]:
    """The dataset's NDJSON lines, in file order."""
    generator = Generator(seed)
    for period, (first, end, devices) in enumerate(PERIODS, start=1):
        for number in range(devices):
            generator.simulate_device(number, first, end, period)
    outage = (us_of(OUTAGE[0]), us_of(OUTAGE[1]))
    generator.envelopes = [e for e in generator.envelopes if not outage[0] <= at(e["occurred_at"]) < outage[1]]
    generator.edge_cases()
    return generator.lines_in_receipt_order()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("output", nargs="?")
    arguments = parser.parse_args()
    text = "".join(line + "\n" for line in generate(arguments.seed))
    if arguments.output:
        with open(arguments.output, "w", encoding="utf-8") as output:
            output.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
