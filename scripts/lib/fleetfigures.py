#!/usr/bin/env python3
"""The figures of a fleet run (issue 60, "The numbers an operator plans with"), read from the run
folder `scripts/bench-fleet` leaves (/tmp/coord/FLEET-SPEC.md), each beside its target and beside
what a plain nginx-served manifest would cost the same fleet.

    fleetfigures.py RUN_FOLDER [--check] [--json]

prints the table (`--json`: the figures as JSON instead); `--check` exits 1 when a target is missed.
Python 3, standard library only. `figures(folder)` returns a dict (JSON-ready): `rows` (one a
figure: key, label, value, shown, plain, plainShown), `details` and `notes` (footnotes);
`table(figures, targets)` prints it against `targets` (`TARGETS`, or `default_targets(installs)`).

What it reads from the run folder:
- `fleet.jsonl`: depot-fleet's status lines and summary; `events.jsonl`: the script's events;
- `origin-access.N.log` (or `origin-access.log`): depot's `depot` access-log format, one file an
  origin life; `edge-access.log` (or `edge-access.N.log`, one an edge life) and `cdn-access.log`:
  `$msec $status $request_method $uri $upstream_cache_status $body_bytes_sent $request_time`
  (with `--edge varnish`, varnishncsa's: the cache column is Varnish's handling, `hit`, `miss`,
  `pass`, `pipe` or `synth`, read upper-cased: a hit-for-miss object's requests are misses);
- `origin-stats.jsonl`: `{real, pid, cpu_seconds, rss_mib, catalog_bytes, data_bytes}` a second;
- `run.json`: `installs`, `interval`, `scale`; `fleetStartedAt` (Unix seconds of the fleet's
  `real` 0, also read from `timings.fleetStartedAt` or the `fleet-started` event's `epoch`;
  without it, the edge log's first line stands for it); `timings.total` (the whole run's real
  seconds); `sizes` as bench-fleet writes them (`releases` {id: bytes}, `pages` {sha256: bytes},
  `files` {release id: {path: {sha256, size, …}}}), with the release documents of the run
  folder's `export.N/releases/` (number, parent, pages); `edge` (`nginx`, the default, or
  `varnish`): which cache the edge was, named in the figures;
- `edge.2/` in the run folder: the edge was restarted with an empty cache at `origin-killed`
  (or at each `edge-started` event). The `origin-rebuilt` event may carry `bytes` (what the
  rebuild pulled from the bucket).
A figure whose inputs are missing is `None` (shown `n/a`), never a guess.
"""

import bisect
import datetime
import functools
import json
import math
import os
import re
import sys
from collections import Counter, defaultdict

KINDS = ("poll", "document", "object", "report")
# Path segments that name a kind: a bucket's prefix (`/fleet-bucket/blobs/…`) may come first.
SEGMENT_KINDS = {"channels": "poll", "manifest.json": "poll", "releases": "document", "pages": "document",
                 "roots": "document", "blobs": "object", "deltas": "object", "packs": "object"}
# $upstream_cache_status values that mean the cache answered without asking its upstream (nginx's, and
# Varnish's handling `hit` upper-cased: a grace hit is one too).
CACHE_HITS = {"HIT", "STALE", "UPDATING"}
# run.json's `edge`: the name the figures give the edge's cache.
EDGE_NAMES = {"nginx": "nginx", "varnish": "Varnish"}
# Request statuses that carried an object's body from the upstream.
FETCHED = {200, 206}
DAY = 86400.0

TARGETS = {
    "origin.poll.peak": {"op": "<=", "value": 10, "text": "≤ 10/s (real s)¹"},
    "objects.fetchesPerCache": {"op": "<=", "value": 1, "text": "≤ 1 a cache"},
    "quiet.bodyBytesPerInstallDay": {"op": "<=", "value": 0, "text": "0 B"},
    "quiet.share304": {"op": ">=", "value": 1.0, "text": "100% (one 304 a poll)"},
    "blast.ratio": {"op": "<=", "value": 1.2, "text": "≤ 1.2×"},
    "blast.notBackWithin2": {"op": "<=", "value": 0, "text": "0"},
    "outage.lostRelease": {"op": "<=", "value": 0, "text": "0"},
    "end.shareOnLast": {"op": ">=", "value": 1.0, "text": "100%"},
    "run.realSeconds": {"op": "<", "value": 1800, "text": "< 30 min"},
}


def default_targets(installs):
    """The issue's targets; the whole run's time is 30 minutes for the million-install run and
    2 minutes for the 10,000-install scenario of `scripts/test` (any run of at most 10,000)."""
    targets = dict(TARGETS)
    if installs is not None and installs <= 10000:
        targets["run.realSeconds"] = {"op": "<", "value": 120, "text": "< 2 min"}
    return targets


# ---------------------------------------------------------------- reading the run folder

def read_jsonl(path):
    if not os.path.exists(path):
        return []
    lines = []
    with open(path) as file:
        for line in file:
            line = line.strip()
            if line:
                try:
                    lines.append(json.loads(line))
                except json.JSONDecodeError:
                    pass  # a line cut by a kill: the rest still counts
    return lines


ORIGIN_LINE = re.compile(r"^(\S+) request id=\S+ client=\S+ scheme=\S+ method=(\S+) path=(\S+) status=(\d+) bytes=(-?\d+) ms=(\S+)$")


