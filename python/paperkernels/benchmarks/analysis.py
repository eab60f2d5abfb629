"""Reading benchmark records: speed-ups against peers, run-to-run comparison, plot, Markdown tables."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from .._report import Report

Key = tuple[str, str, str, str, int, str]


def key(m: dict[str, Any]) -> Key:
    """What identifies a measurement across runs: module, workload, contender, metric, threads and
    the instruction set its kernels ran under (one row per instruction set)."""
    return (m["module"], m["workload"], m["contender"], m["metric"], int(m["threads"]), str(m.get("isa")))


def speedups(measurements: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """paperkernels against each peer of the same workload and metric: every thread count (and
    instruction set) of ``"paperkernels"`` against the peer at that thread count, or at one thread
    when the peer ran only so. Speed-up > 1 means paperkernels is faster; for an ``"arithmetic rate"``
    against the one-thread dgemm it is the fraction of the machine's dgemm rate reached."""
    out = []
    groups: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
    for m in measurements:
        if m.get("better") in ("lower", "higher") and m.get("clock"):  # timings only
            groups.setdefault((m["module"], m["workload"], m["metric"]), []).append(m)
    for (module, workload, metric), group in groups.items():
        ours = [m for m in group if m["role"] == "paperkernels" and m["contender"] == "paperkernels"]
        peers: dict[str, dict[int, dict[str, Any]]] = {}
        for m in group:
            if m["role"] == "peer":
                peers.setdefault(m["contender"], {})[int(m["threads"])] = m
        for mine in ours:
            for name, by_threads in peers.items():
                peer = by_threads.get(int(mine["threads"])) or by_threads.get(1)
                if peer is None or peer["value"] <= 0 or mine["value"] <= 0:
                    continue
                ratio = peer["value"] / mine["value"] if mine["better"] == "lower" else mine["value"] / peer["value"]
                out.append(
                    {
                        "module": module,
                        "workload": workload,
                        "metric": metric,
                        "threads": mine["threads"],
                        "isa": mine.get("isa"),
                        "peer": name,
                        "peer_threads": peer["threads"],
                        "speedup": ratio,
                        "ours": mine["value"],
                        "theirs": peer["value"],
                        "unit": mine["unit"],
                    }
                )
    return out


# ------------------------------------------------------------------------------------------------
# Comparison of two runs


class MachineMismatch(ValueError):
    """Two records come from different machines (or builds picking a different ISA)."""


def _amd_core(family: int, model: int) -> str:
    if family == 26:
        return "Zen 5"
    if family == 25:
        return "Zen 4" if 0x10 <= model <= 0x1F or 0x60 <= model <= 0x7F or 0xA0 <= model <= 0xAF else "Zen 3"
    if family == 23:
        return "Zen 2" if model >= 0x30 else "Zen"
    return ""


def cpu_label(record: dict[str, Any]) -> str:
    """The CPU model, with family/model (and the AMD core generation) when the name is generic."""
    cpu = record["machine"]["cpu"]
    label = str(cpu["model"])
    if cpu.get("family") and cpu.get("model_number") and "family" not in label.lower():
        extra = f"family {cpu['family']} model {cpu['model_number']}"
        try:
            core = (
                _amd_core(int(cpu["family"]), int(cpu["model_number"])) if cpu.get("vendor") == "AuthenticAMD" else ""
            )
        except ValueError:
            core = ""
        label += f" ({extra}{', ' + core if core else ''})"
    return label


def machine_label(record: dict[str, Any]) -> str:
    machine = record["machine"]
    return f"{cpu_label(record)}, {machine['cores']['available']} core(s), {record['isa']}, {machine['os']['system']}"


def check_same_machine(old: dict[str, Any], new: dict[str, Any]) -> None:
    differences = []
    getters: tuple[tuple[str, Callable[[dict[str, Any]], Any]], ...] = (
        ("CPU", lambda r: r["machine"]["cpu"]["model"]),
        ("cores", lambda r: r["machine"]["cores"]["logical"]),
        ("available cores", lambda r: r["machine"]["cores"]["available"]),
        ("ISA", lambda r: r["isa"]),
        ("machine fingerprint", lambda r: r["machine"]["fingerprint"]),
    )
    for label, get in getters:
        a, b = get(old), get(new)
        if a != b:
            differences.append(f"{label}: {a!r} vs {b!r}")
    if differences:
        raise MachineMismatch(
            "the two runs come from different machines ("
            + "; ".join(differences)
            + "): timings are not comparable; pass --force to compare anyway"
        )


FEW_REPEATS = 3
UNMEASURED_SPREAD = 0.25


