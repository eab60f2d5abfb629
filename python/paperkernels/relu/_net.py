"""``ReLUNet``: a fully connected ReLU network with float64 or exact rational parameters."""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import numpy as np

from .._validation import NON_NUMERIC_KINDS, as_array, as_choice, as_int, is_real, plain_array, refuse_masked
from . import _rational as rat

_FLOAT_EXACT_INT = 2**53

FloatParameters = tuple[list[np.ndarray], list[np.ndarray]]  # (weights, biases) in float64
IntegerLayer = tuple[np.ndarray, int, np.ndarray, int]  # W = N / D and b = B / E, Python-int object arrays


def _is_long_double(dtype: np.dtype) -> bool:
    return dtype.kind == "f" and dtype.itemsize > 8


def _classify_entries(raw: np.ndarray) -> str:
    """'float' or 'rational' for an array-like of numbers; raises TypeError for anything else."""
    if _is_long_double(raw.dtype):
        raise TypeError(
            f"expected float64 or Fractions, got dtype {raw.dtype} (its extra precision would be "
            "rounded away; pass Fractions for exact values)"
        )
    if raw.dtype.kind in "fiu":
        if raw.dtype.kind in "iu" and raw.size and int(np.max(np.abs(raw.astype(object)))) > _FLOAT_EXACT_INT:
            return "rational"
        return "float"
    if raw.dtype.kind == "b":
        return "float"
    if raw.dtype == object:
        kind = "float"
        for v in raw.flat:
            if isinstance(v, (bool, np.bool_)):
                continue
            if isinstance(v, np.floating) and _is_long_double(np.dtype(type(v))):
                raise TypeError(
                    f"expected float64 or Fractions, got {type(v).__name__} {v!r} (pass Fractions for exact values)"
                )
            if isinstance(v, Fraction):
                kind = "rational"
            elif isinstance(v, numbers.Integral) and is_real(v):
                if abs(int(v)) > _FLOAT_EXACT_INT:
                    kind = "rational"
            elif not is_real(v):
                raise TypeError(f"expected real numbers or Fractions, got {type(v).__name__} {v!r}")
        return kind
    raise TypeError(f"expected real numbers or Fractions, got dtype {raw.dtype}")


def _as_layer_array(value: Any, name: str, ndim: int) -> tuple[np.ndarray, str]:
    if value is None:
        raise TypeError(f"{name}: expected an array, got None")
    raw = plain_array(value, name)
    if raw.dtype.kind in NON_NUMERIC_KINDS + "c":
        raise TypeError(f"{name}: expected real numbers, got an array of dtype {raw.dtype}")
    if raw.ndim != ndim:
        raise ValueError(f"{name}: expected a {ndim}-d array, got {raw.ndim}-d with shape {raw.shape}")
    if raw.size == 0:
        raise ValueError(f"{name}: expected a non-empty array (empty layers are not allowed), got shape {raw.shape}")
    try:
        kind = _classify_entries(raw)
    except TypeError as exc:
        raise TypeError(f"{name}: {exc}") from None
    if kind == "float":
        arr = np.array(raw, dtype=np.float64, order="C", copy=True)  # a copy: the caller's array stays writeable
        if not np.all(np.isfinite(arr)):
            raise ValueError(f"{name}: expected finite values, got NaN or infinity")
        return arr, kind
    arr = np.empty(raw.shape, dtype=object)
    for idx, v in np.ndenumerate(raw):
        if isinstance(v, (float, np.floating)) and not math.isfinite(float(v)):
            raise ValueError(f"{name}: expected finite values, got NaN or infinity")
        arr[idx] = rat.as_fraction(v)
    return arr, kind


def float_forward(params: FloatParameters, pts: np.ndarray) -> list[np.ndarray]:
    """Pre-activations of every layer in float64 (no checks; overflow gives inf or NaN)."""
    Ws, bs = params
    values, z = [], pts
    for W, b in zip(Ws, bs, strict=False):
        pre = z @ W.T + b
        values.append(pre)
        z = np.maximum(pre, 0.0)
    return values


