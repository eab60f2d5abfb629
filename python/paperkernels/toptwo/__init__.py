"""Fixed-confidence best-arm identification with the beta-EB-TCI top-two sampling rule, and the
baselines that papers compare it with (uniform sampling, TTTS, T3C, EB-TC, TTUCB, Track-and-Stop,
Frank-Wolfe sampling, LUCB1, lil'UCB, exponential-gap elimination) on the same C++ episode engine.

Implements the Top Two algorithm of Jourdan, Degenne, Baudry, de Heide and Kaufmann, "Top Two
Algorithms Revisited" (NeurIPS 2022), with the Empirical-Best leader and the Transportation-Cost-
Improved challenger, for Bernoulli arms (as analysed in "Sharp Non-Asymptotic Analysis of the
Penalized Challenger in beta-EB-TCI for Bernoulli Bandits") and Gaussian arms of known variance.

One step, after every arm has been pulled ``min_pulls`` times (round robin in index order):

1. Leader ``B = argmax_a mu_hat_a``, compared exactly in integers for Bernoulli arms
   (``S_i N_j > S_j N_i``); ties go to a uniformly random maximiser (``tie_break="random"``) or the
   lowest index (``"first"``).
2. Transportation costs ``W(B, j)``; for Bernoulli arms in the log-free form
   ``G(S_B+S_j, N_B+N_j) - G(S_B, N_B) - G(S_j, N_j)`` with ``G(s, n) = n log n - s log s - (n-s) log(n-s)``.
3. Stop when ``Z = min_j W(B, j) > c(t, delta)`` (strictly) and recommend ``B``.
4. Optional forced exploration: if ``min_a N_a < sqrt(t / K)`` (decided in integers as
   ``N_a^2 K < t``), pull the least-pulled arm (lowest index on ties). This is our reading of the
   papers' O(sqrt(Kt)) forced-exploration rule.
5. Challenger ``C = argmin_{j != B} W(B, j) + log N_j`` (TCI) or ``W(B, j)`` (TC), lowest index on ties.
6. Pull ``B`` or ``C``: ``rule="random"`` pulls ``B`` when ``U <= beta`` for ``U ~ Uniform[0, 1)``;
   ``rule="tracking"`` increments ``L_B`` (rounds led by ``B``) and pulls ``B`` iff ``M_B < beta L_B``
   (strict; ``M_B`` counts the pulls of ``B`` decided while it led, and is then incremented).

Sampling rules (``sampler=``). Every rule uses the same episode engine, reward streams, GLR
stopping rule (step 3, with the empirical leader) and recommendation; only the arm pulled differs.

- ``"EB-TCI"`` (default): the steps above.
- ``"EB-TC"``: empirical-best leader, TC challenger (``challenger="TC"``; Jourdan et al. 2022).
- ``"TTTS"`` (Russo 2016): the leader is the arm of the largest posterior draw; the challenger is
  found by re-drawing the whole posterior until another arm wins (at most ``kMaxResamples`` = 10,000
  times; then the TC challenger of that leader is taken).
- ``"T3C"`` (Shang, de Heide, Kaufmann, Menard, Valko 2020): Thompson leader, TC challenger.
- ``"TTUCB"`` (Jourdan and Degenne 2022): leader ``argmax_a mu_hat_a + sqrt(2 ucb_alpha sigma^2 log t
  / N_a)`` (``sigma^2 = 1/4`` for Bernoulli arms, their sub-Gaussian variance; ``ucb_alpha=1`` by
  default), TC challenger.
- ``"uniform"``: round robin (the least-pulled arm, lowest index on ties): the baseline of every
  comparison figure.
- ``"TaS-D"``, ``"TaS-C"``: Track-and-Stop (Garivier and Kaufmann 2016) with D- or C-tracking of the
  optimal weights ``w*(mu_hat)`` (those of :func:`characteristic_time` with ``beta=None``; uniform
  weights while the empirical best is not unique or the solver cannot place it), recomputed every
  ``weights_every`` steps. D-tracking: pull the least-pulled arm of ``{a : N_a < sqrt(t) - K/2}`` if
  any, else ``argmax_a t w_a - N_a``. C-tracking: add ``(1 - K eps) w + eps`` with
  ``eps = 1 / (2 sqrt(K^2 + t))`` (the uniform mixture, our choice of the paper's projection onto
  ``{w_a >= eps}``) to running sums from the end of the initial round robin and pull
  ``argmax_a sum_a - N_a``. Ties go to the lowest index; ``forced_exploration`` does not apply.
- ``"FWS"``: Frank-Wolfe sampling (Wang, Tzeng, Proutiere 2021, Algorithm 1) with the GLR stopping
  rule. An iterate ``x`` (set uniform at the first step after the round robin, and moved at that
  step too) moves at pull ``s = t + 1`` to ``((s - 1) / s) x + z / s``, and the arm
  ``argmax_a x_a / N_a`` is pulled (lowest index on ties). ``z`` is uniform at
  the forced-exploration steps (``s = K m^2``, a non-unique empirical best, or a Bernoulli mean at 0
  or 1); otherwise it is the optimal strategy of the zero-sum game ``max_z min_{j in H} <z - x,
  grad C_j(x)>`` over the r-subdifferential ``H = {j : C_j(x) < min_k C_k(x) + r}``, ``r = s^-0.9 / K``
  (the paper's experimental choice), with ``C_j(x) = x_b d(mu_hat_b, m_j) + x_j d(mu_hat_j, m_j)``
  at the empirical best ``b``, solved exactly by a small simplex method (payoffs shifted to be
  at least 1, ``max sum y`` subject to ``A y <= 1, y >= 0`` by Bland's rule, ``z`` the normalised
  shadow prices of the final tableau: this picks one strategy when several are optimal).
- ``"LUCB1"`` (Kalyanakrishnan, Tewari, Auer, Stone 2012) with its own stopping rule: rounds of two
  pulls, the empirical leader ``h`` then ``l = argmax_{j != h} mu_hat_j + b(N_j, r)`` with
  ``b(u, r) = sqrt(2 var log(5/4 K r^4 / delta) / u)`` at round ``r`` (``var`` = 1/4 for Bernoulli
  arms, which gives the paper's ``sqrt(log(k1 K r^4 / delta) / (2u))``, ``sigma^2`` for Gaussian
  arms); it stops at the start of a round when ``mu_hat_h - b(N_h, r) > mu_hat_l + b(N_l, r)`` and
  recommends ``h``. The ``threshold`` is not used.
- ``"lilUCB"`` (Jamieson, Malloy, Nowak, Bubeck 2014) with its own stopping rule: pull
  ``argmax_a mu_hat_a + (1 + b)(1 + sqrt(e)) sqrt(2 var (1 + e) log(max(log((1 + e) N_a), 1) / delta)
  / N_a)`` (``e = lil_epsilon``, ``b = lil_beta``; the inner logarithm is floored at 1, where it would
  leave the bonus undefined); stop when the most-pulled arm has ``N_i >= 1 + lil_lambda (t - N_i)``
  and recommend it. ``delta`` enters the bonus directly (the paper's heuristic use); the constant
  ``c_eps`` adjustment of its proven version is not applied, so this is not a delta-correctness claim.
- ``"EGE"``: exponential-gap elimination (Karnin, Koren, Somekh 2013, Algorithm 2) with median
  elimination (Even-Dar, Mannor, Mansour 2006) as its subroutine, after the initial round robin
  (whose pulls its statistics do not use). Round ``r``: ``eps_r = 2^-r / 4``, ``delta_r = delta /
  (50 r^3)``; every arm of ``S_r`` is pulled ``ceil((2 / eps_r^2) log(2 / delta_r))`` times; median
  elimination with ``(eps_r / 2, delta_r)`` pulls every remaining arm ``ceil((1 / (eps_l / 2)^2)
  log(3 / delta_l))`` times per sub-round, keeps the better half (``ceil``, lowest index on ties) and
  sets ``eps_l <- 3 eps_l / 4``, ``delta_l <- delta_l / 2``; then ``S_{r+1}`` drops the arms whose
  round mean is below that of median elimination's arm minus ``eps_r``. It stops when one arm is left
  and recommends it. Each phase pulls its arms one after the other in index order and uses only its
  own pulls. Counts are those for rewards in [0, 1], times ``4 sigma^2`` for Gaussian arms. The
  constants are the paper's, so episodes are long (about 10^6 pulls even for gaps of 0.5).

A challenger ``W(B, j)`` for a leader ``B`` that is not the empirical best is 0 unless
``mu_hat_B > mu_hat_j`` (so the lowest-indexed arm with a larger empirical mean wins). Posteriors:
``Beta(S_a + 1, N_a - S_a + 1)`` (uniform prior; a Beta draw is ``X / (X + Y)`` with ``X``, ``Y``
gamma variates by Marsaglia and Tsang's method) for Bernoulli arms, ``N(mu_hat_a, sigma^2 / N_a)`` for
Gaussian arms; arms are drawn in index order from the decision stream, after the stopping check and
before the uniform of ``rule="random"``.

Thresholds ``c(t, delta)`` (``threshold=``):

- ``"gk16"`` (default): ``log((1 + log t) / delta)``, the heuristic of Garivier & Kaufmann (2016)
  used in the papers' experiments. **Not proven delta-correct.**
- ``"union"``: ``log(2 t (K - 1) / delta)``; delta-correct for Bernoulli arms (Garivier & Kaufmann
  2016, Proposition 12).
- ``"kk21"``: ``2 C_exp(log((K-1)/delta) / 2) + 6 log(1 + log(t/2))``, the threshold built on
  Kaufmann & Koolen (2021)'s concentration bound, whose delta-correctness is stated with the exact
  function ``C_exp``. We evaluate ``C_exp`` by the closed-form approximation
  ``C_exp(x) ~= x + 4 log(1 + x + sqrt(2 x))``, not the exact function, so the guarantee carries
  over only as far as that approximation does (it exceeds the asymptotic ``x + log x``; we have not
  proved it is an upper bound everywhere).
- an array ``c`` (entry ``c[t]`` is used at time ``t``) or a callable ``c(t, delta)`` evaluated once,
  vectorised, on ``t = 0, 1, ...``: never called per step.

Randomness. Run ``r`` of a seed draws its rewards from stream ``2r`` and its decisions (leader
tie-breaks, the uniform of ``rule="random"``) from stream ``2r + 1`` of the shared xoshiro256**
generator, so :func:`identify` is run 0 of :func:`run_many` and results never depend on the number
of threads. :class:`TopTwo` uses the decision stream of run 0: fed the rewards of
``identify(mu, seed=s)``, ``TopTwo(..., seed=s)`` selects the same arms and stops at the same time.
"""

