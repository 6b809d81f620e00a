#!/usr/bin/python3
"""Turns an experiment's raw results into results.csv, PNG charts and a Markdown table.

  charts.py NAME OUT      parse OUT/runs.csv and OUT/raw/*, write OUT/results.csv and
                          OUT/*.png, print the Markdown table (NAME: rate, memory, clients,
                          kernel-tuning, slo, network, h3-vs-h2; slo reads the searches' JSON
                          in OUT/raw)
  charts.py check NAME OUT  what CI asserts: results.csv parses and has every point, each
                          chart is a PNG of the expected size; one line per problem, exit 1

Every tool's own output is parsed here (uringload's JSON, the Python clients' JSON line,
wrk's, h2load's and ab's text), so each number has one definition: completed and ok from the
tool, seconds from the tool's own clock, CPU and peak RSS from /usr/bin/time.
"""

import csv
import json
import os
import re
import statistics
import struct
import sys

import matplotlib

matplotlib.use("Agg")  # No display: files only.
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.ticker  # noqa: E402

# Every chart is this size, so CI can check it: 1200 x 600 pixels.
FIGSIZE, DPI = (12, 6), 100
CHARTS = {
    "rate": ["rate-vs-r.png", "rate-vs-s.png"],
    "memory": ["memory-vs-requests.png"],
    "clients": ["clients.png"],
    "kernel-tuning": ["kernel-tuning.png"],
    "slo": ["slo-curve.png"],
    "network": ["network.png"],
    "h3-vs-h2": ["h3-vs-h2.png"],
}
COLUMNS = ["tool", "r", "s", "status", "completed", "ok", "errors", "seconds", "req_per_min",
           "req_per_s", "cpu_us_per_req", "rss_mb", "wall_s", "ramp_seconds", "error_causes"]
MEAN_DELAY_S = 1.5  # serve --delay uniform:0s-3s
# The network experiment: r is the round trip in ms, s the loss in thousandths.
NETWORK_COLUMNS = ["tool", "rtt_ms", "loss_pct", "status", "completed", "ok", "errors",
                   "seconds", "req_per_s", "p50_ms", "p99_ms", "mean_ms", "truth_p50_ms",
                   "p50_error_ms", "little"]
NETWORK_CONNECTIONS = 20
H3_VS_H2_IN_FLIGHT = 64  # 4 connections x 16 streams.


def read(path):
    with open(path, errors="replace") as f:
        return f.read()


def parse_tool(tool, base):
    """(completed, ok, seconds, extra) from one run's own output."""
    if tool == "uringload" or tool.startswith("uringload-"):
        j = json.loads(read(base + ".json"))
        causes = "; ".join(f"{e['count']} {e['message'] or e['outcome']}"
                           for e in j.get("errors", []))
        return (j["requests"]["completed"], j["outcomes"]["ok"], j["duration_seconds"],
                {"ramp_seconds": j["connections"]["ramp_seconds"], "error_causes": causes})
    text = read(base + ".out")
    if tool.startswith("python-"):
        j = json.loads(text.strip().splitlines()[-1])
        causes = "; ".join(f"{n} {cause}" for cause, n in j["errors"].items())
        return j["ok"] + sum(j["errors"].values()), j["ok"], j["seconds"], {"error_causes": causes}
    if tool == "wrk":
        m = re.search(r"(\d+) requests in ([\d.]+)(us|ms|s|m)\b", text)
        unit = {"us": 1e-6, "ms": 1e-3, "s": 1, "m": 60}[m.group(3)]
        non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", text)
        completed = int(m.group(1))
        return completed, completed - int(non2xx.group(1) if non2xx else 0), \
            float(m.group(2)) * unit, {}
    if tool == "h2load":
        m = re.search(r"requests: \d+ total, \d+ started, (\d+) done, (\d+) succeeded", text)
        t = re.search(r"finished in ([\d.]+)(ms|s),", text)
        ok2xx = re.search(r"status codes: (\d+) 2xx", text)
        return int(m.group(1)), int(ok2xx.group(1)), \
            float(t.group(1)) * (1e-3 if t.group(2) == "ms" else 1), {}
    if tool == "ab":
        complete = int(re.search(r"Complete requests:\s+(\d+)", text).group(1))
        failed = int(re.search(r"Failed requests:\s+(\d+)", text).group(1))
        non2xx = re.search(r"Non-2xx responses:\s+(\d+)", text)
        seconds = float(re.search(r"Time taken for tests:\s+([\d.]+) seconds", text).group(1))
        return complete, complete - failed - int(non2xx.group(1) if non2xx else 0), seconds, {}
    raise ValueError(f"no parser for tool {tool}")


