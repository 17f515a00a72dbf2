"""A reference implementation of `tally report`, written only from docs/reports.md.

It favours obvious correctness over speed: every number is computed straight from the
definitions (chains enumerated per actor by a depth-first search, exact decimals and fractions,
`zoneinfo` for local calendars). The stores' answers are compared with it (test_reports.py).

Input: envelopes (tally NDJSON objects, events and identity records, duplicates and any order)
and a report definition in the saved-report JSON shape (see cases.py for the exact shape).
Output: the JSON object of docs/reports.md's "Output" section, without `store`.

    python3 reference.py DATA.ndjson DEFINITION.json     # prints the report as JSON

The readings this file takes where docs/reports.md is silent or ambiguous are marked
"Reading:" in the comments; cases.py lists them for the CLI.
"""
from __future__ import annotations

import bisect
import datetime as dt
import decimal
import json
import re
import sys
import uuid
from decimal import Decimal
from fractions import Fraction
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

UTC = dt.timezone.utc
EPOCH = dt.datetime(1970, 1, 1, tzinfo=UTC)
MICROSECOND = dt.timedelta(microseconds=1)
SECOND_US = 1_000_000
HOUR_US = 3600 * SECOND_US
DURATION_UNITS = {"h": HOUR_US, "d": 24 * HOUR_US, "w": 7 * 24 * HOUR_US}
EVENT_ID_NAMESPACE = uuid.UUID("f105c21a-08e0-5751-8548-82d7eca2ad03")
KINDS = ("trends", "breakdown", "funnel", "retention", "actors")
INTERVALS = ("hour", "day", "week", "month")
PERIODS = ("day", "week", "month")
ORDERS = ("ordered", "strict", "unordered")
COHORT_MODES = ("first-time", "recurring")
DECIMAL_MEASURES = ("sum", "avg", "min", "max", "median", "p90")
TOP_LEVEL_FIELDS = ("name", "feature", "user_id", "anonymous_id", "session_id", "schema_version")
NONE_VALUE = "(none)"
OTHER_VALUE = "(other)"
# Reading: defaults the docs do not give (cases.py always passes these explicitly).
DEFAULTS = {"top": 10, "measure": "count", "interval": "day", "window": "1d", "order": "ordered",
            "period": "week", "periods": 8, "cohort_mode": "first-time"}
EXACT = decimal.Context(prec=1000, rounding=decimal.ROUND_HALF_EVEN)


class ReportError(ValueError):
    """A definition the CLI refuses with exit 64 (a usage error)."""


class _Unset:
    def __repr__(self) -> str:
        return "UNSET"


UNSET = _Unset()

# MARK: JSON values


def loads(text: str):
    """JSON with every number as an exact Decimal that keeps its spelling (`25.00`, `1E+2`)."""
    return json.loads(text, parse_float=Decimal, parse_int=Decimal)


def is_number(value) -> bool:
    return isinstance(value, (int, float, Decimal)) and not isinstance(value, bool)


def to_decimal(value) -> Decimal:
    if isinstance(value, Decimal):
        return value
    if isinstance(value, float):
        return Decimal(repr(value))
    return Decimal(value)


def number_text(value) -> str:
    """A number's canonical text: plain decimal notation, no exponent, no trailing zeros after the
    point, no `-0` (`25.00` → `25`, `1e2` → `100`, `0.50` → `0.5`).

    Reading: docs/reports.md says a breakdown value is the number's "JSON text"; the stores do not
    keep one spelling (PostgreSQL's jsonb turns `1e2` into `100`), so numerically equal values are
    one value, written like this."""
    d = to_decimal(value)
    if d == 0:
        return "0"
    text = format(d.normalize(EXACT), "f")
    return text


def json_text(value) -> str:
    """Canonical JSON text: no whitespace, object keys sorted by their UTF-8 bytes, numbers as
    number_text, strings escaped as json.dumps(ensure_ascii=False) does (only `"`, `\\` and
    control characters)."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if is_number(value):
        return number_text(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ",".join(json_text(item) for item in value) + "]"
    if isinstance(value, dict):
        keys = sorted(value, key=lambda key: key.encode())
        return "{" + ",".join(json.dumps(key, ensure_ascii=False) + ":" + json_text(value[key]) for key in keys) + "}"
    raise TypeError(f"not a JSON value: {value!r}")


NUMBER = re.compile(r"^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?$")


def parse_number(text: str) -> Decimal | None:
    return Decimal(text) if NUMBER.match(text) else None


# MARK: Time


RFC3339 = re.compile(
    r"^([0-9]{4})-([0-9]{2})-([0-9]{2})[Tt]([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.([0-9]+))?([Zz]|[+-][0-9]{2}:[0-9]{2})$")
DATE = re.compile(r"^([0-9]{4})-([0-9]{2})-([0-9]{2})$")


def parse_instant(text: str) -> int:
    """An RFC 3339 date-time as microseconds since the epoch (fractions beyond µs truncated)."""
    match = RFC3339.match(text)
    if not match:
        raise ReportError(f"not an RFC 3339 time: {text!r}")
    year, month, day, hour, minute, second = (int(match.group(i)) for i in range(1, 7))
    leap = 1 if second == 60 else 0
    base = dt.datetime(year, month, day, hour, minute, second - leap, tzinfo=UTC)
    fraction = int(((match.group(7) or "") + "000000")[:6])
    zone = match.group(8)
    offset = 0
    if zone not in ("Z", "z"):
        sign = 1 if zone[0] == "+" else -1
        offset = sign * (int(zone[1:3]) * 3600 + int(zone[4:6]) * 60)
    return (base - EPOCH) // MICROSECOND + (leap - offset) * SECOND_US + fraction


def zone(name: str) -> ZoneInfo:
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError) as error:
        raise ReportError(f"unknown time zone {name!r}") from error


def local(us: int, tz: ZoneInfo) -> dt.datetime:
    return (EPOCH + dt.timedelta(microseconds=us)).astimezone(tz)


def instant_of(naive: dt.datetime, tz: ZoneInfo, fold: int = 0) -> int:
    """The instant of a local wall time. fold=0: the earlier of a repeated time; a time in a gap
    maps with the offset before the change, i.e. to the first instant after the gap."""
    return (naive.replace(tzinfo=tz, fold=fold) - EPOCH) // MICROSECOND


def format_instant(us: int, tz: ZoneInfo) -> str:
    """RFC 3339 in local time with its offset: `2026-03-29T00:00:00+01:00` (microseconds only when
    not zero). Reading: UTC is written `+00:00`, like every other offset, not `Z`."""
    moment = local(us, tz)
    offset = int(moment.utcoffset().total_seconds())
    sign = "+" if offset >= 0 else "-"
    hours, minutes = divmod(abs(offset) // 60, 60)
    text = moment.strftime("%Y-%m-%dT%H:%M:%S")
    if moment.microsecond:
        text += ".%06d" % moment.microsecond
    return f"{text}{sign}{hours:02d}:{minutes:02d}"


def parse_bound(text: str, tz: ZoneInfo) -> int:
    """A range end: an RFC 3339 instant, or a date meaning its local midnight in the report's zone."""
    match = DATE.match(text)
    if match:
        day = dt.date(int(match.group(1)), int(match.group(2)), int(match.group(3)))
        return instant_of(dt.datetime.combine(day, dt.time()), tz, 0)
    return parse_instant(text)


