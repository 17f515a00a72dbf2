#!/usr/bin/env python3
"""The reports benchmark's data: funnel-shaped sessions of many actors over 90 days, as tally NDJSON.

    python3 Benchmarks/reports/generate.py EVENTS ACTORS > events.ndjson

Deterministic (a fixed seed), and written for speed (~10M lines in well under two minutes): ids
and times are formatted by hand, one random draw per decision.

Each actor has a few sessions at random moments of the 90 days ending 2026-11-22T00:00Z,
written in the order they start (as a collector receives them). A session opens the app and walks the episode flow, each step taken with a fixed probability and a
few seconds to minutes after the one before:

    app_opened → episode_list_viewed (85 %) → episode_list_episode_selected (60 %)
               → player_opened (70 %) → player_completed (50 %)

with a search now and then (`search_viewed`, 30 %). Actors get about EVENTS / ACTORS events each
(between 5 and 35: sessions until they are used up). A quarter of them start anonymous (`anonymous_id` only) and sign in at one
of their sessions: an identify record links the anonymous id to the user id, and later events
carry both; 5 % never sign in. Identity records are written on top of EVENTS.
"""

import random
import sys

END_S = 1_795_305_600  # 2026-11-22T00:00:00Z
DAYS = 90
START_S = END_S - DAYS * 86_400
STEPS = (
    ("episode_list_viewed", "episode", 0.85),
    ("episode_list_episode_selected", "episode", 0.60),
    ("player_opened", "player", 0.70),
    ("player_completed", "player", 0.50),
)
VERSIONS = ('{"app_version":"5.1.0","platform":"iOS"}', '{"app_version":"5.2.0","platform":"iOS"}',
            '{"app_version":"5.2.0","platform":"iPadOS"}', '{"app_version":"5.3.0","platform":"iOS"}')


def main() -> int:
    events = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000_000
    actors = int(sys.argv[2]) if len(sys.argv) > 2 else 500_000
    rng = random.Random(20261128)
    rand = rng.random
    randint = rng.randint
    out = sys.stdout
    lines: list[str] = []
    counter = 0
    # Per-second RFC 3339 texts are reused: a day has only 86,400 of them.
    import datetime as dt
    epoch = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)
    day_text: dict[int, str] = {}

    def stamp(us: int) -> str:
        day, rest = divmod(us, 86_400_000_000)
        prefix = day_text.get(day)
        if prefix is None:
            prefix = (epoch + dt.timedelta(days=day)).strftime("%Y-%m-%dT")
            day_text[day] = prefix
        seconds, micros = divmod(rest, 1_000_000)
        h, rem = divmod(seconds, 3600)
        m, s = divmod(rem, 60)
        return f"{prefix}{h:02d}:{m:02d}:{s:02d}.{micros:06d}Z"

    def event_id(us: int) -> str:
        nonlocal counter
        counter += 1
        # UUIDv7: the milliseconds, then bits unique per line (a counter spread by a multiplier).
        bits = (counter * 0x9E3779B97F4A7C15) & ((1 << 74) - 1)
        value = ((us // 1000) << 80) | (0x7 << 76) | ((bits >> 62) << 64) | (0b10 << 62) | (bits & ((1 << 62) - 1))
        t = f"{value:032x}"
        return f"{t[:8]}-{t[8:12]}-{t[12:16]}-{t[16:20]}-{t[20:]}"

    # Plan every actor's sessions first (their flows and start times), then write the sessions in
    # the order they start, as a collector would receive them.
    plan: list[tuple[int, int, int, tuple]] = []  # (start µs, actor, session number, flow)
    modes = bytearray(actors)
    sign_ins: list[int] = [-1] * actors
    written = 0
    budget_delta = 0
    span = (DAYS * 86_400 - 3_600) * 1_000_000
    for actor in range(actors):
        if actor == actors - 1:
            budget = events - written
        else:
            if actor % 2 == 0:
                budget_delta = randint(-15, 15)
                budget = events // actors + budget_delta
            else:
                budget = events // actors - budget_delta
            budget = max(1, min(budget, events - written - (actors - actor - 1)))
        if budget <= 0:
            continue
        written += budget
        flows = []
        while budget > 0:
            flow = [("app_opened", "app")]
            for name, feature, chance in STEPS:
                if rand() >= chance:
                    break
                flow.append((name, feature))
            if rand() < 0.30:
                flow.insert(randint(1, len(flow)), ("search_viewed", "search"))
            flow = flow[:budget]
            budget -= len(flow)
            flows.append(tuple(flow))
        kind = rand()
        # 0: a user from the start; 1: anonymous, signs in at some session; 2: never signs in.
        mode = 1 if kind < 0.25 else (2 if kind < 0.30 else 0)
        modes[actor] = mode
        if mode == 1:
            sign_ins[actor] = randint(1, len(flows))
        starts = sorted(int(rand() * span) for _ in flows)
        for number, (start, flow) in enumerate(zip(starts, flows)):
            plan.append((START_S * 1_000_000 + start, actor, number, flow))
    plan.sort()
    for t, actor, number, flow in plan:
        user = f"u{actor}"
        anon = f"a{actor}"
        mode = modes[actor]
        sign_in = sign_ins[actor]
        if number == sign_in:
            lines.append(f'{{"event_id":"{event_id(t - 1_000_000)}","type":"identify","name":"identify",'
                         f'"occurred_at":"{stamp(t - 1_000_000)}","user_id":"{user}","anonymous_id":"{anon}"}}\n')
        if mode == 0:
            who = f'"user_id":"{user}"'
        elif mode == 2 or number < sign_in:
            who = f'"anonymous_id":"{anon}"'
        else:
            who = f'"user_id":"{user}","anonymous_id":"{anon}"'
        context = VERSIONS[actor % len(VERSIONS)]
        for name, feature in flow:
            properties = '{"position":%d}' % randint(0, 9) if feature == "episode" else "{}"
            lines.append(f'{{"event_id":"{event_id(t)}","name":"{name}","feature":"{feature}",'
                         f'"properties":{properties},"occurred_at":"{stamp(t)}",{who},'
                         f'"session_id":"s{actor}-{number}","context":{context}}}\n')
            t += randint(2, 180) * 1_000_000 + randint(0, 999_999)
        if len(lines) >= 100_000:
            out.write("".join(lines))
            lines.clear()
    out.write("".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
