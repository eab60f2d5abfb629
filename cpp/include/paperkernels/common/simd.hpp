// The one instruction-set dispatch of every SIMD kernel.
//
// A kernel is written once, as a struct with a static member template
//
//   struct Kernel {
//     template <simd::Isa I> PAPERKERNELS_ALWAYS_INLINE static R run(Args... args) noexcept { ... }
//   };
//
// using simd::vec<I> (GCC vector extensions of simd::width<I> doubles) and per-ISA constants (tile
// shapes: simd::registers<I>). simd::dispatch<Kernel>(isa, args...) calls the variant compiled for
// `isa` (simd::entry<Kernel, Args...>(isa) returns it as a function pointer, for loops that call it
// many times); each variant is a function with its own target attribute, into which run<I> and the
// always-inlined helpers it calls are inlined. Only element-wise IEEE operations are used on the
// vectors (the build keeps multiplies and adds separate: -ffp-contract=off), so a kernel whose
// reductions do not depend on the width returns the same bits under every instruction set. The one
// exception is explicit: simd::mul_add<I>, a fused multiply-add (one rounding) under avx2 and avx512
// (whose variants are compiled with FMA: every AVX2 CPU has it) and a multiply then an add (two
// roundings) under sse2; a kernel that uses it documents its tolerance across instruction sets.
//
// The instruction set in use is process-wide: simd::active(), the widest one the CPU supports
// unless set_active() (Python: paperkernels.set_isa, or PAPERKERNELS_ISA at import) chose another.
#pragma once

#include <atomic>
#include <cstdint>
#include <cstring>
#include <string>

#include "paperkernels/common/errors.hpp"

#if defined(__GNUC__)
#define PAPERKERNELS_ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define PAPERKERNELS_ALWAYS_INLINE inline
#endif

// GCC and clang on x86-64: kernels are also compiled for AVX2 and AVX-512 (target attributes) and
// picked at run time; elsewhere only the baseline variant exists.
#if defined(__GNUC__) && defined(__x86_64__)
#define PAPERKERNELS_SIMD_X86 1
#include <immintrin.h>  // declares the FMA builtins of mul_add
#endif

// Keeps a loaded vector in a register: GCC otherwise may fold the load into every instruction that
// uses the vector, repeating the memory access. (No effect on the value.) Clang does not fold them,
// and checks the constraint before the kernel is inlined into its AVX variant: not used there.
#if defined(PAPERKERNELS_SIMD_X86) && !defined(__clang__)
#define PAPERKERNELS_IN_REGISTER(v) asm("" : "+v"(v))
#else
#define PAPERKERNELS_IN_REGISTER(v) ((void)0)
#endif

// Around code that passes these vectors between always-inlined helpers (which end up inside
// functions compiled for the width they use): GCC's note that passing wide vectors without AVX
// changes the ABI does not apply there.
#if defined(__GNUC__)
#define PAPERKERNELS_PSABI_OFF _Pragma("GCC diagnostic push") _Pragma("GCC diagnostic ignored \"-Wpsabi\"")
#define PAPERKERNELS_PSABI_ON _Pragma("GCC diagnostic pop")
#else
#define PAPERKERNELS_PSABI_OFF
#define PAPERKERNELS_PSABI_ON
#endif

PAPERKERNELS_PSABI_OFF