class ReLUNet:
    """A fully connected ReLU network ``f(x) = W_L relu(... relu(W_1 x + b_1) ...) + b_L``.

    Parameters
    ----------
    weights : sequence of 2-d array-likes
        ``weights[l-1]`` is ``W_l`` of shape ``(n_l, n_{l-1})``, for ``l = 1..L``. ReLU follows
        layers ``1..L-1``; the last layer is affine.
    biases : sequence of 1-d array-likes
        ``biases[l-1]`` is ``b_l`` of shape ``(n_l,)``.
    dtype : {None, "float64", "rational"}
        ``None`` keeps float64 parameters unless some entry is a ``fractions.Fraction`` (or an
        integer too large for float64), in which case all parameters become exact Fractions.
        ``"rational"`` converts floats exactly (float64 values are dyadic rationals).

    Notes
    -----
    Layers are numbered as in the paper: hidden layer ``l`` (``1 <= l <= L-1``) has weights
    ``W_l = weights[l-1]``. The symmetry moves and fiber tools use these 1-based indices.

    Raises
    ------
    TypeError
        When ``weights`` or ``biases`` is not a list of arrays, or an entry is not a real number.
    ValueError
        When the shapes do not chain, a layer is empty, an entry is not finite, or ``dtype`` is unknown.

    Examples
    --------
    A network 2 -> 2 -> 1 with float64 parameters, and one with exact parameters:

    >>> from fractions import Fraction
    >>> from paperkernels.relu import ReLUNet
    >>> net = ReLUNet([[[1.0, -1.0], [0.5, 2.0]], [[1.0, -2.0]]], [[0.0, 1.0], [0.5]])
    >>> net
    ReLUNet(widths=(2, 2, 1), float64)
    >>> net([3.0, 1.0])
    array([-6.5])
    >>> ReLUNet([[[Fraction(1, 3)]], [[1]]], [[0], [0]])
    ReLUNet(widths=(1, 1, 1), rational)
    """

    def __init__(self, weights: Sequence[Any], biases: Sequence[Any], *, dtype: str | None = None) -> None:
        if isinstance(weights, np.ndarray) or not isinstance(weights, Sequence) or len(weights) == 0:
            raise TypeError("weights: expected a non-empty list of 2-d arrays, one per layer")
        if isinstance(biases, np.ndarray) or not isinstance(biases, Sequence):
            raise TypeError("biases: expected a list of 1-d arrays, one per layer")
        if len(biases) != len(weights):
            raise ValueError(f"biases: expected {len(weights)} arrays (one per layer of weights), got {len(biases)}")
        if dtype is not None:
            as_choice(dtype, "dtype", ("float64", "rational"))
        Ws: list[np.ndarray] = []
        bs: list[np.ndarray] = []
        kinds: list[str] = []
        for l, (W, b) in enumerate(zip(weights, biases, strict=False)):
            Wa, kw = _as_layer_array(W, f"weights[{l}]", 2)
            ba, kb = _as_layer_array(b, f"biases[{l}]", 1)
            if l > 0 and Wa.shape[1] != Ws[-1].shape[0]:
                raise ValueError(
                    f"weights[{l}]: expected {Ws[-1].shape[0]} columns (the width of layer {l}), got shape {Wa.shape}"
                )
            if ba.shape != (Wa.shape[0],):
                raise ValueError(f"biases[{l}]: expected shape ({Wa.shape[0]},) to match weights[{l}], got {ba.shape}")
            Ws.append(Wa)
            bs.append(ba)
            kinds += [kw, kb]
        rational = dtype == "rational" or (dtype is None and "rational" in kinds)
        if rational:
            Ws = [rat.fraction_array(W) for W in Ws]
            bs = [rat.fraction_array(b) for b in bs]
        else:
            for l, (W, b) in enumerate(zip(Ws, bs, strict=False)):
                if W.dtype == object:
                    Ws[l] = rat.float_array(W)
                if b.dtype == object:
                    bs[l] = rat.float_array(b)
        for a in Ws + bs:
            a.flags.writeable = False
        self._weights: tuple[np.ndarray, ...] = tuple(Ws)
        self._biases: tuple[np.ndarray, ...] = tuple(bs)
        self._rational = rational
        self._exact_cache: tuple[tuple[np.ndarray, ...], tuple[np.ndarray, ...]] | None = None
        self._integer_cache: list[IntegerLayer] | None = None
        self._full_row_rank: bool | None = None
        self._float_cache: tuple[list[np.ndarray], list[np.ndarray]] | None = None

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["_exact_cache"] = None if not self._rational else state["_exact_cache"]
        state["_integer_cache"] = None
        state["_float_cache"] = None
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        from .._validation import realign_state

        state = realign_state(state)
        for key in ("_weights", "_biases"):
            arrays = tuple(np.array(a, copy=True) for a in state[key])
            for a in arrays:
                a.flags.writeable = False
            state[key] = arrays
        if state.get("_rational"):
            state["_exact_cache"] = None
        state.setdefault("_float_cache", None)
        self.__dict__.update(state)

    # ---- structure -------------------------------------------------------------------------
    @property
    def weights(self) -> tuple[np.ndarray, ...]:
        """The weight matrices ``(W_1, ..., W_L)``.

        Returns
        -------
        tuple of ndarray
            Read-only arrays of shape ``(n_l, n_{l-1})``: float64, or object arrays of Fractions.

        Examples
        --------
        >>> from paperkernels.relu import ReLUNet
        >>> net = ReLUNet([[[1.0, -1.0], [0.5, 2.0]], [[1.0, -2.0]]], [[0.0, 1.0], [0.5]])
        >>> net.weights[1]
        array([[ 1., -2.]])
        """
        return self._weights

    @property
    def biases(self) -> tuple[np.ndarray, ...]:
        """The bias vectors ``(b_1, ..., b_L)``.

        Returns
        -------
        tuple of ndarray
            Read-only arrays of shape ``(n_l,)``.

        Examples
        --------
        >>> from paperkernels.relu import ReLUNet
        >>> net = ReLUNet([[[1.0, -1.0], [0.5, 2.0]], [[1.0, -2.0]]], [[0.0, 1.0], [0.5]])
        >>> net.biases[0]
        array([0., 1.])
        """
        return self._biases

    @property
    def rational(self) -> bool:
        """Whether the parameters are exact Fractions.

        Returns
        -------
        bool
            True for a rational network, False for float64.

        Examples
        --------
        >>> from paperkernels.relu import ReLUNet
        >>> net = ReLUNet([[[1.0, -1.0], [0.5, 2.0]], [[1.0, -2.0]]], [[0.0, 1.0], [0.5]])
        >>> net.rational, net.to_rational().rational
        (False, True)
        """
        return self._rational

    @property
    def widths(self) -> tuple[int, ...]:
        """The layer widths ``(n_0, n_1, ..., n_L)``.

        Returns
        -------
        tuple of int
            Input width, hidden widths, output width.

        Examples
        --------
        >>> from paperkernels.relu import ReLUNet
        >>> net = ReLUNet([[[1.0, -1.0], [0.5, 2.0]], [[1.0, -2.0]]], [[0.0, 1.0], [0.5]])
        >>> net.widths
        (2, 2, 1)
        """
        return (self._weights[0].shape[1],) + tuple(W.shape[0] for W in self._weights)

    @property
    def depth(self) -> int:
        """Number of affine layers L (so L - 1 hidden ReLU layers).

        Returns
        -------
        int
            L.

        Examples
        --------
        >>> from paperkernels.relu import ReLUNet
        >>> net = ReLUNet([[[1.0, -1.0], [0.5, 2.0]], [[1.0, -2.0]]], [[0.0, 1.0], [0.5]])
        >>> net.depth
        2
        """
        return len(self._weights)

    @property
    def n_inputs(self) -> int:
        """Input width n_0.

        Returns
        -------
        int
            n_0.

        Examples
        --------
        >>> from paperkernels.relu import ReLUNet
        >>> net = ReLUNet([[[1.0, -1.0], [0.5, 2.0]], [[1.0, -2.0]]], [[0.0, 1.0], [0.5]])
        >>> net.n_inputs
        2
        """
        return self.widths[0]

    @property
    def n_outputs(self) -> int:
        """Output width n_L.

        Returns
        -------
        int
            n_L.

        Examples
        --------
        >>> from paperkernels.relu import ReLUNet
        >>> net = ReLUNet([[[1.0, -1.0], [0.5, 2.0]], [[1.0, -2.0]]], [[0.0, 1.0], [0.5]])
        >>> net.n_outputs
        1
        """
        return self.widths[-1]

    @property
    def n_parameters(self) -> int:
        """Number of parameters, ``sum_l n_l (n_{l-1} + 1)``.

        Returns
        -------
        int
            The length of :meth:`parameter_vector`.

        Examples
        --------
        >>> from paperkernels.relu import ReLUNet
        >>> net = ReLUNet([[[1.0, -1.0], [0.5, 2.0]], [[1.0, -2.0]]], [[0.0, 1.0], [0.5]])
        >>> net.n_parameters
        9
        """
        return sum(W.size + b.size for W, b in zip(self._weights, self._biases, strict=False))

    def __repr__(self) -> str:
        kind = "rational" if self._rational else "float64"
        return f"ReLUNet(widths={self.widths}, {kind})"

    # ---- conversions -----------------------------------------------------------------------
    def exact_parameters(self) -> tuple[tuple[np.ndarray, ...], tuple[np.ndarray, ...]]:
        """The parameters as object arrays of Fractions (exact; cached).

        Returns
        -------
        (tuple of ndarray, tuple of ndarray)
            ``(weights, biases)`` as object arrays of ``fractions.Fraction``.

        Examples
        --------
        >>> from paperkernels.relu import ReLUNet
        >>> net = ReLUNet([[[1.0, -1.0], [0.5, 2.0]], [[1.0, -2.0]]], [[0.0, 1.0], [0.5]])
        >>> Ws, bs = net.exact_parameters()
        >>> Ws[0][1]
        array([Fraction(1, 2), Fraction(2, 1)], dtype=object)
        """
        if self._exact_cache is None:
            if self._rational:
                self._exact_cache = (self._weights, self._biases)
            else:
                Ws = tuple(rat.fraction_array(W) for W in self._weights)
                bs = tuple(rat.fraction_array(b) for b in self._biases)
                self._exact_cache = (Ws, bs)
        return self._exact_cache

    def to_rational(self) -> ReLUNet:
        """The same network with exact Fraction parameters.

        Returns
        -------
        ReLUNet
            A rational network (``self`` when already rational).

        Examples
        --------
        >>> from paperkernels.relu import ReLUNet
        >>> net = ReLUNet([[[1.0, -1.0], [0.5, 2.0]], [[1.0, -2.0]]], [[0.0, 1.0], [0.5]])
        >>> net.to_rational()
        ReLUNet(widths=(2, 2, 1), rational)
        """
        if self._rational:
            return self
        Ws, bs = self.exact_parameters()
        return ReLUNet(list(Ws), list(bs), dtype="rational")

    def to_float(self) -> ReLUNet:
        """The network with float64 parameters (rounded to nearest when rational).

        Returns
        -------
        ReLUNet
            A float64 network (``self`` when already float64).

        Raises
        ------
        ValueError
            When a parameter lies beyond the float64 range.

        Examples
        --------
        >>> from fractions import Fraction
        >>> from paperkernels.relu import ReLUNet
        >>> ReLUNet([[[Fraction(1, 4)]], [[1]]], [[0], [0]]).to_float().weights[0]
        array([[0.25]])
        """
        if not self._rational:
            return self
        Ws, bs = self._float_parameters_checked("self")
        return ReLUNet(Ws, bs, dtype="float64")

    def float_parameters(self) -> tuple[list[np.ndarray], list[np.ndarray]]:
        """float64 copies of the parameters (rounded to nearest when rational).

        Returns
        -------
        (list of ndarray, list of ndarray)
            ``(weights, biases)`` in float64.

        Raises
        ------
        OverflowError
            When a rational parameter lies beyond the float64 range.

        Examples
        --------
        >>> from fractions import Fraction
        >>> from paperkernels.relu import ReLUNet
        >>> Ws, bs = ReLUNet([[[Fraction(1, 4)]], [[1]]], [[0], [0]]).float_parameters()
        >>> Ws[0], bs[1]
        (array([[0.25]]), array([0.]))
        """
        if not self._rational:
            return list(self._weights), list(self._biases)
        cache = self._float_cache
        if cache is None:
            cache = ([rat.float_array(W) for W in self._weights], [rat.float_array(b) for b in self._biases])
            self._float_cache = cache
        return list(cache[0]), list(cache[1])

    def _float_parameters_checked(self, name: str = "net") -> FloatParameters:
        try:
            return self.float_parameters()
        except OverflowError:
            raise ValueError(
                f"{name}: a parameter lies beyond the float64 range (about 1.8e308); use exact "
                "arithmetic (evaluate(x, exact=True)) for this network"
            ) from None

    def parameter_vector(self) -> np.ndarray:
        """All parameters as one float64 vector, ordered W_1, b_1, W_2, b_2, ... (row-major).

        Returns
        -------
        ndarray of shape (n_parameters,)
            The parameter vector theta.

        Raises
        ------
        ValueError
            When a rational parameter lies beyond the float64 range.

        Examples
        --------
        >>> from paperkernels.relu import ReLUNet
        >>> net = ReLUNet([[[1.0, -1.0], [0.5, 2.0]], [[1.0, -2.0]]], [[0.0, 1.0], [0.5]])
        >>> net.parameter_vector()
        array([ 1. , -1. ,  0.5,  2. ,  0. ,  1. ,  1. , -2. ,  0.5])
        """
        Ws, bs = self._float_parameters_checked("self")
        return np.concatenate([np.concatenate([W.ravel(), b]) for W, b in zip(Ws, bs, strict=False)])

    @classmethod
    def from_parameter_vector(cls, widths: Sequence[int], theta: Any) -> ReLUNet:
        """Inverse of :meth:`parameter_vector` for the given widths.

        Parameters
        ----------
        widths : sequence of int
            ``(n_0, n_1, ..., n_L)``, at least two positive widths.
        theta : array of shape (n_parameters,)
            The parameters, ordered W_1, b_1, W_2, b_2, ... (row-major).

        Returns
        -------
        ReLUNet
            The float64 network with these parameters.

        Raises
        ------
        ValueError, TypeError
            When ``widths`` is not a sequence of positive integers or ``theta`` has the wrong length.

        Examples
        --------
        >>> from paperkernels.relu import ReLUNet
        >>> net = ReLUNet([[[1.0, -1.0], [0.5, 2.0]], [[1.0, -2.0]]], [[0.0, 1.0], [0.5]])
        >>> ReLUNet.from_parameter_vector(net.widths, net.parameter_vector()).same_parameters(net)
        True
        """
        if isinstance(widths, (str, bytes)) or not isinstance(widths, Sequence) or len(widths) < 2:
            raise TypeError(f"widths: expected a sequence of at least 2 layer widths, got {widths!r}")
        widths = [as_int(w, "widths", low=1) for w in widths]
        theta = as_array(theta, "theta", ndim=1)
        expected = sum(widths[l + 1] * (widths[l] + 1) for l in range(len(widths) - 1))
        if theta.shape != (expected,):
            raise ValueError(f"theta: expected shape ({expected},) for widths {tuple(widths)}, got {theta.shape}")
        Ws, bs, pos = [], [], 0
        for l in range(len(widths) - 1):
            n_out, n_in = widths[l + 1], widths[l]
            Ws.append(theta[pos : pos + n_out * n_in].reshape(n_out, n_in))
            pos += n_out * n_in
            bs.append(theta[pos : pos + n_out])
            pos += n_out
        return cls(Ws, bs)

    def same_parameters(self, other: ReLUNet) -> bool:
        """Exact equality of all parameters (not functional equivalence: see :func:`equivalent`).

        Parameters
        ----------
        other : ReLUNet
            The network to compare with.

        Returns
        -------
        bool
            True when the widths and every parameter are equal as rational numbers.

        Examples
        --------
        >>> from paperkernels.relu import ReLUNet
        >>> net = ReLUNet([[[1.0, -1.0], [0.5, 2.0]], [[1.0, -2.0]]], [[0.0, 1.0], [0.5]])
        >>> net.same_parameters(net.to_rational())
        True
        """
        if self.widths != other.widths:
            return False
        A, a = self.exact_parameters()
        B, b = other.exact_parameters()
        return all(np.array_equal(x, y) for x, y in zip(A + a, B + b, strict=False))

    # ---- evaluation ------------------------------------------------------------------------
    def _check_points(self, x: Any, name: str = "x") -> tuple[np.ndarray, bool]:
        refuse_masked(x, name)
        raw = plain_array(x, name, dtype=object if _has_fraction(x) else None)
        single = raw.ndim == 1
        if raw.ndim not in (1, 2) or raw.shape[-1] != self.n_inputs:
            raise ValueError(f"{name}: expected shape ({self.n_inputs},) or (N, {self.n_inputs}), got {raw.shape}")
        if raw.size == 0:
            raise ValueError(f"{name}: expected at least one point, got shape {raw.shape}")
        if raw.dtype.kind not in "fiuO" or _is_long_double(raw.dtype):
            raise TypeError(f"{name}: expected real numbers (float64 or Fractions), got dtype {raw.dtype}")
        if raw.dtype == object:
            odd = next(
                (
                    v
                    for v in raw.flat
                    if isinstance(v, (bool, np.bool_))
                    or not is_real(v)
                    or (isinstance(v, np.floating) and _is_long_double(np.dtype(type(v))))
                ),
                None,
            )
            if odd is not None:
                raise TypeError(f"{name}: expected real numbers or Fractions, got {type(odd).__name__} {odd!r}")
        for v in raw.flat if raw.dtype == object else [np.min(raw), np.max(raw)] if raw.dtype.kind == "f" else []:
            if isinstance(v, (float, np.floating)) and not math.isfinite(float(v)):
                raise ValueError(f"{name}: expected finite values, got NaN or infinity")
        if raw.dtype != object:
            raw = np.ascontiguousarray(raw)  # BLAS rounds differently on Fortran-ordered or strided points
        return (raw.reshape(1, -1) if single else raw), single

    def __call__(self, x: Any) -> np.ndarray:
        """float64 outputs at ``x``.

        Parameters
        ----------
        x : array of shape (n0,) or (N, n0)
            One point or N points (float64, integers or Fractions).

        Returns
        -------
        ndarray of shape (n_outputs,) or (N, n_outputs)
            The outputs, in float64.

        Raises
        ------
        ValueError
            When ``x`` has the wrong shape or is not finite, or the outputs overflow float64.

        Examples
        --------
        >>> from paperkernels.relu import ReLUNet
        >>> net = ReLUNet([[[1.0, -1.0], [0.5, 2.0]], [[1.0, -2.0]]], [[0.0, 1.0], [0.5]])
        >>> net([[3.0, 1.0], [0.0, 0.0]])
        array([[-6.5],
               [-1.5]])
        """
        return self.evaluate(x)

    def evaluate(self, x: Any, *, exact: bool = False) -> np.ndarray:
        """Outputs at ``x``, in float64 or in exact rational arithmetic.

        Parameters
        ----------
        x : array of shape (n0,) or (N, n0)
            One point or N points (float64, integers or Fractions).
        exact : bool
            Compute with Fractions (exact) instead of float64.

        Returns
        -------
        ndarray of shape (n_outputs,) or (N, n_outputs)
            float64 outputs, or an object array of Fractions with ``exact=True``.

        Raises
        ------
        ValueError
            When ``x`` has the wrong shape or is not finite, or float64 outputs overflow.

        Examples
        --------
        >>> from paperkernels.relu import ReLUNet
        >>> net = ReLUNet([[[1.0, -1.0], [0.5, 2.0]], [[1.0, -2.0]]], [[0.0, 1.0], [0.5]])
        >>> net.evaluate([3.0, 1.0], exact=True)
        array([Fraction(-13, 2)], dtype=object)
        """
        return self.pre_activations(x, exact=exact)[-1]

    def pre_activations(self, x: Any, *, exact: bool = False) -> list[np.ndarray]:
        """Pre-activations of every layer (the last one is the output).

        Parameters
        ----------
        x : array of shape (n0,) or (N, n0)
            One point or N points (float64, integers or Fractions).
        exact : bool
            Compute with Fractions (exact) instead of float64.

        Returns
        -------
        list of ndarray
            One array per layer, of shape ``(n_l,)`` or ``(N, n_l)``.

        Raises
        ------
        ValueError
            When ``x`` has the wrong shape or is not finite, or float64 values overflow.

        Examples
        --------
        >>> from paperkernels.relu import ReLUNet
        >>> net = ReLUNet([[[1.0, -1.0], [0.5, 2.0]], [[1.0, -2.0]]], [[0.0, 1.0], [0.5]])
        >>> net.pre_activations([3.0, 1.0])
        [array([2. , 4.5]), array([-6.5])]
        """
        pts, single = self._check_points(x)
        if exact:
            values = _exact_pre_activations(self, pts)
        else:
            params = self._float_parameters_checked("net")
            if pts.dtype == object:
                try:
                    pts = rat.float_array(pts)
                except OverflowError:
                    raise ValueError("x: a coordinate lies beyond the float64 range; use exact=True") from None
            pts = np.asarray(pts, dtype=np.float64)
            with np.errstate(over="ignore", invalid="ignore"):
                values = float_forward(params, pts)
            if not all(np.all(np.isfinite(v)) for v in values):
                raise ValueError(
                    "x: the outputs overflow float64 at these points (the parameters or points are "
                    "too large); use evaluate(x, exact=True)"
                )
        return [v[0] for v in values] if single else values

    def activation_pattern(self, x: Any, *, exact: bool = False) -> list[np.ndarray]:
        """Boolean activation pattern (pre-activation > 0) of each hidden layer at ``x``.

        With ``exact=False`` on a float network, points within rounding error of a hyperplane may
        be misclassified; ``exact=True`` decides every sign exactly.

        Parameters
        ----------
        x : array of shape (n0,) or (N, n0)
            One point or N points (float64, integers or Fractions).
        exact : bool
            Decide every sign in exact arithmetic.

        Returns
        -------
        list of ndarray of bool
            One array per hidden layer, of shape ``(n_l,)`` or ``(N, n_l)``.

        Raises
        ------
        ValueError
            When ``x`` has the wrong shape or is not finite.

        Examples
        --------
        >>> from paperkernels.relu import ReLUNet
        >>> net = ReLUNet([[[1.0, -1.0], [0.5, 2.0]], [[1.0, -2.0]]], [[0.0, 1.0], [0.5]])
        >>> net.activation_pattern([0.0, -1.0])
        [array([ True, False])]
        """
        pre = self.pre_activations(x, exact=exact)[:-1]
        return [
            np.asarray(p > 0, dtype=bool) if p.dtype != object else np.vectorize(lambda v: v > 0, otypes=[bool])(p)
            for p in pre
        ]

    def _integer_layers(self) -> list[IntegerLayer]:
        """Each layer as (N, D, B, E): W = N / D and b = B / E with Python-int object arrays."""
        if self._integer_cache is None:
            Ws, bs = self.exact_parameters()
            layers: list[IntegerLayer] = []
            for W, b in zip(Ws, bs, strict=False):
                layers.append(rat.integer_matrix(W) + rat.integer_matrix(b))
            self._integer_cache = layers
        return self._integer_cache


