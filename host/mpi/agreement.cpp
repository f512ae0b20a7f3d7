// The agreement rounds of clsort::mpi (agreement.hpp).
#include "agreement.hpp"

#include <limits>
#include <new>

#include "mpi_check.hpp"

namespace clsort::mpi::detail {

void Agreement::keep(std::exception_ptr e) noexcept {
  failed_ = true;
  try {
    std::rethrow_exception(e);
  } catch (const Error& x) {
    status_ = x.status();
    kind_ = x.kind();
    where_ = x.where();
    message_ = x.what();
    build_log_ = x.build_log();
  } catch (const std::bad_alloc&) {
    status_ = CL_OUT_OF_HOST_MEMORY;
    kind_ = Error::Kind::opencl;
    where_ = "host memory";
    message_ = "clsort: out of host memory";
  } catch (const std::exception& x) {
    status_ = CL_INVALID_OPERATION;
    kind_ = Error::Kind::opencl;
    where_ = "clsort::mpi";
    message_ = x.what();
  } catch (...) {
    status_ = CL_INVALID_OPERATION;
    kind_ = Error::Kind::opencl;
    where_ = "clsort::mpi";
    message_ = "unknown exception";
  }
}

void Agreement::agree(const std::vector<Field>& fields) {
  // One reduction by MIN: the lowest failing rank, each field's minimum and (negated) maximum.
  constexpr std::int64_t none = std::numeric_limits<std::int64_t>::max();
  std::vector<std::int64_t> v(1 + 2 * fields.size());
  v[0] = failed_ ? rank_ : none;
  for (std::size_t i = 0; i < fields.size(); ++i) {
    v[1 + 2 * i] = fields[i].value;
    v[2 + 2 * i] = -fields[i].value;
  }
  check_mpi(MPI_Allreduce(MPI_IN_PLACE, v.data(), int(v.size()), MPI_INT64_T, MPI_MIN, comm_),
            "MPI_Allreduce");
  const std::string who = " of " + std::to_string(ranks_);
  if (v[0] != none) {
    const int root = int(v[0]);
    // The failing rank's error, word by word to every rank.
    std::int64_t head[5] = {status_, std::int64_t(kind_), std::int64_t(where_.size()),
                            std::int64_t(message_.size()), std::int64_t(build_log_.size())};
    check_mpi(MPI_Bcast(head, 5, MPI_INT64_T, root, comm_), "MPI_Bcast");
    std::string text = where_ + message_ + build_log_;
    text.resize(std::size_t(head[2] + head[3] + head[4]));
    check_mpi(MPI_Bcast(text.data(), int(text.size()), MPI_CHAR, root, comm_), "MPI_Bcast");
    const std::string where = text.substr(0, std::size_t(head[2]));
    const std::string message = text.substr(std::size_t(head[2]), std::size_t(head[3]));
    const std::string log = text.substr(std::size_t(head[2] + head[3]));
    throw Error(cl_int(head[0]), where,
                "clsort::mpi: rank " + std::to_string(root) + who + " failed: " + message, log,
                Error::Kind(head[1]));
  }
  std::string differ;
  for (std::size_t i = 0; i < fields.size(); ++i)
    if (v[1 + 2 * i] != -v[2 + 2 * i])
      differ += std::string(differ.empty() ? "" : ", ") + fields[i].name + " (" +
                std::to_string(v[1 + 2 * i]) + " to " + std::to_string(-v[2 + 2 * i]) + ")";
  if (!differ.empty())
    throw Error(CL_INVALID_VALUE, fields.size() ? "options" : "",
                "clsort::mpi: invalid argument: the ranks" + who + " differ in " + differ +
                    "; every rank must sort the same key and value types with the same options",
                {}, Error::Kind::invalid_argument);
}

}  // namespace clsort::mpi::detail
