// Ensembles of greedy forward selection with per-step feature subsampling (Chen, Klusowski, Tan, Yu,
// "Revisiting Randomization in Greedy Model Search", arXiv 2506.15643).
//
// One learner, on centred data: at every step draw a fresh uniform subset of m unselected features,
// pick the best valid candidate by the criterion, append it to the active set and refit OLS on the
// active set. The ensemble averages the learners' coefficient vectors along the whole path.
//
// Linear algebra in Gram/QR form. With Q R the QR factorisation of X_A (A the ordered active set),
// column j of R holds q_s^T x_j for the selected directions s; for every feature we keep
//   c_j = x_j^T r          (r the current residual)
//   d_j = ||P_A^perp x_j||^2
// and update them from the rows of R. Two schemes (see Update): eager computes each new row of R
// for every feature, a vectorised O(p t) step streaming one row of the Gram matrix; lazy brings
// column j of R up to date only when j is drawn as a candidate, O(t) per candidate and step
// amortised. Either way a learner costs at most O(p k^2) after the Gram matrix. Without a Gram
// matrix (lazy only) the entries x_a^T x_j are dot products of the data, each computed at most once
// per learner. Coefficients follow from R^{-1}, kept up to date column by column.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <numeric>
#include <string>
#include <vector>

#include "paperkernels/common/errors.hpp"
#include "paperkernels/common/parallel.hpp"
#include "paperkernels/common/random.hpp"
#include "paperkernels/common/simd.hpp"
#include "paperkernels/greedy/kernels.hpp"

PAPERKERNELS_PSABI_OFF

namespace paperkernels::greedy {

enum class Criterion : int {
  forward_selection = 0,  // (x_j^T r)^2 / ||P_A^perp x_j||^2: the decrease in RSS
  omp = 1,                // |x_j^T r|
};

// The centred problem, as the learners see it. Exactly one of `gram` and `xt` is used.
struct Problem {
  std::size_t n_features = 0;
  std::size_t n_samples = 0;
  const double* gram = nullptr;    // p x p row-major X_c^T X_c, or nullptr
  const double* xt = nullptr;      // p x n row-major (feature j = row j), used when gram == nullptr
  const double* xty = nullptr;     // X_c^T y_c, length p
  const double* col_sq = nullptr;  // ||x_j||^2 (the Gram diagonal), length p
};

struct Settings {
  std::size_t k = 1;  // steps
  std::size_t m = 1;  // candidates per step (m >= p: no subsampling)
  Criterion criterion = Criterion::forward_selection;
  double tol = 1e-10;  // a candidate is degenerate when d_j <= tol * ||x_j||^2 (or a rounding bound)
  // An upper bound on the rank of the centred design (n - 1 with an intercept, n without), or 0 for
  // none: no learner takes more steps. In exact arithmetic every candidate is degenerate by then; in
  // floating point a downdated d_j of an ill-conditioned active set can miss the tolerance (its
  // rounding error grows like the square of the condition number), so the bound is enforced.
  std::size_t max_rank = 0;
  simd::Isa isa = simd::active();  // instruction set of the kernels (any gives the same bits)
};

// Relative difference below which two criterion values count as a tie (see Learner::best_of).
inline constexpr double kTieTolerance = 1e-9;

// Safety factor on the rounding error of a downdated d_j (see Learner::raise_tolerance).
inline constexpr double kRoundingGrowth = 16.0;

inline std::size_t packed_size(std::size_t k) { return k * (k + 1) / 2; }
inline std::size_t packed_offset(std::size_t step) { return step * (step + 1) / 2; }

// Where one learner writes its result: the active set in order of entry (-1 after an early stop),
// the coefficients of the model after each step packed by step (step t holds t + 1 values, in the
// order of the active set), and the decrease in the residual sum of squares at each step.
struct LearnerOutput {
  std::int64_t* active;
  double* coef;
  double* gain;
};

// How a learner keeps c_j, d_j and R up to date.
//  - eager (Gram only): after each step the new row of R is computed for every feature, a
//    vectorised O(p t) update streaming row a_t of G. Best when most features are candidates.
//  - lazy: column j of R is brought up to date only when j is drawn, O(t) per candidate and step
//    amortised; the Gram entries come from G or, without G, from dot products of the data.
enum class Update { eager, lazy };

// Reusable per-thread state of one learner; run() resets what it uses.
class Learner {
 public:
  Learner(const Problem& problem, const Settings& settings, Update update)
      : pb_(problem),
        st_(settings),
        p_(problem.n_features),
        k_(settings.k),
        update_(problem.gram ? update : Update::lazy),
        kernels_(kernels_for(settings.isa)),
        pool_(p_),
        filled_(p_),
        c_(p_),
        d_(p_),
        r_(new double[p_ * k_]),
        active_(k_),
        diag_(k_),
        inv_diag_(k_),
        z_(k_),
        scratch_(k_),
        crit_(p_),
        rinv_(k_ * k_),
        coef_(k_) {
    if (!pb_.gram) {
      const std::size_t batch = std::min(st_.m, p_);  // candidates drawn at once
      fresh_.resize(batch);
      fresh_data_.resize(batch);
      fresh_out_.resize(batch);
      active_data_.resize(k_);
      partial_.reset(new double[kGramPartial]);
    }
  }

