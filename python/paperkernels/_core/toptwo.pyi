"""
Fixed-confidence best-arm identification episodes.
"""
from __future__ import annotations
import numpy
import numpy.typing
import typing
__all__: list[str] = ['Config', 'Sampler', 'characteristic_time', 'identify', 'kl_bernoulli', 'matrix_game', 'run_many', 'threshold', 'transportation_cost']
class Config:
    """
    Sampler options, validated (private).
    """
    def __init__(self, K: typing.SupportsInt | typing.SupportsIndex, beta: typing.SupportsFloat | typing.SupportsIndex, challenger: str, rule: str, tie_break: str, forced_exploration: bool, min_pulls: typing.SupportsInt | typing.SupportsIndex, arms: str, sigma: typing.SupportsFloat | typing.SupportsIndex, threshold: str, delta: typing.SupportsFloat | typing.SupportsIndex, threshold_values: typing.Any = None, leader: str = 'EB', uniform: bool = False, ucb_alpha: typing.SupportsFloat | typing.SupportsIndex = 1.0, tracking: str = 'none', weights_every: typing.SupportsInt | typing.SupportsIndex = 1, racing: str = 'none', lil_epsilon: typing.SupportsFloat | typing.SupportsIndex = 0.01, lil_beta: typing.SupportsFloat | typing.SupportsIndex = 1.0, lil_lambda: typing.SupportsFloat | typing.SupportsIndex = 9.0) -> None:
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
def characteristic_time(mu: typing.Annotated[numpy.typing.ArrayLike, numpy.float64], beta: typing.SupportsFloat | typing.SupportsIndex, arms: str, sigma: typing.SupportsFloat | typing.SupportsIndex) -> tuple[float, numpy.typing.NDArray[numpy.float64], float, int]:
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
def threshold(kind: str, delta: typing.SupportsFloat | typing.SupportsIndex, K: typing.SupportsInt | typing.SupportsIndex, t: typing.Annotated[numpy.typing.ArrayLike, numpy.int64]) -> numpy.typing.NDArray[numpy.float64]:
    """
    c(t, delta) of a named threshold.
    """
def transportation_cost(mu_i: typing.Annotated[numpy.typing.ArrayLike, numpy.float64], n_i: typing.Annotated[numpy.typing.ArrayLike, numpy.float64], mu_j: typing.Annotated[numpy.typing.ArrayLike, numpy.float64], n_j: typing.Annotated[numpy.typing.ArrayLike, numpy.float64], arms: str, sigma: typing.SupportsFloat | typing.SupportsIndex) -> numpy.typing.NDArray[numpy.float64]:
    """
    Elementwise transportation cost W(i, j) of flat arrays.
    """
