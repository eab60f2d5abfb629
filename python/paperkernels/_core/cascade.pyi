"""
Topic-dependent cascading bandits.
"""
from __future__ import annotations
import numpy
import numpy.typing
import typing
__all__: list[str] = ['Learner', 'click_table', 'plan_model', 'plan_table', 'simulate', 'state_space']
class Learner:
    def __init__(self, type: typing.SupportsInt | typing.SupportsIndex, K: typing.SupportsInt | typing.SupportsIndex, n_topics: typing.SupportsInt | typing.SupportsIndex, n_features: typing.SupportsInt | typing.SupportsIndex, state: typing.SupportsInt | typing.SupportsIndex, features: typing.SupportsInt | typing.SupportsIndex, link: typing.SupportsInt | typing.SupportsIndex, planner: typing.SupportsInt | typing.SupportsIndex, lam: typing.SupportsFloat | typing.SupportsIndex, beta: typing.SupportsFloat | typing.SupportsIndex, delta: typing.SupportsFloat | typing.SupportsIndex, S: typing.SupportsFloat | typing.SupportsIndex, max_states: typing.SupportsInt | typing.SupportsIndex, seed: typing.SupportsInt | typing.SupportsIndex, stream: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def export_state(self) -> dict:
        ...
    def import_state(self, state: dict) -> None:
        ...
    def item_scores(self, X: typing.Annotated[numpy.typing.ArrayLike, numpy.float64], topics: typing.Annotated[numpy.typing.ArrayLike, numpy.int64]) -> numpy.typing.NDArray[numpy.float64]:
        ...
    def optimistic_table(self, X: typing.Annotated[numpy.typing.ArrayLike, numpy.float64], topics: typing.Annotated[numpy.typing.ArrayLike, numpy.int64]) -> numpy.typing.NDArray[numpy.float64]:
        ...
    def select(self, X: typing.Annotated[numpy.typing.ArrayLike, numpy.float64], topics: typing.Annotated[numpy.typing.ArrayLike, numpy.int64]) -> numpy.typing.NDArray[numpy.int32]:
        ...
    def state(self) -> dict:
        ...
    def update(self, X: typing.Annotated[numpy.typing.ArrayLike, numpy.float64], topics: typing.Annotated[numpy.typing.ArrayLike, numpy.int64], cascade: typing.Annotated[numpy.typing.ArrayLike, numpy.int32], first_click: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
def click_table(X: typing.Annotated[numpy.typing.ArrayLike, numpy.float64], topics: typing.Annotated[numpy.typing.ArrayLike, numpy.int64], theta: typing.Annotated[numpy.typing.ArrayLike, numpy.float64], features: typing.SupportsInt | typing.SupportsIndex, link: typing.SupportsInt | typing.SupportsIndex, kind: typing.SupportsInt | typing.SupportsIndex, n_topics: typing.SupportsInt | typing.SupportsIndex, K: typing.SupportsInt | typing.SupportsIndex, max_states: typing.SupportsInt | typing.SupportsIndex) -> numpy.typing.NDArray[numpy.float64]:
    """
    Click probabilities of every item in every reachable state (L x S).
    """
def plan_model(X: typing.Annotated[numpy.typing.ArrayLike, numpy.float64], topics: typing.Annotated[numpy.typing.ArrayLike, numpy.int64], theta: typing.Annotated[numpy.typing.ArrayLike, numpy.float64], features: typing.SupportsInt | typing.SupportsIndex, link: typing.SupportsInt | typing.SupportsIndex, kind: typing.SupportsInt | typing.SupportsIndex, n_topics: typing.SupportsInt | typing.SupportsIndex, K: typing.SupportsInt | typing.SupportsIndex, method: typing.SupportsInt | typing.SupportsIndex, max_states: typing.SupportsInt | typing.SupportsIndex) -> dict:
    """
    Plans on a model without its click table (items rank by x^T theta_x within a topic in every state).
    """
def plan_table(probabilities: typing.Annotated[numpy.typing.ArrayLike, numpy.float64], topics: typing.Annotated[numpy.typing.ArrayLike, numpy.int64], kind: typing.SupportsInt | typing.SupportsIndex, n_topics: typing.SupportsInt | typing.SupportsIndex, K: typing.SupportsInt | typing.SupportsIndex, method: typing.SupportsInt | typing.SupportsIndex, max_orderings: typing.SupportsFloat | typing.SupportsIndex, max_states: typing.SupportsInt | typing.SupportsIndex) -> dict:
    """
    Plans a cascade of length K on a click table (columns: the state space's order).
    """
def simulate(X: typing.Annotated[numpy.typing.ArrayLike, numpy.float64], topics: typing.Annotated[numpy.typing.ArrayLike, numpy.int64], P: typing.Annotated[numpy.typing.ArrayLike, numpy.float64], kind: typing.SupportsInt | typing.SupportsIndex, n_topics: typing.SupportsInt | typing.SupportsIndex, K: typing.SupportsInt | typing.SupportsIndex, optimal_value: typing.SupportsFloat | typing.SupportsIndex, learners: list, T: typing.SupportsInt | typing.SupportsIndex, n_runs: typing.SupportsInt | typing.SupportsIndex, seed: typing.SupportsInt | typing.SupportsIndex, n_threads: typing.SupportsInt | typing.SupportsIndex, record: bool, max_states: typing.SupportsInt | typing.SupportsIndex, first_run: typing.SupportsInt | typing.SupportsIndex = 0) -> tuple[numpy.typing.NDArray[numpy.float64], typing.Any, typing.Any]:
    """
    Runs every learner for T rounds in runs first_run .. first_run + n_runs - 1 (in parallel) on
    common random clicks.
    """
def state_space(kind: typing.SupportsInt | typing.SupportsIndex, n_topics: typing.SupportsInt | typing.SupportsIndex, K: typing.SupportsInt | typing.SupportsIndex, max_states: typing.SupportsInt | typing.SupportsIndex) -> dict:
    """
    Reachable states before positions 1..K in breadth-first order: topic vectors, minimal depth, transitions.
    """