def parse_origin_line(line):
    """One line of depot's `depot` access-log format (Sources/DepotConnection/AccessLogEntry.swift):
    `2026-11-24T11:47:32Z request id=… client=… scheme=… method=… path=… status=… bytes=… ms=…`,
    the time the response ended, in whole seconds. Returns None for any other line."""
    match = ORIGIN_LINE.match(line.rstrip("\n"))
    if not match:
        return None
    stamp, method, path, status, size, _ = match.groups()
    when = seconds_of(stamp)
    if when is None:
        return None
    return {"t": when, "method": method, "path": path, "status": int(status), "bytes": int(size)}


@functools.lru_cache(maxsize=1 << 12)
def seconds_of(stamp):
    """`2026-11-24T11:47:32Z` in Unix seconds (one parse a second of log)."""
    try:
        return datetime.datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=datetime.timezone.utc).timestamp()
    except ValueError:
        return None


def parse_edge_line(line):
    """`$msec $status $request_method $uri $upstream_cache_status $body_bytes_sent $request_time`, nginx's or
    varnishncsa's (its handling, `hit`/`miss`/`pass`/`pipe`/`synth`, upper-cased as nginx's are)."""
    parts = line.split()
    if len(parts) < 7:
        return None
    try:
        return {"t": float(parts[0]), "status": int(parts[1]), "method": parts[2], "path": " ".join(parts[3:-3]),
                "cache": parts[-3].upper(), "bytes": int(parts[-2]) if parts[-2].isdigit() else 0}
    except ValueError:
        return None


def each_entry(path, parse, unparsed):
    """The parsed lines of `path`, one at a time (a million-install run's edge log has tens of
    millions: none is kept); lines that do not parse are counted in `unparsed[file name]`."""
    name = os.path.basename(path)
    unparsed.setdefault(name, 0)
    if not os.path.exists(path):
        return
    with open(path, errors="replace") as file:
        for line in file:
            if not line.strip():
                continue
            entry = parse(line)
            if entry is None:
                unparsed[name] += 1
            else:
                yield entry


def first_entry(path, parse):
    for entry in each_entry(path, parse, {}):
        return entry
    return None


class OriginLife:
    """One origin life's access log, counted: requests by real second and kind, object fetches."""

    def __init__(self):
        self.per_second = defaultdict(Counter)
        self.fetches = Counter()
        self.first = self.last = None

    @property
    def seconds(self):
        return int(self.last) - int(self.first) + 1 if self.first is not None else 0


def numbered_logs(folder, stem):
    """`stem.log`, then `stem.1.log`, `stem.2.log`, … in order: one a life."""
    names = [name for name in os.listdir(folder) if re.fullmatch(re.escape(stem) + r"(\.\d+)?\.log", name)]

    def order(name):
        number = name[len(stem):-len(".log")].lstrip(".")
        return int(number) if number else 0
    return [os.path.join(folder, name) for name in sorted(names, key=order)]


@functools.lru_cache(maxsize=1 << 16)
def classify(path):
    """(kind, object key): poll, document, object, report, api (other /v1/) or other; the key is
    the path from the kind's segment on, so a bucket's prefix does not make another object."""
    path = path.split("?", 1)[0]
    if path == "/v1/reports" or path.startswith("/v1/reports/"):
        return "report", path
    if path.startswith("/v1/"):
        return "api", path
    segments = path.split("/")
    for index, segment in enumerate(segments):
        kind = SEGMENT_KINDS.get(segment)
        last = index == len(segments) - 1
        # `manifest.json` is a file (the last segment); the others are folders (never the last).
        if kind and last == (segment == "manifest.json"):
            return kind, "/" + "/".join(segments[index:])
    return "other", path


# ---------------------------------------------------------------- the fleet's timeline

class Fleet:
    """The fleet's status lines in order of `real`: counters at a real time, simulated time."""

    def __init__(self, lines, scale):
        self.statuses = sorted((line for line in lines if line.get("type", "status") == "status"), key=lambda s: s.get("real", 0))
        self.summary = next((line for line in reversed(lines) if line.get("type") == "summary"), None)
        self.reals = [status.get("real", 0) for status in self.statuses]
        self.scale = scale or 1

    @property
    def last(self):
        if self.summary:
            return self.summary
        return self.statuses[-1] if self.statuses else {}

    def at(self, real):
        """The last status at or before `real` (counters are cumulative); {} before the first."""
        index = bisect.bisect_right(self.reals, real) - 1
        return self.statuses[index] if index >= 0 else {}

    def sim(self, real):
        """Simulated seconds at `real`, between status lines by straight lines."""
        if not self.statuses:
            return real * self.scale
        index = bisect.bisect_right(self.reals, real)
        if index == 0:
            first = self.statuses[0]
            return first.get("sim", 0) - (first.get("real", 0) - real) * self.scale
        if index == len(self.statuses):
            last = self.statuses[-1]
            return last.get("sim", 0) + (real - last.get("real", 0)) * self.scale
        before, after = self.statuses[index - 1], self.statuses[index]
        span = after["real"] - before["real"]
        share = (real - before["real"]) / span if span else 0
        return before.get("sim", 0) + share * (after.get("sim", 0) - before.get("sim", 0))

    def first_after(self, real, condition):
        for index in range(bisect.bisect_left(self.reals, real), len(self.statuses)):
            if condition(self.statuses[index]):
                return self.statuses[index]
        return None


