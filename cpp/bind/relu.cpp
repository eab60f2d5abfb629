// Bindings of paperkernels.relu: the float path of the generic deep canonical form.
#include <pybind11/stl.h>

#include <memory>
#include <string>
#include <vector>

#include "bind_common.hpp"
#include "paperkernels/relu/deep_form.hpp"
#include "paperkernels/relu/one_hidden.hpp"

namespace py = pybind11;
using namespace paperkernels;
using paperkernels::bind::carray;

namespace {

// Keeps the parameter arrays alive for as long as the form (which points into them).
struct DeepFormHandle {
  std::vector<carray<double>> weights, biases;
  std::unique_ptr<relu::DeepForm> form;
};

std::shared_ptr<DeepFormHandle> make_form(const std::vector<carray<double>>& weights,
                                          const std::vector<carray<double>>& biases) {
  require(!weights.empty() && weights.size() == biases.size(),
          "weights, biases: expected the same non-zero number of layers");
  auto handle = std::make_shared<DeepFormHandle>();
  handle->weights = weights;
  handle->biases = biases;
  std::vector<relu::LayerView> layers;
  for (std::size_t l = 0; l < weights.size(); ++l) {
    const auto& W = weights[l];
    const auto& b = biases[l];
    bind::require_ndim(W, 2, "weights[l]");
    bind::require_ndim(b, 1, "biases[l]");
    const auto rows = static_cast<std::size_t>(W.shape(0)), cols = static_cast<std::size_t>(W.shape(1));
    require(static_cast<std::size_t>(b.shape(0)) == rows, "biases[", l, "]: expected length ", rows, ", got ",
            b.shape(0));
    if (l > 0)
      require(cols == layers.back().rows, "weights[", l, "]: expected ", layers.back().rows, " columns, got ", cols);
    layers.push_back({W.data(), b.data(), rows, cols});
  }
  {
    py::gil_scoped_release release;
    handle->form = std::make_unique<relu::DeepForm>(std::move(layers), bind::python_signal_poll());
  }
  return handle;
}

}  // namespace

void bind_relu(py::module_& m) {
  py::class_<DeepFormHandle, std::shared_ptr<DeepFormHandle>>(m, "DeepForm", "Generic deep canonical form (float path)")
      .def_property_readonly("ok", [](const DeepFormHandle& h) { return h.form->ok(); })
      .def_property_readonly("reason", [](const DeepFormHandle& h) { return h.form->reason(); })
      .def_property_readonly("relative_error", [](const DeepFormHandle& h) { return h.form->relative_error(); })
      .def("orders",
           [](const DeepFormHandle& h) {
             std::vector<std::vector<std::size_t>> out;
             for (std::size_t l = 0; l + 1 < h.form->n_layers(); ++l) out.push_back(h.form->order(l));
             return out;
           })
      .def("scales",
           [](const DeepFormHandle& h) {
             std::vector<std::vector<double>> out;
             for (std::size_t l = 0; l + 1 < h.form->n_layers(); ++l) out.push_back(h.form->scale(l));
             return out;
           })
      .def("pivots",
           [](const DeepFormHandle& h) {
             std::vector<std::vector<int>> out;
             for (std::size_t l = 0; l + 1 < h.form->n_layers(); ++l) out.push_back(h.form->pivot(l));
             return out;
           })
      .def("materialize",
           [](DeepFormHandle& h) {
             require(h.form->ok(), "materialize: the form is degenerate (", h.form->reason(), ")");
             std::vector<carray<double>> Ws, bs;
             std::vector<double*> pw, pb;
             for (std::size_t l = 0; l < h.form->n_layers(); ++l) {
               const auto& lay = h.form->layer(l);
               Ws.emplace_back(
                   std::vector<py::ssize_t>{static_cast<py::ssize_t>(lay.rows), static_cast<py::ssize_t>(lay.cols)});
               bs.emplace_back(static_cast<py::ssize_t>(lay.rows));
               pw.push_back(Ws.back().mutable_data());
               pb.push_back(bs.back().mutable_data());
             }
             bool ok;
             {
               py::gil_scoped_release release;
               ok = h.form->materialize(pw, pb);
             }
             return py::make_tuple(ok, Ws, bs);
           })
      .def("equals", [](DeepFormHandle& a, DeepFormHandle& b) {
        py::gil_scoped_release release;
        return forms_equal(*a.form, *b.form);
      });

  m.def(
      "one_hidden_equal",
      [](const carray<double>& W1a, const carray<double>& b1a, const carray<double>& W2a, const carray<double>& b2a,
         const carray<double>& W1b, const carray<double>& b1b, const carray<double>& W2b, const carray<double>& b2b) {
        auto view = [](const carray<double>& W1, const carray<double>& b1, const carray<double>& W2,
                       const carray<double>& b2, const char* name) {
          bind::require_ndim(W1, 2, name);
          bind::require_ndim(W2, 2, name);
          const auto m = static_cast<std::size_t>(W1.shape(0)), n0 = static_cast<std::size_t>(W1.shape(1));
          const auto n_out = static_cast<std::size_t>(W2.shape(0));
          require(static_cast<std::size_t>(W2.shape(1)) == m && static_cast<std::size_t>(b1.size()) == m &&
                      static_cast<std::size_t>(b2.size()) == n_out,
                  name, ": inconsistent shapes");
          return relu::OneHiddenView{W1.data(), b1.data(), W2.data(), b2.data(), n0, m, n_out};
        };
        const auto a = view(W1a, b1a, W2a, b2a, "a");
        const auto b = view(W1b, b1b, W2b, b2b, "b");
        require(a.n0 == b.n0 && a.n_out == b.n_out, "b: expected the input and output sizes of a");
        py::gil_scoped_release release;
        return relu::OneHiddenDifference(a, b, bind::python_signal_poll()).equal();
      },
      "Exact equivalence of two one-hidden-layer float64 networks (procedure (a) on their difference).");

  m.def("deep_form", &make_form, py::arg("weights"), py::arg("biases"),
        "Generic deep canonical form of a float64 network: scales, pivots and orders, with every close "
        "decision settled exactly.");
}
