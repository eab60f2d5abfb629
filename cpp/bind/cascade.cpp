// Bindings of paperkernels.cascade: state spaces, click tables, planners, learners, simulation.
// The Python layer validates every argument; the checks here only guard memory safety.
#include <cstdint>
#include <memory>
#include <mutex>
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

// Each option enum with its last member and the argument it comes from (see bind::known).
StateKind known(StateKind v) { return bind::known(v, StateKind::last, "state"); }
FeatureMap known(FeatureMap v) { return bind::known(v, FeatureMap::coverage, "features"); }
Link known(Link v) { return bind::known(v, Link::logistic, "link"); }
Planner known(Planner v) { return bind::known(v, Planner::brute, "method"); }
LearnerType known(LearnerType v) { return bind::known(v, LearnerType::random, "type"); }

// Long loops run without the GIL and poll for Ctrl-C (call with the GIL held; it is released here).
StateSpace make_space(StateKind kind, int n_topics, int K, std::size_t max_states) {
  known(kind);
  py::gil_scoped_release release;
  Interrupt stop(bind::python_signal_poll());
  return StateSpace(kind, n_topics, K, max_states, &stop);
}

template <class T>
carray<T> to_array(const std::vector<T>& v) {
  carray<T> out(static_cast<py::ssize_t>(v.size()));
  std::copy(v.begin(), v.end(), out.mutable_data());
  return out;
}

template <class T>
std::vector<T> from_array(const py::dict& d, const char* key) {
  require(d.contains(key), "state: missing entry '", key, "'");
  const auto a = d[key].cast<carray<T>>();
  require(a.ndim() == 1, "state: entry '", key, "' must be a 1-d array");
  return std::vector<T>(a.data(), a.data() + a.size());
}

void check_topics(const carray<std::int64_t>& topics, int m) {
  const std::int64_t* t = topics.data();
  for (py::ssize_t i = 0; i < topics.size(); ++i)
    require(t[i] >= 0 && t[i] < m, "topics: expected values in [0, ", m, "), got ", t[i], " at index ", i);
}

ItemsView items_view(const carray<double>& X, const carray<std::int64_t>& topics, int m) {
  bind::require_ndim(X, 2, "X");
  bind::require_ndim(topics, 1, "topics");
  require(X.shape(0) == topics.shape(0), "X, topics: expected one topic per item, got ", X.shape(0), " items and ",
          topics.shape(0), " topics");
  check_topics(topics, m);
  return {X.data(), topics.data(), static_cast<std::size_t>(X.shape(0)), static_cast<int>(X.shape(1))};
}

void check_cascade(const carray<std::int32_t>& cascade, std::size_t L, int K) {
  bind::require_ndim(cascade, 1, "cascade");
  require(cascade.shape(0) == K, "cascade: expected ", K, " items, got ", cascade.shape(0));
  const std::int32_t* c = cascade.data();
  for (int k = 0; k < K; ++k) {
    require(c[k] >= 0 && static_cast<std::size_t>(c[k]) < L, "cascade: expected item indices in [0, ", L, "), got ",
            c[k]);
    for (int j = 0; j < k; ++j) require(c[j] != c[k], "cascade: item ", c[k], " appears twice");
  }
}

