// Bindings of paperkernels.shapes: Zernike radial recurrences, moments of masks, polar grids and
// polygons, synthesis, frequency propagation and raster helpers. The Python layer validates
// arguments; the checks here only guard the C++ against misuse of the private API.
#include <pybind11/complex.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <complex>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "bind_common.hpp"
#include "paperkernels/shapes/cartesian.hpp"
#include "paperkernels/shapes/freqprop.hpp"
#include "paperkernels/shapes/polar.hpp"
#include "paperkernels/shapes/polygon.hpp"
#include "paperkernels/shapes/raster.hpp"
#include "paperkernels/shapes/zernike.hpp"

namespace py = pybind11;
using namespace paperkernels;
using namespace paperkernels::shapes;
using paperkernels::bind::carray;
using cplx = std::complex<double>;

namespace {

// Calls fn(const T*) with the data of a C-contiguous float64, float32, uint8 or bool array.
template <class Fn>
void with_mask_data(const py::array& a, const char* name, Fn&& fn) {
  require((a.flags() & py::array::c_style) != 0, name, ": expected a C-contiguous array");
  const auto dtype = a.dtype();
  if (dtype.equal(py::dtype::of<double>()))
    fn(static_cast<const double*>(a.data()));
  else if (dtype.equal(py::dtype::of<float>()))
    fn(static_cast<const float*>(a.data()));
  else if (dtype.equal(py::dtype::of<std::uint8_t>()) || dtype.equal(py::dtype::of<bool>()))
    fn(static_cast<const std::uint8_t*>(a.data()));
  else
    fail(name, ": expected float64, float32, uint8 or bool values");
}

RingSet ring_set(const carray<double>& xy, const carray<std::int64_t>& ring_start, const carray<double>& ring_sign,
                 const carray<std::int64_t>& poly_start, std::size_t b) {
  const auto* ps = poly_start.data();
  return RingSet{xy.data(), ring_start.data(), ring_sign.data(), static_cast<std::size_t>(ps[b]),
                 static_cast<std::size_t>(ps[b + 1])};
}

void check_rings(const carray<double>& xy, const carray<std::int64_t>& ring_start, const carray<double>& ring_sign,
                 const carray<std::int64_t>& poly_start) {
  require(xy.ndim() == 2 && xy.shape(1) == 2, "vertices: expected shape (V, 2)");
  const auto n_rings = ring_sign.size();
  require(ring_start.size() == n_rings + 1, "ring_start: expected one more entry than rings");
  require(poly_start.size() >= 1, "poly_start: expected at least one entry");
  const auto* rs = ring_start.data();
  const auto* ps = poly_start.data();
  require(rs[0] == 0 && rs[n_rings] == xy.shape(0), "ring_start: expected 0 ... V");
  for (py::ssize_t r = 0; r < n_rings; ++r) require(rs[r] <= rs[r + 1], "ring_start: expected non-decreasing");
  require(ps[0] == 0 && ps[poly_start.size() - 1] == n_rings, "poly_start: expected 0 ... n_rings");
  for (py::ssize_t p = 0; p + 1 < poly_start.size(); ++p)
    require(ps[p] <= ps[p + 1], "poly_start: expected non-decreasing");
}

}  // namespace