def parse_duration(text: str) -> int:
    """`30d`, `12h`, `2w` (the units of --last) as microseconds."""
    match = re.fullmatch(r"([0-9]+)([hdw])", str(text))
    if not match:
        raise ReportError(f"not a duration (N h, d or w): {text!r}")
    return int(match.group(1)) * DURATION_UNITS[match.group(2)]


def period_start(us: int, unit: str, tz: ZoneInfo) -> int:
    """The start of the local hour, day, ISO week or month holding `us`."""
    moment = local(us, tz)
    if unit == "hour":
        start = instant_of(moment.replace(minute=0, second=0, microsecond=0, tzinfo=None), tz, moment.fold)
    else:
        day = moment.date()
        if unit == "week":
            day -= dt.timedelta(days=day.weekday())
        elif unit == "month":
            day = day.replace(day=1)
        start = instant_of(dt.datetime.combine(day, dt.time()), tz, 0)
    assert start <= us, (us, unit, tz)
    return start


def next_period(start: int, unit: str, tz: ZoneInfo) -> int:
    """The start of the period after the one starting at `start`."""
    if unit == "hour":
        following = start + HOUR_US
        moment = local(following, tz)
        if moment.minute or moment.second or moment.microsecond:
            raise ReportError(f"{tz.key}: local hours are not whole hours of UTC here")
        return following
    day = local(start, tz).date()
    if unit == "day":
        day += dt.timedelta(days=1)
    elif unit == "week":
        day += dt.timedelta(days=7)
    else:
        day = (day.replace(day=28) + dt.timedelta(days=4)).replace(day=1)
    return instant_of(dt.datetime.combine(day, dt.time()), tz, 0)


class Periods:
    """The periods (buckets, cohorts) of a unit that start before `until` and end after `since`."""

    def __init__(self, since: int, until: int, unit: str, tz: ZoneInfo):
        self.unit, self.tz = unit, tz
        self.starts: list[int] = []
        start = period_start(since, unit, tz)
        while start < until:
            self.starts.append(start)
            start = next_period(start, unit, tz)
        self.end = start

    def __len__(self) -> int:
        return len(self.starts)

    def index(self, us: int) -> int | None:
        if not self.starts or us < self.starts[0] or us >= self.end:
            return None
        return bisect.bisect_right(self.starts, us) - 1

    def labels(self) -> list[str]:
        return [format_instant(start, self.tz) for start in self.starts]


# MARK: Rounding


def round_half_even(value: Fraction, places: int) -> Decimal:
    scaled = Fraction(value) * 10**places
    quotient, remainder = divmod(scaled.numerator, scaled.denominator)
    if 2 * remainder > scaled.denominator or (2 * remainder == scaled.denominator and quotient % 2 == 1):
        quotient += 1
    return Decimal(quotient).scaleb(-places)


def round_half_up(value: Fraction) -> int:
    """To the nearest integer, halves away from zero (values here are positive).
    Reading: docs/reports.md says "rounded to the nearest integer" for `estimated`; this is how
    `tally summary` rounds its estimate (Double.rounded())."""
    quotient, remainder = divmod(value.numerator, value.denominator)
    return quotient + (1 if 2 * remainder >= value.denominator else 0)


def ratio(numerator: int, denominator: int) -> Decimal:
    """A ratio with 4 digits after the point, half to even; 0 when the denominator is 0."""
    if denominator == 0:
        return Decimal("0.0000")
    return round_half_even(Fraction(numerator, denominator), 4)