// The planners that read ranked lists (every planner but the brute-force oracle).
PlanResult plan_lists(Planner method, const StateSpace& space, TopLists& lists, Interrupt* stop) {
  switch (method) {
    case Planner::exact:
      return ExactSearch().run(space, lists, stop);
    case Planner::topic_dp:
      return TopicDP().run(space, lists, stop);
    case Planner::greedy:
      return plan_greedy(space, lists, stop);
    case Planner::brute:
      break;
  }
  fail("method: 'brute' plans on click tables");
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

// A learner owned by Python: its configuration plus the running C++ state. Every method locks a
// mutex, so one learner shared by several Python threads is used by one call at a time; the GIL is
// released before locking (a caller waiting for the lock must not hold it) and during the work.
// Construct with the GIL released (building the state space polls for Ctrl-C).
class PyLearner {
 public:
  PyLearner(const LearnerConfig& cfg, std::uint64_t seed, std::uint64_t stream)
      : config_(cfg), stop_(bind::python_signal_poll()), impl_(make_learner(cfg, seed, stream, &stop_)) {}

  const LearnerConfig& config() const { return config_; }

  carray<std::int32_t> select(const carray<double>& X, const carray<std::int64_t>& topics) {
    const ItemsView items = items_view(X, topics, config_.n_topics);
    carray<std::int32_t> out(config_.K);
    std::int32_t* data = out.mutable_data();
    {
      py::gil_scoped_release release;
      std::lock_guard<std::mutex> lock(mutex_);
      impl_->select(items, data);
    }
    return out;
  }

  void update(const carray<double>& X, const carray<std::int64_t>& topics, const carray<std::int32_t>& cascade,
              int first_click) {
    const ItemsView items = items_view(X, topics, config_.n_topics);
    check_cascade(cascade, items.L, config_.K);
    require(first_click >= -1 && first_click < config_.K, "first_click: expected a position in [0, ", config_.K,
            ") or None, got ", first_click);
    py::gil_scoped_release release;
    std::lock_guard<std::mutex> lock(mutex_);
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
      std::lock_guard<std::mutex> lock(mutex_);
      learner.optimistic_table(items, data);
    }
    return out;
  }

  // Per-item indices of the item-level learners (LinUCB, UCB1, KL-UCB).
  carray<double> item_scores(const carray<double>& X, const carray<std::int64_t>& topics) {
    const ItemsView items = items_view(X, topics, config_.n_topics);
    std::vector<double> scores;
    {
      py::gil_scoped_release release;
      std::lock_guard<std::mutex> lock(mutex_);
      if (auto* lin = dynamic_cast<LinUCB*>(impl_.get())) {
        require(items.dx == config_.n_features, "X: expected ", config_.n_features, " features per item");
        lin->scores(items, scores);
      } else if (auto* item = dynamic_cast<ItemUCB*>(impl_.get())) {
        require(item->clicks().empty() || item->clicks().size() == items.L,
                "X: wrong number of items for this learner");
        if (item->clicks().empty())
          scores.assign(items.L, std::numeric_limits<double>::infinity());
        else
          item->scores(scores);
      } else {
        throw invalid_argument("this learner has no per-item index");
      }
    }
    carray<double> out(static_cast<py::ssize_t>(scores.size()));
    std::copy(scores.begin(), scores.end(), out.mutable_data());
    return out;
  }

  py::dict state() {
    LearnerState st;
    double beta = 0.0;
    bool has_gram = false, has_counts = false, is_topic = false;
    {
      py::gil_scoped_release release;
      std::lock_guard<std::mutex> lock(mutex_);
      if (auto* t = dynamic_cast<TopicUCB*>(impl_.get())) {
        t->theta();  // refreshes the linear link's estimate
        beta = t->beta();
        has_gram = is_topic = true;
      } else if (auto* l = dynamic_cast<LinUCB*>(impl_.get())) {
        l->theta();
        beta = l->beta();
        has_gram = true;
      } else if (dynamic_cast<ItemUCB*>(impl_.get()) != nullptr) {
        has_counts = true;
      }
      impl_->save(st);
    }
    py::dict out;
    out["rounds"] = st.rounds;
    if (has_gram) {
      const auto d = static_cast<py::ssize_t>(st.theta.size());
      carray<double> M({d, d});
      std::copy(st.gram.begin(), st.gram.end(), M.mutable_data());
      out["gram_inverse"] = M;
      out["theta"] = to_array(st.theta);
      out["observations"] = st.observations;
      out["beta"] = beta;
    }
    if (is_topic && !st.plan_cascade.empty()) {
      PlanResult plan;
      plan.cascade = st.plan_cascade;
      plan.probs = st.plan_probs;
      plan.value = st.plan_value;
      plan.nodes = st.plan_nodes;
      out["last_plan"] = plan_to_dict(plan);
      out["last_exact_evaluations"] = st.candidates;
      out["last_items_tested"] = st.tested;
    }
    if (has_counts) {
      out["clicks"] = to_array(st.clicks);
      out["views"] = to_array(st.views);
    }
    return out;
  }

  // The complete running state (for pickling): plain numbers and 1-d arrays.
  py::dict export_state() {
    LearnerState st;
    {
      py::gil_scoped_release release;
      std::lock_guard<std::mutex> lock(mutex_);
      impl_->save(st);
    }
    py::dict out;
    out["rounds"] = st.rounds;
    out["observations"] = st.observations;
    out["gram"] = to_array(st.gram);
    out["b"] = to_array(st.b);
    out["theta"] = to_array(st.theta);
    out["clicks"] = to_array(st.clicks);
    out["views"] = to_array(st.views);
    out["rng"] = to_array(st.rng);
    out["plan_cascade"] = to_array(st.plan_cascade);
    out["plan_probs"] = to_array(st.plan_probs);
    out["plan_value"] = st.plan_value;
    out["plan_nodes"] = st.plan_nodes;
    out["candidates"] = st.candidates;
    out["tested"] = st.tested;
    return out;
  }

  void import_state(const py::dict& d) {
    LearnerState st;
    auto number = [&](const char* key) {
      require(d.contains(key), "state: missing entry '", key, "'");
      return d[key];
    };
    st.rounds = number("rounds").cast<std::int64_t>();
    st.observations = number("observations").cast<std::int64_t>();
    st.gram = from_array<double>(d, "gram");
    st.b = from_array<double>(d, "b");
    st.theta = from_array<double>(d, "theta");
    st.clicks = from_array<double>(d, "clicks");
    st.views = from_array<double>(d, "views");
    st.rng = from_array<std::uint64_t>(d, "rng");
    st.plan_cascade = from_array<std::int32_t>(d, "plan_cascade");
    st.plan_probs = from_array<double>(d, "plan_probs");
    st.plan_value = number("plan_value").cast<double>();
    st.plan_nodes = number("plan_nodes").cast<std::size_t>();
    st.candidates = number("candidates").cast<std::size_t>();
    st.tested = number("tested").cast<std::size_t>();
    py::gil_scoped_release release;
    std::lock_guard<std::mutex> lock(mutex_);
    impl_->load(st);
  }

 private:
  LearnerConfig config_;
  Interrupt stop_;  // polls for Ctrl-C inside long calls; used under mutex_
  std::unique_ptr<Learner> impl_;
  std::mutex mutex_;
};

}  // namespace