def field(status, *path):
    value = status
    for key in path:
        if not isinstance(value, dict):
            return 0
        value = value.get(key, 0)
    return value or 0


def delta(fleet, start, end, *path):
    return field(fleet.at(end), *path) - field(fleet.at(start), *path)


# ---------------------------------------------------------------- formatting

def rate_text(per_real, scale):
    if per_real is None:
        return "n/a"
    return f"{per_real:,.1f}/s real ({per_real / scale:,.2f}/s sim)" if scale != 1 else f"{per_real:,.1f}/s"


def size_text(value):
    if value is None:
        return "n/a"
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if abs(value) >= size:
            return f"{value / size:,.1f} {unit}"
    return f"{value:,.0f} B"


def share_text(value):
    return "n/a" if value is None else f"{value * 100:.1f}%"


def minutes_text(seconds):
    return "n/a" if seconds is None else f"{seconds / 60:,.1f} min"


def row(key, label, value, shown=None, plain=None, plain_shown=None):
    if shown is None:
        shown = "n/a" if value is None else f"{value:,}"
    if plain_shown is None:
        plain_shown = "n/a" if plain is None else f"{plain:,}"
    return {"key": key, "label": label, "value": value, "shown": shown, "plain": plain, "plainShown": plain_shown}


# ---------------------------------------------------------------- the figures

class Run:
    """Everything read from one run folder."""

    def __init__(self, folder):
        self.folder = folder
        self.settings = self.read_json("run.json")
        self.events = sorted(read_jsonl(os.path.join(folder, "events.jsonl")), key=lambda e: e.get("real", 0))
        started = self.event("fleet-started") or {}
        self.installs = self.settings.get("installs", started.get("installs"))
        self.interval = self.settings.get("interval", started.get("interval")) or 900
        self.scale = self.settings.get("scale", started.get("scale")) or 1
        self.edge = self.settings.get("edge") or "nginx"
        self.edge_name = f"edge ({EDGE_NAMES.get(self.edge, self.edge)})"
        self.fleet = Fleet(read_jsonl(os.path.join(folder, "fleet.jsonl")), self.scale)
        self.stats = read_jsonl(os.path.join(folder, "origin-stats.jsonl"))
        self.unparsed = {}
        edge_logs = numbered_logs(folder, "edge-access")
        self.edge_starts = [entry["t"] for entry in (first_entry(path, parse_edge_line) for path in edge_logs) if entry]
        self.epoch, self.epoch_estimated = self.fleet_epoch(started)
        if len(edge_logs) == 1 and self.epoch is not None:
            self.edge_starts = sorted(self.edge_starts + [self.epoch + event["real"] for event in self.edge_restarts()])
        self.read_edge(edge_logs)
        self.per_edge_life = Counter()
        self.origin_lives = [self.read_origin(path) for path in numbered_logs(folder, "origin-access")]
        self.read_cdn(os.path.join(folder, "cdn-access.log"))

    def edge_restarts(self):
        """In one edge log, where a new edge life (a new, empty cache) begins: each `edge-started` event;
        without any, each `origin-killed` when the run folder holds `edge.2` (bench-fleet gives each origin
        life an edge of its own, `edge.N`, killed with the origin)."""
        started = self.events_named("edge-started")
        if started:
            return started
        return self.events_named("origin-killed") if os.path.isdir(os.path.join(self.folder, "edge.2")) else []

    def read_edge(self, paths):
        """Requests and cache hits by kind."""
        self.edge_requests, self.edge_hits = Counter(), Counter()
        for path in paths:
            for entry in each_entry(path, parse_edge_line, self.unparsed):
                kind, _ = classify(entry["path"])
                self.edge_requests[kind] += 1
                self.edge_hits[kind] += entry["cache"] in CACHE_HITS

    def read_origin(self, path):
        life = OriginLife()
        for entry in each_entry(path, parse_origin_line, self.unparsed):
            kind, key = classify(entry["path"])
            when = entry["t"]
            life.per_second[int(when)][kind] += 1
            life.first = when if life.first is None else min(life.first, when)
            life.last = when if life.last is None else max(life.last, when)
            if kind == "object" and entry["method"] == "GET" and entry["status"] in FETCHED:
                life.fetches[key] += 1
                # The edge life it came from: an origin stamp is the whole second in which the answer ended.
                self.per_edge_life[(max(bisect.bisect_right(self.edge_starts, when + 0.999), 1), key)] += 1
        return life

    def read_cdn(self, path):
        """Objects the CDN fetched from the bucket; its requests while the origin was dead."""
        self.cdn_fetches, self.cdn_outage = Counter(), Counter()
        self.cdn_seen = os.path.exists(path)
        killed, serving = self.event("origin-killed"), self.event("origin-serving")
        window = (killed["real"] + self.epoch, serving["real"] + self.epoch) if (killed and serving and self.epoch is not None) else None
        for entry in each_entry(path, parse_edge_line, self.unparsed):
            kind, key = classify(entry["path"])
            upstream = entry["cache"] not in CACHE_HITS and entry["cache"] != "-"
            if kind == "object" and entry["method"] == "GET" and entry["status"] in FETCHED and upstream:
                self.cdn_fetches[key] += 1
            if window and window[0] <= entry["t"] < window[1]:
                self.cdn_outage["requests"] += 1
                self.cdn_outage["bucketFetches"] += upstream

    def read_json(self, name):
        path = os.path.join(self.folder, name)
        if not os.path.exists(path):
            return {}
        with open(path) as file:
            return json.load(file)

    def event(self, name, after=None, **match):
        for event in self.events:
            if event.get("event") == name and (after is None or event.get("real", 0) >= after) \
                    and all(str(event.get(key)) == str(value) for key, value in match.items()):
                return event
        return None

    def events_named(self, name):
        return [event for event in self.events if event.get("event") == name]

    def fleet_epoch(self, started):
        """Unix seconds of the fleet's `real` 0: the logs' clock against the fleet's."""
        timings = self.settings.get("timings") or {}
        for value in (self.settings.get("fleetStartedAt"), timings.get("fleetStartedAt"), started.get("epoch")):
            if isinstance(value, (int, float)):
                return float(value), False
        return (min(self.edge_starts), True) if self.edge_starts else (None, True)

    def release_sizes(self):
        """{release number (str): {"document", "pages": [sizes], "changed": [sizes of its changed files]}}, from
        run.json's `sizes` (bench-fleet's: `releases` {id: bytes}, `pages` {sha256: bytes}, `files` {id: {path:
        {sha256, size, …}}}) and the release documents of the run folder's exports (`export.N/releases/{id}`:
        number, parent, pages). A file is changed when its sha256 differs from the parent release's."""
        sizes = self.settings.get("sizes") or {}
        documents = {}
        for export in sorted(name for name in os.listdir(self.folder) if re.fullmatch(r"export(\.\d+)?", name)):
            folder = os.path.join(self.folder, export, "releases")
            for name in os.listdir(folder) if os.path.isdir(folder) else []:
                try:
                    with open(os.path.join(folder, name)) as file:
                        documents.setdefault(name, json.load(file))
                except (OSError, ValueError):
                    continue
        files = sizes.get("files") or {}
        result = {}
        for release_id, document in documents.items():
            if not isinstance(document, dict) or "number" not in document:
                continue
            mine, parent = files.get(release_id) or {}, files.get(document.get("parent")) or {}
            changed = [entry.get("size", 0) for path, entry in mine.items()
                       if not isinstance(parent.get(path), dict) or parent[path].get("sha256") != entry.get("sha256")]
            result[str(document["number"])] = {"document": (sizes.get("releases") or {}).get(release_id, 0),
                                               "pages": [(sizes.get("pages") or {}).get(page, 0) for page in document.get("pages", [])],
                                               "changed": changed}
        return result

    def steps(self):
        """The rollouts' steps: each `step` event, and each rollout's first step at its `rollout-started`
        (bench-fleet's watcher reports a percent only when it changes)."""
        steps = []
        for event in self.events:
            if event.get("event") == "step":
                steps.append(event)
            elif event.get("event") == "rollout-started" and event.get("steps"):
                steps.append({"real": event.get("real", 0), "event": "step", "release": event.get("release"), "percent": event["steps"][0]})
        unique = {(str(step.get("release")), float(step.get("percent", 0))): step for step in reversed(steps)}
        return sorted(unique.values(), key=lambda step: step.get("real", 0))