namespace paperkernels::simd {

// The instruction sets a kernel is compiled for (sse2: the x86-64 baseline, or the plain build on
// other machines), narrowest first.
enum class Isa { sse2 = 0, avx2 = 1, avx512 = 2 };

inline const char* name(Isa isa) noexcept {
  switch (isa) {
    case Isa::avx512:
      return "avx512";
    case Isa::avx2:
      return "avx2";
    default:
      return "sse2";
  }
}

// Parses "avx512", "avx2" or "sse2" (invalid_argument naming `what` otherwise).
inline Isa parse(const std::string& text, const char* what = "isa") {
  if (text == "avx512") return Isa::avx512;
  if (text == "avx2") return Isa::avx2;
  require(text == "sse2", what, ": expected 'avx512', 'avx2' or 'sse2', got '", text, "'");
  return Isa::sse2;
}

inline bool supported(Isa isa) noexcept {
#ifdef PAPERKERNELS_SIMD_X86
  __builtin_cpu_init();
  if (isa == Isa::avx512) return __builtin_cpu_supports("avx512f");
  if (isa == Isa::avx2) return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#endif
  return isa == Isa::sse2;
}

// The widest variant this machine runs.
inline Isa widest() noexcept {
  if (supported(Isa::avx512)) return Isa::avx512;
  if (supported(Isa::avx2)) return Isa::avx2;
  return Isa::sse2;
}

namespace detail {
inline std::atomic<int>& active_slot() noexcept {
  static std::atomic<int> slot{static_cast<int>(widest())};
  return slot;
}
}  // namespace detail

// The instruction set kernels use (process-wide).
inline Isa active() noexcept { return static_cast<Isa>(detail::active_slot().load(std::memory_order_relaxed)); }

// Makes `isa` the one kernels use; invalid_argument when this CPU lacks it.
inline void set_active(Isa isa) {
  require(supported(isa), "isa: this CPU does not support '", name(isa),
          "' (supported: ", supported(Isa::avx512) ? "avx512, " : "", supported(Isa::avx2) ? "avx2, " : "", "sse2)");
  detail::active_slot().store(static_cast<int>(isa), std::memory_order_relaxed);
}

// Doubles per vector register and vector registers per core, by instruction set.
template <Isa I>
constexpr int width = I == Isa::avx512 ? 8
                      : I == Isa::avx2 ? 4
                                       : 2;
template <Isa I>
constexpr int registers = I == Isa::avx512 ? 32 : 16;

template <int W>
struct Vec {
  typedef double type __attribute__((vector_size(8 * W)));
};

// A vector of one register's doubles under instruction set I.
template <Isa I>
using vec = typename Vec<width<I>>::type;

// The lanes of a comparison of two vec<I>: 64-bit integers, -1 where true and 0 where false.
template <Isa I>
using lanes = decltype(vec<I>{} < vec<I>{});

// Lane l holds 2^l, so that `(comparison) & (lane_bits<I>() << s)` puts lane l's outcome at bit
// s + l; fold_bits ORs the lanes into one 64-bit mask.
template <Isa I>
PAPERKERNELS_ALWAYS_INLINE lanes<I> lane_bits() noexcept {
  lanes<I> b;
  for (int l = 0; l < width<I>; ++l) b[l] = std::int64_t{1} << l;
  return b;
}

template <Isa I>
PAPERKERNELS_ALWAYS_INLINE std::uint64_t fold_bits(lanes<I> b) noexcept {
  std::uint64_t mask = 0;
  for (int l = 0; l < width<I>; ++l) mask |= static_cast<std::uint64_t>(b[l]);
  return mask;
}

template <int W>
PAPERKERNELS_ALWAYS_INLINE typename Vec<W>::type load(const double* x) noexcept {
  typename Vec<W>::type v;
  std::memcpy(&v, x, sizeof v);
  return v;
}

template <int W>
PAPERKERNELS_ALWAYS_INLINE void store(double* x, typename Vec<W>::type v) noexcept {
  std::memcpy(x, &v, sizeof v);
}

// A vector of W copies of *x, loaded by one broadcast instruction. (Written as a plain splat of *x,
// GCC may merge neighbouring broadcasts into one vector load and shuffles, which compete with the
// arithmetic for the vector pipes; GCC's AVX2 builtin keeps it a load. clang has no such builtin
// and emits the splat as a broadcast load.)
template <Isa I>
PAPERKERNELS_ALWAYS_INLINE vec<I> broadcast(const double* x) noexcept {
#if defined(PAPERKERNELS_SIMD_X86) && !defined(__clang__)
  if constexpr (I == Isa::avx2) return __builtin_ia32_vbroadcastsd256(x);
#endif
  return *x - vec<I>{};  // x - 0 is x for every double, -0 and NaN included
}

// a * b + c lane by lane: fused (rounded once) under avx2 and avx512, a rounded product then a rounded
// sum under sse2 (which has no FMA). Call it only from a kernel's run<I>.
// GCC: its builtins, unlike the intrinsics of immintrin.h, are only checked against the target of
// the function they end up in (the avx2 and avx512 variants below). clang checks them in every
// function that names them, so there the product and the sum are contracted into llvm.fmuladd,
// which the backend emits as one FMA in the variants compiled with FMA.
template <Isa I>
PAPERKERNELS_ALWAYS_INLINE vec<I> mul_add(vec<I> a, vec<I> b, vec<I> c) noexcept {
#if defined(PAPERKERNELS_SIMD_X86) && defined(__clang__)
  if constexpr (I != Isa::sse2) {
#pragma clang fp contract(on)
    return a * b + c;
  }
#elif defined(PAPERKERNELS_SIMD_X86)
  if constexpr (I == Isa::avx512)
    return __builtin_ia32_vfmaddpd512_mask(a, b, c, static_cast<unsigned char>(-1), 4);  // 4: current rounding
  else if constexpr (I == Isa::avx2)
    return __builtin_ia32_vfmaddpd256(a, b, c);
#endif
  return a * b + c;
}

// The variants of a kernel, one function per instruction set.
template <class Kernel, class... Args>
decltype(auto) run_sse2(Args... args) {
  return Kernel::template run<Isa::sse2>(args...);
}
#ifdef PAPERKERNELS_SIMD_X86
template <class Kernel, class... Args>
__attribute__((target("avx2,fma"))) decltype(auto) run_avx2(Args... args) {
  return Kernel::template run<Isa::avx2>(args...);
}
template <class Kernel, class... Args>
__attribute__((target("avx512f,fma"))) decltype(auto) run_avx512(Args... args) {
  return Kernel::template run<Isa::avx512>(args...);
}
#endif

// The variant of Kernel for `isa` (which the CPU must support), as a function pointer.
template <class Kernel, class... Args>
auto entry(Isa isa) noexcept -> decltype(&run_sse2<Kernel, Args...>) {
#ifdef PAPERKERNELS_SIMD_X86
  if (isa == Isa::avx512) return &run_avx512<Kernel, Args...>;
  if (isa == Isa::avx2) return &run_avx2<Kernel, Args...>;
#endif
  (void)isa;
  return &run_sse2<Kernel, Args...>;
}

// Calls the variant of Kernel for `isa`.
template <class Kernel, class... Args>
decltype(auto) dispatch(Isa isa, Args... args) {
  return entry<Kernel, Args...>(isa)(args...);
}

}  // namespace paperkernels::simd

PAPERKERNELS_PSABI_ON