def nearest_rank(sorted_values: list, share: Fraction):
    """The value at rank ⌈share × n⌉ (1-based) of sorted values; None when there are none."""
    n = len(sorted_values)
    if n == 0:
        return None
    rank = -((-share.numerator * n) // share.denominator)  # ceil
    return sorted_values[max(rank, 1) - 1]


# MARK: Events and identities


def canonical_event_id(raw) -> str:
    text = str(raw)
    try:
        return str(uuid.UUID(text))
    except ValueError:
        return str(uuid.uuid5(EVENT_ID_NAMESPACE, text))


class Event:
    """One stored event (or identity record), its time in µs."""

    __slots__ = ("id", "kind", "t", "name", "feature", "properties", "context", "user_id", "anonymous_id",
                 "session_id", "schema_version", "sample_rate", "previous_id")

    def __init__(self, envelope: dict):
        if "event_id" not in envelope:
            raise ValueError("the reference needs an event_id on every line")
        self.id = canonical_event_id(envelope["event_id"])
        self.kind = envelope.get("type") or "track"
        self.t = event_time(envelope)
        self.name = envelope.get("name")
        self.feature = envelope.get("feature")
        self.properties = envelope.get("properties") or {}
        self.context = envelope.get("context") or {}
        self.user_id = envelope.get("user_id") or None
        self.anonymous_id = envelope.get("anonymous_id") or None
        self.session_id = envelope.get("session_id")
        self.schema_version = envelope.get("schema_version")
        self.previous_id = envelope.get("previous_id") or None
        rate = envelope.get("sample_rate")
        self.sample_rate = Fraction(to_decimal(rate)) if rate is not None and to_decimal(rate) < 1 else None

    @property
    def raw_actor(self) -> str | None:
        return self.user_id or self.anonymous_id

    def sort_key(self) -> tuple[int, str]:
        return (self.t, self.id)


def event_time(envelope: dict) -> int:
    """occurred_at, or for an event dated more than 24 h after its received_at, the time it is
    placed at (docs/formats.md): received_at − (sent_at − occurred_at), never after received_at,
    else received_at. A line carrying device_occurred_at was placed already."""
    occurred = parse_instant(envelope["occurred_at"])
    received = envelope.get("received_at")
    if received is None or "device_occurred_at" in envelope:
        return occurred
    received_us = parse_instant(received)
    if occurred - received_us <= 24 * HOUR_US:
        return occurred
    sent = envelope.get("sent_at")
    if sent is None:
        return received_us
    return min(received_us, received_us - (parse_instant(sent) - occurred))


class Store:
    """The stored events (each event_id once) and the identity links."""

    def __init__(self, envelopes):
        seen: set[str] = set()
        self.events: list[Event] = []
        self.identities: list[Event] = []
        for envelope in envelopes:
            if isinstance(envelope, str):
                envelope = loads(envelope)
            record = Event(envelope)
            if record.id in seen:
                continue  # a copy: the first one stored counts
            seen.add(record.id)
            (self.events if record.kind == "track" else self.identities).append(record)
        self.events.sort(key=Event.sort_key)
        self.links = first_links(self.identities)
        self._actors: dict[bool, dict[str, list[Event]]] = {}
        self._resolved: dict[str, str] = {}

    def resolve(self, actor_id: str) -> str:
        """Follows first links until an id has none; when they run into a cycle, the cycle's
        smallest id (by UTF-8 bytes), so that every id of a cycle is one actor."""
        if actor_id not in self._resolved:
            path = [actor_id]
            position = {actor_id: 0}
            current = actor_id
            result = None
            while current in self.links:
                following = self.links[current]
                if following in position:
                    result = min(path[position[following]:], key=lambda item: item.encode())
                    break
                position[following] = len(path)
                path.append(following)
                current = following
            self._resolved[actor_id] = current if result is None else result
        return self._resolved[actor_id]

    def actor(self, event: Event, merge: bool) -> str | None:
        raw = event.raw_actor
        if raw is None:
            return None
        return self.resolve(raw) if merge else raw

    def by_actor(self, merge: bool) -> dict[str, list[Event]]:
        """Every actor's events (all of them, any name, any time), by (time, event_id)."""
        if merge not in self._actors:
            grouped: dict[str, list[Event]] = {}
            for event in self.events:  # already sorted
                actor = self.actor(event, merge)
                if actor is not None:
                    grouped.setdefault(actor, []).append(event)
            self._actors[merge] = grouped
        return self._actors[merge]


def first_links(identities: list[Event]) -> dict[str, str]:
    """Each id's first link: identify anonymous_id → user_id, alias previous_id → user_id, from
    the record with the earliest time, then the smallest event_id. Self-links and group records
    link nothing (Reading: a self-link is not a candidate for an id's first link)."""
    chosen: dict[str, tuple[tuple[int, str], str]] = {}
    for record in identities:
        if record.kind == "identify":
            source, target = record.anonymous_id, record.user_id
        elif record.kind == "alias":
            source, target = record.previous_id, record.user_id
        else:
            continue
        if not source or not target or source == target:
            continue
        key = (record.t, record.id)
        if source not in chosen or key < chosen[source][0]:
            chosen[source] = (key, target)
    return {source: target for source, (_, target) in chosen.items()}


# MARK: Filters and selectors


OPERATORS = {"=": "=", "eq": "=", "!=": "!=", "ne": "!=", "in": "in", "not in": "not in", "contains": "contains",
             ">": ">", ">=": ">=", "<": "<", "<=": "<=", "is set": "is set", "is not set": "is not set"}
NUMERIC_OPERATORS = (">", ">=", "<", "<=")


def value_text(value) -> str:
    """A filter VALUE as text: a string itself, a number as written, a boolean `true`/`false`."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return value
    if is_number(value):
        return str(value)
    raise ReportError(f"a filter value must be a string, number or boolean: {value!r}")


def field_value(event: Event, field: str):
    """The JSON value an event holds at a field; UNSET when absent or null."""
    if field in TOP_LEVEL_FIELDS:
        value = getattr(event, field)
    elif field.startswith("context."):
        value = event.context.get(field[len("context."):])
    else:
        key = field[len("properties."):] if field.startswith("properties.") else field
        value = event.properties.get(key)
    return UNSET if value is None else value


def full_field(field: str) -> str:
    """A field as outputs name it: a bare property key in full, `properties.KEY`."""
    if field in TOP_LEVEL_FIELDS or field.startswith("context.") or field.startswith("properties."):
        return field
    return "properties." + field


def breakdown_value(event: Event, field: str) -> str:
    """The breakdown value: a string itself, other values their canonical JSON text, `(none)` unset."""
    value = field_value(event, field)
    if value is UNSET:
        return NONE_VALUE
    if isinstance(value, str):
        return value
    return json_text(value)


class Filter:
    def __init__(self, spec: dict):
        if not isinstance(spec, dict) or "field" not in spec or "op" not in spec:
            raise ReportError(f"a filter needs a field and an op: {spec!r}")
        self.field = spec["field"]
        if spec["op"] not in OPERATORS:
            raise ReportError(f"unknown operator {spec['op']!r}")
        self.op = OPERATORS[spec["op"]]
        self.value = spec.get("value")
        if self.op in ("is set", "is not set"):
            self.texts = []
        elif self.op in ("in", "not in"):
            if not isinstance(self.value, list) or not self.value:
                raise ReportError(f"{self.op} takes a list of values")
            self.texts = [value_text(item) for item in self.value]
        else:
            if isinstance(self.value, (list, dict)) or self.value is None:
                raise ReportError(f"{self.op} takes one value")
            self.texts = [value_text(self.value)]
        self.numbers = [parse_number(text) for text in self.texts]
        if self.op in NUMERIC_OPERATORS and self.numbers[0] is None:
            raise ReportError(f"{self.field} {self.op} needs a number, not {self.texts[0]!r}")

    def canonical(self) -> dict:
        result = {"field": self.field, "op": self.op}
        if self.op not in ("is set", "is not set"):
            result["value"] = self.value
        return result

    @staticmethod
    def equals(value, text: str, number: Decimal | None) -> bool:
        """`=`: a string equal to VALUE, a number numerically equal, a boolean whose text is VALUE."""
        if isinstance(value, bool):
            return ("true" if value else "false") == text
        if isinstance(value, str):
            return value == text
        if is_number(value):
            return number is not None and to_decimal(value) == number
        return False  # objects and arrays

    def matches(self, event: Event) -> bool:
        value = field_value(event, self.field)
        is_set = value is not UNSET
        op = self.op
        if op == "is set":
            return is_set
        if op == "is not set":
            return not is_set
        if op in ("=", "!=", "in", "not in"):
            hit = is_set and any(self.equals(value, t, n) for t, n in zip(self.texts, self.numbers))
            return hit if op in ("=", "in") else not hit
        if op == "contains":
            return isinstance(value, str) and self.texts[0] in value
        if not is_number(value):
            return False
        number, bound = to_decimal(value), self.numbers[0]
        return {">": number > bound, ">=": number >= bound, "<": number < bound, "<=": number <= bound}[op]


class Selector:
    """An event selector: names (any name when empty) and filters, plus the report's filters."""

    def __init__(self, spec: dict | None, report_filters: list[Filter]):
        spec = spec or {}
        names = spec.get("events", [])
        if isinstance(names, str):
            names = [names]
        self.names = list(names)
        self.filters = [Filter(item) for item in spec.get("filters", [])]
        self.report_filters = report_filters
        self._cache: dict[str, bool] = {}

    @property
    def label(self) -> str:
        """Reading: a selector's label (`event` of a trend series, `label` of a funnel step) is its
        names joined by `|`, without its filters."""
        return "|".join(self.names)

    def canonical(self) -> dict:
        return {"events": self.names, "filters": [item.canonical() for item in self.filters]}

    def matches(self, event: Event) -> bool:
        cached = self._cache.get(event.id)
        if cached is None:
            cached = ((not self.names or event.name in self.names)
                      and all(item.matches(event) for item in self.filters)
                      and all(item.matches(event) for item in self.report_filters))
            self._cache[event.id] = cached
        return cached


# MARK: Definitions


class Definition:
    """A report definition (saved-report JSON), checked, with the range resolved."""

    def __init__(self, spec: dict, now: int | None = None):
        self.spec = spec
        self.kind = spec.get("kind")
        if self.kind not in KINDS:
            raise ReportError(f"unknown report kind {self.kind!r}")
        if self.kind == "actors":
            self.inner = Definition(spec["of"], now)
            if self.inner.kind not in ("funnel", "retention", "breakdown"):
                raise ReportError("actors drill down into a funnel, a retention or a breakdown")
            self.select = dict(spec.get("select") or {})
            self.tz, self.since, self.until = self.inner.tz, self.inner.since, self.inner.until
            self.merge = self.inner.merge
            return
        self.time_zone = spec.get("time_zone", "UTC")
        self.tz = zone(self.time_zone)
        bounds = spec.get("range") or {"last": "30d"}
        if "last" in bounds:
            if now is None:
                raise ReportError("a range given with `last` needs `now`")
            self.until = now
            self.since = now - parse_duration(bounds["last"])
        else:
            self.since = parse_bound(bounds["since"], self.tz)
            self.until = parse_bound(bounds["until"], self.tz)
        if self.until <= self.since:
            raise ReportError("the range is empty (until ≤ since)")
        self.feature = spec.get("feature")
        self.own_filters = [Filter(item) for item in spec.get("filters", [])]
        # --feature NAME is the filter `feature = NAME`, echoed apart.
        feature_filter = [Filter({"field": "feature", "op": "=", "value": self.feature})] if self.feature else []
        self.filters = self.own_filters + feature_filter
        self.merge = bool(spec.get("merge_identities", True))
        breakdown = spec.get("breakdown")
        self.breakdown_field = breakdown["field"] if breakdown else None
        self.top = int(breakdown.get("top", DEFAULTS["top"])) if breakdown else DEFAULTS["top"]
        if breakdown and self.top < 1:
            raise ReportError("--top takes a number above zero")
        if self.kind == "trends":
            self.selectors = [Selector(item, self.filters) for item in spec.get("events", [])]
            if not self.selectors:
                raise ReportError("a trend needs at least one event")
            self.measure = spec.get("measure", DEFAULTS["measure"])
            kind = self.measure.split(":", 1)[0]
            if self.measure not in ("count", "actors") and not (kind in DECIMAL_MEASURES and ":" in self.measure):
                raise ReportError(f"unknown measure {self.measure!r}")
            self.interval = spec.get("interval", DEFAULTS["interval"])
            if self.interval not in INTERVALS:
                raise ReportError(f"unknown interval {self.interval!r}")
            self.compare = bool(spec.get("compare", False))
        elif self.kind == "breakdown":
            if not breakdown:
                raise ReportError("a breakdown needs a field (--by)")
            self.selector = Selector(spec.get("event"), self.filters)
        elif self.kind == "funnel":
            self.steps = [Selector(item, self.filters) for item in spec.get("steps", [])]
            if not 2 <= len(self.steps) <= 10:
                raise ReportError("a funnel has 2 to 10 steps")
            self.window_text = spec.get("window", DEFAULTS["window"])
            self.window = parse_duration(self.window_text)
            if self.window <= 0:
                raise ReportError("the window must be above zero")
            self.order = spec.get("order", DEFAULTS["order"])
            if self.order not in ORDERS:
                raise ReportError(f"unknown order {self.order!r}")
            self.exclusions = []
            if self.order == "unordered" and (spec.get("exclusions") or breakdown):
                raise ReportError("an unordered funnel takes no exclusions and no breakdown")
            for item in spec.get("exclusions", []):
                first, second = item["between"]
                if not 1 <= first < second <= len(self.steps):
                    raise ReportError("an exclusion is between steps A < B of the funnel")
                # Reading: the report's filters apply to exclusions too, as to every selector.
                self.exclusions.append((Selector(item, self.filters), int(first), int(second)))
        elif self.kind == "retention":
            self.start = Selector(spec["start"], self.filters)
            self.returning = Selector(spec["return"], self.filters)
            self.period = spec.get("period", DEFAULTS["period"])
            if self.period not in PERIODS:
                raise ReportError(f"unknown period {self.period!r}")
            self.periods = int(spec.get("periods", DEFAULTS["periods"]))
            if not 1 <= self.periods <= 366:
                raise ReportError("periods: 1 to 366")
            self.cohort_mode = spec.get("cohort_mode", DEFAULTS["cohort_mode"])
            if self.cohort_mode not in COHORT_MODES:
                raise ReportError(f"unknown cohort mode {self.cohort_mode!r}")

    def canonical(self) -> dict:
        """The definition as the output's `report` echoes it: every option with its default filled
        in, the range as absolute instants in the zone's offsets, selectors and filters in their
        object form (Reading: docs/reports.md only says "the definition, as in a saved report")."""
        if self.kind == "actors":
            select = dict(self.select)
            if "cohort" in select:
                select["cohort"] = format_instant(parse_bound(select["cohort"], self.tz), self.tz)
            return {"kind": "actors", "of": self.inner.canonical(), "select": select}
        result = {"kind": self.kind,
                  "range": {"since": format_instant(self.since, self.tz), "until": format_instant(self.until, self.tz)},
                  "time_zone": self.time_zone,
                  "filters": [item.canonical() for item in self.own_filters],
                  "feature": self.feature, "merge_identities": self.merge}
        breakdown = {"field": self.breakdown_field, "top": self.top} if self.breakdown_field else None
        if self.kind == "trends":
            result.update(events=[item.canonical() for item in self.selectors], measure=self.measure,
                          interval=self.interval, breakdown=breakdown, compare=self.compare)
        elif self.kind == "breakdown":
            result.update(event=self.selector.canonical() if self.spec.get("event") else None, breakdown=breakdown)
        elif self.kind == "funnel":
            result.update(steps=[item.canonical() for item in self.steps], window=self.window_text, order=self.order,
                          exclusions=[dict(selector.canonical(), between=[first, second])
                                      for selector, first, second in self.exclusions],
                          breakdown=breakdown)
        else:
            result.update(start=self.start.canonical(), **{"return": self.returning.canonical()}, period=self.period,
                          periods=self.periods, cohort_mode=self.cohort_mode)
        return result


# MARK: Measures


def estimated(events: list[Event]) -> int:
    """Σ 1/sample_rate (1 for an unsampled event), exactly, then to the nearest integer."""
    total = sum((1 / event.sample_rate if event.sample_rate else Fraction(1) for event in events), Fraction(0))
    return round_half_up(total)


def any_sampled(events) -> bool:
    return any(event.sample_rate is not None for event in events)


class Measure:
    def __init__(self, spec: str, store: Store, merge: bool):
        self.spec, self.store, self.merge = spec, store, merge
        self.kind, _, self.field = spec.partition(":")
        self.is_decimal = self.kind in DECIMAL_MEASURES

    def empty(self):
        return None if self.is_decimal else 0

    def __call__(self, events: list[Event]):
        """The measure over events: (value, number of property values used)."""
        if self.kind == "count":
            return len(events), None
        if self.kind == "actors":
            return len({a for a in (self.store.actor(e, self.merge) for e in events) if a is not None}), None
        values = [to_decimal(v) for v in (field_value(e, self.field) for e in events) if is_number(v)]
        if not values:
            return None, 0
        values.sort()
        with decimal.localcontext(EXACT):
            if self.kind == "sum":
                result = sum(values, Decimal(0))
            elif self.kind == "avg":
                result = round_half_even(sum((Fraction(v) for v in values), Fraction(0)) / len(values), 6)
            elif self.kind == "min":
                result = values[0]
            elif self.kind == "max":
                result = values[-1]
            elif self.kind == "median":
                result = nearest_rank(values, Fraction(1, 2))
            else:
                result = nearest_rank(values, Fraction(9, 10))
        return result, len(values)


def rank_key(value: str, total) -> tuple:
    """Greatest total first (Reading: no value ranks below every number), then the value's bytes."""
    return (0, -total, value.encode()) if total is not None else (1, 0, value.encode())


# MARK: Reports


class Reference:
    """Evaluates report definitions over one set of envelopes."""

    def __init__(self, envelopes):
        self.store = Store(envelopes)

    def report(self, spec: dict, now: int | None = None) -> dict:
        definition = Definition(spec, now)
        body, sampled = getattr(self, "_" + definition.kind)(definition)
        head_definition = definition.inner if definition.kind == "actors" else definition
        result = {"kind": definition.kind,
                  "since": format_instant(definition.since, definition.tz),
                  "until": format_instant(definition.until, definition.tz),
                  "time_zone": head_definition.time_zone,
                  "merge_identities": definition.merge,
                  "sampled": sampled,
                  "report": definition.canonical()}
        result.update(body)
        return result

    def _in_range(self, definition: Definition, selector: Selector, since=None, until=None) -> list[Event]:
        since = definition.since if since is None else since
        until = definition.until if until is None else until
        low = bisect.bisect_left(self.store.events, (since, ""), key=Event.sort_key)
        result = []
        for event in self.store.events[low:]:
            if event.t >= until:
                break
            if selector.matches(event):
                result.append(event)
        return result

    # Trends

    def _trends(self, d: Definition):
        buckets = Periods(d.since, d.until, d.interval, d.tz)
        measure = Measure(d.measure, self.store, d.merge)
        length = d.until - d.since
        previous_buckets = Periods(d.since - length, d.since, d.interval, d.tz) if d.compare else None
        series = []
        sampled = False
        for selector in d.selectors:
            events = self._in_range(d, selector)
            previous = self._in_range(d, selector, d.since - length, d.since) if d.compare else []
            # Reading: `sampled` when an event the numbers are made of (the selectors' events in
            # the range, and in the previous range with --compare) was sampled.
            sampled = sampled or any_sampled(events) or any_sampled(previous)
            if d.breakdown_field is None:
                groups = [(None, lambda e: True)]
            else:
                values: dict[str, list[Event]] = {}
                for event in events:
                    values.setdefault(breakdown_value(event, d.breakdown_field), []).append(event)
                ranked = sorted(values, key=lambda v: rank_key(v, measure(values[v])[0]))
                top = ranked[:d.top]
                groups = [(v, lambda e, v=v: breakdown_value(e, d.breakdown_field) == v) for v in top]
                if len(ranked) > d.top:
                    kept = set(top)
                    groups.append((OTHER_VALUE, lambda e: breakdown_value(e, d.breakdown_field) not in kept))
            for value, member in groups:
                mine = [e for e in events if member(e)]
                series.append(self._series(d, selector, value, measure, buckets, mine,
                                           previous_buckets, [e for e in previous if member(e)]))
        return {"interval": d.interval, "measure": d.measure, "buckets": buckets.labels(), "series": series}, sampled

    @staticmethod
    def _split(events: list[Event], periods: Periods) -> list[list[Event]]:
        split = [[] for _ in range(len(periods))]
        for event in events:
            index = periods.index(event.t)
            assert index is not None
            split[index].append(event)
        return split

    def _series(self, d, selector, value, measure, buckets, events, previous_buckets, previous):
        per_bucket = self._split(events, buckets)
        measured = [measure(items) for items in per_bucket]
        total, used_total = measure(events)
        item = {"event": selector.label, "breakdown": value, "values": [m[0] for m in measured], "total": total}
        if measure.kind == "count":
            item["estimated"] = [estimated(items) for items in per_bucket]
            item["estimated_total"] = estimated(events)
        if measure.is_decimal:
            # Reading: docs/reports.md says "`values` says how many were used", but `values` is
            # the per-bucket numbers in the output: these two members carry the counts instead.
            item["values_used"] = [m[1] for m in measured]
            item["values_used_total"] = used_total
        if previous_buckets is not None:
            # Reading: the k-th bucket of the previous range pairs with the k-th bucket; a bucket
            # the previous range does not have is empty (0, or null).
            split = self._split(previous, previous_buckets)
            item["previous"] = [measure(split[i])[0] if i < len(split) else measure.empty()
                                for i in range(len(buckets))]
            item["previous_total"] = measure(previous)[0]
        return item

    # Breakdown

    def _breakdown(self, d: Definition):
        rows, other, events = self._breakdown_rows(d)
        actor = lambda e: self.store.actor(e, d.merge)  # noqa: E731

        def row(value, items):
            return {"value": value, "events": len(items),
                    "actors": len({a for a in map(actor, items) if a is not None}), "estimated": estimated(items)}

        body_rows = [row(value, items) for value, items in rows]
        if other:
            body_rows.append(row(OTHER_VALUE, [e for _, items in other for e in items]))
        total = row(None, events)
        del total["value"]
        return {"field": full_field(d.breakdown_field), "rows": body_rows, "total": total}, any_sampled(events)

    def _breakdown_rows(self, d: Definition):
        events = self._in_range(d, d.selector)
        values: dict[str, list[Event]] = {}
        for event in events:
            values.setdefault(breakdown_value(event, d.breakdown_field), []).append(event)
        ranked = sorted(values.items(), key=lambda item: (-len(item[1]), item[0].encode()))
        return ranked[:d.top], ranked[d.top:], events

    # Funnels

    def _funnel_bests(self, d: Definition) -> dict[str, dict[str, dict[int, tuple]]]:
        """actor → value of the chain's first event (or None without a breakdown) → step k → the
        key of its conversion chain: (t(ek), −t(e1), −t(e(k−1)))."""
        result = {}
        for actor, events in self.store.by_actor(d.merge).items():
            bests = ChainSearch(d, events).bests()
            if bests:
                result[actor] = bests
        return result

    @staticmethod
    def _merge_bests(per_value: dict, values) -> dict[int, tuple]:
        merged: dict[int, tuple] = {}
        for value in values:
            for k, key in per_value.get(value, {}).items():
                if k not in merged or key < merged[k]:
                    merged[k] = key
        return merged

    def _funnel_scopes(self, d: Definition, bests: dict):
        """The funnel's scopes: (value or None for the whole funnel, actor → step → key)."""
        whole = {actor: self._merge_bests(per_value, per_value) for actor, per_value in bests.items()}
        scopes = [(None, whole)]
        if d.breakdown_field is not None:
            values = {value for per_value in bests.values() for value in per_value}
            first = {value: sum(1 for per_value in bests.values() if 1 in per_value.get(value, {})) for value in values}
            ranked = sorted(values, key=lambda v: (-first[v], v.encode()))
            for value in ranked[:d.top]:
                scopes.append((value, {actor: per_value.get(value, {}) for actor, per_value in bests.items()}))
            if len(ranked) > d.top:
                # Reading: the values past --top are one more funnel, `(other)`: the chains whose
                # first event has one of them.
                rest = ranked[d.top:]
                scopes.append((OTHER_VALUE, {actor: self._merge_bests(per_value, rest)
                                             for actor, per_value in bests.items()}))
        return scopes

    def _funnel_steps(self, d: Definition, reach: dict[str, dict[int, tuple]]) -> list[dict]:
        steps = []
        counts = []
        for k in range(1, len(d.steps) + 1):
            reached = [keys[k] for keys in reach.values() if k in keys]
            counts.append(len(reached))
            median = None
            # Unordered funnels have no previous step, so no times.
            if k >= 2 and d.order != "unordered":
                # (t(ek), −t(e1), −t(e(k−1))): t(ek) − t(e(k−1)) = key[0] + key[2]
                median = nearest_rank(sorted(key[0] + key[2] for key in reached), Fraction(1, 2))
            steps.append({"step": k, "label": d.steps[k - 1].label, "actors": len(reached),
                          "conversion_from_first": ratio(len(reached), counts[0]),
                          # Reading: "null for step 1" holds for both "from the previous" members.
                          "conversion_from_previous": None if k == 1 else ratio(len(reached), counts[k - 2]),
                          "median_us_from_previous": median})
        return steps

    def _funnel_sampled(self, d: Definition) -> bool:
        # Reading: `sampled` when an event matching a step, in the range, was sampled.
        return any(event.sample_rate is not None and event.t >= d.since and event.t < d.until
                   and any(step.matches(event) for step in d.steps) for event in self.store.events)

    def _funnel(self, d: Definition):
        scopes = self._funnel_scopes(d, self._funnel_bests(d))
        body = {"window_us": d.window, "order": d.order, "steps": self._funnel_steps(d, scopes[0][1])}
        if d.breakdown_field is not None:
            body["breakdown"] = [{"value": value, "steps": self._funnel_steps(d, reach)} for value, reach in scopes[1:]]
        return body, self._funnel_sampled(d)

    # Retention

    def _retention_cells(self, d: Definition):
        periods = Periods(d.since, d.until, d.period, d.tz)
        cohorts: list[set[str]] = [set() for _ in range(len(periods))]
        by_actor = self.store.by_actor(d.merge)
        returns: dict[str, set[int]] = {}
        for actor, events in by_actor.items():
            starts = [e for e in events if d.start.matches(e)]
            if d.cohort_mode == "first-time":
                if starts and d.since <= starts[0].t < d.until:
                    cohorts[periods.index(starts[0].t)].add(actor)
            else:
                for event in starts:
                    if d.since <= event.t < d.until:
                        cohorts[periods.index(event.t)].add(actor)
            returns[actor] = {periods.index(e.t) for e in events
                              if d.since <= e.t < d.until and d.returning.matches(e)}
        cells = []
        for c, members in enumerate(cohorts):
            row = [members]
            for k in range(1, d.periods + 1):
                if c + k >= len(periods):
                    row.append(None)  # the period starts at or after `until`: not yet known
                else:
                    row.append({actor for actor in members if c + k in returns[actor]})
            cells.append(row)
        return periods, cells

    def _retention(self, d: Definition):
        periods, cells = self._retention_cells(d)
        cohorts = []
        for start, row in zip(periods.starts, cells):
            size = len(row[0])
            counts = [None if cell is None else len(cell) for cell in row]
            # Reading: share 0 when the cohort is empty (as funnel ratios), null when not yet known.
            shares = [None if count is None else ratio(count, size) for count in counts]
            cohorts.append({"start": format_instant(start, d.tz), "size": size, "counts": counts, "shares": shares})
        # Reading: `sampled` when a start or return event in the range was sampled.
        sampled = any(e.sample_rate is not None and d.since <= e.t < d.until
                      and (d.start.matches(e) or d.returning.matches(e)) for e in self.store.events)
        return {"period": d.period, "periods": d.periods, "cohort_mode": d.cohort_mode, "cohorts": cohorts}, sampled

    # Actors

    def _actors(self, d: Definition):
        inner, select = d.inner, d.select
        if inner.kind == "funnel":
            bests = self._funnel_bests(inner)
            scopes = dict(self._funnel_scopes(inner, bests))
            value = select.get("value")
            if value is None or value == OTHER_VALUE:
                reach = scopes.get(value, {})
            else:
                # Reading: --value V drills into V's own funnel, also when V is not among the top N.
                reach = {actor: per_value.get(value, {}) for actor, per_value in bests.items()}
            if "reached" in select:
                k = int(select["reached"])
                if not 1 <= k <= len(inner.steps):
                    raise ReportError("--reached K: a step of the funnel")
                actors = [actor for actor, keys in reach.items() if k in keys]
            elif "dropped_after" in select:
                k = int(select["dropped_after"])
                if not 1 <= k < len(inner.steps):
                    raise ReportError("--dropped-after K: a step of the funnel before the last")
                actors = [actor for actor, keys in reach.items() if k in keys and k + 1 not in keys]
            else:
                raise ReportError("a funnel drill-down needs --reached K or --dropped-after K")
            sampled = self._funnel_sampled(inner)
        elif inner.kind == "retention":
            periods, cells = self._retention_cells(inner)
            start = parse_bound(select["cohort"], inner.tz)
            if start not in periods.starts:
                raise ReportError(f"no cohort starts at {select['cohort']}")
            offset = int(select["offset"])
            if not 0 <= offset <= inner.periods:
                raise ReportError("--offset K: 0 to the number of periods")
            cell = cells[periods.starts.index(start)][offset]
            actors = [] if cell is None else list(cell)  # Reading: a cell not yet known has no actors
            sampled = self._retention(inner)[1]
        else:
            rows, other, events = self._breakdown_rows(inner)
            value = select["value"]
            # Reading: --value V is V's events also when V is not among the top N rows.
            chosen = [items for v, items in rows + other if v == value]
            if value == OTHER_VALUE:
                chosen = [items for _, items in other]
            actors = {self.store.actor(e, inner.merge) for items in chosen for e in items} - {None}
            sampled = any_sampled(events)
        ordered = sorted(set(actors), key=lambda actor: actor.encode())
        return {"count": len(ordered), "actors": ordered}, sampled


class ChainSearch:
    """Every chain of one actor, enumerated depth first from each possible first event.

    A search state is everything a chain's continuations depend on: the chain's length, its last
    event, the chain events at the last event's time (a chain uses an event once), and for each
    exclusion whose step A is in the chain and step B not yet, t(eA) and the chain events since eA
    that match the exclusion (an event of the chain never cuts it). A state reached twice is
    expanded once; every edge records the key of the chain it completes, so the search finds the
    same keys as enumerating every chain. Chains are found per first event, whose value is the
    funnel breakdown's."""

    def __init__(self, d: Definition, events: list[Event]):
        self.d = d
        self.events = events
        self.times = [e.t for e in events]
        self.step_match = [[step.matches(e) for e in events] for step in d.steps]
        self.step_indices = [[i for i, hit in enumerate(row) if hit] for row in self.step_match]
        self.step_index_times = [[self.times[i] for i in row] for row in self.step_indices]
        self.any_step = [i for i in range(len(events)) if any(row[i] for row in self.step_match)]
        self.exclusion_match = [[selector.matches(e) for e in events] for selector, _, _ in d.exclusions]
        self.exclusion_indices = [[i for i, hit in enumerate(row) if hit] for row in self.exclusion_match]
        self.exclusion_times = [[self.times[i] for i in row] for row in self.exclusion_indices]

    def bests(self) -> dict:
        d = self.d
        result: dict = {}
        if d.order == "unordered":
            firsts = [i for i in self.any_step if d.since <= self.times[i] < d.until]
        else:
            firsts = [i for i in self.step_indices[0] if d.since <= self.times[i] < d.until]
        for first in firsts:
            value = breakdown_value(self.events[first], d.breakdown_field) if d.breakdown_field else None
            keys = result.setdefault(value, {})
            self._search(first, keys)
        return {value: keys for value, keys in result.items() if keys}

    def _cut(self, exclusion: int, t_a: int, t_b: int, exempt: frozenset) -> bool:
        """Whether an exclusion event not in the chain lies strictly between t(eA) and t(eB)."""
        times = self.exclusion_times[exclusion]
        low = bisect.bisect_right(times, t_a)
        high = bisect.bisect_left(times, t_b)
        return any(self.exclusion_indices[exclusion][i] not in exempt for i in range(low, high))

    def _search(self, first: int, keys: dict) -> None:
        d = self.d
        times = self.times
        t1 = times[first]
        steps = len(d.steps)

        def record(k: int, key: tuple) -> None:
            if k not in keys or key < keys[k]:
                keys[k] = key

        def pending_after(position: int, index: int, pending: tuple):
            """The exclusion states after `index` joins the chain at `position` (1-based); None
            when an exclusion cuts the chain there."""
            t = times[index]
            updated = []
            for exclusion, t_a, exempt in pending:
                _, _, b = d.exclusions[exclusion]
                if b == position:
                    if self._cut(exclusion, t_a, t, exempt):
                        return None
                else:
                    if self.exclusion_match[exclusion][index]:
                        exempt = exempt | {index}
                    updated.append((exclusion, t_a, exempt))
            for exclusion, (_, a, _) in enumerate(d.exclusions):
                if a == position:
                    updated.append((exclusion, t, frozenset()))
            return tuple(updated)

        visited = set()

        if d.order == "unordered":
            def expand(count: int, last: int, used: frozenset, pending: tuple) -> None:
                state = (count, last, used, pending)
                if state in visited:
                    return
                visited.add(state)
                if count == steps:
                    return
                for index in self.any_step[bisect.bisect_right(self.any_step, last):]:
                    if times[index] - t1 > d.window:
                        break
                    for step in range(steps):
                        if step in used or not self.step_match[step][index]:
                            continue
                        following = pending_after(count + 1, index, pending)
                        if following is None:
                            continue
                        record(count + 1, (times[index], -t1, -times[last]))
                        expand(count + 1, index, used | {step}, following)

            start_pending = pending_after(1, first, ())
            record(1, (t1, -t1, 0))
            for step in range(steps):
                if self.step_match[step][first]:
                    expand(1, first, frozenset({step}), start_pending)
            return

        def expand(count: int, last: int, same_time: frozenset, pending: tuple) -> None:
            state = (count, last, same_time, pending)
            if state in visited:
                return
            visited.add(state)
            if count == steps:
                return
            t_last = times[last]
            if d.order == "strict":
                candidates = [last + 1] if last + 1 < len(times) and self.step_match[count][last + 1] else []
            else:
                row = self.step_indices[count]
                candidates = row[bisect.bisect_left(self.step_index_times[count], t_last):]
            for index in candidates:
                t = times[index]
                if t - t1 > d.window:
                    break
                if t == t_last and index in same_time:
                    continue
                following = pending_after(count + 1, index, pending)
                if following is None:
                    continue
                record(count + 1, (t, -t1, -t_last))
                expand(count + 1, index, same_time | {index} if t == t_last else frozenset({index}), following)

        record(1, (t1, -t1, 0))
        expand(1, first, frozenset({first}), pending_after(1, first, ()))


# MARK: Output


def dumps(value) -> str:
    """JSON text with Decimals written exactly (`0.5000`, `125.00`)."""
    def convert(item):
        if isinstance(item, Decimal):
            return _Raw(str(item))
        if isinstance(item, dict):
            return {key: convert(v) for key, v in item.items()}
        if isinstance(item, list):
            return [convert(v) for v in item]
        return item

    return "".join(_encode(convert(value)))


class _Raw(str):
    pass


def _encode(item):
    if isinstance(item, _Raw):
        yield str.__str__(item)
    elif isinstance(item, dict):
        yield "{"
        for position, (key, v) in enumerate(item.items()):
            if position:
                yield ", "
            yield json.dumps(key, ensure_ascii=False) + ": "
            yield from _encode(v)
        yield "}"
    elif isinstance(item, list):
        yield "["
        for position, v in enumerate(item):
            if position:
                yield ", "
            yield from _encode(v)
        yield "]"
    else:
        yield json.dumps(item, ensure_ascii=False)


def main(arguments: list[str]) -> int:
    if len(arguments) != 2:
        print(__doc__, file=sys.stderr)
        return 64
    with open(arguments[0], encoding="utf-8") as data:
        envelopes = [loads(line) for line in data if line.strip()]
    with open(arguments[1], encoding="utf-8") as spec:
        definition = json.load(spec)
    try:
        print(dumps(Reference(envelopes).report(definition)))
    except ReportError as error:
        print(f"reference: {error}", file=sys.stderr)
        return 64
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
