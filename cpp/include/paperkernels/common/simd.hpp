// GCC vector extensions of W doubles, for kernels written once and compiled for several vector
// widths (each width in a function with its own target attribute, picked at run time). Only
// element-wise IEEE operations are used on them, so every width returns the same bits. (Operations
// between a vector and a scalar broadcast the scalar.)
#pragma once

#include <cstring>

#if defined(__GNUC__)
#define PAPERKERNELS_ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define PAPERKERNELS_ALWAYS_INLINE inline
#endif

// GCC on x86-64: kernels are also compiled for AVX2 and AVX-512 (target attributes) and picked at
// run time; elsewhere only the baseline variant exists.
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define PAPERKERNELS_SIMD_X86 1
#endif

// Keeps a loaded vector in a register: GCC otherwise may fold the load into every instruction that
// uses the vector, repeating the memory access. (No effect on the value.)
#ifdef PAPERKERNELS_SIMD_X86
#define PAPERKERNELS_IN_REGISTER(v) asm("" : "+v"(v))
#else
#define PAPERKERNELS_IN_REGISTER(v) ((void)0)
#endif

// Around code that passes these vectors between always-inlined helpers (which end up inside
// functions compiled for the width they use): GCC's note that passing wide vectors without AVX
// changes the ABI does not apply there.
#if defined(__GNUC__) && !defined(__clang__)
#define PAPERKERNELS_PSABI_OFF _Pragma("GCC diagnostic push") _Pragma("GCC diagnostic ignored \"-Wpsabi\"")
#define PAPERKERNELS_PSABI_ON _Pragma("GCC diagnostic pop")
#else
#define PAPERKERNELS_PSABI_OFF
#define PAPERKERNELS_PSABI_ON
#endif

PAPERKERNELS_PSABI_OFF

namespace paperkernels::simd {

// The vector widths a kernel is compiled for, and the machine's support for them.
enum class Isa { baseline, avx2, avx512 };

inline bool supported(Isa isa) noexcept {
#ifdef PAPERKERNELS_SIMD_X86
  __builtin_cpu_init();
  if (isa == Isa::avx512) return __builtin_cpu_supports("avx512f");
  if (isa == Isa::avx2) return __builtin_cpu_supports("avx2");
#endif
  return isa == Isa::baseline;
}

// The widest variant this machine runs.
inline Isa widest() noexcept {
  if (supported(Isa::avx512)) return Isa::avx512;
  if (supported(Isa::avx2)) return Isa::avx2;
  return Isa::baseline;
}

template <int W>
struct Vec {
  typedef double type __attribute__((vector_size(8 * W)));
};

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

}  // namespace paperkernels::simd

PAPERKERNELS_PSABI_ON
