"""Reading benchmark records: speed-ups against peers, run-to-run comparison, plot, Markdown tables."""

from __future__ import annotations

import math
from typing import Any, Dict, List, Optional, Sequence, Tuple

Key = Tuple[str, str, str, str, int]


def key(m: Dict[str, Any]) -> Key:
    return (m["module"], m["workload"], m["contender"], m["metric"], int(m["threads"]))


def speedups(measurements: Sequence[Dict[str, Any]]) -> List[Dict[str, Any]]:
    """paperkernels against each peer of the same workload and metric: every thread count of
    ``"paperkernels"`` against the peer at that thread count, or at one thread when the peer ran only
    so. Speed-up > 1 means paperkernels is faster."""
    out = []
    groups: Dict[Tuple[str, str, str], List[Dict[str, Any]]] = {}
    for m in measurements:
        if m.get("better") in ("lower", "higher"):
            groups.setdefault((m["module"], m["workload"], m["metric"]), []).append(m)
    for (module, workload, metric), group in groups.items():
        ours = [m for m in group if m["role"] == "paperkernels" and m["contender"] == "paperkernels"]
        peers: Dict[str, Dict[int, Dict[str, Any]]] = {}
        for m in group:
            if m["role"] == "peer":
                peers.setdefault(m["contender"], {})[int(m["threads"])] = m
        for mine in ours:
            for name, by_threads in peers.items():
                peer = by_threads.get(int(mine["threads"])) or by_threads.get(1)
                if peer is None or peer["value"] <= 0 or mine["value"] <= 0:
                    continue
                ratio = peer["value"] / mine["value"] if mine["better"] == "lower" else mine["value"] / peer["value"]
                out.append({"module": module, "workload": workload, "metric": metric, "threads": mine["threads"],
                            "peer": name, "peer_threads": peer["threads"], "speedup": ratio,
                            "ours": mine["value"], "theirs": peer["value"], "unit": mine["unit"]})
    return out


# ------------------------------------------------------------------------------------------------
# Comparison of two runs


class MachineMismatch(ValueError):
    """Two records come from different machines (or builds picking a different ISA)."""


def machine_label(record: Dict[str, Any]) -> str:
    machine = record["machine"]
    return (f"{machine['cpu']['model']}, {machine['cores']['available']} core(s), {record['isa']}, "
            f"{machine['os']['system']}")


def check_same_machine(old: Dict[str, Any], new: Dict[str, Any]) -> None:
    differences = []
    for label, get in (("CPU", lambda r: r["machine"]["cpu"]["model"]),
                       ("cores", lambda r: r["machine"]["cores"]["logical"]),
                       ("available cores", lambda r: r["machine"]["cores"]["available"]),
                       ("ISA", lambda r: r["isa"]),
                       ("machine fingerprint", lambda r: r["machine"]["fingerprint"])):
        a, b = get(old), get(new)
        if a != b:
            differences.append(f"{label}: {a!r} vs {b!r}")
    if differences:
        raise MachineMismatch("the two runs come from different machines (" + "; ".join(differences) +
                              "): timings are not comparable; pass --force to compare anyway")


def compare(old: Dict[str, Any], new: Dict[str, Any], *, force: bool = False,
            threshold: float = 0.05) -> Dict[str, Any]:
    """new/old ratio of every measurement present in both runs.

    A change is flagged when the two runs' ranges (min..max over repeats) do not overlap and the
    values differ by more than ``threshold`` (relative): "slower"/"faster" by the metric's
    direction, "changed" for metrics without one. Raises :class:`MachineMismatch` for runs from
    different machines unless ``force``.
    """
    if not force:
        check_same_machine(old, new)
    old_by = {key(m): m for m in old["measurements"]}
    new_by = {key(m): m for m in new["measurements"]}
    rows = []
    for k, n in new_by.items():
        o = old_by.get(k)
        if o is None:
            continue
        ratio = n["value"] / o["value"] if o["value"] else (1.0 if n["value"] == o["value"] else math.inf)
        so, sn = o["spread"], n["spread"]
        apart = sn["min"] > so["max"] or sn["max"] < so["min"]
        verdict = ""
        if apart and abs(ratio - 1.0) > threshold:
            up = ratio > 1.0
            better = n.get("better")
            verdict = "changed" if better not in ("lower", "higher") else (
                "slower" if (better == "lower") == up else "faster")
        rows.append({"key": list(k), "old": o["value"], "new": n["value"], "unit": n["unit"], "ratio": ratio,
                     "better": n.get("better"), "old_spread": so, "new_spread": sn, "verdict": verdict})
    return {
        "rows": rows,
        "only_old": [list(k) for k in old_by if k not in new_by],
        "only_new": [list(k) for k in new_by if k not in old_by],
        "old_machine": machine_label(old),
        "new_machine": machine_label(new),
        "regressions": sum(r["verdict"] == "slower" for r in rows),
    }


def print_comparison(result: Dict[str, Any], report) -> None:
    report.line(f"old: {result['old_machine']}")
    report.line(f"new: {result['new_machine']}")
    rows = []
    for r in result["rows"]:
        module, workload, contender, metric, threads = r["key"]
        rows.append([module, workload, contender, threads, metric, f"{r['old']:.4g}", f"{r['new']:.4g}", r["unit"],
                     f"{r['ratio']:.3f}", r["verdict"].upper() if r["verdict"] == "slower" else r["verdict"]])
    report.table(["module", "workload", "contender", "threads", "metric", "old", "new", "unit", "new/old", "flag"],
                 rows)
    if result["only_old"] or result["only_new"]:
        report.line(f"{len(result['only_old'])} measurement(s) only in the old run, "
                    f"{len(result['only_new'])} only in the new one")
    flagged = [r for r in result["rows"] if r["verdict"]]
    report.line(f"{len(flagged)} of {len(result['rows'])} measurements changed beyond their spread "
                f"({result['regressions']} slower)")


