"""The difference-network MILP on a box (big-M per unstable neuron, interval bounds), solved by HiGHS."""

from __future__ import annotations

import os
import sys
import threading
from typing import Any

import numpy as np

from ._net import ReLUNet

_STDOUT_LOCK = threading.Lock()


def quiet_highs(highspy: Any) -> Any:
    """A ``highspy.Highs`` whose construction banner does not reach stdout (it is printed by the C++
    constructor, before any option can be set), with all further output switched off."""
    with _STDOUT_LOCK:
        try:
            sys.stdout.flush()
        except Exception:
            pass
        try:
            saved = os.dup(1)
        except OSError:
            saved = None
        if saved is None:
            h = highspy.Highs()
        else:
            devnull = os.open(os.devnull, os.O_WRONLY)
            try:
                os.dup2(devnull, 1)
                h = highspy.Highs()
            finally:
                os.dup2(saved, 1)
                os.close(saved)
                os.close(devnull)
    h.setOptionValue("output_flag", False)
    h.setOptionValue("log_to_console", False)
    return h


class _Model:
    def __init__(self) -> None:
        self.lower: list[float] = []
        self.upper: list[float] = []
        self.integer: list[bool] = []
        self.rows: list[tuple[list[int], list[float], float, float]] = []

    def var(self, lo: float, hi: float, integer: bool = False) -> int:
        self.lower.append(lo)
        self.upper.append(hi)
        self.integer.append(integer)
        return len(self.lower) - 1

    def row(self, idx: list[int], val: list[float], lo: float, hi: float) -> None:
        self.rows.append((idx, val, lo, hi))


def _encode(
    model: _Model, net: ReLUNet, x_vars: list[int], lo: np.ndarray, hi: np.ndarray
) -> list[tuple[list[int], list[float], float]]:
    """Adds the network's constraints; returns the output as (var indices, weights, constant) per output."""
    Ws, bs = net.float_parameters()
    inf = np.inf
    # current layer values: affine expressions sum_k coef * var + const, with interval bounds
    exprs = [([v], [1.0], 0.0) for v in x_vars]
    zlo, zhi = lo.astype(float), hi.astype(float)
    for l, (W, b) in enumerate(zip(Ws, bs, strict=False)):
        pos, neg = np.maximum(W, 0), np.minimum(W, 0)
        ylo = pos @ zlo + neg @ zhi + b
        yhi = pos @ zhi + neg @ zlo + b
        # widen the bounds a little: they are floating-point, and the big-M must stay valid
        pad = 1e-9 * (1 + np.abs(ylo) + np.abs(yhi))
        ylo, yhi = ylo - pad, yhi + pad
        pre = []
        for j in range(W.shape[0]):
            idx, val, const = [], [], float(b[j])
            for k in np.flatnonzero(W[j]):
                e_idx, e_val, e_const = exprs[k]
                idx += e_idx
                val += [W[j, k] * v for v in e_val]
                const += W[j, k] * e_const
            pre.append((idx, val, const))
        if l == len(Ws) - 1:
            return pre
        new_exprs: list[tuple[list[int], list[float], float]] = []
        new_lo, new_hi = np.zeros(W.shape[0]), np.zeros(W.shape[0])
        for j, (idx, val, const) in enumerate(pre):
            if yhi[j] <= 0:
                new_exprs.append(([], [], 0.0))
            elif ylo[j] >= 0:
                z = model.var(max(0.0, ylo[j]), yhi[j])
                model.row([z] + idx, [1.0] + [-v for v in val], const, const)  # z = y
                new_exprs.append(([z], [1.0], 0.0))
                new_lo[j], new_hi[j] = ylo[j], yhi[j]
            else:
                z = model.var(0.0, yhi[j])
                a = model.var(0.0, 1.0, integer=True)
                model.row([z] + idx, [1.0] + [-v for v in val], const, inf)  # z >= y
                model.row([z, a] + idx, [1.0, -ylo[j]] + [-v for v in val], -inf, const - ylo[j])  # z <= y - lo (1 - a)
                model.row([z, a], [1.0, -yhi[j]], -inf, 0.0)  # z <= hi a
                new_exprs.append(([z], [1.0], 0.0))
                new_hi[j] = yhi[j]
        exprs, zlo, zhi = new_exprs, new_lo, new_hi
    raise AssertionError("unreachable")


def build_difference_milp(
    highspy: Any,
    a: ReLUNet,
    b: ReLUNet,
    lo: np.ndarray,
    hi: np.ndarray,
    output: int,
    sign: float,
    time_limit: float | None,
) -> tuple[np.ndarray | None, float | None, str]:
    """Solve max sign * (f_a - f_b)_output on the box; returns (x, objective, status)."""
    model = _Model()
    x_vars = [model.var(float(l), float(h)) for l, h in zip(lo, hi, strict=False)]
    out_a = _encode(model, a, x_vars, lo, hi)
    out_b = _encode(model, b, x_vars, lo, hi)
    cost = np.zeros(len(model.lower))
    ia, va, ca = out_a[output]
    ib, vb, cb = out_b[output]
    for i, v in zip(ia, va, strict=False):
        cost[i] += sign * v
    for i, v in zip(ib, vb, strict=False):
        cost[i] -= sign * v
    offset = sign * (ca - cb)

    lp = highspy.HighsLp()
    n = len(model.lower)
    lp.num_col_ = n
    lp.num_row_ = len(model.rows)
    lp.col_cost_ = cost
    lp.col_lower_ = np.array(model.lower)
    lp.col_upper_ = np.array(model.upper)
    lp.offset_ = offset
    lp.sense_ = highspy.ObjSense.kMaximize
    inf = highspy.kHighsInf
    lp.row_lower_ = np.array([max(r[2], -inf) for r in model.rows]) if model.rows else np.zeros(0)
    lp.row_upper_ = np.array([min(r[3], inf) for r in model.rows]) if model.rows else np.zeros(0)
    starts, index, value = [0], [], []
    for idx, val, _, _ in model.rows:
        merged: dict[int, float] = {}
        for i, v in zip(idx, val, strict=False):
            merged[i] = merged.get(i, 0.0) + v
        for i in sorted(merged):
            index.append(i)
            value.append(merged[i])
        starts.append(len(index))
    lp.a_matrix_.format_ = highspy.MatrixFormat.kRowwise
    lp.a_matrix_.start_ = np.array(starts, dtype=np.int32)
    lp.a_matrix_.index_ = np.array(index, dtype=np.int32)
    lp.a_matrix_.value_ = np.array(value, dtype=np.float64)
    lp.a_matrix_.num_col_ = n
    lp.a_matrix_.num_row_ = len(model.rows)
    lp.integrality_ = [highspy.HighsVarType.kInteger if t else highspy.HighsVarType.kContinuous for t in model.integer]
    h = quiet_highs(highspy)
    h.setOptionValue("threads", 1)
    if time_limit is not None:
        h.setOptionValue("time_limit", float(time_limit))
    h.passModel(lp)
    h.run()
    status = h.modelStatusToString(h.getModelStatus())
    sol = h.getSolution()
    if not sol.value_valid:
        return None, None, status
    x = np.array(sol.col_value[: len(x_vars)], dtype=np.float64)
    return x, float(h.getInfo().objective_function_value), status