def origin_rates(run, rows, details, notes):
    """Origin requests a second by kind, from the origin's access logs, per real second."""
    # While the fleet ran (the first origin served the script's set-up before): each life from its
    # first logged second to its last, within the fleet's.
    window = (-math.inf, math.inf)
    if run.epoch is not None and run.fleet.reals:
        window = (int(run.epoch), int(run.epoch + run.fleet.reals[-1]) + 1)
    per_second, seconds = defaultdict(Counter), 0
    for life in run.origin_lives:
        if life.first is None:
            continue
        seconds += max(0, min(int(life.last), window[1]) - max(int(life.first), window[0]) + 1)
        for second, counts in life.per_second.items():
            if window[0] <= second <= window[1]:
                per_second[second].update(counts)
    totals = sum(per_second.values(), Counter())
    details["origin"] = {"requests": dict(totals), "secondsUp": seconds,
                         "peak": {kind: max((c[kind] for c in per_second.values()), default=0) for kind in KINDS + ("api", "other")}}
    scale, installs, interval = run.scale, run.installs, run.interval
    rolled_out = {str(event.get("release")) for event in run.events_named("rollout-started")}
    sizes = {number: size for number, size in run.release_sizes().items() if number in rolled_out}
    for kind in KINDS:
        mean = totals[kind] / seconds if seconds else None
        peak = details["origin"]["peak"][kind] if run.origin_lives else None
        plain_peak = plain_mean = None
        if installs:
            per_sim = {"poll": installs / interval,
                       "document": installs / interval,
                       "object": installs / interval * max((len(s["changed"]) for s in sizes.values()), default=0) if sizes else None,
                       "report": None}[kind]
            plain_peak = None if per_sim is None else per_sim * scale
            if kind == "poll":
                plain_mean = plain_peak
        key = f"origin.{kind}"
        rows.append(row(key + ".mean", f"origin {kind} requests, mean", mean, rate_text(mean, scale), plain_mean, rate_text(plain_mean, scale)))
        rows.append(row(key + ".peak", f"origin {kind} requests, peak second", peak, rate_text(peak, scale), plain_peak,
                        rate_text(plain_peak, scale)))
    keeps = ("the edge's micro-cache keeps a channel document one real second" if run.edge == "nginx" else
             f"the {run.edge_name} keeps a channel document only as long as Depot's Cache-Control lets a shared cache "
             "(s-maxage; not at all under no-cache)")
    notes.append("¹ Origin rates are counted per real second of the origin's access logs (the `sim` figure divides by the scale, "
                 f"{scale:g} simulated seconds a real second). The polls target is judged on real seconds: {keeps}, so the "
                 "origin's poll rate does not shrink with the scale.")
    notes.append("A plain nginx-served manifest has no micro-cache: every poll reaches the server (installs / interval a simulated "
                 "second); on a release every install fetches the whole manifest and every changed file within one interval.")


