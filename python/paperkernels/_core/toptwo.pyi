"""
Fixed-confidence best-arm identification episodes.
"""
from __future__ import annotations
import numpy
import numpy.typing
import typing
__all__: list[str] = ['Arms', 'Challenger', 'Config', 'Leader', 'Racing', 'Rule', 'Sampler', 'ThresholdKind', 'TieBreak', 'Tracking', 'characteristic_time', 'identify', 'indexed_arms', 'kl_bernoulli', 'matrix_game', 'run_many', 'threshold', 'transportation_cost']
class Arms:
    """
    Reward distributions of the arms.
    
    Members:
    
      bernoulli
    
      gaussian
    """
    __members__: typing.ClassVar[dict[str, Arms]]
    bernoulli: typing.ClassVar[Arms]
    gaussian: typing.ClassVar[Arms]
    @typing.overload
    def __eq__(self, other: Arms) -> bool:
        ...
    @typing.overload
    def __eq__(self, other: typing.Any) -> bool:
        ...
    def __getstate__(self) -> int:
        ...
    def __hash__(self) -> int:
        ...
    def __index__(self) -> int:
        ...
    def __init__(self, value: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __int__(self) -> int:
        ...
    @typing.overload
    def __ne__(self, other: Arms) -> bool:
        ...
    @typing.overload
    def __ne__(self, other: typing.Any) -> bool:
        ...
    def __repr__(self) -> str:
        ...
    def __setstate__(self, state: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __str__(self) -> str:
        ...
    @property
    def name(self) -> str:
        ...
    @property
    def value(self) -> int:
        ...
class Challenger:
    """
    Challenger of a top-two step.
    
    Members:
    
      tci
    
      tc
    
      rs
    """
    __members__: typing.ClassVar[dict[str, Challenger]]
    rs: typing.ClassVar[Challenger]
    tc: typing.ClassVar[Challenger]
    tci: typing.ClassVar[Challenger]
    @typing.overload
    def __eq__(self, other: Challenger) -> bool:
        ...
    @typing.overload
    def __eq__(self, other: typing.Any) -> bool:
        ...
    def __getstate__(self) -> int:
        ...
    def __hash__(self) -> int:
        ...
    def __index__(self) -> int:
        ...
    def __init__(self, value: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __int__(self) -> int:
        ...
    @typing.overload
    def __ne__(self, other: Challenger) -> bool:
        ...
    @typing.overload
    def __ne__(self, other: typing.Any) -> bool:
        ...
    def __repr__(self) -> str:
        ...
    def __setstate__(self, state: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __str__(self) -> str:
        ...
    @property
    def name(self) -> str:
        ...
    @property
    def value(self) -> int:
        ...
class Leader:
    """
    Leader of a top-two step.
    
    Members:
    
      eb
    
      ts
    
      ucb
    """
    __members__: typing.ClassVar[dict[str, Leader]]
    eb: typing.ClassVar[Leader]
    ts: typing.ClassVar[Leader]
    ucb: typing.ClassVar[Leader]
    @typing.overload
    def __eq__(self, other: Leader) -> bool:
        ...
    @typing.overload
    def __eq__(self, other: typing.Any) -> bool:
        ...
    def __getstate__(self) -> int:
        ...
    def __hash__(self) -> int:
        ...
    def __index__(self) -> int:
        ...
    def __init__(self, value: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __int__(self) -> int:
        ...
    @typing.overload
    def __ne__(self, other: Leader) -> bool:
        ...
    @typing.overload
    def __ne__(self, other: typing.Any) -> bool:
        ...
    def __repr__(self) -> str:
        ...
    def __setstate__(self, state: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __str__(self) -> str:
        ...
    @property
    def name(self) -> str:
        ...
    @property
    def value(self) -> int:
        ...
class Tracking:
    """
    Tracking of optimal weights (Track-and-Stop, Frank-Wolfe sampling).
    
    Members:
    
      none
    
      c
    
      d
    
      fw
    """
    __members__: typing.ClassVar[dict[str, Tracking]]
    c: typing.ClassVar[Tracking]
    d: typing.ClassVar[Tracking]
    fw: typing.ClassVar[Tracking]
    none: typing.ClassVar[Tracking]
    @typing.overload
    def __eq__(self, other: Tracking) -> bool:
        ...
    @typing.overload
    def __eq__(self, other: typing.Any) -> bool:
        ...
    def __getstate__(self) -> int:
        ...
    def __hash__(self) -> int:
        ...
    def __index__(self) -> int:
        ...
    def __init__(self, value: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __int__(self) -> int:
        ...
    @typing.overload
    def __ne__(self, other: Tracking) -> bool:
        ...
    @typing.overload
    def __ne__(self, other: typing.Any) -> bool:
        ...
    def __repr__(self) -> str:
        ...
    def __setstate__(self, state: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __str__(self) -> str:
        ...
    @property
    def name(self) -> str:
        ...
    @property
    def value(self) -> int:
        ...
class Racing:
    """
    Algorithms with their own stopping rule.
    
    Members:
    
      none
    
      lucb1
    
      lil_ucb
    
      ege
    """
    __members__: typing.ClassVar[dict[str, Racing]]
    ege: typing.ClassVar[Racing]
    lil_ucb: typing.ClassVar[Racing]
    lucb1: typing.ClassVar[Racing]
    none: typing.ClassVar[Racing]
    @typing.overload
    def __eq__(self, other: Racing) -> bool:
        ...
    @typing.overload
    def __eq__(self, other: typing.Any) -> bool:
        ...
    def __getstate__(self) -> int:
        ...
    def __hash__(self) -> int:
        ...
    def __index__(self) -> int:
        ...
    def __init__(self, value: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __int__(self) -> int:
        ...
    @typing.overload
    def __ne__(self, other: Racing) -> bool:
        ...
    @typing.overload
    def __ne__(self, other: typing.Any) -> bool:
        ...
    def __repr__(self) -> str:
        ...
    def __setstate__(self, state: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __str__(self) -> str:
        ...
    @property
    def name(self) -> str:
        ...
    @property
    def value(self) -> int:
        ...
class Rule:
    """
    Choice between leader and challenger.
    
    Members:
    
      random
    
      tracking
    """
    __members__: typing.ClassVar[dict[str, Rule]]
    random: typing.ClassVar[Rule]
    tracking: typing.ClassVar[Rule]
    @typing.overload
    def __eq__(self, other: Rule) -> bool:
        ...
    @typing.overload
    def __eq__(self, other: typing.Any) -> bool:
        ...
    def __getstate__(self) -> int:
        ...
    def __hash__(self) -> int:
        ...
    def __index__(self) -> int:
        ...
    def __init__(self, value: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __int__(self) -> int:
        ...
    @typing.overload
    def __ne__(self, other: Rule) -> bool:
        ...
    @typing.overload
    def __ne__(self, other: typing.Any) -> bool:
        ...
    def __repr__(self) -> str:
        ...
    def __setstate__(self, state: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __str__(self) -> str:
        ...
    @property
    def name(self) -> str:
        ...
    @property
    def value(self) -> int:
        ...
class TieBreak:
    """
    Resolution of ties for the leader.
    
    Members:
    
      random
    
      first
    """
    __members__: typing.ClassVar[dict[str, TieBreak]]
    first: typing.ClassVar[TieBreak]
    random: typing.ClassVar[TieBreak]
    @typing.overload
    def __eq__(self, other: TieBreak) -> bool:
        ...
    @typing.overload
    def __eq__(self, other: typing.Any) -> bool:
        ...
    def __getstate__(self) -> int:
        ...
    def __hash__(self) -> int:
        ...
    def __index__(self) -> int:
        ...
    def __init__(self, value: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __int__(self) -> int:
        ...
    @typing.overload
    def __ne__(self, other: TieBreak) -> bool:
        ...
    @typing.overload
    def __ne__(self, other: typing.Any) -> bool:
        ...
    def __repr__(self) -> str:
        ...
    def __setstate__(self, state: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __str__(self) -> str:
        ...
    @property
    def name(self) -> str:
        ...
    @property
    def value(self) -> int:
        ...
class ThresholdKind:
    """
    Stopping thresholds c(t, delta).
    
    Members:
    
      gk16
    
      union_bound
    
      kk21
    
      array
    """
    __members__: typing.ClassVar[dict[str, ThresholdKind]]
    array: typing.ClassVar[ThresholdKind]
    gk16: typing.ClassVar[ThresholdKind]
    kk21: typing.ClassVar[ThresholdKind]
    union_bound: typing.ClassVar[ThresholdKind]
    @typing.overload
    def __eq__(self, other: ThresholdKind) -> bool:
        ...
    @typing.overload
    def __eq__(self, other: typing.Any) -> bool:
        ...
    def __getstate__(self) -> int:
        ...
    def __hash__(self) -> int:
        ...
    def __index__(self) -> int:
        ...
    def __init__(self, value: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __int__(self) -> int:
        ...
    @typing.overload
    def __ne__(self, other: ThresholdKind) -> bool:
        ...
    @typing.overload
    def __ne__(self, other: typing.Any) -> bool:
        ...
    def __repr__(self) -> str:
        ...
    def __setstate__(self, state: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __str__(self) -> str:
        ...
    @property
    def name(self) -> str:
        ...
    @property
    def value(self) -> int:
        ...
class Config:
    """
    Sampler options, validated (private).
    """
    def __init__(self, *, K: typing.SupportsInt | typing.SupportsIndex, beta: typing.SupportsFloat | typing.SupportsIndex, challenger: Challenger, rule: Rule, tie_break: TieBreak, forced_exploration: bool, min_pulls: typing.SupportsInt | typing.SupportsIndex, arms: Arms, sigma: typing.SupportsFloat | typing.SupportsIndex, threshold: ThresholdKind, delta: typing.SupportsFloat | typing.SupportsIndex, threshold_values: typing.Any, leader: Leader, uniform: bool, ucb_alpha: typing.SupportsFloat | typing.SupportsIndex, tracking: Tracking, weights_every: typing.SupportsInt | typing.SupportsIndex, racing: Racing, lil_epsilon: typing.SupportsFloat | typing.SupportsIndex, lil_beta: typing.SupportsFloat | typing.SupportsIndex, lil_lambda: typing.SupportsFloat | typing.SupportsIndex) -> None:
        ...
class Sampler:
    """
    Incremental top-two sampler (private).
    """
    def __init__(self, config: Config, seed: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def counts(self) -> tuple:
        ...
    def get_state(self) -> tuple:
        ...
    def recommendation(self) -> int:
        ...
    def select(self) -> int:
        ...
    def set_state(self, t: typing.SupportsInt | typing.SupportsIndex, N: typing.Annotated[numpy.typing.ArrayLike, numpy.int64], S: typing.Annotated[numpy.typing.ArrayLike, numpy.float64], L: typing.Annotated[numpy.typing.ArrayLike, numpy.int64], M: typing.Annotated[numpy.typing.ArrayLike, numpy.int64], rng: tuple, leader: typing.SupportsInt | typing.SupportsIndex, selection: typing.SupportsInt | typing.SupportsIndex, weights: typing.Annotated[numpy.typing.ArrayLike, numpy.float64], cumulative: typing.Annotated[numpy.typing.ArrayLike, numpy.float64], weights_left: typing.SupportsInt | typing.SupportsIndex, round: tuple, elimination: typing.Annotated[numpy.typing.ArrayLike, numpy.float64]) -> None:
        ...
    def set_threshold_values(self, values: typing.Annotated[numpy.typing.ArrayLike, numpy.float64]) -> None:
        ...
    def should_stop(self) -> bool:
        ...
    def state(self) -> dict:
        ...
    def update(self, arm: typing.SupportsInt | typing.SupportsIndex, reward: typing.SupportsFloat | typing.SupportsIndex) -> None:
        ...
    def update_many(self, arms: typing.Annotated[numpy.typing.ArrayLike, numpy.int64], rewards: typing.Annotated[numpy.typing.ArrayLike, numpy.float64]) -> None:
        ...
    @property
    def K(self) -> int:
        ...
    @property
    def initialised(self) -> bool:
        ...
    @property
    def t(self) -> int:
        ...
def characteristic_time(mu: typing.Annotated[numpy.typing.ArrayLike, numpy.float64], beta: typing.SupportsFloat | typing.SupportsIndex, arms: Arms, sigma: typing.SupportsFloat | typing.SupportsIndex) -> tuple[float, numpy.typing.NDArray[numpy.float64], float, int]:
    """
    (T, weights, beta, best): T*_beta for the given beta, or T* (beta optimised) when beta is NaN.
    """
def identify(config: Config, mu: typing.Annotated[numpy.typing.ArrayLike, numpy.float64], seed: typing.SupportsInt | typing.SupportsIndex, max_steps: typing.SupportsInt | typing.SupportsIndex, record: bool) -> tuple:
    """
    One episode: (recommendation, tau, N, S, hit_max_steps, arms or None, rewards or None).
    """
def kl_bernoulli(p: typing.Annotated[numpy.typing.ArrayLike, numpy.float64], q: typing.Annotated[numpy.typing.ArrayLike, numpy.float64]) -> numpy.typing.NDArray[numpy.float64]:
    """
    Elementwise Bernoulli KL divergence of flat arrays.
    """
def matrix_game(M: typing.Annotated[numpy.typing.ArrayLike, numpy.float64]) -> numpy.typing.NDArray[numpy.float64]:
    """
    Optimal row strategy of the zero-sum game max_z min_j (M^T z)_j (private).
    """
def run_many(config: Config, mu: typing.Annotated[numpy.typing.ArrayLike, numpy.float64], seed: typing.SupportsInt | typing.SupportsIndex, n_runs: typing.SupportsInt | typing.SupportsIndex, max_steps: typing.SupportsInt | typing.SupportsIndex, n_threads: typing.SupportsInt | typing.SupportsIndex, first_run: typing.SupportsInt | typing.SupportsIndex = 0) -> tuple:
    """
    Episodes r = first_run .. first_run + n_runs - 1 in parallel: (tau, recommendation, N, S, hit_max_steps).
    """
def threshold(kind: ThresholdKind, delta: typing.SupportsFloat | typing.SupportsIndex, K: typing.SupportsInt | typing.SupportsIndex, t: typing.Annotated[numpy.typing.ArrayLike, numpy.int64]) -> numpy.typing.NDArray[numpy.float64]:
    """
    c(t, delta) of a named threshold.
    """
def transportation_cost(mu_i: typing.Annotated[numpy.typing.ArrayLike, numpy.float64], n_i: typing.Annotated[numpy.typing.ArrayLike, numpy.float64], mu_j: typing.Annotated[numpy.typing.ArrayLike, numpy.float64], n_j: typing.Annotated[numpy.typing.ArrayLike, numpy.float64], arms: Arms, sigma: typing.SupportsFloat | typing.SupportsIndex) -> numpy.typing.NDArray[numpy.float64]:
    """
    Elementwise transportation cost W(i, j) of flat arrays.
    """
indexed_arms: int = 256
