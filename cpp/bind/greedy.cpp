// Bindings of paperkernels::greedy: the ensemble fit, from a Gram matrix or from the data.
#include <pybind11/stl.h>

#include <cstdint>
#include <optional>
#include <string>
#include <tuple>

#include "bind_common.hpp"
#include "paperkernels/greedy/ensemble.hpp"
#include "paperkernels/greedy/gram.hpp"
#include "paperkernels/greedy/transpose.hpp"

namespace py = pybind11;
using namespace paperkernels;
using paperkernels::bind::carray;

namespace {

void require_length(const carray<double>& a, py::ssize_t n, const char* name) {
  bind::require_ndim(a, 1, name);
  require(a.shape(0) == n, name, ": expected length ", n, ", got ", a.shape(0));
}

py::tuple run_fit(greedy::Problem problem, std::size_t k, std::size_t m, greedy::Criterion criterion, double tol,
                  std::uint64_t seed, std::uint64_t first_learner, std::size_t n_learners, unsigned n_threads,
                  std::size_t max_rank) {
  bind::known(criterion, greedy::Criterion::omp, "criterion");
  greedy::Settings settings;  // kernels: the instruction set in use (paperkernels.set_isa)
  settings.k = k;
  settings.m = m;
  settings.criterion = criterion;
  settings.tol = tol;
  settings.max_rank = max_rank;
  require(k >= 1 && k <= problem.n_features, "k: expected an integer in [1, n_features = ", problem.n_features,
          "], got ", k);
  require(n_learners >= 1, "n_estimators: expected at least one learner");
  const auto B = static_cast<py::ssize_t>(n_learners), K = static_cast<py::ssize_t>(k);
  const auto P = static_cast<py::ssize_t>(problem.n_features);
  carray<double> path({K + 1, P});
  carray<std::int64_t> active({B, K});
  carray<double> coef({B, static_cast<py::ssize_t>(greedy::packed_size(k))});
  carray<double> gain({B, K});
  const greedy::EnsembleOutput out{active.mutable_data(), coef.mutable_data(), gain.mutable_data(),
                                   path.mutable_data()};
  {
    py::gil_scoped_release release;
    const auto poll = bind::python_signal_poll();
    greedy::fit_learners(problem, settings, seed, first_learner, n_learners, n_threads, poll, out);
    greedy::average_path(out.active, out.coef, n_learners, k, problem.n_features, m >= problem.n_features, out.path,
                         n_threads, poll);
  }
  return py::make_tuple(path, active, coef, gain);
}

}  // namespace