def load(out):
    """The rows of runs.csv with every measure filled in where the run ended."""
    rows = []
    with open(os.path.join(out, "runs.csv")) as f:
        for run in csv.DictReader(f):
            row = {c: "" for c in COLUMNS}
            row.update(tool=run["tool"], r=int(run["r"]), s=int(run["s"]), status=run["status"])
            base = os.path.join(out, run["prefix"])
            if run["status"] == "timeout":  # Stopped at the cap: its peak RSS until then.
                rss_kb, wall = map(float, read(base + ".time").split()[:2])
                row.update(rss_mb=round(rss_kb / 1024, 1), wall_s=wall)
            if run["status"] in ("ran", "failed"):
                rss_kb, wall, user, system = map(float, read(base + ".time").split()[:4])
                try:
                    completed, ok, seconds, extra = parse_tool(run["tool"], base)
                except (OSError, ValueError, KeyError, AttributeError, IndexError) as error:
                    row["status"] = f"unparsed ({type(error).__name__})"
                else:
                    row.update(extra, completed=completed, ok=ok, errors=completed - ok,
                               seconds=round(seconds, 3),
                               req_per_min=round(completed / seconds * 60) if seconds else "",
                               req_per_s=round(completed / seconds) if seconds else "",
                               cpu_us_per_req=round((user + system) / completed * 1e6, 2)
                               if completed else "")
                row.update(rss_mb=round(rss_kb / 1024, 1), wall_s=wall)
            rows.append(row)
    with open(os.path.join(out, "results.csv"), "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=COLUMNS)
        writer.writeheader()
        writer.writerows(rows)
    return rows


def done(rows, tool):
    return [x for x in rows if x["tool"] == tool and x["req_per_min"] != ""]


def figure(ncols=1):
    fig, axes = plt.subplots(1, ncols, figsize=FIGSIZE, dpi=DPI)
    return fig, (axes if ncols > 1 else [axes])


def save(fig, out, name):
    for ax in fig.axes:
        if ax.get_yscale() == "linear":
            ax.yaxis.set_major_formatter(matplotlib.ticker.StrMethodFormatter("{x:,.0f}"))
    fig.tight_layout()
    fig.savefig(os.path.join(out, name), dpi=DPI)  # No bbox "tight": the size stays exact.
    plt.close(fig)


def table(header, lines):
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for line in lines:
        print("| " + " | ".join(str(v) for v in line) + " |")


def thousands(v):
    return f"{v:,}" if isinstance(v, int) else v


def rate(rows, out):
    tools = [("uringload", "-", "o"), ("python-semaphore", "--", "x")]
    rs = sorted({x["r"] for x in rows})
    ss = sorted({x["s"] for x in rows})
    colors = dict(zip(ss, plt.cm.viridis([i / max(1, len(ss) - 1) * 0.9 for i in range(len(ss))])))
    fig, (ax,) = figure()
    for s in ss:
        for tool, style, marker in tools:
            pts = sorted((x["r"], x["req_per_min"]) for x in done(rows, tool) if x["s"] == s)
            if pts:
                ax.plot(*zip(*pts), style, marker=marker, color=colors[s],
                        label=f"{tool}, s={s:,}")
        ax.axhline(s / MEAN_DELAY_S * 60, linestyle=":", color=colors[s], linewidth=1)
    ax.set(xscale="log", xlabel="requests r (log)", ylabel="requests per minute",
           title="Requests per minute vs r, 0-3 s delay (dotted: Little's law s / 1.5 s)")
    ax.legend(fontsize=7, ncol=2)
    save(fig, out, "rate-vs-r.png")
    fig, (ax,) = figure()
    rcolors = dict(zip(rs, plt.cm.plasma([i / max(1, len(rs) - 1) * 0.85 for i in range(len(rs))])))
    for r in rs:
        for tool, style, marker in tools:
            pts = sorted((x["s"], x["req_per_min"]) for x in done(rows, tool) if x["r"] == r)
            if pts:
                ax.plot(*zip(*pts), style, marker=marker, color=rcolors[r],
                        label=f"{tool}, r={r:,}")
    ax.plot(ss, [s / MEAN_DELAY_S * 60 for s in ss], ":", color="black",
            label="Little's law s / 1.5 s")
    ax.set(xlabel="concurrency s", ylabel="requests per minute",
           title="Requests per minute vs s, 0-3 s delay")
    ax.legend(fontsize=7, ncol=2)
    save(fig, out, "rate-vs-s.png")
    table(["s", "r", "bound req/min", "uringload req/min", "errors", "Python semaphore req/min"],
          [[thousands(s), thousands(r), thousands(round(s / MEAN_DELAY_S * 60)),
            *cells(rows, "uringload", r, s, ["req_per_min", "errors"]),
            cell_or_status(rows, "python-semaphore", r, s, "req_per_min")]
           for s in ss for r in rs])


def find(rows, tool, r, s):
    return next((x for x in rows if (x["tool"], x["r"], x["s"]) == (tool, r, s)), None)


def cells(rows, tool, r, s, keys):
    x = find(rows, tool, r, s)
    return [thousands(x[k]) if x and x[k] != "" else "-" for k in keys]


def cell_or_status(rows, tool, r, s, key):
    x = find(rows, tool, r, s)
    if x is None:
        return "-"
    if x[key] == "":
        return x["status"]
    return thousands(x[key]) + (f" ({x['errors']} errors)" if x["errors"] else "")


def memory(rows, out):
    tools = sorted({x["tool"] for x in rows})
    fig, axes = figure(2)
    for tool in tools:
        pts = sorted((x["r"], x["rss_mb"], x["wall_s"]) for x in done(rows, tool))
        if pts:
            r, rss, wall = zip(*pts)
            line = axes[0].plot(r, rss, marker="o", label=tool)[0]
            axes[1].plot(r, wall, marker="o", label=tool, color=line.get_color())
            stopped = [x for x in rows if x["tool"] == tool and x["status"] == "timeout"]
            for x in stopped:  # Still running at the cap: RSS and time so far, as a cross.
                axes[0].plot([x["r"]], [x["rss_mb"]], "x", markersize=10,
                             color=line.get_color(), label=f"{tool}, stopped at the time cap")
                axes[1].plot([x["r"]], [x["wall_s"]], "x", markersize=10,
                             color=line.get_color(), label=f"{tool}, stopped at the time cap")
    axes[0].set(xscale="log", yscale="log", xlabel="requests r (log)",
                ylabel="peak RSS, MB (log)", title="Memory vs request count")
    axes[1].set(xscale="log", yscale="log", xlabel="requests r (log)",
                ylabel="wall time, s (log)", title="Time vs request count")
    for ax in axes:
        ax.legend(fontsize=8)
    save(fig, out, "memory-vs-requests.png")
    table(["client", "r", "s", "peak RSS MB", "wall s", "req/s", "ok", "errors / status"],
          [[x["tool"], thousands(x["r"]), thousands(x["s"]), x["rss_mb"], x["wall_s"],
            thousands(x["req_per_s"]), thousands(x["ok"]),
            x["errors"] if x["status"] == "ran" else x["status"]]
           for x in sorted(rows, key=lambda x: (x["tool"], x["r"]))])


def medians(rows):
    """One row per (tool, s): the median of its rounds for every measure, and the rounds."""
    merged = []
    for tool, s in dict.fromkeys((x["tool"], x["s"]) for x in rows):
        rounds = [x for x in rows if (x["tool"], x["s"]) == (tool, s)]
        ran = [x for x in rounds if x["req_per_s"] != ""]
        row = dict(rounds[0], rounds=len(rounds), spread="")
        if ran:
            for key in ("completed", "ok", "errors", "req_per_s", "cpu_us_per_req", "rss_mb"):
                row[key] = statistics.median_low(sorted(x[key] for x in ran))
            cpu = sorted(x["cpu_us_per_req"] for x in ran)
            row["spread"] = f"{cpu[0]}-{cpu[-1]}" if len(cpu) > 1 else ""
            row["status"] = "ran" if len(ran) == len(rounds) else f"{len(ran)}/{len(rounds)} ran"
        merged.append(row)
    return merged


def bars(ax, rows, tools, key, title, log=False):
    ss = sorted({x["s"] for x in rows})
    width = 0.8 / len(ss)
    for i, s in enumerate(ss):
        values = [(find_s(rows, t, s) or {}).get(key) or 0 for t in tools]
        drawn = ax.bar([j + i * width for j in range(len(tools))], values, width, label=f"c={s:,}")
        ax.bar_label(drawn, labels=[f"{v:,.0f}" if v >= 10 else f"{v:.1f}" for v in values],
                     fontsize=6, rotation=90, padding=2)
    if log:
        ax.set_yscale("log")
    ax.set_xticks([j + width * (len(ss) - 1) / 2 for j in range(len(tools))])
    ax.set_xticklabels(tools, rotation=30, ha="right", fontsize=8)
    ax.set_title(title)
    ax.legend(fontsize=8)


def find_s(rows, tool, s):
    return next((x for x in rows if x["tool"] == tool and x["s"] == s), None)


def clients(rows, out):
    rows = medians(rows)
    tools = list(dict.fromkeys(x["tool"] for x in rows))
    fig, axes = figure(3)
    bars(axes[0], rows, tools, "req_per_s", "requests per second (log)", log=True)
    bars(axes[1], rows, tools, "cpu_us_per_req", "client CPU per request, µs (log)", log=True)
    bars(axes[2], rows, tools, "rss_mb", "client peak RSS, MB")
    fig.suptitle(f"nginx (1 worker, CPU 1), 40-byte body; one client thread on CPU 0; "
                 f"median of {rows[0]['rounds']} round(s)")
    save(fig, out, "clients.png")
    table(["client", "c", "requests", "req/s", "CPU µs/req", "(rounds' range)", "peak RSS MB",
           "errors / status"],
          [[x["tool"], thousands(x["s"]), thousands(x["completed"]), thousands(x["req_per_s"]),
            x["cpu_us_per_req"], x["spread"] or "-", x["rss_mb"],
            x["errors"] if x["status"] == "ran" else x["status"]]
           for x in sorted(rows, key=lambda x: (x["s"], tools.index(x["tool"])))])


def kernel(rows, out):
    fig, axes = figure(3)
    names = [x["tool"].replace("uringload-", "") for x in rows]
    for ax, key, title in zip(axes, ["ramp_seconds", "errors", "ok"],
                              ["connect ramp, s", "failed requests", "ok requests"]):
        ax.bar(names, [x[key] or 0 for x in rows],
               color=["tab:red", "tab:orange", "tab:green"][:len(rows)])
        ax.tick_params(axis="x", labelsize=8)
        ax.set_title(title)
    fig.suptitle(f"{rows[0]['s']:,} connections held at once: kernel defaults vs "
                 "tune-kernel apply, to one port and to four")
    save(fig, out, "kernel-tuning.png")
    table(["kernel", "connections", "ok", "failed", "ramp s", "wall s", "causes"],
          [[n, thousands(x["s"]), thousands(x["ok"]), thousands(x["errors"]),
            x["ramp_seconds"], x["wall_s"], x["error_causes"] or "-"] for n, x in zip(names, rows)])


def searches(out):
    """Each `uringload search --json` result in OUT/raw, by server name."""
    found = {}
    for name in sorted(os.listdir(os.path.join(out, "raw"))):
        if name.startswith("search-") and name.endswith(".json"):
            with open(os.path.join(out, "raw", name)) as f:
                found[name[len("search-"):-len(".json")]] = json.load(f)
    return found


def quantile_ms(step, q):
    latency = step["result"]["latency_seconds"]
    return latency[q] * 1000 if latency else None


def slo(out):
    fig, axes = figure()
    ax = axes[0]
    lines = []
    for (server, search), color in zip(searches(out).items(), ["tab:green", "tab:blue"]):
        steps = sorted(search["steps"], key=lambda s: s["rate"])
        points = [(s["rate"], quantile_ms(s, "p50"), quantile_ms(s, "p99")) for s in steps
                  if s["result"]["latency_seconds"]]
        ax.plot([p[0] for p in points], [p[2] for p in points], "-o", color=color,
                label=f"{server} p99")
        ax.plot([p[0] for p in points], [p[1] for p in points], "--", color=color,
                label=f"{server} p50")
        if search["rate"]:
            ax.axvline(search["rate"], color=color, linestyle=":",
                       label=f"{server}: {search['rate']:,.0f}/s found")
        bracket = search["bracket"]
        lines.append([server, thousands(round(search["rate"])) if search["rate"] else "none",
                      f"{bracket['lower'] or 0:,.0f} - {bracket['upper'] or 0:,.0f}",
                      len(search["steps"]), ", ".join(search["slos"])])
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("requests/s (each step's rate)")
    ax.set_ylabel("latency, ms")
    ax.set_title("Latency against the rate, and the highest rate meeting the objectives")
    ax.legend()
    save(fig, out, "slo-curve.png")
    table(["server", "rate found (req/s)", "bracket", "steps", "objectives"], lines)


def unit_seconds(value, unit):
    return float(value) * {"us": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0}[unit]


def latency_of(tool, base):
    """(p50, p99, mean) in seconds as the tool reports them; None where it reports none."""
    if tool.startswith("uringload"):
        q = json.loads(read(base + ".json"))["latency_seconds"]
        return q["p50"], q["p99"], q["mean"]
    text = read(base + ".out")
    if tool.startswith("python-"):
        q = json.loads(text.strip().splitlines()[-1])["latency_seconds"]
        return q["p50"], q["p99"], q["mean"]
    if tool == "wrk":  # "Latency  10.21ms ..." (the mean first), then "  50%  10.12ms" lines.
        mean = re.search(r"^\s+Latency\s+([\d.]+)(us|ms|s|m)\b", text, re.M)
        p50 = re.search(r"^\s+50%\s+([\d.]+)(us|ms|s|m)\b", text, re.M)
        p99 = re.search(r"^\s+99%\s+([\d.]+)(us|ms|s|m)\b", text, re.M)
        return tuple(unit_seconds(*m.groups()) for m in (p50, p99, mean))
    if tool == "h2load":  # "time for request: MIN MAX MEAN SD ...": no quantiles.
        m = re.search(r"time for request:\s+\S+\s+\S+\s+([\d.]+)(us|ms|s)\b", text)
        return None, None, unit_seconds(*m.groups())
    raise ValueError(f"no latency parser for tool {tool}")


def ms(seconds):
    return round(seconds * 1000, 3) if seconds is not None else ""


def network_rows(out, in_flight=NETWORK_CONNECTIONS):
    """The network experiment's rows, each beside the truth; and nginx's service time."""
    rows, service = [], None
    with open(os.path.join(out, "runs.csv")) as f:
        runs = list(csv.DictReader(f))
    for run in runs:
        row = {c: "" for c in NETWORK_COLUMNS}
        row.update(tool=run["tool"], rtt_ms=int(run["r"]), loss_pct=int(run["s"]) / 10,
                   status=run["status"])
        if run["status"] in ("ran", "failed"):
            base = os.path.join(out, run["prefix"])
            try:
                completed, ok, seconds, _ = parse_tool(run["tool"], base)
                p50, p99, mean = latency_of(run["tool"], base)
            except (OSError, ValueError, KeyError, AttributeError, IndexError, TypeError) as error:
                row["status"] = f"unparsed ({type(error).__name__})"
            else:
                row.update(completed=completed, ok=ok, errors=completed - ok,
                           seconds=round(seconds, 3),
                           req_per_s=round(completed / seconds) if seconds else "",
                           p50_ms=ms(p50), p99_ms=ms(p99), mean_ms=ms(mean))
                if run["tool"] == "uringload-service":
                    service = p50
                elif seconds and mean is not None:
                    row["little"] = round(completed / seconds * mean / in_flight, 3)
        rows.append(row)
    for row in rows:
        if service is not None and row["tool"] != "uringload-service":
            row["truth_p50_ms"] = ms(row["rtt_ms"] / 1000 + service)
            if row["p50_ms"] != "":
                row["p50_error_ms"] = round(row["p50_ms"] - row["truth_p50_ms"], 3)
    with open(os.path.join(out, "results.csv"), "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=NETWORK_COLUMNS)
        writer.writeheader()
        writer.writerows(rows)
    return [r for r in rows if r["tool"] != "uringload-service"], service


def network(out):
    rows, service = network_rows(out)
    tools = list(dict.fromkeys(x["tool"] for x in rows))
    cases = list(dict.fromkeys((x["rtt_ms"], x["loss_pct"]) for x in rows))
    fig, axes = figure(2)
    width = 0.8 / max(1, len(tools))
    colors = ["tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple"]
    for k, tool in enumerate(tools):
        by_case = {(x["rtt_ms"], x["loss_pct"]): x for x in rows if x["tool"] == tool}
        xs = [i + (k - (len(tools) - 1) / 2) * width for i in range(len(cases))]
        for ax, key, scale in zip(axes, ["p50_error_ms", "little"], [1000, 1]):
            values = [by_case.get(case, {}).get(key, "") for case in cases]
            if all(v == "" for v in values):
                continue  # h2load has no p50: no bars, no legend entry.
            ax.bar([x for x, v in zip(xs, values) if v != ""],
                   [v * scale for v in values if v != ""], width, label=tool,
                   color=colors[k % len(colors)])
    labels = [f"{rtt} ms\n{loss:g}%" for rtt, loss in cases]
    axes[1].set_yscale("log")
    for ax, title in zip(axes, ["reported p50 minus the truth (round trip + service), µs",
                                "Little's law: req/s x mean latency / 20 (truth: 1; log)"]):
        ax.set_xticks(range(len(cases)))
        ax.set_xticklabels(labels, fontsize=8)
        ax.set_title(title)
        ax.axhline(1 if "Little" in title else 0, color="black", linewidth=0.8)
        ax.legend(fontsize=8)
    fig.suptitle(f"nginx across the emulated link, {NETWORK_CONNECTIONS} connections; nginx's "
                 f"service time {ms(service)} ms; h2load reports no p50")
    save(fig, out, "network.png")
    table(["round trip", "loss", "tool", "req/s", "p50 ms", "p99 ms", "mean ms",
           "truth p50 ms", "p50 error ms", "req/s x mean / 20", "errors / status"],
          [[f"{x['rtt_ms']} ms", f"{x['loss_pct']:g}%", x["tool"], thousands(x["req_per_s"]),
            x["p50_ms"] if x["p50_ms"] != "" else "n/a",
            x["p99_ms"] if x["p99_ms"] != "" else "n/a", x["mean_ms"], x["truth_p50_ms"],
            x["p50_error_ms"] if x["p50_error_ms"] != "" else "n/a", x["little"],
            x["errors"] if x["status"] == "ran" else x["status"]] for x in rows])


def h3_vs_h2(out):
    """p50 and p99 of HTTP/2 and HTTP/3 by loss, over the same 50 ms link."""
    rows, _ = network_rows(out, H3_VS_H2_IN_FLIGHT)
    losses = sorted({x["loss_pct"] for x in rows})
    fig, axes = figure(2)
    width = 0.38
    for k, (tool, label, color) in enumerate([("uringload-h2", "HTTP/2 (TLS over TCP)", "tab:blue"),
                                               ("uringload-h3", "HTTP/3 (QUIC)", "tab:orange")]):
        by_loss = {x["loss_pct"]: x for x in rows if x["tool"] == tool}
        xs = [i + (k - 0.5) * width for i in range(len(losses))]
        for ax, key in zip(axes, ["p50_ms", "p99_ms"]):
            values = [by_loss.get(loss, {}).get(key, "") for loss in losses]
            ax.bar([x for x, v in zip(xs, values) if v != ""], [v for v in values if v != ""],
                   width, label=label, color=color)
    for ax, title in zip(axes, ["p50 latency, ms", "p99 latency, ms"]):
        ax.set_xticks(range(len(losses)))
        ax.set_xticklabels([f"{loss:g}% loss" for loss in losses])
        ax.set_title(title)
        ax.axhline(50, color="black", linewidth=0.8)  # The round trip.
        ax.legend(fontsize=8)
    fig.suptitle("caddy across the emulated link: 25 ms each way, 4 connections x 16 streams "
                 "(the line: the round trip)")
    save(fig, out, "h3-vs-h2.png")
    table(["loss", "protocol", "req/s", "p50 ms", "p99 ms", "mean ms", "req/s x mean / 64",
           "errors / status"],
          [[f"{x['loss_pct']:g}%", x["tool"].removeprefix("uringload-"),
            thousands(x["req_per_s"]), x["p50_ms"], x["p99_ms"], x["mean_ms"], x["little"],
            x["errors"] if x["status"] == "ran" else x["status"]] for x in rows])


def png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    if head[:8] != b"\x89PNG\r\n\x1a\n":
        return None
    return struct.unpack(">II", head[16:24])


def results_problems(out):
    """What is wrong with results.csv against runs.csv."""
    problems = []
    try:
        with open(os.path.join(out, "results.csv")) as f:
            rows = list(csv.DictReader(f))
        with open(os.path.join(out, "runs.csv")) as f:
            runs = list(csv.DictReader(f))
        columns = NETWORK_COLUMNS if "rtt_ms" in (rows[0] if rows else {}) else COLUMNS
        if not rows or len(rows) != len(runs) or list(rows[0]) != columns:
            problems.append(f"results.csv: {len(rows)} rows for {len(runs)} runs")
        unparsed = [r for r in rows if r["status"].startswith("unparsed")]
        problems += [f"results.csv: {r['tool']} r={r['r']} s={r['s']} {r['status']}"
                     for r in unparsed]
    except (OSError, csv.Error) as error:
        problems.append(f"results.csv: {error}")
    return problems


def search_problems(out):
    """What is wrong with the searches' JSON (the slo experiment has no results.csv)."""
    found = searches(out)
    problems = [] if len(found) == 2 else [f"raw/search-*.json: {len(found)} searches, want 2"]
    return problems + [f"search-{server}.json: outcome {s['outcome']}"
                       for server, s in found.items() if s["outcome"] not in ("found", "none_met")]


def check(name, out):
    problems = search_problems(out) if name == "slo" else results_problems(out)
    for chart in CHARTS[name]:
        path = os.path.join(out, chart)
        size = png_size(path) if os.path.exists(path) else None
        want = (FIGSIZE[0] * DPI, FIGSIZE[1] * DPI)
        if size != want or os.path.getsize(path) < 10000:
            problems.append(f"{chart}: {size} (want a PNG of {want[0]}x{want[1]}, > 10 kB)")
    if not os.path.exists(os.path.join(out, "table.md")) or \
            os.path.getsize(os.path.join(out, "table.md")) < 100:
        problems.append("table.md: missing or empty")
    for p in problems:
        print(f"check {name}: {p}")
    return 1 if problems else 0


def main(argv):
    if len(argv) == 4 and argv[1] == "check" and argv[2] in CHARTS:
        return check(argv[2], argv[3])
    if len(argv) != 3 or argv[1] not in CHARTS:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    if argv[1] == "slo":
        slo(argv[2])
        return 0
    if argv[1] == "network":
        network(argv[2])
        return 0
    if argv[1] == "h3-vs-h2":
        h3_vs_h2(argv[2])
        return 0
    rows = load(argv[2])
    {"rate": rate, "memory": memory, "clients": clients, "kernel-tuning": kernel}[argv[1]](
        rows, argv[2])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