# ------------------------------------------------------------------------------------------------
# Plot


def plot(record: Dict[str, Any], path: str) -> None:
    """Speed-ups against each peer, one panel per module, log scale; the machine in the title."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as exc:
        raise RuntimeError("--plot needs matplotlib (pip install matplotlib)") from exc
    pairs = speedups(record["measurements"])
    modules = [m for m in record["modules"] if any(p["module"] == m for p in pairs)]
    if not modules:
        raise RuntimeError("no speed-ups to plot: the record has no paperkernels-vs-peer measurements")
    heights = [max(1, sum(p["module"] == m for p in pairs)) for m in modules]
    fig, axes = plt.subplots(len(modules), 1, figsize=(10, 1.2 + 0.32 * sum(heights) + 0.6 * len(modules)),
                             gridspec_kw={"height_ratios": heights}, squeeze=False)
    for ax, module in zip(axes[:, 0], modules):
        mine = [p for p in pairs if p["module"] == module]
        labels = [f"{p['workload']}, {p['threads']} thr. vs {p['peer']}" for p in mine]
        values = [p["speedup"] for p in mine]
        colors = ["tab:green" if v >= 1 else "tab:red" for v in values]
        ax.barh(range(len(mine)), values, color=colors)
        ax.set_xscale("log")
        ax.axvline(1.0, color="black", linewidth=0.8)
        ax.set_yticks(range(len(mine)))
        ax.set_yticklabels(labels, fontsize=7)
        ax.invert_yaxis()
        ax.set_title(f"paperkernels.{module}" if module != "scaleout" else module, fontsize=9, loc="left")
        for i, v in enumerate(values):
            ax.text(v, i, f" {v:,.3g}x", va="center", fontsize=7)
        ax.tick_params(axis="x", labelsize=7)
    axes[-1, 0].set_xlabel("speed-up of paperkernels (peer time / paperkernels time; log scale)", fontsize=8)
    software = record["software"]
    fig.suptitle(f"paperkernels {software['paperkernels']} speed-ups on {machine_label(record)}"
                 f"{' (quick sizes)' if record.get('quick') else ''}", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


# ------------------------------------------------------------------------------------------------
# Markdown


def _fmt(value: float) -> str:
    if value >= 100:
        return f"{value:,.0f}"
    if value >= 1:
        return f"{value:.3g}"
    return f"{value:.3g}"


def markdown(record: Dict[str, Any], module: Optional[str] = None) -> str:
    """Markdown tables of one module's measurements (or every module's), with speed-ups and checks."""
    modules = [module] if module else list(record["modules"])
    machine = record["machine"]
    lines: List[str] = []
    for name in modules:
        measurements = [m for m in record["measurements"] if m["module"] == name]
        status = record["modules"].get(name, {}).get("status", "not run")
        if not measurements:
            lines.append(f"*No measurements for {name} ({status}).*")
            lines.append("")
            continue
        threads = sorted({m["threads"] for m in measurements})
        lines.append(f"Measured on {machine['cpu']['model']} ({machine['cores']['available']} cores), ISA "
                     f"{record['isa']}, threads {', '.join(map(str, threads))}; paperkernels "
                     f"{record['software']['paperkernels']}, {record['created'][:10]}"
                     f"{', quick sizes' if record.get('quick') else ''}. Values are the best of the repeats "
                     f"(range in brackets).")
        lines.append("")
        lines.append("| workload | contender | threads | value | range |")
        lines.append("|---|---|---:|---:|---|")
        for m in measurements:
            s = m["spread"]
            spread = f"{_fmt(s['min'])}-{_fmt(s['max'])}" if s["repeats"] > 1 and s["min"] != s["max"] else ""
            lines.append(f"| {m['workload']} | {m['contender']} | {m['threads']} | {_fmt(m['value'])} {m['unit']} | "
                         f"{spread} |")
        pairs = speedups(measurements)
        if pairs:
            lines.append("")
            lines.append("| workload | paperkernels threads | against | speed-up |")
            lines.append("|---|---:|---|---:|")
            for p in pairs:
                lines.append(f"| {p['workload']} | {p['threads']} | {p['peer']} | **{_fmt(p['speedup'])}x** |")
        checks = [c for c in record["checks"] if c["module"] == name]
        if checks:
            lines.append("")
            lines.append("Checked before timing: " + "; ".join(
                f"{c['compared']} ({c['quantity']} {c['value']:.2g}, {'pass' if c['passed'] else 'FAIL'})"
                for c in checks) + ".")
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


BEGIN = "<!-- bench:{module}:begin (generated by tools/render_bench.py; do not edit) -->"
END = "<!-- bench:{module}:end -->"


def render_readme(record: Dict[str, Any], text: str) -> Tuple[str, List[str]]:
    """Replaces every ``bench:<module>`` block of ``text`` with the tables of that module."""
    done = []
    for name in record["modules"]:
        begin, end = BEGIN.format(module=name), END.format(module=name)
        start = text.find(begin)
        if start < 0:
            continue
        stop = text.find(end, start)
        if stop < 0:
            raise ValueError(f"README: {begin!r} without its end marker")
        text = text[: start + len(begin)] + "\n" + markdown(record, name) + text[stop:]
        done.append(name)
    return text, done