def _has_fraction(x: Any) -> bool:
    if isinstance(x, np.ndarray):
        return bool(x.dtype == object)
    if isinstance(x, Fraction):
        return True
    if isinstance(x, (list, tuple)):
        return any(_has_fraction(v) for v in x)
    return False


def _exact_pre_activations(net: ReLUNet, pts: np.ndarray) -> list[np.ndarray]:
    """Exact pre-activations at exact points with Python integers over common denominators."""
    P = rat.fraction_array(pts)
    Z, dz = rat.integer_matrix(P)  # points = Z / dz
    out = []
    layers = net._integer_layers()
    for l, (N, D, B, E) in enumerate(layers):
        num = np.dot(Z, N.T) * E + B * (D * dz)  # pre = num / den
        den = D * dz * E
        out.append(num)
        out[-1] = (num, den)
        if l + 1 < len(layers):
            Z = np.where(num > 0, num, 0).astype(object)
            g = 0
            for v in Z.flat:
                g = math.gcd(g, v)
            g = math.gcd(g, den)
            if g > 1:
                Z = Z // g
                den //= g
            dz = den
    result = []
    for num, den in out:
        arr = np.empty(num.shape, dtype=object)
        for idx, v in np.ndenumerate(num):
            arr[idx] = rat.ratio(v, den)
        result.append(arr)
    return result