  // Runs the learner with its random stream and writes its path. Returns the number of steps taken.
  // Throws `interrupted` as soon as `token` asks to stop (between steps and between the single
  // draws of a step), so that one long learner does not hold up Ctrl-C.
  std::size_t run(Xoshiro256& rng, const LearnerOutput& out, const StopToken& token) {
    stop_ = &token;
    std::iota(pool_.begin(), pool_.end(), 0u);
    std::fill(filled_.begin(), filled_.end(), 0u);
    std::copy(pb_.xty, pb_.xty + p_, c_.begin());
    std::copy(pb_.col_sq, pb_.col_sq + p_, d_.begin());

    inverse_norm_sq_ = 0.0;
    tol_ = st_.tol;
    std::size_t steps = 0;
    const std::size_t last = st_.max_rank > 0 ? std::min(k_, st_.max_rank) : k_;
    for (std::size_t t = 0; t < last; ++t) {
      if (token.stop_requested()) throw interrupted();
      const std::size_t chosen_position = choose(rng, t);
      if (chosen_position == kNone) break;
      const std::uint32_t j = pool_[chosen_position];
      pool_[chosen_position] = pool_[p_ - t - 1];  // swap-remove from the unselected pool

      active_[t] = j;
      diag_[t] = std::sqrt(d_[j]);
      inv_diag_[t] = 1.0 / diag_[t];
      z_[t] = c_[j] / diag_[t];
      out.active[t] = j;
      out.gain[t] = z_[t] * z_[t];
      update_coefficients(t, out.coef + packed_offset(t));
      raise_tolerance(t);
      // Eager: row t of R for every feature, except before the last step, whose few candidates
      // get that row one by one (last_row), with the same arithmetic.
      if (t + 2 < k_ && update_ == Update::eager) eager_row(t);
      steps = t + 1;
    }
    // An early stop carries the last model forward.
    for (std::size_t t = steps; t < k_; ++t) {
      out.active[t] = -1;
      out.gain[t] = 0.0;
      double* row = out.coef + packed_offset(t);
      for (std::size_t s = 0; s <= t; ++s) row[s] = (s < steps) ? out.coef[packed_offset(steps - 1) + s] : 0.0;
    }
    return steps;
  }

 private:
  static constexpr std::size_t kNone = ~std::size_t{0};

