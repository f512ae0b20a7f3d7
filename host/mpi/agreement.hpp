// Internal: collective success or failure. A rank runs each local step (argument checks, its device
// work) through attempt(), which keeps the first exception instead of letting it out; agree() is the
// collective round after which every rank knows whether all succeeded, and throws the first failing
// rank's error on every rank. Between two agreements the ranks only run MPI collectives, so a rank that
// failed still takes part in them and nobody waits for a rank that left.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <exception>
#include <string>
#include <utility>
#include <vector>

#include "clsort/clsort.hpp"

namespace clsort::mpi::detail {

/// One field every rank must pass alike (the key type, the value width, ...), by name for the message.
struct Field {
  const char* name;
  std::int64_t value;
};

class Agreement {
 public:
  Agreement(MPI_Comm comm, int rank, int ranks) : comm_(comm), rank_(rank), ranks_(ranks) {}

  /// Runs f unless an earlier step failed; keeps what it throws.
  template <class F>
  void attempt(F&& f) noexcept {
    if (failed_) return;
    try {
      f();
    } catch (...) {
      keep(std::current_exception());
    }
  }
  bool failed() const { return failed_; }

  /// Collective over the communicator: returns when every rank succeeded and passed the same `fields`;
  /// otherwise throws clsort::Error on every rank, naming the lowest failing rank and carrying its
  /// status, kind, where() and build log (or, for fields that differ, naming them).
  void agree(const std::vector<Field>& fields = {});

 private:
  void keep(std::exception_ptr e) noexcept;

  MPI_Comm comm_;
  int rank_, ranks_;
  bool failed_ = false;
  cl_int status_ = CL_SUCCESS;
  Error::Kind kind_ = Error::Kind::opencl;
  std::string where_, message_, build_log_;
};

}  // namespace clsort::mpi::detail
