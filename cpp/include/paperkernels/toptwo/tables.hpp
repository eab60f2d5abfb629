// Cached values of n log n and log n for integer n >= 0. Every cached entry is computed by the same
// expression as the direct functions below, so a lookup and a direct evaluation agree bit for bit and
// results never depend on how large the cache happens to be.
#pragma once

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

namespace paperkernels::toptwo {

inline double n_log_n(std::int64_t n) noexcept {
  return n == 0 ? 0.0 : static_cast<double>(n) * std::log(static_cast<double>(n));
}

// log 0 is never needed (counts are positive when a log is taken); 0 keeps the table total.
inline double log_n(std::int64_t n) noexcept { return n == 0 ? 0.0 : std::log(static_cast<double>(n)); }

// A process-wide table of f(0), f(1), ... that grows on demand up to `capacity` entries and is read
// without locking. A grown table is published as a new immutable block; older blocks stay alive
// (readers may still hold them), which at most doubles the memory.
class GrowingTable {
 public:
  using Function = double (*)(std::int64_t);

  struct Block {
    std::vector<double> values;
  };

  GrowingTable(Function f, std::int64_t capacity) : f_(f), capacity_(capacity) {}

  Function function() const noexcept { return f_; }
  std::int64_t capacity() const noexcept { return capacity_; }

  const Block* current() const noexcept { return current_.load(std::memory_order_acquire); }

  // A block holding entry n (if n < capacity), else the largest block there is.
  const Block* ensure(std::int64_t n) {
    const Block* block = current();
    if (block != nullptr && (n < static_cast<std::int64_t>(block->values.size()) ||
                             static_cast<std::int64_t>(block->values.size()) == capacity_))
      return block;
    std::lock_guard<std::mutex> lock(mutex_);
    block = current();
    const std::int64_t have = block == nullptr ? 0 : static_cast<std::int64_t>(block->values.size());
    if (n < have || have == capacity_) return block;
    std::int64_t size = std::max<std::int64_t>(have * 2, std::int64_t{1} << 12);
    while (size <= n) size *= 2;
    size = std::min(size, capacity_);
    auto grown = std::make_unique<Block>();
    grown->values.resize(static_cast<std::size_t>(size));
    for (std::int64_t i = 0; i < have; ++i) grown->values[i] = block->values[i];
    for (std::int64_t i = have; i < size; ++i) grown->values[i] = f_(i);
    const Block* published = grown.get();
    blocks_.push_back(std::move(grown));
    current_.store(published, std::memory_order_release);
    return published;
  }

 private:
  Function f_;
  std::int64_t capacity_;
  std::atomic<const Block*> current_{nullptr};
  std::mutex mutex_;
  std::vector<std::unique_ptr<Block>> blocks_;
};

// n log n: 2^18 entries (2 MiB, at most 4 MiB with the superseded blocks), small enough to stay in
// the caches next to a core's other data; beyond that the function is evaluated directly (one
// std::log, cheaper than the misses to memory that a table of 10^7 entries costs on long episodes).
// Tables grow only as far as the longest episode run so far.
inline GrowingTable& n_log_n_table() {
  static GrowingTable table(&n_log_n, std::int64_t{1} << 18);
  return table;
}

// log n: the same size.
inline GrowingTable& log_n_table() {
  static GrowingTable table(&log_n, std::int64_t{1} << 18);
  return table;
}

// A reader's view of a table: a plain pointer and size, refreshed only when an entry is missing.
class TableReader {
 public:
  explicit TableReader(GrowingTable& table) : table_(&table) { refresh(table.ensure(0)); }

  double operator()(std::int64_t n) {
    if (n < size_) return data_[n];
    return miss(n);
  }

  // Entries 0..n are in the cached block (growing it if the capacity allows).
  bool cover(std::int64_t n) {
    if (n < size_) return true;
    if (n < table_->capacity()) refresh(table_->ensure(n));
    return n < size_;
  }

  const double* data() const noexcept { return data_; }
  std::int64_t size() const noexcept { return size_; }

 private:
  double miss(std::int64_t n) {
    if (n < table_->capacity()) {
      refresh(table_->ensure(n));
      if (n < size_) return data_[n];
    }
    return table_->function()(n);
  }

  void refresh(const GrowingTable::Block* block) {
    data_ = block->values.data();
    size_ = static_cast<std::int64_t>(block->values.size());
  }

  GrowingTable* table_;
  const double* data_ = nullptr;
  std::int64_t size_ = 0;
};

}  // namespace paperkernels::toptwo
