// Bindings of paperkernels.cascade: state spaces, click tables, planners, learners, simulation.
// The Python layer validates every argument; the checks here only guard memory safety.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "bind_common.hpp"
#include "paperkernels/cascade/learners.hpp"
#include "paperkernels/cascade/model.hpp"
#include "paperkernels/cascade/planners.hpp"
#include "paperkernels/cascade/simulate.hpp"
#include "paperkernels/cascade/state_space.hpp"

namespace py = pybind11;
using namespace paperkernels;
using namespace paperkernels::cascade;
using paperkernels::bind::carray;

namespace {

StateKind to_kind(int v) {
  require(v >= 0 && v <= 2, "state: unknown state kind code " + std::to_string(v));
  return static_cast<StateKind>(v);
}

void check_topics(const carray<std::int64_t>& topics, int m) {
  const std::int64_t* t = topics.data();
  for (py::ssize_t i = 0; i < topics.size(); ++i)
    require(t[i] >= 0 && t[i] < m, "topics: expected values in [0, " + std::to_string(m) + "), got " +
                                       std::to_string(t[i]) + " at index " + std::to_string(i));
}

ItemsView items_view(const carray<double>& X, const carray<std::int64_t>& topics, int m) {
  bind::require_ndim(X, 2, "X");
  bind::require_ndim(topics, 1, "topics");
  require(X.shape(0) == topics.shape(0), "X, topics: expected one topic per item, got " + std::to_string(X.shape(0)) +
                                             " items and " + std::to_string(topics.shape(0)) + " topics");
  check_topics(topics, m);
  return {X.data(), topics.data(), static_cast<std::size_t>(X.shape(0)), static_cast<int>(X.shape(1))};
}

void check_cascade(const carray<std::int32_t>& cascade, std::size_t L, int K) {
  bind::require_ndim(cascade, 1, "cascade");
  require(cascade.shape(0) == K, "cascade: expected " + std::to_string(K) + " items, got " + std::to_string(cascade.shape(0)));
  const std::int32_t* c = cascade.data();
  for (int k = 0; k < K; ++k) {
    require(c[k] >= 0 && static_cast<std::size_t>(c[k]) < L,
            "cascade: expected item indices in [0, " + std::to_string(L) + "), got " + std::to_string(c[k]));
    for (int j = 0; j < k; ++j) require(c[j] != c[k], "cascade: item " + std::to_string(c[k]) + " appears twice");
  }
}

py::dict plan_to_dict(const PlanResult& r) {
  carray<std::int32_t> cascade(static_cast<py::ssize_t>(r.cascade.size()));
  std::copy(r.cascade.begin(), r.cascade.end(), cascade.mutable_data());
  carray<double> probs(static_cast<py::ssize_t>(r.probs.size()));
  std::copy(r.probs.begin(), r.probs.end(), probs.mutable_data());
  py::dict out;
  out["cascade"] = cascade;
  out["probs"] = probs;
  out["value"] = r.value;
  out["nodes"] = r.nodes;
  return out;
}

// A learner owned by Python: its configuration plus the running C++ state.
class PyLearner {
 public:
  PyLearner(const LearnerConfig& cfg, std::uint64_t seed, std::uint64_t stream)
      : config_(cfg), impl_(make_learner(cfg, seed, stream)) {}

  const LearnerConfig& config() const { return config_; }

  carray<std::int32_t> select(const carray<double>& X, const carray<std::int64_t>& topics) {
    const ItemsView items = items_view(X, topics, config_.n_topics);
    carray<std::int32_t> out(config_.K);
    std::int32_t* data = out.mutable_data();
    {
      py::gil_scoped_release release;
      impl_->select(items, data);
    }
    return out;
  }

  void update(const carray<double>& X, const carray<std::int64_t>& topics, const carray<std::int32_t>& cascade,
              int first_click) {
    const ItemsView items = items_view(X, topics, config_.n_topics);
    check_cascade(cascade, items.L, config_.K);
    require(first_click >= -1 && first_click < config_.K,
            "first_click: expected a position in [0, " + std::to_string(config_.K) + ") or None, got " + std::to_string(first_click));
    py::gil_scoped_release release;
    impl_->update(items, cascade.data(), first_click);
  }

  TopicUCB& topic() {
    auto* p = dynamic_cast<TopicUCB*>(impl_.get());
    require(p != nullptr, "this learner is not the topic-aware learner");
    return *p;
  }

  carray<double> optimistic_table(const carray<double>& X, const carray<std::int64_t>& topics) {
    TopicUCB& learner = topic();
    const ItemsView items = items_view(X, topics, config_.n_topics);
    carray<double> out({static_cast<py::ssize_t>(items.L), static_cast<py::ssize_t>(learner.space().size())});
    double* data = out.mutable_data();
    {
      py::gil_scoped_release release;
      learner.optimistic_table(items, data);
    }
    return out;
  }