  // R entry (row s, column j): eager keeps R row-major (rows contiguous over features), lazy
  // column-major (each feature's column contiguous).
  double r_at(std::size_t s, std::size_t j) const noexcept {
    return update_ == Update::eager ? r_[s * p_ + j] : r_[j * k_ + s];
  }

  // Eager: row t of R for every feature, then c -= z_t R_t and d -= R_t^2.
  void eager_row(std::size_t t) noexcept {
    kernels_.eager_update(pb_.gram + active_[t] * p_, r_.get(), selected_column(t), t, p_, inv_diag_[t], z_[t],
                          c_.data(), d_.data());
  }

  // Eager: R[u, a_t] for u < t (the coefficients of row t's update), in scratch_.
  const double* selected_column(std::size_t t) noexcept {
    const std::size_t a = active_[t];
    for (std::size_t u = 0; u < t; ++u) scratch_[u] = r_[u * p_ + a];
    return scratch_.data();
  }

  // Lazy: brings columns cand[0..count) of R, and their c_j and d_j, up to date with the first t
  // selected directions (forward substitution with the Cholesky factor of G_AA). With a Gram
  // matrix the loop runs row by row across the candidates, so that their dependency chains
  // overlap. Without one, the Gram entries x_{a_s}^T x_j of the candidates never drawn before (most
  // of them) come from one blocked product of the selected data rows with the candidates' rows;
  // a candidate drawn again reads its data row once for the entries it still lacks.
  void fill_batch(const std::uint32_t* cand, std::size_t count, std::size_t t) noexcept {
    if (!pb_.gram) {
      if (t == 0) return;
      const std::size_t n = pb_.n_samples;
      std::size_t fresh = 0;
      for (std::size_t i = 0; i < count; ++i) {
        const std::uint32_t j = cand[i];
        if (filled_[j] != 0) continue;
        fresh_[fresh] = j;
        fresh_data_[fresh] = pb_.xt + static_cast<std::size_t>(j) * n;
        fresh_out_[fresh] = r_.get() + static_cast<std::size_t>(j) * k_;
        ++fresh;
      }
      if (fresh > 0) {
        for (std::size_t s = 0; s < t; ++s) active_data_[s] = pb_.xt + static_cast<std::size_t>(active_[s]) * n;
        kernels_.gram_block(active_data_.data(), t, fresh_data_.data(), fresh, n, partial_.get(), fresh_out_.data());
        for (std::size_t i = 0; i < fresh; ++i) substitute(fresh_[i], 0, t);
      }
      for (std::size_t i = 0; i < count; ++i) {
        const std::uint32_t j = cand[i];
        if (filled_[j] < t) fill_from_data(j, t);
      }
      return;
    }
    std::size_t first_row = t;
    for (std::size_t i = 0; i < count; ++i) first_row = std::min<std::size_t>(first_row, filled_[cand[i]]);
    for (std::size_t s = first_row; s < t; ++s) {
      const double* lower = r_.get() + static_cast<std::size_t>(active_[s]) * k_;  // row s of L
      const double* gram_row = pb_.gram + static_cast<std::size_t>(active_[s]) * p_;
      const double inv = inv_diag_[s], zs = z_[s];
      for (std::size_t i = 0; i < count; ++i) {
        const std::uint32_t j = cand[i];
        if (filled_[j] > s) continue;
        double* col = r_.get() + static_cast<std::size_t>(j) * k_;
        const double r = (gram_row[j] - dot(lower, col, s)) * inv;
        col[s] = r;
        c_[j] -= zs * r;
        d_[j] -= r * r;
      }
    }
    for (std::size_t i = 0; i < count; ++i) filled_[cand[i]] = static_cast<std::uint32_t>(t);
  }