def cache_figures(run, rows, details, notes):
    """The edge's hit ratio by kind, and origin fetches per object per cache."""
    hits, counts = run.edge_hits, run.edge_requests
    details["edge"] = {"cache": run.edge, "requests": dict(counts), "hits": dict(hits)}
    for kind in ("poll", "document", "object"):
        ratio = hits[kind] / counts[kind] if counts[kind] else None
        rows.append(row(f"edge.hitRatio.{kind}", f"{run.edge_name} cache hit ratio, {kind}s", ratio, share_text(ratio), 0.0 if run.installs else None,
                        "0% (no cache)" if run.installs else None))
    # Origin GETs per object: per origin life, and per edge life (the edge's cache outlives an origin).
    per_edge_life, cdn_fetches = run.per_edge_life, run.cdn_fetches
    worst = {"origin, per origin life": max((max(life.fetches.values(), default=0) for life in run.origin_lives), default=0),
             "origin, per edge life": max(per_edge_life.values(), default=0),
             "bucket through the CDN": max(cdn_fetches.values(), default=0)}
    offenders = sorted([(count, f"edge life {life}: {key}") for (life, key), count in per_edge_life.items() if count > 1]
                       + [(count, f"CDN: {key}") for key, count in cdn_fetches.items() if count > 1], reverse=True)
    details["objectFetches"] = {"max": worst, "offenders": [{"count": c, "object": o} for c, o in offenders[:20]],
                                "objects": len({key for _, key in per_edge_life})}
    measured = max(worst["origin, per edge life"], worst["bucket through the CDN"]) if (run.origin_lives or run.cdn_seen) else None
    plain = max((int(v) for v in field(run.fleet.last, "took").values()), default=None) if field(run.fleet.last, "took") else None
    rows.append(row("objects.fetchesPerCache", f"upstream fetches of one object, most ({run.edge_name}, CDN)", measured,
                    None if measured is None else f"{measured} ({len(offenders)} over 1)", plain,
                    None if plain is None else f"{plain:,} (one an install)"))
    if offenders:
        notes.append("Objects fetched upstream more than once: " + "; ".join(f"{o} ×{c}" for c, o in offenders[:5])
                     + (f"; and {len(offenders) - 5} more" if len(offenders) > 5 else ""))


MOVES = {"rollout-started", "step", "halted", "rolled-back", "completed", "rollout-resumed", "origin-killed", "fleet-stopped", "failed"}


def quiet_windows(run):
    """(start, end) real seconds in which nothing changes for any install: from a `converged` (or the
    fleet all holding a completed release), but no sooner than one poll interval after the channel
    last moved (or the fleet started: every install's first poll is a 200), to the next move."""
    period = run.interval / run.scale
    starts = [event["real"] for event in run.events_named("converged")]
    for event in run.events_named("completed"):
        release = str(event.get("release"))
        settled = run.fleet.first_after(event["real"], lambda s: run.installs and field(s, "held", release) >= run.installs)
        if settled:
            starts.append(settled["real"])
    moves = sorted(event["real"] for event in run.events if event.get("event") in MOVES)
    end_of_fleet = run.fleet.reals[-1] if run.fleet.reals else None
    windows = []
    for converged in sorted(set(starts)):
        before = [real for real in moves if real <= converged]
        start = max(converged, (before[-1] if before else 0) + period, period)
        # Up to the first move after the convergence: a move while waiting for the interval to pass ends it.
        end = min([real for real in moves if real > converged] + ([end_of_fleet] if end_of_fleet is not None else []), default=None)
        if end is not None and end > start and not any(a <= start < b for a, b in windows):
            windows.append((start, end))
    return windows


def quiet_figures(run, rows, details, notes):
    """Bytes per install per day when nothing changes, and the polls' statuses meanwhile."""
    windows = quiet_windows(run)
    fleet = run.fleet
    polls = sum(delta(fleet, a, b, "requests", "poll") for a, b in windows)
    not_modified = sum(delta(fleet, a, b, "statuses", "304") for a, b in windows)
    whole = sum(delta(fleet, a, b, "statuses", "200") for a, b in windows)
    body = sum(delta(fleet, a, b, "bytes", kind) for a, b in windows for kind in ("poll", "document", "object"))
    sim = sum(fleet.sim(b) - fleet.sim(a) for a, b in windows)
    per_day = body / run.installs / sim * DAY if (windows and sim > 0 and run.installs) else None
    share = not_modified / polls if polls else None
    polls_per_day = polls / run.installs / sim * DAY if (sim > 0 and run.installs) else None
    details["quiet"] = {"windows": windows, "simSeconds": sim, "polls": polls, "304": not_modified, "bodyBytes": body,
                        "pollsPerInstallDay": polls_per_day}
    rows.append(row("quiet.bodyBytesPerInstallDay", "body bytes an install a day, nothing changing", per_day, size_text(per_day), 0, "0 B"))
    rows.append(row("quiet.share304", "polls answered 304, nothing changing", share,
                    "n/a" if share is None else f"{share_text(share)} of {polls:,} ({whole:,} 200s)", 1.0, "100%"))
    if not windows:
        notes.append("No quiet window: the channel never stood still for a poll interval after a convergence (every install's "
                     "ETag current), so the unchanged-day figures are not measured.")
    elif sim < run.interval:
        notes.append(f"The quiet windows add up to {sim:,.0f} simulated seconds, less than one poll interval: the per-day figure is thin.")
    if polls_per_day is not None:
        notes.append(f"Nothing changing, an install polls {polls_per_day:,.1f} times a simulated day (one every {run.interval:g} s is "
                     f"{DAY / run.interval:,.1f}); measured over {sim / 60:,.1f} simulated minutes in {len(windows)} window(s).")


