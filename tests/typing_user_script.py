"""A user's script touching the public API of every module, with the types a user would write down.

tests/test_typing.py runs ``mypy --strict`` on it: every annotation below must agree with what the
library declares (a function typed as returning ``Any`` would pass silently, so the assignments name
precise types). Run directly, it also executes, on small inputs.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

import paperkernels
from paperkernels import cascade, distributed, greedy, relu, shapes, toptwo


def top_level() -> None:
    isa: str = paperkernels.get_isa()
    supported: list[str] = list(paperkernels.supported_isas())
    modules: tuple[str, ...] = paperkernels.MODULES
    limit: int = paperkernels.limits.max_result_bytes
    with paperkernels.limits.override(max_result_bytes=2 * limit) as raised:
        assert raised.max_result_bytes == 2 * limit
    version: str = paperkernels.__version__
    assert isa in supported and "greedy" in modules and version


def toptwo_api() -> None:
    mu = [0.5, 0.45, 0.4]
    characteristic: toptwo.CharacteristicTime = toptwo.characteristic_time(mu, beta=0.5)
    T: float = characteristic.T
    weights: np.ndarray = characteristic.weights
    episode: toptwo.Episode = toptwo.identify(mu, delta=0.1, seed=1)
    tau: int = episode.tau
    runs: toptwo.Runs = toptwo.run_many(mu, 0.1, n_runs=20, seed=1)
    taus: np.ndarray = runs.tau
    sampler = toptwo.TopTwo(K=3, delta=0.1, seed=7)
    steps = 0
    while not sampler.should_stop() and steps < 10_000:
        arm: int = sampler.select()
        sampler.update(arm, float(arm == 0))
        steps += 1
    best: int | None = sampler.recommendation
    assert T > 0 and weights.shape == (3,) and tau > 0 and taus.shape == (20,) and best in (None, 0, 1, 2)


def cascade_api() -> None:
    env: cascade.CascadeEnvironment = cascade.worked_example()
    planned: cascade.Plan = cascade.plan(env.model, K=3)
    order: np.ndarray = planned.cascade
    value: float = env.model.value([4, 2, 0])
    learner = cascade.TopicCascadeUCB(K=3, n_topics=3, beta=1.0)
    shown: np.ndarray = learner.select(env.model.X, env.model.topics)
    learner.update(shown, first_click=None)
    result: cascade.SimulationResult = cascade.simulate(env, [cascade.CascadeUCB1()], T=50, n_seeds=2, seed=1)
    regret: np.ndarray = result.regret
    assert order.shape == (3,) and 0 <= value <= 1 and regret.shape == (1, 2, 50)


def greedy_api() -> None:
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 8))
    y = X[:, 0] - X[:, 1] + 0.1 * rng.normal(size=60)
    model: greedy.EnsembleForwardSelection = greedy.EnsembleForwardSelection(k=3, n_estimators=20, random_state=0)
    fitted: greedy.EnsembleForwardSelection = model.fit(X, y)
    coef: np.ndarray = fitted.coef_
    path: np.ndarray = fitted.coef_path_
    intercept: float = fitted.intercept_
    predictions: np.ndarray = fitted.predict(X, k=2)
    errors: np.ndarray = fitted.mse_path(X, y)
    r2: float = fitted.score(X, y)
    cv: greedy.PathCVResult = greedy.cross_validate_path(model, X, y, m_values=[2, None], cv=3)
    best_k: int = cv.best_k
    refitted: greedy.EnsembleForwardSelection | None = cv.estimator
    weights: np.ndarray = greedy.exact_weights(3, 2, 8)
    lower, upper = greedy.logistic_bounds(3, 0.25)
    df: greedy.DegreesOfFreedom = greedy.degrees_of_freedom_orthogonal(np.ones(8), 1.0, 3, 2, n_replicates=10)
    report: greedy.BiasVariance = greedy.bias_variance(model, X, X[:, 0], 1.0, n_replicates=2, random_state=0)
    assert coef.shape == (8,) and path.shape == (4, 8) and isinstance(intercept, float)
    assert predictions.shape == (60,) and errors.shape == (4,) and r2 <= 1 and 1 <= best_k <= 3
    assert refitted is not None and weights.shape == (8,) and lower.shape == upper.shape
    assert df.df.shape == () and report.risk.shape == (4,)


def shapes_api() -> None:
    star: np.ndarray = shapes.star_polygon(5, 0.5, radius=3.0, center=(10.0, 4.0))
    unit, pose = shapes.normalize(star)
    encoder = shapes.XShapeEncoder(encode_len=128, input="polygon")
    code: np.ndarray = encoder.encode_geometry(unit)
    decoded: shapes.GeometryDecoding = encoder.decode_geometry(code, res=64)
    mask: np.ndarray = decoded.mask
    moments: np.ndarray = shapes.zernike_moments(unit, 8, input="polygon")
    masks: np.ndarray = shapes.rasterize([shapes.regular_polygon(n) for n in (3, 4, 5)], 32)
    pose_code: np.ndarray = shapes.PoseEncoder(3).encode(np.array([0.1, -0.2, 1.5]))
    joint: np.ndarray = encoder.encode_joint(unit, pose, beta=1.0)
    assert code.shape == (128,) and mask.shape == (64, 64) and moments.ndim == 1
    assert masks.shape == (3, 32, 32) and pose_code.ndim == 1 and joint.shape == code.shape


def relu_api() -> None:
    net = relu.ReLUNet([[[1, 2], [-1, 1]], [[2, -1]], [[3]]], [[Fraction(1, 2), 1], [-1], [0]])
    other: relu.ReLUNet = relu.moves.shift_hidden_bias(net, layer=1, neuron=0, t=5)
    outputs: np.ndarray = net.evaluate([[1, 2]], exact=True)
    form: relu.CanonicalForm = relu.canonical_form(net, "deep_generic")
    verdict: relu.Verdict = relu.equivalent(net, other)
    same: bool | None = verdict.equivalent
    witness: np.ndarray | None = verdict.witness
    assert outputs.shape[0] == 1 and form is not None and same is True and witness is None


def distributed_api() -> None:
    chunks: distributed.ChunkRanges = distributed.chunk_ranges(10, 4)
    first: tuple[int, int] = chunks[0]
    runs: toptwo.Runs = distributed.run_many([0.6, 0.4], 0.1, 10, seed=1, chunk_size=4)
    cells: list[distributed.GridCell] = distributed.run_grid([[0.6, 0.4]], [0.1], n_runs=5, seed=0)
    study: cascade.SimulationResult = distributed.simulate(
        cascade.worked_example(), [cascade.CascadeUCB1()], T=20, n_seeds=3, seed=1, chunk_size=2
    )
    rng = np.random.default_rng(1)
    X = rng.normal(size=(40, 6))
    y = X[:, 0] + 0.1 * rng.normal(size=40)
    model: greedy.EnsembleForwardSelection = distributed.fit_ensemble(
        greedy.EnsembleForwardSelection(k=2, n_estimators=10, random_state=0), X, y, chunk_size=3
    )
    coef: np.ndarray = model.coef_
    assert first == (0, 4) and runs.tau.shape == (10,) and cells[0].result.tau.shape == (5,)
    assert study.regret.shape == (1, 3, 20) and coef.shape == (6,)


def main() -> None:
    top_level()
    toptwo_api()
    cascade_api()
    greedy_api()
    shapes_api()
    relu_api()
    distributed_api()


if __name__ == "__main__":
    main()