  // Column j of R from row filled_[j] to row t - 1 (the Gram entries, then the substitution).
  void fill_from_data(std::uint32_t j, std::size_t t) noexcept {
    const std::size_t n = pb_.n_samples;
    const double* xj = pb_.xt + static_cast<std::size_t>(j) * n;
    double* col = r_.get() + static_cast<std::size_t>(j) * k_;
    std::size_t s = filled_[j];
    for (; s + 4 <= t; s += 4) {  // the Gram entries first, into the slots they will occupy
      const double* rows[4];
      for (int r = 0; r < 4; ++r) rows[r] = pb_.xt + static_cast<std::size_t>(active_[s + r]) * n;
      kernels_.dot_rows4(rows, xj, n, col + s);
    }
    for (; s < t; ++s) {
      const double* row = pb_.xt + static_cast<std::size_t>(active_[s]) * n;
      kernels_.dot_rows1(&row, xj, n, col + s);
    }
    substitute(j, filled_[j], t);
  }

  // Rows from .. t - 1 of column j of R from the Gram entries in their slots, and c_j and d_j.
  void substitute(std::uint32_t j, std::size_t from, std::size_t t) noexcept {
    double* col = r_.get() + static_cast<std::size_t>(j) * k_;
    for (std::size_t s = from; s < t; ++s) {
      const double* lower = r_.get() + static_cast<std::size_t>(active_[s]) * k_;
      const double r = (col[s] - dot(lower, col, s)) * inv_diag_[s];
      col[s] = r;
      c_[j] -= z_[s] * r;
      d_[j] -= r * r;
    }
    filled_[j] = static_cast<std::uint32_t>(t);
  }

  void bring_up_to_date(const std::uint32_t* cand, std::size_t count, std::size_t t) noexcept {
    if (update_ == Update::lazy)
      fill_batch(cand, count, t);
    else if (t + 1 == k_ && t >= 1)
      last_row(cand, count, t - 1);
  }

  // Eager, before the last step: row s = k - 2 of R (and c_j, d_j) for the drawn candidates only,
  // each entry with exactly the operations of the vectorised eager update (a sequential sum over
  // the earlier rows), so the learner's path does not depend on which of the two computed it.
  void last_row(const std::uint32_t* cand, std::size_t count, std::size_t s) noexcept {
    const double* coefs = selected_column(s);
    const double* g = pb_.gram + active_[s] * p_;
    for (std::size_t i = 0; i < count; ++i)
      eager_entry(g, r_.get(), coefs, s, p_, inv_diag_[s], z_[s], c_.data(), d_.data(), cand[i]);
  }

  // Best valid candidate among pool positions [begin, end), or kNone: the lowest feature index
  // among the valid candidates whose criterion is within a relative kTieTolerance of the largest
  // one. (Criteria equal in exact arithmetic, from duplicated or collinear columns, differ by
  // rounding; this makes them ties.) Two passes, so the criteria are computed independently.
  std::size_t best_of(std::size_t begin, std::size_t end) noexcept {
    const std::size_t count = end - begin;
    const std::uint32_t* cand = pool_.data() + begin;
    double* crit = crit_.data();
    const bool omp = st_.criterion == Criterion::omp;
    const double top = kernels_.criteria(cand, count, c_.data(), d_.data(), pb_.col_sq, tol_, omp, crit);
    if (top < 0.0) return kNone;
    const double threshold = top * (1.0 - kTieTolerance);
    std::size_t best = kNone;
    std::uint32_t best_feature = ~std::uint32_t{0};
    for (std::size_t i = 0; i < count; ++i) {
      if (crit[i] >= threshold && cand[i] < best_feature) {
        best = begin + i;
        best_feature = cand[i];
      }
    }
    return best;
  }