def rollout_windows(run):
    """{release: (start, end)} real seconds, from its rollout-started to the next one (or the end)."""
    started = run.events_named("rollout-started")
    end = run.fleet.reals[-1] if run.fleet.reals else None
    windows = {}
    for index, event in enumerate(started):
        stop = started[index + 1]["real"] if index + 1 < len(started) else end
        windows[str(event.get("release"))] = (event["real"], stop)
    return windows


def release_figures(run, rows, details, notes):
    """Bytes per install per release; time from each step to 99% of its installs."""
    sizes = run.release_sizes()
    per_release = {}
    for release, (start, end) in rollout_windows(run).items():
        fetched = sum(delta(run.fleet, start, end, "bytes", kind) for kind in ("document", "object"))
        takers = field(run.fleet.at(end), "took", release) if end is not None else 0
        value = fetched / takers if takers else None
        size = sizes.get(release)
        plain = None
        if size:
            plain = size["document"] + sum(size["pages"]) + sum(size["changed"])
        polls = delta(run.fleet, start, end, "bytes", "poll") / run.installs if run.installs else None
        per_release[release] = {"bytes": fetched, "installs": takers, "perInstall": value, "plain": plain, "pollBytesPerInstall": polls}
        rows.append(row(f"release.{release}.bytesPerInstall", f"bytes an install took for release {release}", value,
                        size_text(value), plain, size_text(plain)))
    details["releases"] = per_release
    if per_release:
        notes.append("Bytes a release: documents and objects received from its rollout's start to the next (the roll-back's "
                     "included), over the installs that took it; the channel document's refetches come on top, an install: "
                     + ", ".join(f"release {r} {size_text(v['pollBytesPerInstall'])}" for r, v in per_release.items()) + ".")
    steps = []
    for event in run.steps():
        release, percent = str(event.get("release")), float(event.get("percent", 0))
        wanted = round((run.installs or 0) * percent / 100)
        need = math.ceil(0.99 * wanted)
        reached = run.fleet.first_after(event["real"], lambda s: field(s, "held", release) >= need) if wanted else None
        minutes = (run.fleet.sim(reached["real"]) - run.fleet.sim(event["real"])) / 60 if reached else None
        steps.append({"release": release, "percent": percent, "installs": wanted, "simMinutes": minutes,
                      "realSeconds": reached["real"] - event["real"] if reached else None})
        rows.append(row(f"step.{release}.{percent:g}", f"release {release} at {percent:g}%: 99% of {wanted:,} holding it", minutes,
                        "not reached" if minutes is None else f"{minutes:,.1f} min sim", run.interval / 60 if run.installs else None,
                        f"≤ {run.interval / 60:g} min, 100% at once" if run.installs else None))
    details["steps"] = steps
    if steps:
        notes.append("Step times are simulated minutes from the step's event (the rollout's percent seen to change) to the first "
                     "status second in which 99% of round(installs × percent / 100) hold the release.")


def origin_load_figures(run, rows, details, notes):
    """Reports a second at the peak, the origin's CPU, the catalog's growth."""
    peak = max((counts["report"] for life in run.origin_lives for counts in life.per_second.values()), default=0) \
        if run.origin_lives else None
    rows.append(row("reports.peak", "reports reaching the origin, peak second", peak, rate_text(peak, run.scale)))
    cpu, span, peak_cpu, lives = 0.0, 0.0, None, defaultdict(list)
    for sample in run.stats:
        lives[sample.get("pid")].append(sample)
    for samples in lives.values():
        samples.sort(key=lambda s: s.get("real", 0))
        cpu += samples[-1].get("cpu_seconds", 0) - samples[0].get("cpu_seconds", 0)
        span += samples[-1].get("real", 0) - samples[0].get("real", 0)
        for before, after in zip(samples, samples[1:]):
            seconds = after.get("real", 0) - before.get("real", 0)
            if seconds > 0:
                use = (after.get("cpu_seconds", 0) - before.get("cpu_seconds", 0)) / seconds
                peak_cpu = use if peak_cpu is None else max(peak_cpu, use)
    mean_cpu = cpu / span if span else None
    details["cpu"] = {"seconds": cpu, "realSeconds": span, "mean": mean_cpu, "peak": peak_cpu, "lives": len(lives)}
    rows.append(row("origin.cpu.mean", "origin CPU, mean (one core = 100%)", mean_cpu,
                    "n/a" if mean_cpu is None else f"{share_text(mean_cpu)} ({cpu:,.1f} CPU s)"))
    rows.append(row("origin.cpu.peak", "origin CPU, peak second", peak_cpu, share_text(peak_cpu)))
    ordered = sorted(run.stats, key=lambda s: s.get("real", 0))
    if ordered:
        start, end = ordered[0].get("catalog_bytes", 0), ordered[-1].get("catalog_bytes", 0)
        growth = end - start
        releases = len(run.events_named("rollout-started"))
        sent = field(run.fleet.last, "reports", "sent")
        details["catalog"] = {"start": start, "end": end, "releases": releases, "reportsSent": sent}
        rows.append(row("catalog.growth", "catalog growth over the run", growth, f"{size_text(start)} → {size_text(end)}"))
        per_release = growth / releases if releases else None
        per_million = growth / sent * 1e6 if sent else None
        rows.append(row("catalog.perRelease", "catalog growth a release (all growth / releases)", per_release, size_text(per_release)))
        rows.append(row("catalog.perMillionReports", "catalog growth a million reports (all growth / reports)", per_million,
                        size_text(per_million)))
        notes.append("Catalog growth is the catalog's bytes at the last sample less the first; split per release and per million "
                     "reports as if each caused all of it (both together are an upper bound on each). A rebuilt origin's catalog "
                     "is the import's.")


