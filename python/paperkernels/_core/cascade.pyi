"""
Topic-dependent cascading bandits.
"""
from __future__ import annotations
import numpy
import numpy.typing
import typing
__all__: list[str] = ['FeatureMap', 'Learner', 'LearnerType', 'Link', 'Planner', 'StateKind', 'click_table', 'plan_model', 'plan_table', 'simulate', 'state_space']
class StateKind:
    """
    What a state remembers of the topics shown above.
    
    Members:
    
      set
    
      count
    
      last
    """
    __members__: typing.ClassVar[dict[str, StateKind]]
    count: typing.ClassVar[StateKind]
    last: typing.ClassVar[StateKind]
    set: typing.ClassVar[StateKind]
    @typing.overload
    def __eq__(self, other: StateKind) -> bool:
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
    def __ne__(self, other: StateKind) -> bool:
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
class FeatureMap:
    """
    The topic block of the feature map phi(i, s).
    
    Members:
    
      transition
    
      coverage
    """
    __members__: typing.ClassVar[dict[str, FeatureMap]]
    coverage: typing.ClassVar[FeatureMap]
    transition: typing.ClassVar[FeatureMap]
    @typing.overload
    def __eq__(self, other: FeatureMap) -> bool:
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
    def __ne__(self, other: FeatureMap) -> bool:
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
class Link:
    """
    The link from phi^T theta to a click probability.
    
    Members:
    
      linear
    
      logistic
    """
    __members__: typing.ClassVar[dict[str, Link]]
    linear: typing.ClassVar[Link]
    logistic: typing.ClassVar[Link]
    @typing.overload
    def __eq__(self, other: Link) -> bool:
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
    def __ne__(self, other: Link) -> bool:
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
class Planner:
    """
    How a cascade is planned on click probabilities.
    
    Members:
    
      exact
    
      topic_dp
    
      greedy
    
      brute
    """
    __members__: typing.ClassVar[dict[str, Planner]]
    brute: typing.ClassVar[Planner]
    exact: typing.ClassVar[Planner]
    greedy: typing.ClassVar[Planner]
    topic_dp: typing.ClassVar[Planner]
    @typing.overload
    def __eq__(self, other: Planner) -> bool:
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
    def __ne__(self, other: Planner) -> bool:
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
class LearnerType:
    """
    The bandit learners.
    
    Members:
    
      topic_ucb
    
      lin_ucb
    
      ucb1
    
      kl_ucb
    
      random
    """
    __members__: typing.ClassVar[dict[str, LearnerType]]
    kl_ucb: typing.ClassVar[LearnerType]
    lin_ucb: typing.ClassVar[LearnerType]
    random: typing.ClassVar[LearnerType]
    topic_ucb: typing.ClassVar[LearnerType]
    ucb1: typing.ClassVar[LearnerType]
    @typing.overload
    def __eq__(self, other: LearnerType) -> bool:
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
    def __ne__(self, other: LearnerType) -> bool:
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
class Learner:
    def __init__(self, type: LearnerType, K: typing.SupportsInt | typing.SupportsIndex, n_topics: typing.SupportsInt | typing.SupportsIndex, n_features: typing.SupportsInt | typing.SupportsIndex, state: StateKind, features: FeatureMap, link: Link, planner: Planner, lam: typing.SupportsFloat | typing.SupportsIndex, beta: typing.SupportsFloat | typing.SupportsIndex, delta: typing.SupportsFloat | typing.SupportsIndex, S: typing.SupportsFloat | typing.SupportsIndex, max_states: typing.SupportsInt | typing.SupportsIndex, seed: typing.SupportsInt | typing.SupportsIndex, stream: typing.SupportsInt | typing.SupportsIndex) -> None:
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
def click_table(X: typing.Annotated[numpy.typing.ArrayLike, numpy.float64], topics: typing.Annotated[numpy.typing.ArrayLike, numpy.int64], theta: typing.Annotated[numpy.typing.ArrayLike, numpy.float64], features: FeatureMap, link: Link, kind: StateKind, n_topics: typing.SupportsInt | typing.SupportsIndex, K: typing.SupportsInt | typing.SupportsIndex, max_states: typing.SupportsInt | typing.SupportsIndex) -> numpy.typing.NDArray[numpy.float64]:
    """
    Click probabilities of every item in every reachable state (L x S).
    """
def plan_model(X: typing.Annotated[numpy.typing.ArrayLike, numpy.float64], topics: typing.Annotated[numpy.typing.ArrayLike, numpy.int64], theta: typing.Annotated[numpy.typing.ArrayLike, numpy.float64], features: FeatureMap, link: Link, kind: StateKind, n_topics: typing.SupportsInt | typing.SupportsIndex, K: typing.SupportsInt | typing.SupportsIndex, method: Planner, max_states: typing.SupportsInt | typing.SupportsIndex) -> dict:
    """
    Plans on a model without its click table (items rank by x^T theta_x within a topic in every state).
    """
def plan_table(probabilities: typing.Annotated[numpy.typing.ArrayLike, numpy.float64], topics: typing.Annotated[numpy.typing.ArrayLike, numpy.int64], kind: StateKind, n_topics: typing.SupportsInt | typing.SupportsIndex, K: typing.SupportsInt | typing.SupportsIndex, method: Planner, max_orderings: typing.SupportsFloat | typing.SupportsIndex, max_states: typing.SupportsInt | typing.SupportsIndex) -> dict:
    """
    Plans a cascade of length K on a click table (columns: the state space's order).
    """
def simulate(X: typing.Annotated[numpy.typing.ArrayLike, numpy.float64], topics: typing.Annotated[numpy.typing.ArrayLike, numpy.int64], P: typing.Annotated[numpy.typing.ArrayLike, numpy.float64], kind: StateKind, n_topics: typing.SupportsInt | typing.SupportsIndex, K: typing.SupportsInt | typing.SupportsIndex, optimal_value: typing.SupportsFloat | typing.SupportsIndex, learners: list, T: typing.SupportsInt | typing.SupportsIndex, n_runs: typing.SupportsInt | typing.SupportsIndex, seed: typing.SupportsInt | typing.SupportsIndex, n_threads: typing.SupportsInt | typing.SupportsIndex, record: bool, max_states: typing.SupportsInt | typing.SupportsIndex, first_run: typing.SupportsInt | typing.SupportsIndex = 0) -> tuple[numpy.typing.NDArray[numpy.float64], typing.Any, typing.Any]:
    """
    Runs every learner for T rounds in runs first_run .. first_run + n_runs - 1 (in parallel) on
    common random clicks.
    """
def state_space(kind: StateKind, n_topics: typing.SupportsInt | typing.SupportsIndex, K: typing.SupportsInt | typing.SupportsIndex, max_states: typing.SupportsInt | typing.SupportsIndex) -> dict:
    """
    Reachable states before positions 1..K in breadth-first order: topic vectors, minimal depth, transitions.
    """