from ._compare import Comparison, compare, plot_comparison
from ._episodes import Episode, Runs, identify, run_many
from ._incremental import TopTwo, TopTwoState

# Named options and limits: module attributes (outside __all__), as the documentation refers to them.
from ._options import ARMS as ARMS
from ._options import CHALLENGERS as CHALLENGERS
from ._options import CHARACTERISTIC_MAX_ARMS as CHARACTERISTIC_MAX_ARMS
from ._options import DEFAULT_MAX_STEPS as DEFAULT_MAX_STEPS
from ._options import FWS_MAX_ARMS as FWS_MAX_ARMS
from ._options import MAX_ARMS as MAX_ARMS
from ._options import MAX_STEPS_LIMIT as MAX_STEPS_LIMIT
from ._options import RULES as RULES
from ._options import SAMPLERS as SAMPLERS
from ._options import THRESHOLDS as THRESHOLDS
from ._options import TIE_BREAKS as TIE_BREAKS
from ._options import ThresholdLike as ThresholdLike
from ._theory import CharacteristicTime, characteristic_time, kl_bernoulli, stopping_threshold, transportation_cost

__all__ = [
    "TopTwo",
    "TopTwoState",
    "Episode",
    "Runs",
    "CharacteristicTime",
    "identify",
    "run_many",
    "compare",
    "Comparison",
    "plot_comparison",
    "characteristic_time",
    "kl_bernoulli",
    "transportation_cost",
    "stopping_threshold",
]

from .._public import export as _export  # noqa: E402

_export(__name__, globals(), __all__)