  // Step t: draws min(m, q) candidates by a partial Fisher-Yates shuffle of the pool of the q
  // unselected features (they end up at pool positions 0..mu-1); if none is valid, keeps drawing
  // one at a time until a valid one appears. Returns the chosen pool position, or kNone.
  std::size_t choose(Xoshiro256& rng, std::size_t t) {
    const std::size_t q = p_ - t;
    const std::size_t mu = std::min(st_.m, q);
    {
      Xoshiro256 local = rng;  // a local copy keeps the state in registers through the draws
      std::uint32_t* pool = pool_.data();
      for (std::size_t i = 0; i < mu; ++i) std::swap(pool[i], pool[i + static_cast<std::size_t>(local.below(q - i))]);
      rng = local;
    }
    bring_up_to_date(pool_.data(), mu, t);
    std::size_t best = best_of(0, mu);
    for (std::size_t i = mu; best == kNone && i < q; ++i) {
      if (stop_->stop_requested()) throw interrupted();
      std::swap(pool_[i], pool_[i + static_cast<std::size_t>(rng.below(q - i))]);
      bring_up_to_date(pool_.data() + i, 1, t);
      best = best_of(i, i + 1);
    }
    return best;
  }

  // After step t: the degeneracy threshold of the next candidates, max(tol, kRoundingGrowth eps
  // kappa^2) with kappa^2 the largest squared column norm of D R^-1 so far, D = diag(||x_a||) over
  // the active columns. A candidate's d_j = ||x_j||^2 - ||R^-T G_Aj||^2 is downdated from Gram
  // entries: relative to ||x_j||^2 its rounding error grows with the squared condition number of
  // the column-normalised active set R D^-1, which kappa^2 estimates from below (between that
  // squared condition number and the same over (t + 1)^2), whatever the columns' scales. Without it
  // a column in the span of an active set of condition number 3e3 came out above tol = 1e-10 (true
  // value 1e-25). The Frobenius norm instead would count every small singular value and, with 200
  // of them, refused a valid column 250 times above the rounding scale. Column t of R^-1 is the one
  // update_coefficients just computed; row u of D R^-1 is scaled by ||x_{a_u}||.
  void raise_tolerance(std::size_t t) noexcept {
    const double* column = rinv_.data() + t * k_;
    double norm_sq = 0.0;
    for (std::size_t u = 0; u <= t; ++u) norm_sq += pb_.col_sq[active_[u]] * (column[u] * column[u]);
    inverse_norm_sq_ = std::max(inverse_norm_sq_, norm_sq);
    tol_ = std::max(st_.tol, kRoundingGrowth * 0x1p-52 * inverse_norm_sq_);
  }

  // Coefficients after step t, from those after step t - 1: the new direction adds z_t q_t to the
  // fit and q_t = X_A (R_AA^{-1})[:, t], so beta += z_t (R_AA^{-1})[:, t]. The new column of the
  // inverse is -R_old^{-1} R[0..t, a_t] / R_tt above the diagonal and 1 / R_tt on it: O(t^2)
  // independent multiply-adds per step, without the serial divisions of a back-substitution.
  void update_coefficients(std::size_t t, double* out) noexcept {
    double* column = rinv_.data() + t * k_;  // rinv_ is column-major: (R^-1)[u, v] at v * k + u
    for (std::size_t u = 0; u < t; ++u) scratch_[u] = r_at(u, active_[t]);
    // column[u] = sum over v = u .. t - 1, in order, of R^-1[u, v] R[v, a_t]
    for (std::size_t u = 0; u < t; ++u) {
      double acc = 0.0;
      for (std::size_t v = u; v < t; ++v) acc += rinv_[v * k_ + u] * scratch_[v];
      column[u] = acc;
    }
    const double inv = inv_diag_[t];
    for (std::size_t u = 0; u < t; ++u) column[u] *= -inv;
    column[t] = inv;
    coef_[t] = 0.0;
    for (std::size_t u = 0; u <= t; ++u) coef_[u] += z_[t] * column[u];
    std::copy(coef_.begin(), coef_.begin() + t + 1, out);
  }

