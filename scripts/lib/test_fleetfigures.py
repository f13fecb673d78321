"""fleetfigures on a synthetic run folder in the formats of the contract (/tmp/coord/FLEET-SPEC.md):
one run that meets every target, and the same run missing each.

    cd scripts/lib && python3 -m unittest test_fleetfigures
"""

import calendar
import datetime
import json
import os
import subprocess
import sys
import tempfile
import types
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fleetfigures  # noqa: E402

EPOCH = 1_800_000_000  # the fleet's real 0, in Unix seconds
INSTALLS, INTERVAL, SCALE = 1000, 45, 9  # each install polls every 5 real seconds: 200 polls a real second
POLLS = 200
END = 90
# A line depot serve wrote (DEPOT_LOG_REQUESTS_FILE, format depot), as the origin's lines are made.
REAL_DEPOT_LINE = ("2026-11-29T22:28:20Z request id=a7d083535365a02e16324aaf36d80585 client=10.1.2.3 scheme=http method=GET "
                   "path=/channels/stable status=404 bytes=57 ms=1.069")

# A line varnishncsa wrote with bench-fleet's format (depotbench.VARNISH_ACCESS_FORMAT): Varnish's handling, lower case.
VARNISH_LINE = "1795994003.620079 200 GET /channels/stable hit 392 0.000072"