void bind_shapes(py::module_& m) {
  // Options chosen once in Python (paperkernels.shapes validates the user's strings).
  py::enum_<PolygonRule>(m, "PolygonRule", "Quadrature of the exact polygon moments.")
      .value("boundary", PolygonRule::boundary, "Line integrals along the edges (Green's theorem).")
      .value("fan", PolygonRule::fan, "Triangles fanned from the origin.");
  py::enum_<CartesianBasis::Purpose>(m, "BasisPurpose", "What a CartesianBasis is built for.")
      .value("analysis", CartesianBasis::Purpose::analysis, "Moments of masks (analyse).")
      .value("synthesis", CartesianBasis::Purpose::synthesis, "Fields from coefficients (synthesize).");

  m.def(
      "half_size", [](int N) { return half_size(N); }, py::arg("N"),
      "S(N) = floor((N + 2)^2 / 4), the number of (n, m >= 0) pairs of order <= N.");

  m.def(
      "radial_table",
      [](int N, const carray<double>& rho) {
        require(N >= 0, "N: expected a non-negative order");
        const auto n = rho.size();
        const auto S = static_cast<py::ssize_t>(half_size(N));
        carray<double> out({n, S});
        const double* r = rho.data();
        double* o = out.mutable_data();
        {
          py::gil_scoped_release release;
          const Poll poll = bind::python_signal_poll();
          Checkpoint checkpoint(poll);
          RadialTable table(N);
          for (py::ssize_t i = 0; i < n; ++i) {
            table.evaluate(r[i], o + i * S);
            checkpoint.tick(static_cast<std::size_t>(S) + 1);
          }
        }
        return out;
      },
      py::arg("N"), py::arg("rho"),
      "R_n^m(rho) for the half set of order N (Prata recurrence): shape (len(rho), S(N)).");

  m.def(
      "radial_band",
      [](int mm, int L, const carray<double>& rho) {
        require(mm >= 0 && L >= 0, "m, L: expected non-negative integers");
        const auto n = rho.size();
        carray<double> out({n, static_cast<py::ssize_t>(L)});
        const double* r = rho.data();
        double* o = out.mutable_data();
        {
          py::gil_scoped_release release;
          const Poll poll = bind::python_signal_poll();
          Checkpoint checkpoint(poll);
          for (py::ssize_t i = 0; i < n; ++i) {
            radial_band(mm, L, r[i], o + i * L);
            checkpoint.tick(static_cast<std::size_t>(L) + 1);
          }
        }
        return out;
      },
      py::arg("m"), py::arg("L"), py::arg("rho"),
      "R_{m+2j}^m(rho) for j < L (Kintner recurrence): shape (len(rho), L).");

  m.def(
      "gauss_legendre",
      [](int q) {
        require(q >= 1, "q: expected a positive number of nodes");
        carray<double> x(q), w(q);
        double* xs = x.mutable_data();
        double* ws = w.mutable_data();
        {
          py::gil_scoped_release release;
          const Poll poll = bind::python_signal_poll();
          Checkpoint checkpoint(poll);
          gauss_legendre(q, xs, ws, &checkpoint);
        }
        return py::make_tuple(x, w);
      },
      py::arg("q"), "Gauss-Legendre nodes and weights on [-1, 1].");

  py::class_<CartesianBasis, std::shared_ptr<CartesianBasis>>(m, "CartesianBasis")
      .def(py::init([](int N, int H, int W, int supersample, CartesianBasis::Purpose purpose, double max_basis_bytes,
                       unsigned threads) {
             bind::known(purpose, CartesianBasis::Purpose::synthesis, "purpose");
             py::gil_scoped_release release;
             return std::make_shared<CartesianBasis>(N, H, W, supersample, purpose,
                                                     static_cast<std::size_t>(max_basis_bytes), threads,
                                                     bind::python_signal_poll());
           }),
           py::arg("N"), py::arg("H"), py::arg("W"), py::arg("supersample"), py::arg("purpose"),
           py::arg("max_basis_bytes"), py::arg("n_threads"))
      .def_property_readonly("N", &CartesianBasis::order)
      .def_property_readonly("H", &CartesianBasis::height)
      .def_property_readonly("W", &CartesianBasis::width)
      .def_property_readonly("precomputed", &CartesianBasis::precomputed)
      .def_property_readonly("folded", &CartesianBasis::folded)
      .def_property_readonly("basis_bytes", &CartesianBasis::basis_bytes)
      .def_property_readonly("n_pixels", &CartesianBasis::n_pixels)
      .def(
          "analyse",
          [](const CartesianBasis& basis, const py::array& masks, unsigned threads) {
            require(masks.ndim() == 3 && masks.shape(1) == basis.height() && masks.shape(2) == basis.width(),
                    "masks: expected shape (B, ", basis.height(), ", ", basis.width(), ")");
            const auto B = masks.shape(0);
            carray<cplx> out({B, static_cast<py::ssize_t>(basis.half())});
            auto* o = reinterpret_cast<double*>(out.mutable_data());
            with_mask_data(masks, "masks", [&](const auto* data) {
              py::gil_scoped_release release;
              basis.analyse(data, static_cast<std::size_t>(B), o, threads, bind::python_signal_poll());
            });
            return out;
          },
          py::arg("masks"), py::arg("n_threads"), "Zernike moments (B, S) of masks (B, H, W).")
      .def(
          "synthesize",
          [](const CartesianBasis& basis, const carray<cplx>& coeffs, unsigned threads) {
            require(coeffs.ndim() == 2 && coeffs.shape(1) == static_cast<py::ssize_t>(basis.half()),
                    "coefficients: expected shape (B, ", basis.half(), ")");
            const auto B = coeffs.shape(0);
            carray<double> out({B, static_cast<py::ssize_t>(basis.height()), static_cast<py::ssize_t>(basis.width())});
            const auto* c = reinterpret_cast<const double*>(coeffs.data());
            double* o = out.mutable_data();
            {
              py::gil_scoped_release release;
              basis.synthesize(c, static_cast<std::size_t>(B), o, threads, bind::python_signal_poll());
            }
            return out;
          },
          py::arg("coefficients"), py::arg("n_threads"), "Real field (B, H, W) of half-set coefficients (B, S).");

  py::class_<PolarBasis, std::shared_ptr<PolarBasis>>(m, "PolarBasis")
      .def(py::init([](int N, std::vector<double> theta, std::vector<double> wtheta, std::vector<double> rho,
                       std::vector<double> wrho, std::vector<double> scale) {
             py::gil_scoped_release release;
             return std::make_shared<PolarBasis>(N, std::move(theta), std::move(wtheta), std::move(rho),
                                                 std::move(wrho), std::move(scale), bind::python_signal_poll());
           }),
           py::arg("N"), py::arg("theta"), py::arg("wtheta"), py::arg("rho"), py::arg("wrho"), py::arg("scale"))
      .def_property_readonly("n_theta", &PolarBasis::n_theta)
      .def_property_readonly("n_rho", &PolarBasis::n_rho)
      .def(
          "analyse",
          [](const PolarBasis& basis, const py::array& values, unsigned threads, py::ssize_t S) {
            require(values.ndim() == 3 && values.shape(1) == static_cast<py::ssize_t>(basis.n_theta()) &&
                        values.shape(2) == static_cast<py::ssize_t>(basis.n_rho()),
                    "masks: expected shape (B, n_theta, n_rho)");
            const auto B = values.shape(0);
            carray<cplx> out({B, S});
            auto* o = out.mutable_data();
            with_mask_data(values, "masks", [&](const auto* data) {
              py::gil_scoped_release release;
              basis.analyse(data, static_cast<std::size_t>(B), o, threads, bind::python_signal_poll());
            });
            return out;
          },
          py::arg("values"), py::arg("n_threads"), py::arg("S"), "Zernike moments (B, S) of polar grids.");

  m.def(
      "polygon_moments",
      [](int N, const carray<double>& xy, const carray<std::int64_t>& ring_start, const carray<double>& ring_sign,
         const carray<std::int64_t>& poly_start, PolygonRule rule, unsigned threads) {
        bind::known(rule, PolygonRule::fan, "rule");
        require(N >= 0, "N: expected a non-negative order");
        check_rings(xy, ring_start, ring_sign, poly_start);
        const auto B = poly_start.size() - 1;
        const auto S = static_cast<py::ssize_t>(half_size(N));
        carray<cplx> out({B, S});
        auto* o = out.mutable_data();
        {
          py::gil_scoped_release release;
          // Small tasks when each polygon is costly (~vertices x S), so that Ctrl-C is seen quickly.
          const double work_per_polygon = static_cast<double>(xy.shape(0)) /
                                          static_cast<double>(std::max<py::ssize_t>(B, 1)) * static_cast<double>(S);
          const std::size_t per_task =
              static_cast<std::size_t>(std::clamp(2.0e5 / std::max(work_per_polygon, 1.0), 1.0, 16.0));
          const std::size_t n_tasks = (static_cast<std::size_t>(B) + per_task - 1) / per_task;
          run_parallel(n_tasks, threads, bind::python_signal_poll(), [&](std::size_t t, Checkpoint& checkpoint) {
            PolygonMoments engine(N, rule);
            const std::size_t end = std::min(static_cast<std::size_t>(B), (t + 1) * per_task);
            for (std::size_t b = t * per_task; b < end; ++b)
              engine.compute(ring_set(xy, ring_start, ring_sign, poly_start, b), o + b * S, &checkpoint);
          });
        }
        return out;
      },
      py::arg("N"), py::arg("vertices"), py::arg("ring_start"), py::arg("ring_sign"), py::arg("poly_start"),
      py::arg("rule"), py::arg("n_threads"), "Exact Zernike moments (B, S) of polygons given as packed rings.");

  m.def(
      "freqprop",
      [](const carray<cplx>& z, int N, double lambda, bool radial, bool angular, bool inverse) {
        require(z.ndim() == 2 && z.shape(1) == static_cast<py::ssize_t>(half_size(N)),
                "coefficients: expected shape (B, S(N))");
        carray<cplx> out({z.shape(0), z.shape(1)});
        const auto total = z.size();
        std::copy(z.data(), z.data() + total, out.mutable_data());
        cplx* o = out.mutable_data();
        {
          py::gil_scoped_release release;
          const Poll poll = bind::python_signal_poll();
          Checkpoint checkpoint(poll);
          for (py::ssize_t b = 0; b < z.shape(0); ++b) {
            if (inverse)
              freqprop_inverse(N, lambda, radial, angular, o + b * z.shape(1));
            else
              freqprop_forward(N, lambda, radial, angular, o + b * z.shape(1));
            checkpoint.tick(2 * static_cast<std::size_t>(z.shape(1)));
          }
        }
        return out;
      },
      py::arg("z"), py::arg("N"), py::arg("lam"), py::arg("radial"), py::arg("angular"), py::arg("inverse"),
      "Frequency propagation (or its inverse) of half-set coefficients (B, S).");

  m.def(
      "rasterize",
      [](const carray<double>& xy, const carray<std::int64_t>& ring_start, const carray<double>& ring_sign,
         const carray<std::int64_t>& poly_start, int H, int W, int supersample, unsigned threads) {
        require(H >= 1 && W >= 1, "res: expected positive image sizes");
        require(supersample >= 1 && supersample <= 16, "supersample: expected an integer in [1, 16]");
        check_rings(xy, ring_start, ring_sign, poly_start);
        const auto B = poly_start.size() - 1;
        carray<double> out({B, static_cast<py::ssize_t>(H), static_cast<py::ssize_t>(W)});
        double* o = out.mutable_data();
        {
          py::gil_scoped_release release;
          run_parallel(static_cast<std::size_t>(B), threads, bind::python_signal_poll(),
                       [&](std::size_t b, Checkpoint& checkpoint) {
                         rasterize(ring_set(xy, ring_start, ring_sign, poly_start, b), H, W, supersample,
                                   o + b * static_cast<std::size_t>(H) * W, checkpoint);
                       });
        }
        return out;
      },
      py::arg("vertices"), py::arg("ring_start"), py::arg("ring_sign"), py::arg("poly_start"), py::arg("H"),
      py::arg("W"), py::arg("supersample"), py::arg("n_threads"), "Coverage masks (B, H, W) of packed polygons.");

  m.def(
      "resample",
      [](const py::array& masks, const carray<double>& transform, int R, int C, int supersample, unsigned threads) {
        require(masks.ndim() == 3, "masks: expected a 3-d array");
        const auto B = masks.shape(0);
        require(transform.ndim() == 2 && transform.shape(0) == B && transform.shape(1) == 3,
                "transform: expected shape (B, 3)");
        const int H = static_cast<int>(masks.shape(1)), W = static_cast<int>(masks.shape(2));
        carray<double> out({B, static_cast<py::ssize_t>(R), static_cast<py::ssize_t>(C)});
        double* o = out.mutable_data();
        const double* t = transform.data();
        with_mask_data(masks, "masks", [&](const auto* data) {
          py::gil_scoped_release release;
          run_parallel(static_cast<std::size_t>(B), threads, bind::python_signal_poll(),
                       [&](std::size_t b, Checkpoint& checkpoint) {
                         resample(data + b * static_cast<std::size_t>(H) * W, H, W, t[3 * b], t[3 * b + 1],
                                  t[3 * b + 2], R, C, supersample, o + b * static_cast<std::size_t>(R) * C, checkpoint);
                       });
        });
        return out;
      },
      py::arg("masks"), py::arg("transform"), py::arg("R"), py::arg("C"), py::arg("supersample"), py::arg("n_threads"),
      "Masks resampled at c + unit / scale for transform rows (c_x, c_y, scale).");
}