void bind_greedy(py::module_& m) {
  // The selection criterion, chosen once in Python (paperkernels.greedy validates the user's string).
  py::enum_<greedy::Criterion>(m, "Criterion", "Score of a candidate feature at each step of a learner.")
      .value("fs", greedy::Criterion::forward_selection,
             "Forward selection: the decrease in RSS, (x_j^T r)^2 / ||P_A^perp x_j||^2.")
      .value("omp", greedy::Criterion::omp, "Orthogonal matching pursuit: |x_j^T r|.");

  m.def(
      "centred_gram",
      [](const carray<double>& x, std::optional<carray<double>> mean, unsigned n_threads,
         std::optional<carray<double>> y) -> py::object {
        bind::require_ndim(x, 2, "X");
        const py::ssize_t n = x.shape(0), p = x.shape(1);
        if (mean) require_length(*mean, p, "mean");
        if (y) require_length(*y, n, "y");
        const double* mu = mean ? mean->data() : nullptr;
        carray<double> gram({p, p});
        carray<double> xty(y ? p : 0);
        {
          py::gil_scoped_release release;
          greedy::centred_gram(x.data(), static_cast<std::size_t>(n), static_cast<std::size_t>(p), mu,
                               gram.mutable_data(), n_threads, bind::python_signal_poll(), y ? y->data() : nullptr,
                               y ? xty.mutable_data() : nullptr);
        }
        if (y) return py::make_tuple(gram, xty);
        return std::move(gram);
      },
      py::arg("X"), py::arg("mean"), py::arg("n_threads"), py::arg("y") = py::none(),
      "(X - mean)^T (X - mean) for X (n, p) row-major (mean None: X^T X). Each entry sums the samples in\n"
      "order, by fused multiply-adds under 'avx2' and 'avx512', by rounded products and sums under 'sse2'\n"
      "(paperkernels.set_isa): the same bits for any n_threads, avx2 and avx512 identical, sse2 within\n"
      "2 n 2^-53 sqrt(G_ii G_jj) of them. With y (n,), already centred, returns (gram, (X - mean)^T y),\n"
      "the latter bit-identical to centred_xty under the same instruction set.");

  m.def(
      "centred_transpose",
      [](const carray<double>& x, std::optional<carray<double>> mean, unsigned n_threads) {
        bind::require_ndim(x, 2, "X");
        const py::ssize_t n = x.shape(0), p = x.shape(1);
        if (mean) require_length(*mean, p, "mean");
        const double* mu = mean ? mean->data() : nullptr;
        carray<double> xt({p, n});
        {
          py::gil_scoped_release release;
          greedy::centred_transpose(x.data(), static_cast<std::size_t>(n), static_cast<std::size_t>(p), mu,
                                    xt.mutable_data(), n_threads, bind::python_signal_poll());
        }
        return xt;
      },
      py::arg("X"), py::arg("mean"), py::arg("n_threads"),
      "(X - mean)^T, (p, n) row-major, for X (n, p) row-major (mean None: X^T): each value is one\n"
      "subtraction, the same for any n_threads.");

  m.def(
      "centred_xty",
      [](const carray<double>& x, std::optional<carray<double>> mean, const carray<double>& y) {
        bind::require_ndim(x, 2, "X");
        const py::ssize_t n = x.shape(0), p = x.shape(1);
        if (mean) require_length(*mean, p, "mean");
        require_length(y, n, "y");
        const double* mu = mean ? mean->data() : nullptr;
        carray<double> xty(p);
        {
          py::gil_scoped_release release;
          greedy::centred_xty(x.data(), static_cast<std::size_t>(n), static_cast<std::size_t>(p), mu, y.data(),
                              xty.mutable_data());
        }
        return xty;
      },
      py::arg("X"), py::arg("mean"), py::arg("y"),
      "(X - mean)^T y for X (n, p) row-major and y (n,) (mean None: X^T y), samples summed in order as\n"
      "in centred_gram (fused multiply-adds under 'avx2' and 'avx512').");

  m.def(
      "fit_gram",
      [](const carray<double>& gram, const carray<double>& xty, std::size_t k, std::size_t m_candidates,
         greedy::Criterion criterion, double tol, std::uint64_t seed, std::size_t n_learners, unsigned n_threads,
         std::uint64_t first_learner, std::size_t max_rank) {
        bind::require_ndim(gram, 2, "gram");
        const py::ssize_t p = gram.shape(0);
        require(gram.shape(1) == p, "gram: expected a square matrix");
        require_length(xty, p, "xty");
        // The Gram diagonal, copied so that the learners read it contiguously.
        carray<double> col_sq(p);
        for (py::ssize_t j = 0; j < p; ++j) col_sq.mutable_data()[j] = gram.data()[j * p + j];
        greedy::Problem problem;
        problem.n_features = static_cast<std::size_t>(p);
        problem.gram = gram.data();
        problem.xty = xty.data();
        problem.col_sq = col_sq.data();
        return run_fit(problem, k, m_candidates, criterion, tol, seed, first_learner, n_learners, n_threads, max_rank);
      },
      py::arg("gram"), py::arg("xty"), py::arg("k"), py::arg("m"), py::arg("criterion"), py::arg("tol"),
      py::arg("seed"), py::arg("n_learners"), py::arg("n_threads"), py::arg("first_learner") = 0,
      py::arg("max_rank") = 0,
      "Ensemble of forward selections from the centred Gram matrix X^T X and X^T y: learners\n"
      "first_learner .. first_learner + n_learners - 1 (learner b uses stream b of seed).\n"
      "No learner takes more than max_rank steps (0: no bound), an upper bound on the design's rank.\n"
      "Returns (path (k+1, p), active (B, k), packed coefficients (B, k(k+1)/2), gains (B, k)).\n"
      "The same bits under any instruction set (paperkernels.set_isa).");

  m.def(
      "fit_columns",
      [](const carray<double>& xt, const carray<double>& xty, const carray<double>& col_sq, std::size_t k,
         std::size_t m_candidates, greedy::Criterion criterion, double tol, std::uint64_t seed, std::size_t n_learners,
         unsigned n_threads, std::uint64_t first_learner, std::size_t max_rank) {
        bind::require_ndim(xt, 2, "xt");
        const py::ssize_t p = xt.shape(0);
        require_length(xty, p, "xty");
        require_length(col_sq, p, "col_sq");
        greedy::Problem problem;
        problem.n_features = static_cast<std::size_t>(p);
        problem.n_samples = static_cast<std::size_t>(xt.shape(1));
        problem.xt = xt.data();
        problem.xty = xty.data();
        problem.col_sq = col_sq.data();
        return run_fit(problem, k, m_candidates, criterion, tol, seed, first_learner, n_learners, n_threads, max_rank);
      },
      py::arg("xt"), py::arg("xty"), py::arg("col_sq"), py::arg("k"), py::arg("m"), py::arg("criterion"),
      py::arg("tol"), py::arg("seed"), py::arg("n_learners"), py::arg("n_threads"), py::arg("first_learner") = 0,
      py::arg("max_rank") = 0,
      "Ensemble of forward selections without a Gram matrix: xt is the centred data transposed (p, n).\n"
      "Same outputs as fit_gram.");

  m.def(
      "average_path",
      [](const carray<std::int64_t>& active, const carray<double>& coef, std::size_t n_features, bool identical,
         unsigned n_threads) {
        bind::require_ndim(active, 2, "active");
        bind::require_ndim(coef, 2, "coef");
        const auto B = static_cast<std::size_t>(active.shape(0)), k = static_cast<std::size_t>(active.shape(1));
        require(B >= 1 && k >= 1, "active: expected at least one learner and one step");
        require(static_cast<std::size_t>(coef.shape(0)) == B &&
                    static_cast<std::size_t>(coef.shape(1)) == greedy::packed_size(k),
                "coef: expected shape (n_learners, k (k + 1) / 2) matching active");
        const std::int64_t* a = active.data();
        for (std::size_t i = 0; i < B * k; ++i)
          require(a[i] >= -1 && a[i] < static_cast<std::int64_t>(n_features),
                  "active: expected feature indices in [-1, n_features)");
        carray<double> path({static_cast<py::ssize_t>(k + 1), static_cast<py::ssize_t>(n_features)});
        {
          py::gil_scoped_release release;
          greedy::average_path(a, coef.data(), B, k, n_features, identical, path.mutable_data(), n_threads,
                               bind::python_signal_poll());
        }
        return path;
      },
      py::arg("active"), py::arg("coef"), py::arg("n_features"), py::arg("identical"), py::arg("n_threads"),
      "Ordered average of per-learner paths (active (B, k), packed coef (B, k(k+1)/2)) into (k+1, p).");
}