  const Problem& pb_;
  const Settings& st_;
  const StopToken* stop_ = nullptr;  // of the current run()
  std::size_t p_, k_;
  Update update_;
  Kernels kernels_;
  std::vector<std::uint32_t> pool_;    // unselected features first; candidates at the front
  std::vector<std::uint32_t> filled_;  // lazy: rows of R already computed for each column
  std::vector<double> c_, d_;
  std::unique_ptr<double[]> r_;  // R, p x k: row-major when eager, column-major when lazy
  std::vector<std::uint32_t> active_;
  std::vector<double> diag_, inv_diag_, z_;
  std::vector<double> scratch_;
  std::vector<double> crit_;      // criteria of the current candidates
  std::vector<double> rinv_;      // R_AA^{-1}, upper triangular, column-major k x k
  double inverse_norm_sq_ = 0.0;  // largest squared column norm of D R_AA^{-1} (see raise_tolerance)
  double tol_ = 0.0;              // degeneracy threshold of this step (raise_tolerance)
  std::vector<double> coef_;      // current coefficients, in the order of the active set
  // Lazy without a Gram matrix: the candidates never drawn before, their data rows and R columns,
  // the selected data rows, and the partial sums of the blocked product.
  std::vector<std::uint32_t> fresh_;
  std::vector<const double*> fresh_data_;
  std::vector<double*> fresh_out_;
  std::vector<const double*> active_data_;
  std::unique_ptr<double[]> partial_;
};

// Learner workspaces shared by the tasks of one parallel_for: at most one per running thread.
class LearnerPool {
 public:
  LearnerPool(const Problem& problem, const Settings& settings, Update update)
      : problem_(problem), settings_(settings), update_(update) {}

  std::unique_ptr<Learner> acquire() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!free_.empty()) {
        auto learner = std::move(free_.back());
        free_.pop_back();
        return learner;
      }
    }
    return std::make_unique<Learner>(problem_, settings_, update_);
  }

  void release(std::unique_ptr<Learner> learner) {
    std::lock_guard<std::mutex> lock(mutex_);
    free_.push_back(std::move(learner));
  }

 private:
  const Problem& problem_;
  const Settings& settings_;
  Update update_;
  std::mutex mutex_;
  std::vector<std::unique_ptr<Learner>> free_;
};

// Outputs of an ensemble fit, all preallocated by the caller:
//   active  n_learners x k      coef  n_learners x packed_size(k)     gain  n_learners x k
//   path    (k + 1) x p         the averaged coefficient path (row 0 is the empty model)
struct EnsembleOutput {
  std::int64_t* active;
  double* coef;
  double* gain;
  double* path;
};

inline void check_problem(const Problem& pb, const Settings& st) {
  require(pb.n_features >= 1, "X: expected at least one feature");
  require(pb.gram != nullptr || (pb.xt != nullptr && pb.n_samples >= 1),
          "X: expected either the Gram matrix or the data");
  require(st.k >= 1 && st.k <= pb.n_features, "k: expected an integer in [1, n_features = ", pb.n_features, "], got ",
          st.k);
  require(st.m >= 1, "m: expected at least one candidate per step");
  require(st.tol >= 0.0 && st.tol < 1.0, "tol: expected a number in [0, 1)");
  require(simd::supported(st.isa), "isa: this machine does not support the requested kernel");
  for (std::size_t j = 0; j < pb.n_features; ++j)
    require(pb.col_sq[j] > 0.0, "X: column ", j, " is constant; remove it");
}

// Eager updates cost O(p t) per step whatever m is; lazy ones O(t) per drawn candidate that is not
// yet up to date. When the candidates of all steps together outnumber the features, most columns
// get filled anyway and the vectorised eager update wins.
inline Update choose_update(const Problem& pb, const Settings& st) {
  if (!pb.gram) return Update::lazy;
  return st.m * st.k > pb.n_features ? Update::eager : Update::lazy;
}