  // Per-item indices of the item-level learners (LinUCB, UCB1, KL-UCB).
  carray<double> item_scores(const carray<double>& X, const carray<std::int64_t>& topics) {
    const ItemsView items = items_view(X, topics, config_.n_topics);
    std::vector<double> scores;
    if (auto* lin = dynamic_cast<LinUCB*>(impl_.get())) {
      require(items.dx == config_.n_features, "X: expected " + std::to_string(config_.n_features) + " features per item");
      lin->scores(items, scores);
    } else if (auto* item = dynamic_cast<ItemUCB*>(impl_.get())) {
      require(item->clicks().empty() || item->clicks().size() == items.L, "X: wrong number of items for this learner");
      if (item->clicks().empty()) scores.assign(items.L, std::numeric_limits<double>::infinity());
      else item->scores(scores);
    } else {
      throw invalid_argument("this learner has no per-item index");
    }
    carray<double> out(static_cast<py::ssize_t>(scores.size()));
    std::copy(scores.begin(), scores.end(), out.mutable_data());
    return out;
  }

  py::dict state() {
    py::dict out;
    out["rounds"] = impl_->rounds();
    auto export_gram = [&](const InverseGram& g, const std::vector<double>& theta, std::int64_t n, double beta) {
      carray<double> M({g.dim(), g.dim()});
      std::copy(g.data(), g.data() + static_cast<std::size_t>(g.dim()) * g.dim(), M.mutable_data());
      carray<double> th(g.dim());
      std::copy(theta.begin(), theta.end(), th.mutable_data());
      out["gram_inverse"] = M;
      out["theta"] = th;
      out["observations"] = n;
      out["beta"] = beta;
    };
    if (auto* t = dynamic_cast<TopicUCB*>(impl_.get())) {
      export_gram(t->gram(), t->theta(), t->observations(), t->beta());
      if (!t->last_plan().cascade.empty()) {
        out["last_plan"] = plan_to_dict(t->last_plan());
        out["last_exact_evaluations"] = t->last_candidates();
        out["last_items_tested"] = t->last_tested();
      }
    } else if (auto* l = dynamic_cast<LinUCB*>(impl_.get())) {
      export_gram(l->gram(), l->theta(), l->observations(), l->beta());
    } else if (auto* u = dynamic_cast<ItemUCB*>(impl_.get())) {
      carray<double> clicks(static_cast<py::ssize_t>(u->clicks().size()));
      carray<double> views(static_cast<py::ssize_t>(u->views().size()));
      std::copy(u->clicks().begin(), u->clicks().end(), clicks.mutable_data());
      std::copy(u->views().begin(), u->views().end(), views.mutable_data());
      out["clicks"] = clicks;
      out["views"] = views;
    }
    return out;
  }

 private:
  LearnerConfig config_;
  std::unique_ptr<Learner> impl_;
};

}  // namespace