void bind_cascade(py::module_& m) {
  // The options cross as these enums: the Python layer validates the user's strings and passes members.
  py::enum_<StateKind>(m, "StateKind", "What a state remembers of the topics shown above.")
      .value("set", StateKind::set)
      .value("count", StateKind::count)
      .value("last", StateKind::last);
  py::enum_<FeatureMap>(m, "FeatureMap", "The topic block of the feature map phi(i, s).")
      .value("transition", FeatureMap::transition)
      .value("coverage", FeatureMap::coverage);
  py::enum_<Link>(m, "Link", "The link from phi^T theta to a click probability.")
      .value("linear", Link::linear)
      .value("logistic", Link::logistic);
  py::enum_<Planner>(m, "Planner", "How a cascade is planned on click probabilities.")
      .value("exact", Planner::exact)
      .value("topic_dp", Planner::topic_dp)
      .value("greedy", Planner::greedy)
      .value("brute", Planner::brute);
  py::enum_<LearnerType>(m, "LearnerType", "The bandit learners.")
      .value("topic_ucb", LearnerType::topic_ucb)
      .value("lin_ucb", LearnerType::lin_ucb)
      .value("ucb1", LearnerType::ucb1)
      .value("kl_ucb", LearnerType::kl_ucb)
      .value("random", LearnerType::random);

  m.def(
      "state_space",
      [](StateKind kind, int n_topics, int K, std::size_t max_states) {
        const StateSpace space = make_space(kind, n_topics, K, max_states);
        const int S = space.size();
        carray<std::int64_t> vectors({S, n_topics});
        carray<std::int64_t> depth(S), parent(S), added(S);
        carray<std::int64_t> next({S, n_topics});
        auto* v = vectors.mutable_data();
        auto* nx = next.mutable_data();
        auto* dp = depth.mutable_data();
        auto* pa = parent.mutable_data();
        auto* ad = added.mutable_data();
        {
          py::gil_scoped_release release;
          Interrupt stop(bind::python_signal_poll());
          for (int s = 0; s < S; ++s) {
            tick(&stop, static_cast<std::size_t>(n_topics));
            std::int64_t* row = v + static_cast<std::size_t>(s) * n_topics;
            std::fill(row, row + n_topics, 0);  // row by row: the pages arrive inside the polled loop
            for (auto e = space.z_begin(s); e != space.z_end(s); ++e) row[e->topic] = e->value;
            for (int c = 0; c < n_topics; ++c) nx[static_cast<std::size_t>(s) * n_topics + c] = space.next(s, c);
            dp[s] = space.depth(s);
            pa[s] = space.parent(s);
            ad[s] = space.added(s);
          }
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
      "click_table",
      [](const carray<double>& X, const carray<std::int64_t>& topics, const carray<double>& theta, FeatureMap features,
         Link link, StateKind kind, int n_topics, int K, std::size_t max_states) {
        const ItemsView items = items_view(X, topics, n_topics);
        const FeatureLayout layout{known(features), items.dx, n_topics};
        require(theta.ndim() == 1 && theta.shape(0) == layout.dim(), "theta: expected ", layout.dim(), " parameters");
        known(link);
        const StateSpace space = make_space(kind, n_topics, K, max_states);
        carray<double> out({static_cast<py::ssize_t>(items.L), static_cast<py::ssize_t>(space.size())});
        double* data = out.mutable_data();
        {
          py::gil_scoped_release release;
          Interrupt stop(bind::python_signal_poll());
          click_table(items.X, items.topics, items.L, theta.data(), layout, link, space, data, &stop);
        }
        return out;
      },
      py::arg("X"), py::arg("topics"), py::arg("theta"), py::arg("features"), py::arg("link"), py::arg("kind"),
      py::arg("n_topics"), py::arg("K"), py::arg("max_states"),
      "Click probabilities of every item in every reachable state (L x S).");

  m.def(
      "plan_table",
      [](const carray<double>& P, const carray<std::int64_t>& topics, StateKind kind, int n_topics, int K,
         Planner method, double max_orderings, std::size_t max_states) {
        known(method);
        bind::require_ndim(P, 2, "probabilities");
        bind::require_ndim(topics, 1, "topics");
        check_topics(topics, n_topics);
        const auto L = static_cast<std::size_t>(P.shape(0));
        require(topics.shape(0) == P.shape(0), "topics: expected one topic per row of the click table");
        require(static_cast<std::size_t>(K) <= L, "K: expected K <= the number of items");
        const StateSpace space = make_space(kind, n_topics, K, max_states);
        require(P.shape(1) >= space.size(), "probabilities: expected at least ", space.size(),
                " state columns for K = ", K);
        const auto stride = static_cast<std::size_t>(P.shape(1));
        PlanResult result;
        {
          py::gil_scoped_release release;
          Interrupt stop(bind::python_signal_poll());
          if (method == Planner::brute) {
            result = plan_brute(P.data(), stride, L, topics.data(), space, max_orderings, &stop);
          } else {
            TopLists lists;
            top_lists_from_table(P.data(), stride, topics.data(), L, space, lists, &stop);
            result = plan_lists(method, space, lists, &stop);
          }
        }
        return plan_to_dict(result);
      },
      py::arg("probabilities"), py::arg("topics"), py::arg("kind"), py::arg("n_topics"), py::arg("K"),
      py::arg("method"), py::arg("max_orderings"), py::arg("max_states"),
      "Plans a cascade of length K on a click table (columns: the state space's order).");

  m.def(
      "plan_model",
      [](const carray<double>& X, const carray<std::int64_t>& topics, const carray<double>& theta, FeatureMap features,
         Link link, StateKind kind, int n_topics, int K, Planner method, std::size_t max_states) {
        require(known(method) != Planner::brute, "method: 'brute' plans on click tables");
        known(link);
        const ItemsView items = items_view(X, topics, n_topics);
        const FeatureLayout layout{known(features), items.dx, n_topics};
        require(theta.ndim() == 1 && theta.shape(0) == layout.dim(), "theta: expected ", layout.dim(), " parameters");
        require(static_cast<std::size_t>(K) <= items.L, "K: expected K <= the number of items");
        const StateSpace space = make_space(kind, n_topics, K, max_states);
        PlanResult result;
        {
          py::gil_scoped_release release;
          Interrupt stop(bind::python_signal_poll());
          TopLists lists;
          top_lists_from_model(items.X, items.topics, items.L, theta.data(), layout, link, space, lists, &stop);
          result = plan_lists(method, space, lists, &stop);
        }
        return plan_to_dict(result);
      },
      py::arg("X"), py::arg("topics"), py::arg("theta"), py::arg("features"), py::arg("link"), py::arg("kind"),
      py::arg("n_topics"), py::arg("K"), py::arg("method"), py::arg("max_states"),
      "Plans on a model without its click table (items rank by x^T theta_x within a topic in every state).");

  py::class_<PyLearner>(m, "Learner")
      .def(py::init([](LearnerType type, int K, int n_topics, int n_features, StateKind state, FeatureMap features,
                       Link link, Planner planner, double lam, double beta, double delta, double S,
                       std::size_t max_states, std::uint64_t seed, std::uint64_t stream) {
             require(type != LearnerType::topic_ucb || planner != Planner::brute,
                     "planner: 'brute' is a test oracle for click tables, not a learner planner");
             LearnerConfig cfg;
             cfg.type = known(type);
             cfg.K = K;
             cfg.n_topics = n_topics;
             cfg.n_features = n_features;
             cfg.state = known(state);
             cfg.features = known(features);
             cfg.link = known(link);
             cfg.planner = known(planner);
             cfg.lam = lam;
             cfg.beta = beta;
             cfg.delta = delta;
             cfg.S = S;
             cfg.max_states = max_states;
             py::gil_scoped_release release;
             return std::make_unique<PyLearner>(cfg, seed, stream);
           }),
           py::arg("type"), py::arg("K"), py::arg("n_topics"), py::arg("n_features"), py::arg("state"),
           py::arg("features"), py::arg("link"), py::arg("planner"), py::arg("lam"), py::arg("beta"), py::arg("delta"),
           py::arg("S"), py::arg("max_states"), py::arg("seed"), py::arg("stream"))
      .def("select", &PyLearner::select, py::arg("X"), py::arg("topics"))
      .def("update", &PyLearner::update, py::arg("X"), py::arg("topics"), py::arg("cascade"), py::arg("first_click"))
      .def("optimistic_table", &PyLearner::optimistic_table, py::arg("X"), py::arg("topics"))
      .def("item_scores", &PyLearner::item_scores, py::arg("X"), py::arg("topics"))
      .def("state", &PyLearner::state)
      .def("export_state", &PyLearner::export_state)
      .def("import_state", &PyLearner::import_state, py::arg("state"));

  m.def(
      "simulate",
      [](const carray<double>& X, const carray<std::int64_t>& topics, const carray<double>& P, StateKind kind,
         int n_topics, int K, double optimal_value, const py::list& learners, std::int64_t T, std::int64_t n_runs,
         std::uint64_t seed, unsigned n_threads, bool record, std::size_t max_states, std::int64_t first_run) {
        const ItemsView items = items_view(X, topics, n_topics);
        const StateSpace space = make_space(kind, n_topics, K, max_states);
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
          carray<std::int32_t> c(
              {nl, static_cast<py::ssize_t>(n_runs), static_cast<py::ssize_t>(T), static_cast<py::ssize_t>(K)});
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