// Fits learners first_learner .. first_learner + n_learners - 1 (learner b uses stream (seed, b))
// into rows 0 .. n_learners - 1 of active, coef and gain. Splitting an ensemble into ranges of
// learners therefore gives the same learners as one call, whatever n_threads is. With m >= p every
// learner is the same deterministic forward selection, computed once and copied.
inline void fit_learners(const Problem& pb, const Settings& st, std::uint64_t seed, std::uint64_t first_learner,
                         std::size_t n_learners, unsigned n_threads, const Poll& poll, const EnsembleOutput& out) {
  check_problem(pb, st);
  require(n_learners >= 1, "n_estimators: expected at least one learner");
  const std::size_t k = st.k, packed = packed_size(k);
  const bool deterministic = st.m >= pb.n_features;
  const std::size_t n_runs = deterministic ? 1 : n_learners;

  LearnerPool workspaces(pb, st, choose_update(pb, st));
  parallel_for(
      n_runs, n_threads,
      [&](std::size_t b, const StopToken& token) {
        auto learner = workspaces.acquire();
        Xoshiro256 rng(seed, first_learner + b);
        learner->run(rng, LearnerOutput{out.active + b * k, out.coef + b * packed, out.gain + b * k}, token);
        workspaces.release(std::move(learner));
      },
      poll);

  if (deterministic && n_learners > 1) {
    // Copies of learner 0, in blocks of learners so that a large ensemble still polls.
    constexpr std::size_t block = 4096;
    parallel_for((n_learners - 1 + block - 1) / block, n_threads,
                 [&](std::size_t task, const StopToken&) {
                   const std::size_t first = 1 + task * block, last = std::min(n_learners, first + block);
                   for (std::size_t b = first; b < last; ++b) {
                     std::copy(out.active, out.active + k, out.active + b * k);
                     std::copy(out.coef, out.coef + packed, out.coef + b * packed);
                     std::copy(out.gain, out.gain + k, out.gain + b * k);
                   }
                 },
                 poll);
  }
}

// Ordered reduction of the learners' paths into path ((k + 1) x p): row t sums the learners in index
// order, then divides by their number. `identical` (m >= p) copies learner 0 instead.
inline void average_path(const std::int64_t* active, const double* coef, std::size_t n_learners, std::size_t k,
                         std::size_t p, bool identical, double* path, unsigned n_threads, const Poll& poll) {
  const std::size_t packed = packed_size(k);
  std::fill(path, path + (k + 1) * p, 0.0);
  const double scale = 1.0 / static_cast<double>(n_learners);
  parallel_for(
      k, n_threads,
      [&](std::size_t t, const StopToken& token) {
        double* row = path + (t + 1) * p;
        if (identical) {
          const double* c = coef + packed_offset(t);
          for (std::size_t s = 0; s <= t; ++s)
            if (active[s] >= 0) row[active[s]] = c[s];
          return;
        }
        for (std::size_t b = 0; b < n_learners; ++b) {
          if (b % 4096 == 0 && token.stop_requested()) return;  // the caller throws `interrupted`
          const std::int64_t* a = active + b * k;
          const double* c = coef + b * packed + packed_offset(t);
          for (std::size_t s = 0; s <= t; ++s)
            if (a[s] >= 0) row[a[s]] += c[s];
        }
        for (std::size_t j = 0; j < p; ++j) row[j] *= scale;
      },
      poll);
}

// The whole ensemble: learners 0 .. n_learners - 1 and their averaged path.
inline void fit_ensemble(const Problem& pb, const Settings& st, std::uint64_t seed, std::size_t n_learners,
                         unsigned n_threads, const Poll& poll, const EnsembleOutput& out) {
  fit_learners(pb, st, seed, 0, n_learners, n_threads, poll, out);
  average_path(out.active, out.coef, n_learners, st.k, pb.n_features, st.m >= pb.n_features, out.path, n_threads, poll);
}

}  // namespace paperkernels::greedy

PAPERKERNELS_PSABI_ON