def blast_figures(run, rows, details, notes):
    """The bad release's reach against its halted step's share, and installs back after the rollback."""
    halted = run.events_named("halted")
    last = run.fleet.last
    if not halted:
        rows.append(row("blast.ratio", "bad release: installs that took it / step's share", None))
        rows.append(row("blast.notBackWithin2", "bad release: installs not back within 2 polls", None))
        return
    event = halted[0]
    release = str(event.get("release"))
    steps = [s for s in run.steps() if str(s.get("release")) == release and s["real"] <= event["real"]]
    percent = float(steps[-1].get("percent", 0)) if steps else None
    took = field(last, "took", release)
    share = (run.installs or 0) * percent / 100 if percent else None
    ratio = took / share if share else None
    back = field(last, "backAfterRollback")
    within = field(back, "1") + field(back, "2")
    not_back = took - within
    details["blast"] = {"release": release, "percent": percent, "took": took, "share": share, "backAfterRollback": back,
                        "reason": event.get("reason")}
    plain = 100 / percent if percent else None
    rows.append(row("blast.ratio", f"release {release} (bad): took it / {percent:g}% step's share" if percent else "bad release: took / share",
                    ratio, "n/a" if ratio is None else f"{ratio:.2f}× ({took:,} of {share:,.0f})", plain,
                    None if plain is None else f"{plain:.1f}× (every install)"))
    rows.append(row("blast.notBackWithin2", f"release {release} (bad): took it, not back within 2 polls", not_back,
                    f"{not_back:,} (1 poll {field(back, '1'):,}, 2: {field(back, '2'):,}, more: {field(back, '>2'):,})"))


def outage_figures(run, rows, details, notes):
    """The origin's death: how long the fleet ran on the bucket, what it cost, what came back."""
    fleet, last = run.fleet, run.fleet.last
    killed, serving = run.event("origin-killed"), run.event("origin-serving")
    rebuilt = run.event("origin-rebuilt") or {}
    outage = {}
    if killed and serving:
        a, b = killed["real"], serving["real"]
        outage.update(realSeconds=b - a, simSeconds=fleet.sim(b) - fleet.sim(a),
                      bucketRequests=delta(fleet, a, b, "byServer", "1"), fleetRequests=sum(delta(fleet, a, b, "requests", k) for k in KINDS),
                      errors=delta(fleet, a, b, "statuses", "error") + delta(fleet, a, b, "statuses", "5xx"))
        if run.epoch is not None and run.cdn_seen:
            outage["cdnRequests"] = run.cdn_outage["requests"]
            outage["cdnBucketFetches"] = run.cdn_outage["bucketFetches"]
        rows.append(row("outage.seconds", "fleet on the bucket alone (killed → serving)", outage["simSeconds"],
                        f"{minutes_text(outage['simSeconds'])} sim ({outage['realSeconds']:,.1f} s real)"))
        cdn = f", CDN saw {outage['cdnRequests']:,}" if "cdnRequests" in outage else ""
        rows.append(row("outage.bucketRequests", "requests the bucket's server answered meanwhile", outage["bucketRequests"],
                        f"{outage['bucketRequests']:,} of {outage['fleetRequests']:,}{cdn}"))
    else:
        rows.append(row("outage.seconds", "fleet on the bucket alone (killed → serving)", None))
    rows.append(row("outage.lostRelease", "installs that lost a release they held", field(last, "lostRelease") if last else None))
    outage.update(how=rebuilt.get("how"), rebuildSeconds=rebuilt.get("seconds"), rebuildBytes=rebuilt.get("bytes"))
    if rebuilt:
        rows.append(row("outage.rebuildSeconds", f"rebuild ({rebuilt.get('how', '?')}) took", rebuilt.get("seconds"),
                        "n/a" if rebuilt.get("seconds") is None else f"{rebuilt['seconds']:,.1f} s real"))
        rows.append(row("outage.rebuildBytes", "bytes the rebuild pulled", rebuilt.get("bytes"), size_text(rebuilt.get("bytes"))))
    if len(run.origin_lives) > 1 and run.origin_lives[-1].first is not None:
        life = run.origin_lives[-1]
        begin = serving["real"] + run.epoch if (serving and run.epoch is not None) else life.first
        first = sum((counts for second, counts in life.per_second.items() if begin - 1 < second < begin + 60), Counter())
        total = sum(first.values())
        outage["firstMinute"] = dict(first)
        rows.append(row("outage.firstMinute", "origin requests in its first minute back", total,
                        f"{total:,} (" + ", ".join(f"{k} {first[k]:,}" for k in KINDS + ("api",) if first[k]) + ")"))
    details["outage"] = outage
    release = None
    started = run.events_named("rollout-started")
    if started:
        release = str(started[-1].get("release"))
    elif field(last, "held"):
        release = max(field(last, "held"), key=int)
    share = field(last, "held", release) / run.installs if (release and run.installs) else None
    rows.append(row("end.shareOnLast", f"installs on the last release ({release}) at the end", share, share_text(share)))