def stamp(real):
    return datetime.datetime.fromtimestamp(EPOCH + int(real), datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def depot_line(real, method, path, status, size):
    return (f"{stamp(real)} request id=0123456789abcdef client=10.0.0.1 scheme=http method={method} path={path} status={status} "
            f"bytes={size} ms=0.412\n")


def nginx_line(real, status, method, uri, cache, size):
    return f"{EPOCH + real:.3f} {status} {method} {uri} {cache} {size} 0.001\n"


def held_curve(points, real):
    """The value of the last (second, value) at or before `real`; 0 before the first."""
    value = 0
    for second, at in points:
        if second <= real:
            value = at
    return value


def write_run(folder, missed=False):
    """Releases 1 (held at the start), 2 (rolled out 1/10/50/100%), 3 (bad: halted at 1%, rolled back to 2),
    4 (rolled out across the origin's death: killed at 62, rebuilt, serving at 71). `missed`: the same run
    missing every target (a poll burst at the origin, 200s and bytes in a quiet window, an object fetched
    twice by the edge and twice by the CDN, a wider blast, installs slow back, a lost release, one install
    short at the end, a slow run)."""
    events = [(0, "fleet-started", {"installs": INSTALLS, "interval": INTERVAL, "scale": SCALE, "versions": "1.0=0.2,2.0=0.8",
                                    "bad": "3@1.0"}),
              (1, "converged", {"release": 1}),
              (10, "rollout-started", {"release": 2, "steps": [1, 10, 50, 100], "every": 90}),
              (20, "step", {"release": 2, "percent": 10}),
              (30, "step", {"release": 2, "percent": 50}), (40, "step", {"release": 2, "percent": 100}),
              (40, "completed", {"release": 2}),
              (50, "rollout-started", {"release": 3, "steps": [1, 10, 50, 100], "every": 90}),
              (54, "halted", {"release": 3, "reason": "failed reports"}), (54.5, "rolled-back", {"release": 3, "to": 2}),
              (60, "rollout-started", {"release": 4, "steps": [1, 10, 50, 100], "every": 90}),
              (62, "origin-killed", {}), (70, "origin-rebuilt", {"how": "import", "seconds": 6.5, "bytes": 123456}),
              (71, "origin-serving", {}),
              (72, "step", {"release": 4, "percent": 10}), (74, "step", {"release": 4, "percent": 50}),
              (76, "step", {"release": 4, "percent": 100}), (76, "completed", {"release": 4}), (END, "fleet-stopped", {})]
    with open(os.path.join(folder, "events.jsonl"), "w") as file:
        for real, name, extra in events:
            file.write(json.dumps({"real": real, "event": name, **extra}) + "\n")
    bad_took = 15 if missed else 11
    # Sizes as bench-fleet writes them (by release id), and the exports' release documents (id → number).
    sizes = {"channel": {"stable": 600}, "releases": {}, "pages": {}, "files": {}, "deltas": {"b1/b2": 50_000}}
    os.makedirs(os.path.join(folder, "export.1", "releases"))
    for number in (1, 2, 3, 4):
        release_id = f"id{number}"
        sizes["releases"][release_id] = 1200
        sizes["pages"][f"p{number}"] = 800
        sizes["files"][release_id] = {"app.bin": {"sha256": f"b{number}", "size": 1_000_000}, "readme": {"sha256": "r", "size": 20_000}}
        with open(os.path.join(folder, "export.1", "releases", release_id), "w") as file:
            json.dump({"number": number, "parent": f"id{number - 1}" if number > 1 else None, "pages": [f"p{number}"]}, file)
    os.makedirs(os.path.join(folder, "edge.1"))
    os.makedirs(os.path.join(folder, "edge.2"))  # a new edge, empty cache, from the origin's death on
    settings = {"installs": INSTALLS, "interval": INTERVAL, "scale": SCALE, "steps": [1, 10, 50, 100], "every": 90,
                "sizes": sizes, "timings": {"total": 130 if missed else 100}}
    if not missed:  # the missed run leaves the fleet's start to the edge log's first line
        settings["fleetStartedAt"] = EPOCH
    with open(os.path.join(folder, "run.json"), "w") as file:
        json.dump(settings, file)

    took = {"2": [(11, 5), (12, 10), (21, 50), (23, 100), (31, 300), (35, 500), (41, 800), (46, 990), (47, 1000)],
            "3": [(51, 5), (53, bad_took)],
            "4": [(61, 5), (62, 10), (73, 100), (75, 500), (80, 900), (83, 990), (85, 999 if missed else 1000)]}
    counters = {"requests": {"poll": 0, "document": 0, "object": 0, "report": 0},
                "statuses": {"200": 0, "304": 0, "202": 0, "429": 0, "5xx": 0, "error": 0},
                "bytes": {"poll": 0, "document": 0, "object": 0, "report": 0}, "byServer": {"0": 0, "1": 0}}
    before = {release: 0 for release in took}
    with open(os.path.join(folder, "fleet.jsonl"), "w") as file:
        for real in range(0, END + 1):
            polls = POLLS
            counters["requests"]["poll"] += polls
            if missed and real == 7:  # two polls in the quiet window answered with the whole document
                counters["statuses"]["200"] += 2
                counters["statuses"]["304"] += polls - 2
                counters["bytes"]["poll"] += 600
            else:
                counters["statuses"]["304"] += polls
            counters["requests"]["report"] += 3
            counters["statuses"]["202"] += 3
            counters["bytes"]["report"] += 300
            server = "1" if 63 <= real <= 71 else "0"
            counters["byServer"][server] += polls + 3
            for release, points in took.items():
                takers = held_curve(points, real) - before[release]
                before[release] += takers
                counters["requests"]["document"] += 2 * takers
                counters["requests"]["object"] += takers
                counters["statuses"]["200"] += 3 * takers
                counters["bytes"]["document"] += 2000 * takers
                counters["bytes"]["object"] += 50_000 * takers
            took_now = {release: held_curve(points, real) for release, points in took.items()}
            held3 = took_now["3"] if real < 55 else 0
            held4 = took_now["4"]
            held2 = took_now["2"] - held3 - held4 + (took_now["3"] - held3)
            held = {"1": INSTALLS - took_now["2"], "2": held2, "3": held3, "4": held4}
            back = {"1": 10, "2": 3, ">2": 2} if missed else {"1": 8, "2": 3, ">2": 0}
            status = {"type": "status", "real": float(real), "sim": float(real * SCALE), "lag": 0.0,
                      **json.loads(json.dumps(counters)), "held": {k: v for k, v in held.items() if v},
                      "took": {k: v for k, v in took_now.items() if v}, "failedOver": 10 if 63 <= real <= 71 else 0,
                      "reports": {"queued": 0, "sent": 3 * (real + 1), "dropped": 0},
                      "backAfterRollback": back if real >= 56 else {}, "lostRelease": 1 if (missed and real >= 65) else 0,
                      "rate": 13.0 + (40 if 11 <= real <= 12 else 0)}
            file.write(json.dumps(status) + "\n")
        file.write(json.dumps({**status, "type": "summary", "elapsed": END + 0.5, "peakRate": 53.0}) + "\n")

    # The origin: one poll a second through the micro-cache (12 in one second when missed), two rollout
    # polls of the script, reports (7 in second 48), each release's documents and object once.
    lives = {1: range(0, 62), 2: range(71, END + 1)}
    for life, seconds in lives.items():
        with open(os.path.join(folder, f"origin-access.{life}.log"), "w") as file:
            for real in seconds:
                for _ in range(12 if (missed and real == 7) else 2 if real == 71 else 1):
                    file.write(depot_line(real, "GET", "/channels/stable", 200, 600))
                file.write(depot_line(real, "GET", "/v1/channels/stable/rollout", 200, 90) * 2)
                file.write(depot_line(real, "POST", "/v1/reports", 202, 0) * (7 if real == 48 else 3))
                for release, first in (("2", 11), ("3", 51), ("4", 61)):
                    if real == first:
                        file.write(depot_line(real, "GET", f"/releases/r{release}", 200, 1200))
                        file.write(depot_line(real, "GET", f"/pages/p{release}", 200, 800))
                        file.write(depot_line(real, "GET", f"/deltas/b{int(release) - 1}/b{release}", 200, 50_000))
                        file.write(depot_line(real, "HEAD", f"/deltas/b{int(release) - 1}/b{release}", 200, 0))
                if missed and real == 30:  # the edge asks again for an object it has had since second 11
                    file.write(depot_line(real, "GET", "/deltas/b1/b2", 200, 50_000))
                if real == 75:  # the new edge (empty cache) asks once for an object the first edge had
                    file.write(depot_line(real, "GET", "/deltas/b3/b4", 200, 50_000))
    # The edge: 10 polls a second logged (one EXPIRED, nine HIT), reports passed through, documents and objects
    # fetched once (MISS) then served from the cache (HIT) to four more installs.
    with open(os.path.join(folder, "edge-access.log"), "w") as file:
        for real in range(0, END + 1):
            if 62 <= real < 71:
                continue  # the origin is dead: the fleet fails over to the bucket
            for index in range(10):
                file.write(nginx_line(real + index / 20, 304, "GET", "/channels/stable", "EXPIRED" if index == 0 else "HIT", 0))
            file.write(nginx_line(real + 0.6, 202, "POST", "/v1/reports", "-", 0))
            for release, first in (("2", 11), ("3", 51), ("4", 61)):
                if real == first:
                    for index in range(5):
                        cache = "MISS" if index == 0 else "HIT"
                        file.write(nginx_line(real + 0.7, 200, "GET", f"/releases/r{release}", cache, 1200))
                        file.write(nginx_line(real + 0.8, 200, "GET", f"/deltas/b{int(release) - 1}/b{release}", cache, 50_000))
    # The CDN in front of the bucket, while the origin is dead: 10 polls a second, the object once (twice when missed).
    with open(os.path.join(folder, "cdn-access.log"), "w") as file:
        for real in range(62, 71):
            for index in range(10):
                file.write(nginx_line(real + 0.5 + index / 40, 200, "GET", "/fleet-bucket/channels/stable", "MISS" if index == 0 else "HIT", 600))
        file.write(nginx_line(63.9, 200, "GET", "/fleet-bucket/deltas/b3/b4", "MISS", 50_000))
        if missed:
            file.write(nginx_line(64.9, 200, "GET", "/fleet-bucket/deltas/b3/b4", "EXPIRED", 50_000))
    # The origin's samples: CPU 0.1 s a second (0.5 in second 30), a new process after the rebuild.
    with open(os.path.join(folder, "origin-stats.jsonl"), "w") as file:
        cpu = 0.0
        for real in range(0, 62):
            cpu += 0.5 if real == 30 else (0.1 if real else 0)
            file.write(json.dumps({"real": real, "pid": 100, "cpu_seconds": round(cpu, 3), "rss_mib": 80,
                                   "catalog_bytes": 1_000_000 + real * 1000, "data_bytes": 5_000_000}) + "\n")
        for real in range(71, END + 1):
            file.write(json.dumps({"real": real, "pid": 200, "cpu_seconds": round(1.0 + 0.2 * (real - 71), 3), "rss_mib": 70,
                                   "catalog_bytes": 1_050_000 + (real - 71) * 7_500, "data_bytes": 5_000_000}) + "\n")


class FleetFiguresTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.temporary = tempfile.TemporaryDirectory()
        cls.good_folder = os.path.join(cls.temporary.name, "good")
        cls.missed_folder = os.path.join(cls.temporary.name, "missed")
        for folder, missed in ((cls.good_folder, False), (cls.missed_folder, True)):
            os.makedirs(folder)
            write_run(folder, missed)
        cls.good = fleetfigures.figures(cls.good_folder)
        cls.missed = fleetfigures.figures(cls.missed_folder)
        cls.targets = fleetfigures.default_targets(INSTALLS)

    @classmethod
    def tearDownClass(cls):
        cls.temporary.cleanup()

    def value(self, figures, key):
        rows = [row for row in figures["rows"] if row["key"] == key]
        self.assertEqual(len(rows), 1, key)
        return rows[0]

    def verdict(self, figures, key):
        return fleetfigures.verdict(self.value(figures, key)["value"], self.targets.get(key))

    def test_parses_the_lines_the_servers_write(self):
        entry = fleetfigures.parse_origin_line(REAL_DEPOT_LINE)
        self.assertEqual((entry["method"], entry["path"], entry["status"], entry["bytes"]), ("GET", "/channels/stable", 404, 57))
        self.assertEqual(entry["t"], calendar.timegm((2026, 11, 29, 22, 28, 20)))
        self.assertIsNone(fleetfigures.parse_origin_line("2026-11-29T22:28:17+0000 info depot: Catalog schema migrated"))
        edge = fleetfigures.parse_edge_line("1800000011.700 200 GET /releases/r2 MISS 1200 0.004")
        self.assertEqual((edge["t"], edge["path"], edge["cache"], edge["bytes"]), (1800000011.7, "/releases/r2", "MISS", 1200))
        varnish = fleetfigures.parse_edge_line(VARNISH_LINE)
        self.assertEqual((varnish["t"], varnish["status"], varnish["path"], varnish["cache"], varnish["bytes"]),
                         (1795994003.620079, 200, "/channels/stable", "HIT", 392))
        self.assertEqual(fleetfigures.classify("/fleet-bucket/blobs/ab?x=1"), ("object", "/blobs/ab"))
        self.assertEqual(fleetfigures.classify("/manifest.json")[0], "poll")
        self.assertEqual(fleetfigures.classify("/v1/channels/stable/rollout")[0], "api")
        self.assertEqual(fleetfigures.classify("/v1/reports")[0], "report")

    def test_origin_rates_by_kind_real_and_simulated(self):
        peak = self.value(self.good, "origin.poll.peak")
        self.assertEqual(peak["value"], 2)  # the first second back after the rebuild
        self.assertIn("2.0/s real (0.22/s sim)", peak["shown"])
        self.assertEqual(self.value(self.good, "origin.object.peak")["plain"], INSTALLS / INTERVAL * SCALE)  # one changed file
        self.assertEqual(peak["plain"], INSTALLS / INTERVAL * SCALE)  # every poll reaches a plain server
        self.assertAlmostEqual(self.value(self.good, "origin.poll.mean")["value"], 83 / 82)  # up 62 + 20 seconds
        self.assertEqual(self.value(self.missed, "origin.poll.mean")["value"], 94 / 82)  # the edge log's first line is real 0 too
        self.assertEqual(self.value(self.good, "origin.document.peak")["value"], 2)
        self.assertEqual(self.value(self.good, "origin.object.peak")["value"], 2)  # a GET and a HEAD
        self.assertEqual(self.verdict(self.good, "origin.poll.peak"), "ok")
        self.assertEqual(self.value(self.missed, "origin.poll.peak")["value"], 12)
        self.assertEqual(self.verdict(self.missed, "origin.poll.peak"), "MISSED")

    def test_edge_hit_ratio_and_fetches_per_object(self):
        self.assertAlmostEqual(self.value(self.good, "edge.hitRatio.poll")["value"], 0.9)
        self.assertAlmostEqual(self.value(self.good, "edge.hitRatio.object")["value"], 0.8)
        self.assertEqual(self.value(self.good, "objects.fetchesPerCache")["value"], 1)
        self.assertEqual(self.verdict(self.good, "objects.fetchesPerCache"), "ok")
        self.assertEqual(self.value(self.missed, "objects.fetchesPerCache")["value"], 2)
        self.assertEqual(self.verdict(self.missed, "objects.fetchesPerCache"), "MISSED")
        fetches = self.missed["details"]["objectFetches"]
        self.assertEqual(self.good["details"]["objectFetches"]["max"]["origin, per origin life"], 1)
        self.assertEqual(fetches["max"]["origin, per origin life"], 2)
        self.assertEqual({o["object"] for o in fetches["offenders"]}, {"edge life 1: /deltas/b1/b2", "CDN: /deltas/b3/b4"})

    def test_a_varnish_edge_is_named_and_its_hits_counted(self):
        # The good run with Varnish at the edge: run.json says so, varnishncsa logs its handling in lower case
        # (hit, miss; a hit-for-miss is a miss, a POST a pass).
        handling = {"HIT": "hit", "MISS": "miss", "EXPIRED": "miss", "-": "pass"}
        with tempfile.TemporaryDirectory() as folder:
            write_run(folder)
            with open(os.path.join(folder, "run.json")) as file:
                settings = json.load(file)
            with open(os.path.join(folder, "run.json"), "w") as file:
                json.dump({**settings, "edge": "varnish"}, file)
            path = os.path.join(folder, "edge-access.log")
            with open(path) as file:
                lines = [line.split() for line in file]
            with open(path, "w") as file:
                file.writelines(" ".join(parts[:4] + [handling[parts[4]]] + parts[5:]) + "\n" for parts in lines)
            varnish = fleetfigures.figures(folder)
        self.assertAlmostEqual(self.value(varnish, "edge.hitRatio.poll")["value"], 0.9)
        self.assertAlmostEqual(self.value(varnish, "edge.hitRatio.object")["value"], 0.8)
        self.assertEqual(self.value(varnish, "edge.hitRatio.poll")["label"], "edge (Varnish) cache hit ratio, polls")
        self.assertIn("(edge (Varnish), CDN)", self.value(varnish, "objects.fetchesPerCache")["label"])
        self.assertEqual(varnish["details"]["edge"]["cache"], "varnish")
        self.assertEqual(self.value(self.good, "edge.hitRatio.poll")["label"], "edge (nginx) cache hit ratio, polls")

    def test_quiet_day(self):
        quiet = self.good["details"]["quiet"]
        # From a convergence, one poll interval (5 real s) after the last move (or the fleet's start).
        self.assertEqual(quiet["windows"], [(5, 10), (47.0, 50), (85.0, 90.0)])
        self.assertEqual((quiet["polls"], quiet["304"]), (13 * POLLS, 13 * POLLS))
        self.assertAlmostEqual(quiet["pollsPerInstallDay"], 13 * POLLS / INSTALLS / (13 * SCALE) * 86400)
        self.assertEqual(self.value(self.good, "quiet.bodyBytesPerInstallDay")["value"], 0)
        self.assertEqual(self.verdict(self.good, "quiet.share304"), "ok")
        # One install short at the end: the last window (85, 90) is not quiet.
        self.assertAlmostEqual(self.value(self.missed, "quiet.bodyBytesPerInstallDay")["value"], 600 / INSTALLS / (8 * SCALE) * 86400)
        self.assertAlmostEqual(self.value(self.missed, "quiet.share304")["value"], (8 * POLLS - 2) / (8 * POLLS))
        self.assertEqual(self.verdict(self.missed, "quiet.bodyBytesPerInstallDay"), "MISSED")
        self.assertEqual(self.verdict(self.missed, "quiet.share304"), "MISSED")

    def test_a_quiet_window_starts_a_poll_interval_after_the_last_move(self):
        lines = [{"type": "status", "real": float(real), "sim": real * 9.0, "held": {"2": 10}} for real in range(0, 40)]
        events = [{"real": 0, "event": "fleet-started"}, {"real": 1, "event": "converged", "release": 1},
                  {"real": 2, "event": "rollout-started", "release": 2}, {"real": 9, "event": "completed", "release": 2},
                  {"real": 10, "event": "converged", "release": 2}, {"real": 13, "event": "rollout-started", "release": 3},
                  {"real": 20, "event": "rolled-back", "release": 3}, {"real": 21, "event": "converged", "release": 2},
                  {"real": 36, "event": "fleet-stopped"}]
        run = types.SimpleNamespace(interval=45, scale=9, installs=10, events=events, fleet=fleetfigures.Fleet(lines, 9))
        run.events_named = lambda name: [event for event in events if event["event"] == name]
        # 1..2: sooner than a poll interval after the start; 10..13: the move at 9 is under 5 s old all along;
        # from 21, quiet from 25 (the roll-back at 20, 5 s before) to the fleet's stop.
        self.assertEqual(fleetfigures.quiet_windows(run), [(25, 36)])

    def test_bytes_per_release_beside_whole_files(self):
        release = self.value(self.good, "release.2.bytesPerInstall")
        self.assertEqual(release["value"], 52_000)
        self.assertEqual(release["plain"], 1200 + 800 + 1_000_000)  # the readme did not change
        self.assertNotIn("release.1.bytesPerInstall", {row["key"] for row in self.good["rows"]})  # held from the start
        self.assertEqual(self.value(self.good, "release.3.bytesPerInstall")["value"], 52_000)

    def test_step_times_in_simulated_minutes(self):
        steps = {(s["release"], s["percent"]): s["simMinutes"] for s in self.good["details"]["steps"]}
        self.assertAlmostEqual(steps[("2", 1)], 2 * SCALE / 60)  # from rollout-started: no step event for the first percent
        self.assertAlmostEqual(steps[("2", 10)], 3 * SCALE / 60)
        self.assertAlmostEqual(steps[("2", 50)], 5 * SCALE / 60)
        self.assertAlmostEqual(steps[("2", 100)], 6 * SCALE / 60)  # 990 of 1000
        self.assertAlmostEqual(steps[("4", 100)], 7 * SCALE / 60)
        self.assertAlmostEqual(steps[("3", 1)], 3 * SCALE / 60)  # 11 held it before the halt

    def test_blast_radius_and_back_after_rollback(self):
        self.assertAlmostEqual(self.value(self.good, "blast.ratio")["value"], 1.1)
        self.assertEqual(self.value(self.good, "blast.ratio")["plain"], 100)
        self.assertEqual(self.good["details"]["blast"]["percent"], 1)  # the rollout's first step
        self.assertEqual(self.value(self.good, "blast.notBackWithin2")["value"], 0)
        self.assertAlmostEqual(self.value(self.missed, "blast.ratio")["value"], 1.5)
        self.assertEqual(self.value(self.missed, "blast.notBackWithin2")["value"], 2)
        for key in ("blast.ratio", "blast.notBackWithin2"):
            self.assertEqual(self.verdict(self.good, key), "ok")
            self.assertEqual(self.verdict(self.missed, key), "MISSED")

    def test_outage(self):
        outage = self.good["details"]["outage"]
        self.assertEqual((outage["realSeconds"], outage["simSeconds"]), (9, 81))
        self.assertEqual(outage["bucketRequests"], 9 * (POLLS + 3))  # the statuses of seconds 63..71 count those of 62..71
        self.assertEqual(outage["cdnRequests"], 91)
        self.assertEqual((outage["how"], outage["rebuildSeconds"], outage["rebuildBytes"]), ("import", 6.5, 123456))
        self.assertEqual(outage["firstMinute"]["poll"], 21)
        self.assertEqual(self.value(self.good, "end.shareOnLast")["value"], 1.0)
        self.assertEqual(self.verdict(self.good, "outage.lostRelease"), "ok")
        self.assertEqual(self.verdict(self.missed, "outage.lostRelease"), "MISSED")
        self.assertEqual(self.verdict(self.missed, "end.shareOnLast"), "MISSED")

    def test_reports_cpu_catalog_and_run_time(self):
        self.assertEqual(self.value(self.good, "reports.peak")["value"], 7)
        self.assertAlmostEqual(self.value(self.good, "origin.cpu.peak")["value"], 0.5)
        cpu = self.good["details"]["cpu"]
        self.assertAlmostEqual(cpu["seconds"], 60 * 0.1 + 0.5 + 19 * 0.2)
        self.assertEqual(self.value(self.good, "catalog.growth")["value"], 1_050_000 + 19 * 7_500 - 1_000_000)
        self.assertEqual(self.value(self.good, "run.realSeconds")["value"], 100)
        self.assertEqual(self.verdict(self.good, "run.realSeconds"), "ok")
        self.assertEqual(self.verdict(self.missed, "run.realSeconds"), "MISSED")

    def test_table_and_command(self):
        text = fleetfigures.table(self.good, self.targets)
        self.assertIn("figure", text.splitlines()[0])
        self.assertIn("plain nginx manifest", text.splitlines()[0])
        self.assertNotIn("MISSED", text)
        self.assertIn("MISSED", fleetfigures.table(self.missed, self.targets))
        json.dumps(self.good)  # bench-fleet dumps it
        script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fleetfigures.py")
        good = subprocess.run([sys.executable, script, self.good_folder, "--check"], capture_output=True, text=True)
        missed = subprocess.run([sys.executable, script, self.missed_folder, "--check"], capture_output=True, text=True)
        self.assertEqual(good.returncode, 0, good.stdout + good.stderr)
        self.assertEqual(missed.returncode, 1, missed.stdout + missed.stderr)
        self.assertIn("origin.poll.peak", missed.stderr)

    def test_an_empty_run_measures_nothing_and_fails_the_check(self):
        with tempfile.TemporaryDirectory() as folder:
            empty = fleetfigures.figures(folder)
            self.assertEqual({fleetfigures.verdict(row["value"], self.targets.get(row["key"])) for row in empty["rows"]}, {"n/a"})
            self.assertIn("n/a", fleetfigures.table(empty, self.targets))
            self.assertEqual(set(fleetfigures.missed(empty, self.targets)), set(self.targets))


if __name__ == "__main__":
    unittest.main()