def compare(
    old: dict[str, Any], new: dict[str, Any], *, force: bool = False, threshold: float = 0.05
) -> dict[str, Any]:
    """new/old ratio of every measurement present in both runs.

    A change is flagged when the two runs' ranges (min..max over repeats) do not overlap and the
    values differ by more than ``threshold`` (relative), or by more than 25% where either run has
    fewer than 3 repeats (its spread is then not really measured): "slower"/"faster" by the
    metric's direction, "changed" for metrics without one. Measurements taken with different
    clocks are not compared. Raises :class:`MachineMismatch` for runs from different machines
    unless ``force``.
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
        if o.get("clock") != n.get("clock"):
            verdict = "clock differs"  # CPU time against wall time: not comparable
        elif apart and abs(ratio - 1.0) > (
            threshold if min(so["repeats"], sn["repeats"]) >= FEW_REPEATS else max(threshold, UNMEASURED_SPREAD)
        ):
            up = ratio > 1.0
            better = n.get("better")
            verdict = (
                "changed"
                if better not in ("lower", "higher")
                else ("slower" if (better == "lower") == up else "faster")
            )
        rows.append(
            {
                "key": list(k),
                "old": o["value"],
                "new": n["value"],
                "unit": n["unit"],
                "ratio": ratio,
                "better": n.get("better"),
                "old_spread": so,
                "new_spread": sn,
                "verdict": verdict,
            }
        )
    return {
        "rows": rows,
        "only_old": [list(k) for k in old_by if k not in new_by],
        "only_new": [list(k) for k in new_by if k not in old_by],
        "old_machine": machine_label(old),
        "new_machine": machine_label(new),
        "regressions": sum(r["verdict"] == "slower" for r in rows),
    }


def print_comparison(result: dict[str, Any], report: Report) -> None:
    report.line(f"old: {result['old_machine']}")
    report.line(f"new: {result['new_machine']}")
    rows = []
    for r in result["rows"]:
        module, workload, contender, metric, threads, isa = r["key"]
        rows.append(
            [
                module,
                workload,
                contender,
                threads,
                isa,
                metric,
                f"{r['old']:.4g}",
                f"{r['new']:.4g}",
                r["unit"],
                f"{r['ratio']:.3f}",
                r["verdict"].upper() if r["verdict"] == "slower" else r["verdict"],
            ]
        )
    report.table(
        ["module", "workload", "contender", "threads", "isa", "metric", "old", "new", "unit", "new/old", "flag"], rows
    )
    if result["only_old"] or result["only_new"]:
        report.line(
            f"{len(result['only_old'])} measurement(s) only in the old run, "
            f"{len(result['only_new'])} only in the new one"
        )
    flagged = [r for r in result["rows"] if r["verdict"] in ("slower", "faster", "changed")]
    report.line(
        f"{len(flagged)} of {len(result['rows'])} measurements changed beyond their spread "
        f"({result['regressions']} slower)"
    )


# ------------------------------------------------------------------------------------------------
# Plot


def plot(record: dict[str, Any], path: str) -> None:
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
    fig, axes = plt.subplots(
        len(modules),
        1,
        figsize=(11, 1.2 + 0.42 * sum(heights) + 0.6 * len(modules)),
        gridspec_kw={"height_ratios": heights},
        squeeze=False,
    )
    for ax, module in zip(axes[:, 0], modules, strict=False):
        mine = [p for p in pairs if p["module"] == module]
        several = len({p.get("isa") for p in mine}) > 1
        labels = [
            f"{p['workload']}, {p['threads']} thread{'s' if p['threads'] > 1 else ''}"
            f"{', ' + str(p.get('isa')) if several else ''}\nvs {p['peer']}"
            for p in mine
        ]
        values = [p["speedup"] for p in mine]
        colors = ["tab:green" if v >= 1 else "tab:red" for v in values]
        ax.barh(range(len(mine)), values, color=colors)
        ax.set_xscale("log")
        ax.set_xlim(min(0.5, min(values) / 1.5), max(2.0, max(values)) * 4)  # room for the labels
        ax.axvline(1.0, color="black", linewidth=0.8)
        ax.set_yticks(range(len(mine)))
        ax.set_yticklabels(labels, fontsize=7)
        ax.invert_yaxis()
        ax.set_title(f"paperkernels.{module}" if module != "scaleout" else module, fontsize=9, loc="left")
        for i, v in enumerate(values):
            ax.text(v, i, f" {_fmt(v)}x", va="center", fontsize=7)
        ax.tick_params(axis="x", labelsize=7)
    axes[-1, 0].set_xlabel("speed-up of paperkernels (peer time / paperkernels time; log scale)", fontsize=8)
    record["software"]
    fig.suptitle(
        f"{_software_label(record)}: speed-ups on {machine_label(record)}"
        f"{' (quick sizes)' if record.get('quick') else ''}",
        fontsize=10,
    )
    fig.tight_layout(rect=(0, 0, 1, 1 - 0.5 / fig.get_figheight()))
    fig.savefig(path, dpi=110)
    plt.close(fig)


# ------------------------------------------------------------------------------------------------
# Markdown


def _fmt(value: float) -> str:
    value = float(value)
    if abs(value) >= 1e7:
        return f"{value / 1e6:,.0f} M"
    if abs(value) >= 1e6:
        return f"{value / 1e6:.2f} M"
    if abs(value) >= 100:
        return f"{value:,.0f}"
    return f"{value:.3g}"


def _software_label(record: dict[str, Any]) -> str:
    software = record["software"]
    version = software["paperkernels"]
    commit = (software.get("git") or {}).get("commit")
    label = "paperkernels" if "unknown" in version else f"paperkernels {version}"
    return label + (f" at commit {commit[:7]}" if commit else "")


def markdown(record: dict[str, Any], module: str | None = None) -> str:
    """Markdown tables of one module's results (or every module's): paperkernels against each peer
    with the speed-up, the other measurements, and the agreement checks that ran before timing."""
    modules = [module] if module else list(record["modules"])
    machine = record["machine"]
    lines: list[str] = []
    for name in modules:
        measurements = [m for m in record["measurements"] if m["module"] == name]
        status = record["modules"].get(name, {}).get("status", "not run")
        if not measurements:
            lines += [f"*No measurements for {name} ({status}).*", ""]
            continue
        threads = sorted({m["threads"] for m in measurements})
        isas = [
            i
            for i in ("avx512", "avx2", "sse2", "baseline")
            if any(m.get("isa") == i for m in measurements if m["role"] == "paperkernels")
        ]
        isa_label = (
            f"ISA {record['isa']}"
            if len(isas) <= 1
            else f"ISA {record['isa']} (paperkernels rows also under {', '.join(i for i in isas if i != record['isa'])})"
        )
        counts = "one thread" if threads == [1] else f"{' and '.join(map(str, threads))} threads (column)"
        load = (record.get("load_average") or {}).get("start")
        load = f", load average {load[0]:.1f} at the start" if load else ""
        lines.append(
            f"*{cpu_label(record)}, {machine['cores']['available']} cores{load}, {isa_label}, "
            f"{counts}; best of the repeats; {_software_label(record)}, {record['created'][:10]}"
            f"{', quick sizes' if record.get('quick') else ''}.*"
        )
        lines.append("")
        pairs = speedups(measurements)
        several = len({m.get("isa") for m in measurements if m["role"] == "paperkernels"}) > 1
        paired = set()
        if pairs:
            if several:  # one row per instruction set
                lines.append("| workload | threads | ISA | paperkernels | against | peer | speed-up |")
                lines.append("|---|---:|---|---:|---|---:|---:|")
            else:
                lines.append("| workload | threads | paperkernels | against | peer | speed-up |")
                lines.append("|---|---:|---:|---|---:|---:|")
            for p in pairs:
                paired.add((p["workload"], p["metric"], "paperkernels", p["threads"], p.get("isa")))
                paired.add((p["workload"], p["metric"], p["peer"], p["peer_threads"], None))
                isa = f" {p.get('isa')} |" if several else ""
                lines.append(
                    f"| {p['workload']} | {p['threads']} |{isa} {_fmt(p['ours'])} {p['unit']} | {p['peer']} | "
                    f"{_fmt(p['theirs'])} {p['unit']} | **{_fmt(p['speedup'])}x** |"
                )
            lines.append("")
        rest = [
            m
            for m in measurements
            if (m["workload"], m["metric"], m["contender"], m["threads"], m.get("isa")) not in paired
            and (m["workload"], m["metric"], m["contender"], m["threads"], None) not in paired
        ]
        if rest:
            if several:
                lines.append("| workload | contender | threads | ISA | metric | value |")
                lines.append("|---|---|---:|---|---|---:|")
            else:
                lines.append("| workload | contender | threads | metric | value |")
                lines.append("|---|---|---:|---|---:|")
            for m in rest:
                isa = f" {m.get('isa')} |" if several else ""
                lines.append(
                    f"| {m['workload']} | {m['contender']} | {m['threads']} |{isa} {m['metric']} | "
                    f"{_fmt(m['value'])} {m['unit']} |"
                )
            lines.append("")
        checks = [c for c in record["checks"] if c["module"] == name]
        if checks:
            passed = sum(c["passed"] for c in checks)
            worst: dict[str, float] = {}
            for c in checks:
                label = f"{c['compared']}, {c['quantity']}"
                worst[label] = max(worst.get(label, 0.0), c["value"])
            lines.append(
                f"Agreement checks ({passed} of {len(checks)} passed; largest value over workloads): "
                + "; ".join(f"{label} {value:.2g}" for label, value in worst.items())
                + "."
            )
            lines.append("")
        skipped = [s for s in record["skipped"] if s["module"] == name]
        for s in skipped:
            lines.append(f"{s['peer']} was skipped: {s['reason']}.")
        if skipped:
            lines.append("")
    return "\n".join(lines).rstrip() + "\n"


BEGIN = "<!-- bench:{module}:begin (generated by tools/render_bench.py; do not edit) -->"
END = "<!-- bench:{module}:end -->"


def render_tables(record: dict[str, Any], text: str) -> tuple[str, list[str]]:
    """Replaces every ``bench:<module>`` block of ``text`` with the tables of that module."""
    done = []
    for name in record["modules"]:
        begin, end = BEGIN.format(module=name), END.format(module=name)
        start = text.find(begin)
        if start < 0:
            continue
        stop = text.find(end, start)
        if stop < 0:
            raise ValueError(f"text: marker {begin!r} without its end marker")
        text = text[: start + len(begin)] + "\n\n" + markdown(record, name) + "\n" + text[stop:]
        done.append(name)
    return text, done