def run_figures(run, rows, details, notes):
    timings = run.settings.get("timings") or {}
    total = timings.get("total")
    if total is None:
        stopped = run.event("fleet-stopped")
        total = (run.fleet.summary or {}).get("elapsed") or (stopped or {}).get("real")
        if total is not None:
            notes.append("The run's time is the fleet's (run.json has no timings.total): setup is not in it.")
    rows.append(row("run.realSeconds", "the whole run, real time", total, minutes_text(total)))
    peak = (run.fleet.summary or {}).get("peakRate") or max((s.get("rate", 0) for s in run.fleet.statuses), default=None)
    lag = max((s.get("lag", 0) for s in run.fleet.statuses), default=None)
    rows.append(row("fleet.peakRate", "requests a real second the fleet drove, peak", peak, "n/a" if peak is None else f"{peak:,.0f}/s"))
    details["fleet"] = {"peakRate": peak, "maxLag": lag, "installs": run.installs, "interval": run.interval, "scale": run.scale}
    if lag is not None and lag > run.interval:
        notes.append(f"The fleet fell {lag:,.0f} simulated seconds behind its schedule (more than one interval): it could not drive "
                     "this many installs at this scale, and the rates above are lower than the scale claims.")


def figures(run_folder):
    """The run's figures: {"rows": [...], "details": {...}, "notes": [...], "installs", "scale", "interval"}."""
    run = Run(run_folder)
    rows, details, notes = [], {}, []
    for compute in (origin_rates, cache_figures, quiet_figures, release_figures, origin_load_figures, blast_figures, outage_figures,
                    run_figures):
        compute(run, rows, details, notes)
    if run.epoch_estimated:
        notes.append("run.json has no fleetStartedAt: the edge log's first line stands for the fleet's start when logs meet events.")
    skipped = {name: count for name, count in run.unparsed.items() if count}
    if skipped:
        notes.append("Lines not parsed: " + ", ".join(f"{name} {count:,}" for name, count in skipped.items()))
    return {"installs": run.installs, "interval": run.interval, "scale": run.scale, "rows": rows, "details": details, "notes": notes}


# ---------------------------------------------------------------- the table

def verdict(value, target):
    if target is None or value is None:
        return "n/a"
    limit, op = target["value"], target["op"]
    met = {"<=": value <= limit, "<": value < limit, ">=": value >= limit, ">": value > limit, "==": value == limit}[op]
    return "ok" if met else "MISSED"


def missed(figures, targets):
    """The keys of figures that miss their targets, and of targets no figure measured (a check
    that passes on a run that measured nothing proves nothing)."""
    measured = {r["key"] for r in figures["rows"] if r["value"] is not None}
    return [r["key"] for r in figures["rows"] if verdict(r["value"], targets.get(r["key"])) == "MISSED"] \
        + sorted(key for key in targets if key not in measured)


def table(figures, targets):
    """The figures as a fixed-width table: figure | measured | target | plain nginx manifest | verdict, then the notes."""
    header = ("figure", "measured", "target", "plain nginx manifest", "verdict")
    lines = [header]
    for item in figures["rows"]:
        target = targets.get(item["key"])
        lines.append((item["label"], item["shown"], target["text"] if target else "-", item["plainShown"], verdict(item["value"], target)))
    widths = [max(len(line[column]) for line in lines) for column in range(len(header))]

    def text(line):
        return " | ".join(cell.ljust(width) for cell, width in zip(line, widths)).rstrip()
    out = [text(header), "-+-".join("-" * width for width in widths)] + [text(line) for line in lines[1:]]
    out.append("")
    out.append(f"{figures.get('installs') or 0:,} installs, a poll every {figures.get('interval'):g} simulated s, "
               f"scale {figures.get('scale'):g} simulated s a real s.")
    out.extend(figures["notes"])
    return "\n".join(out) + "\n"


def main(arguments):
    flags = {argument for argument in arguments if argument.startswith("--")}
    folders = [argument for argument in arguments if not argument.startswith("--")]
    if len(folders) != 1 or flags - {"--check", "--json"}:
        sys.exit("usage: fleetfigures.py RUN_FOLDER [--check] [--json]")
    result = figures(folders[0])
    targets = default_targets(result["installs"])
    if "--json" in flags:
        print(json.dumps(result, indent=1, default=str))
    else:
        sys.stdout.write(table(result, targets))
    failed = missed(result, targets)
    if "--check" in flags and failed:
        print("missed or not measured: " + ", ".join(failed), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