void bind_cascade(py::module_& m) {
  m.def(
      "cascade_state_space",
      [](int kind, int n_topics, int K, std::size_t max_states) {
        const StateSpace space(to_kind(kind), n_topics, K, max_states);
        const int S = space.size();
        carray<std::int64_t> vectors({S, n_topics});
        carray<std::int64_t> depth(S), parent(S), added(S);
        carray<std::int64_t> next({S, n_topics});
        auto* v = vectors.mutable_data();
        auto* nx = next.mutable_data();
        for (int s = 0; s < S; ++s) {
          for (int c = 0; c < n_topics; ++c) {
            v[static_cast<std::size_t>(s) * n_topics + c] = space.z(s, c);
            nx[static_cast<std::size_t>(s) * n_topics + c] = space.next(s, c);
          }
          depth.mutable_data()[s] = space.depth(s);
          parent.mutable_data()[s] = space.parent(s);
          added.mutable_data()[s] = space.added(s);
        }
        py::dict out;
        out["vectors"] = vectors;
        out["depth"] = depth;
        out["next"] = next;
        out["parent"] = parent;
        out["added"] = added;
        return out;
      },
      py::arg("kind"), py::arg("n_topics"), py::arg("K"), py::arg("max_states"),
      "Reachable states before positions 1..K in breadth-first order: topic vectors, minimal depth, transitions.");

  m.def(
      "cascade_click_table",
      [](const carray<double>& X, const carray<std::int64_t>& topics, const carray<double>& theta, int features,
         int link, int kind, int n_topics, int K, std::size_t max_states) {
        const ItemsView items = items_view(X, topics, n_topics);
        const FeatureLayout layout{static_cast<FeatureMap>(features), items.dx, n_topics};
        require(theta.ndim() == 1 && theta.shape(0) == layout.dim(),
                "theta: expected " + std::to_string(layout.dim()) + " parameters");
        const StateSpace space(to_kind(kind), n_topics, K, max_states);
        carray<double> out({static_cast<py::ssize_t>(items.L), static_cast<py::ssize_t>(space.size())});
        double* data = out.mutable_data();
        {
          py::gil_scoped_release release;
          click_table(items.X, items.topics, items.L, theta.data(), layout, static_cast<Link>(link), space, data);
        }
        return out;
      },
      py::arg("X"), py::arg("topics"), py::arg("theta"), py::arg("features"), py::arg("link"), py::arg("kind"),
      py::arg("n_topics"), py::arg("K"), py::arg("max_states"),
      "Click probabilities of every item in every reachable state (L x S).");

  m.def(
      "cascade_plan_table",
      [](const carray<double>& P, const carray<std::int64_t>& topics, int kind, int n_topics, int K, int method,
         double max_orderings, std::size_t max_states) {
        bind::require_ndim(P, 2, "probabilities");
        bind::require_ndim(topics, 1, "topics");
        check_topics(topics, n_topics);
        const auto L = static_cast<std::size_t>(P.shape(0));
        require(topics.shape(0) == P.shape(0), "topics: expected one topic per row of the click table");
        require(static_cast<std::size_t>(K) <= L, "K: expected K <= the number of items");
        const StateSpace space(to_kind(kind), n_topics, K, max_states);
        require(P.shape(1) >= space.size(), "probabilities: expected at least " + std::to_string(space.size()) +
                                                " state columns for K = " + std::to_string(K));
        const auto stride = static_cast<std::size_t>(P.shape(1));
        PlanResult result;
        {
          py::gil_scoped_release release;
          if (static_cast<Planner>(method) == Planner::brute) {
            result = plan_brute(P.data(), stride, L, topics.data(), space, max_orderings);
          } else {
            TopLists lists;
            top_lists_from_table(P.data(), stride, topics.data(), L, space, lists);
            switch (static_cast<Planner>(method)) {
              case Planner::exact: result = ExactSearch().run(space, lists); break;
              case Planner::topic_dp: result = TopicDP().run(space, lists); break;
              case Planner::greedy: result = plan_greedy(space, lists); break;
              default: throw invalid_argument("method: unknown planner code");
            }
          }
        }
        return plan_to_dict(result);
      },
      py::arg("probabilities"), py::arg("topics"), py::arg("kind"), py::arg("n_topics"), py::arg("K"), py::arg("method"),
      py::arg("max_orderings"), py::arg("max_states"),
      "Plans a cascade of length K on a click table (columns: the state space's order).");

  m.def(
      "cascade_plan_model",
      [](const carray<double>& X, const carray<std::int64_t>& topics, const carray<double>& theta, int features,
         int link, int kind, int n_topics, int K, int method, std::size_t max_states) {
        const ItemsView items = items_view(X, topics, n_topics);
        const FeatureLayout layout{static_cast<FeatureMap>(features), items.dx, n_topics};
        require(theta.ndim() == 1 && theta.shape(0) == layout.dim(),
                "theta: expected " + std::to_string(layout.dim()) + " parameters");
        require(static_cast<std::size_t>(K) <= items.L, "K: expected K <= the number of items");
        const StateSpace space(to_kind(kind), n_topics, K, max_states);
        PlanResult result;
        {
          py::gil_scoped_release release;
          TopLists lists;
          top_lists_from_model(items.X, items.topics, items.L, theta.data(), layout, static_cast<Link>(link), space, lists);
          switch (static_cast<Planner>(method)) {
            case Planner::exact: result = ExactSearch().run(space, lists); break;
            case Planner::topic_dp: result = TopicDP().run(space, lists); break;
            case Planner::greedy: result = plan_greedy(space, lists); break;
            default: throw invalid_argument("method: 'brute' plans on click tables");
          }
        }
        return plan_to_dict(result);
      },
      py::arg("X"), py::arg("topics"), py::arg("theta"), py::arg("features"), py::arg("link"), py::arg("kind"),
      py::arg("n_topics"), py::arg("K"), py::arg("method"), py::arg("max_states"),
      "Plans on a model without its click table (items rank by x^T theta_x within a topic in every state).");

  py::class_<PyLearner>(m, "cascade_Learner")
      .def(py::init([](int type, int K, int n_topics, int n_features, int state, int features, int link, int planner,
                       double lam, double beta, double delta, double S, std::size_t max_states, std::uint64_t seed,
                       std::uint64_t stream) {
             LearnerConfig cfg;
             cfg.type = static_cast<LearnerType>(type);
             cfg.K = K;
             cfg.n_topics = n_topics;
             cfg.n_features = n_features;
             cfg.state = to_kind(state);
             cfg.features = static_cast<FeatureMap>(features);
             cfg.link = static_cast<Link>(link);
             cfg.planner = static_cast<Planner>(planner);
             cfg.lam = lam;
             cfg.beta = beta;
             cfg.delta = delta;
             cfg.S = S;
             cfg.max_states = max_states;
             return std::make_unique<PyLearner>(cfg, seed, stream);
           }),
           py::arg("type"), py::arg("K"), py::arg("n_topics"), py::arg("n_features"), py::arg("state"),
           py::arg("features"), py::arg("link"), py::arg("planner"), py::arg("lam"), py::arg("beta"), py::arg("delta"),
           py::arg("S"), py::arg("max_states"), py::arg("seed"), py::arg("stream"))
      .def("select", &PyLearner::select, py::arg("X"), py::arg("topics"))
      .def("update", &PyLearner::update, py::arg("X"), py::arg("topics"), py::arg("cascade"), py::arg("first_click"))
      .def("optimistic_table", &PyLearner::optimistic_table, py::arg("X"), py::arg("topics"))
      .def("item_scores", &PyLearner::item_scores, py::arg("X"), py::arg("topics"))
      .def("state", &PyLearner::state);

  m.def(
      "cascade_simulate",
      [](const carray<double>& X, const carray<std::int64_t>& topics, const carray<double>& P, int kind, int n_topics,
         int K, double optimal_value, const py::list& learners, std::int64_t T, std::int64_t n_runs,
         std::uint64_t seed, unsigned n_threads, bool record, std::size_t max_states, std::int64_t first_run) {
        const ItemsView items = items_view(X, topics, n_topics);
        const StateSpace space(to_kind(kind), n_topics, K, max_states);
        bind::require_ndim(P, 2, "P");
        require(P.shape(0) == static_cast<py::ssize_t>(items.L) && P.shape(1) == space.size(),
                "P: expected the true click table of shape (L, S)");
        require(T >= 1 && n_runs >= 1, "T, n_seeds: expected positive counts");
        require(first_run >= 0 && first_run + n_runs <= (std::int64_t{1} << 32),
                "first_run: expected runs in [0, 2**32)");
        std::vector<LearnerConfig> configs;
        for (const py::handle h : learners) {
          const PyLearner* l = h.cast<const PyLearner*>();
          require(l != nullptr, "learners: expected learner objects");
          configs.push_back(l->config());
          require(configs.back().K == K, "learners: every learner must use the environment's K");
          require(configs.back().n_topics == n_topics, "learners: every learner must use the environment's n_topics");
        }
        const auto nl = static_cast<py::ssize_t>(configs.size());
        carray<double> regret({nl, static_cast<py::ssize_t>(n_runs), static_cast<py::ssize_t>(T)});
        py::object cascades = py::none(), clicks = py::none();
        SimulationOutput out{regret.mutable_data(), nullptr, nullptr};
        if (record) {
          carray<std::int32_t> c({nl, static_cast<py::ssize_t>(n_runs), static_cast<py::ssize_t>(T), static_cast<py::ssize_t>(K)});
          carray<std::int8_t> f({nl, static_cast<py::ssize_t>(n_runs), static_cast<py::ssize_t>(T)});
          out.cascades = c.mutable_data();
          out.clicks = f.mutable_data();
          cascades = c;
          clicks = f;
        }
        const Environment env{items, P.data(), &space, optimal_value};
        {
          py::gil_scoped_release release;
          parallel_for(
              static_cast<std::size_t>(n_runs), n_threads,
              [&](std::size_t run, const StopToken& token) {
                simulate_run(env, configs, T, seed, static_cast<std::size_t>(first_run), run,
                             static_cast<std::size_t>(n_runs), out, token);
              },
              bind::python_signal_poll());
        }
        return py::make_tuple(regret, cascades, clicks);
      },
      py::arg("X"), py::arg("topics"), py::arg("P"), py::arg("kind"), py::arg("n_topics"), py::arg("K"),
      py::arg("optimal_value"), py::arg("learners"), py::arg("T"), py::arg("n_runs"), py::arg("seed"),
      py::arg("n_threads"), py::arg("record"), py::arg("max_states"), py::arg("first_run") = 0,
      "Runs every learner for T rounds in runs first_run .. first_run + n_runs - 1 (in parallel) on\n"
      "common random clicks.");
}
