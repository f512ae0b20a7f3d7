// `clsort sort`: sorts a file of keys (optionally with a file of values) on an OpenCL device. Inputs
// larger than the device's memory are sorted in chunks that fit, spilled as sorted runs and k-way merged
// on the host in the device's order.
#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>
#include <optional>
#include <queue>

#include <clsort/key_transform.hpp>

#include "commands.hpp"
#include "io.hpp"

namespace clsort_cli {
namespace {

bool is_out_of_memory(cl_int status) {
  return status == CL_MEM_OBJECT_ALLOCATION_FAILURE || status == CL_OUT_OF_RESOURCES ||
         status == CL_OUT_OF_HOST_MEMORY || status == CL_INVALID_BUFFER_SIZE;
}

/// The device could not hold a pass: the sort retries it in halves.
class DeviceOutOfMemory : public CliError {
 public:
  using CliError::CliError;
};

void check(cl_int status, const char* what) {
  if (status == CL_SUCCESS) return;
  const std::string message = cl_failure(status, what);
  if (is_out_of_memory(status)) throw DeviceOutOfMemory(message);
  throw CliError(message);
}

/// How many keys one device pass sorts. Sorter::sort_buffer keeps scratch copies of the keys and values
/// (and a 4-byte index for bitonic by-key sorts), grown with a quarter of headroom, next to our own
/// buffers: about 2.25 copies per element. Half the global memory is left to the driver and other users.
std::size_t chunk_capacity(const cl::Device& d, std::size_t kb, std::size_t vb, clsort::Algorithm a) {
  const double global = double(d.getInfo<CL_DEVICE_GLOBAL_MEM_SIZE>());
  const double max_alloc = double(d.getInfo<CL_DEVICE_MAX_MEM_ALLOC_SIZE>());
  const double per_key = 2.25 * double(kb + vb) + (vb ? 5.0 : 0.0);
  double cap = std::min(0.5 * global / per_key, max_alloc / double(std::max(kb, vb)));
  cap = std::min(cap, double(clsort::max_n(a)));
  cap = std::min(cap, double(std::uint32_t(-1)));
  return std::max<std::size_t>(1, std::size_t(cap));
}

struct Job {
  const SortArgs& args;
  clsort::KeyType type, values_type;
  bool with_values;
  Format format;
  clsort::Options options;
  cl::Device device;
};

template <class K>
class Sorting {
 public:
  using U = clsort::key_bits_t<K>;

  Sorting(const Job& job, ElementReader& keys_in, ElementReader* values_in, Input& keys_file,
          Output& keys_out, Output* values_out)
      : job_(job),
        keys_in_(keys_in),
        values_in_(values_in),
        keys_file_(keys_file),
        keys_out_(keys_out),
        values_out_(values_out),
        vb_(job.with_values ? clsort::key_size(job.values_type) : 0),
        sorter_(job.device),
        progress_(stderr_is_terminal()) {}

  void run() {
    const auto start = std::chrono::steady_clock::now();
    std::size_t cap = job_.args.chunk_keys
                          ? job_.args.chunk_keys
                          : chunk_capacity(job_.device, sizeof(K), vb_, job_.options.algorithm);
    cap = std::min<std::size_t>(cap, clsort::max_n(job_.options.algorithm));
    // A binary file's key count is known: allocate no more than it needs and plan the passes up front.
    const std::int64_t bytes = keys_file_.size();
    std::size_t expected_chunks = 0;
    if (bytes >= 0) {
      if (job_.format == Format::binary) {
        const std::size_t known = std::size_t(bytes) / sizeof(K);
        cap = std::min(cap, std::max<std::size_t>(known, 1));
        expected_chunks = (known + cap - 1) / cap;
      } else {
        cap = std::min(cap, std::size_t(bytes) / 2 + 1);  // a line is at least a digit and a newline
      }
      progress_.set_total(std::uint64_t(bytes) * (expected_chunks > 1 ? 6 : 5));
    }
    cap_ = cap;
    std::size_t total = 0;
    for (std::size_t chunk = 0;; ++chunk) {
      label_ = expected_chunks > 1
                   ? "chunk " + std::to_string(chunk + 1) + "/" + std::to_string(expected_chunks)
               : chunk > 0 ? "chunk " + std::to_string(chunk + 1)
                           : std::string();
      const std::uint64_t before = keys_file_.consumed();
      const std::size_t want = cap_;
      const std::size_t n = read_chunk(want, total);
      total += n;
      const bool last = n < want || keys_in_.at_end();
      if (last) check_values_end(total);
      if (n == 0) break;
      const bool only = chunk == 0 && last;
      if (!only && chunk == 0 && bytes >= 0 && expected_chunks <= 1)
        progress_.set_total(std::uint64_t(bytes) * 6);
      sort_range(0, n, keys_file_.consumed() - before, only);
      if (last) break;
    }
    if (!runs_.empty()) merge(total);  // one run is left when limit_runs() merged them all
    progress_.done();
    keys_out_.commit();
    if (values_out_) values_out_->commit();
    if (job_.args.verbose) {
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      const std::string algorithm =
          job_.options.algorithm == clsort::Algorithm::automatic
              ? std::string("automatic: ") +
                    clsort::to_string(sorter_.choose(job_.type, std::min(cap_, total), job_.with_values))
              : clsort::to_string(job_.options.algorithm);
      std::fprintf(
          stderr,
          "clsort: sorted %zu %s keys%s on %s in %zu device pass%s of up to %zu keys%s (%s), %.3f s\n", total,
          clsort::to_string(job_.type), job_.with_values ? " with values" : "",
          job_.device.getInfo<CL_DEVICE_NAME>().c_str(), passes_, passes_ == 1 ? "" : "es", cap_,
          passes_ > 1 ? ", merged on the host" : "", algorithm.c_str(), s);
    }
  }

 private:
  struct Run {
    explicit Run(SpillFile k) : keys(std::move(k)) {}
    SpillFile keys;
    std::optional<SpillFile> values;
    std::size_t left = 0, pos = 0, count = 0;
    std::vector<K> kbuf;
    std::vector<unsigned char> vbuf;
  };

  void stage(const char* what) {
    if (progress_.enabled()) progress_.stage(label_.empty() ? what : label_ + " " + what);
  }

  std::size_t read_chunk(std::size_t cap, std::size_t total_before) {
    stage("read");
    // Read in slices so that the bar moves during a long read.
    constexpr std::size_t kSlice = std::size_t(1) << 22;
    std::size_t n = 0;
    while (n < cap) {
      const std::uint64_t before = keys_file_.consumed();
      const std::size_t want = std::min(kSlice, cap - n);
      if (n + want > keys_.size()) {  // streams of unknown length: grow geometrically up to the chunk size
        const std::size_t size = std::min(cap, std::max(n + want, 2 * keys_.size()));
        keys_.resize(size);
        values_.resize(size * vb_);
      }
      const std::size_t got = keys_in_.read(keys_.data() + n, want);
      if (values_in_) {
        const std::size_t vgot = values_in_->read(values_.data() + n * vb_, got);
        if (vgot < got)
          throw CliError(job_.args.values + ": holds " + std::to_string(total_before + n + vgot) +
                         " values but " + keys_file_.name() + " holds at least " +
                         std::to_string(total_before + n + got) + " keys; they must have the same count");
      }
      n += got;
      progress_.add(keys_file_.consumed() - before);
      if (got < want) break;
    }
    return n;
  }

  void check_values_end(std::size_t total) {
    if (values_in_ && !values_in_->at_end())
      throw CliError(job_.args.values + ": holds more values than " + keys_file_.name() + " holds keys (" +
                     std::to_string(total) + "); they must have the same count");
  }

  /// Sorts keys_[off, off + n) on the device, then writes it out (`only`: the whole input) or spills it as
  /// a run. When the device runs out of memory, the range is sorted in passes of half its size, as are
  /// later chunks: the memory estimate can be too optimistic, e.g. on a GPU shared with others.
  void sort_range(std::size_t off, std::size_t n, std::uint64_t units, bool only) {
    try {
      sort_on_device(off, n, units);
    } catch (const DeviceOutOfMemory& e) {
      if (n < 2) throw;
      // A fresh Sorter drops the scratch buffers of the failed attempt along with ours.
      sorter_ = clsort::Sorter(job_.device);
      kbuf_ = vbuf_ = cl::Buffer();
      buffer_keys_ = 0;
      cap_ = std::min(cap_, n / 2);
      if (job_.args.verbose)
        std::fprintf(stderr, "clsort: %s; retrying in passes of %zu keys\n", e.what(), cap_);
      // Pieces of the current pass size, which a nested failure may shrink further.
      for (std::size_t p = off, end = off + n; p < end;) {
        const std::size_t m = std::min(cap_, end - p);
        sort_range(p, m, std::uint64_t(double(units) * double(m) / double(n)), false);
        p += m;
      }
      return;
    }
    ++passes_;
    if (only) {
      stage("write");
      write_output(keys_.data() + off, values_.data() + off * vb_, n);
      progress_.add(units);
    } else {
      spill(off, n, units);
    }
  }

  void sort_on_device(std::size_t off, std::size_t n, std::uint64_t units) {
    if (job_.args.device_limit_keys && n > job_.args.device_limit_keys)
      throw DeviceOutOfMemory("a pass of " + std::to_string(n) + " keys exceeds --device-limit-keys");
    const cl::CommandQueue& q = sorter_.queue();
    K* keys = keys_.data() + off;
    unsigned char* values = values_.data() + off * vb_;
    if (n > buffer_keys_) {  // sized by the first chunk, the largest
      kbuf_ = vbuf_ = cl::Buffer();
      cl_int status = CL_SUCCESS;
      kbuf_ = cl::Buffer(sorter_.context(), CL_MEM_READ_WRITE, n * sizeof(K), nullptr, &status);
      check(status, "allocating the key buffer on the device");
      if (vb_) {
        vbuf_ = cl::Buffer(sorter_.context(), CL_MEM_READ_WRITE, n * vb_, nullptr, &status);
        check(status, "allocating the value buffer on the device");
      }
      buffer_keys_ = n;
    }
    stage("upload");
    check(q.enqueueWriteBuffer(kbuf_, CL_TRUE, 0, n * sizeof(K), keys), "uploading keys");
    if (vb_) check(q.enqueueWriteBuffer(vbuf_, CL_TRUE, 0, n * vb_, values), "uploading values");
    progress_.add(units);
    stage("sort");
    try {
      cl::Event done =
          sorter_.sort_buffer(job_.type, kbuf_, vb_ ? &vbuf_ : nullptr, vb_, n, job_.options, {});
      check(done.wait(), "sorting");
    } catch (const clsort::Error& e) {
      if (is_out_of_memory(e.status())) throw DeviceOutOfMemory(e.what());
      throw;
    }
    progress_.add(units);
    stage("download");
    check(q.enqueueReadBuffer(kbuf_, CL_TRUE, 0, n * sizeof(K), keys), "downloading keys");
    if (vb_) check(q.enqueueReadBuffer(vbuf_, CL_TRUE, 0, n * vb_, values), "downloading values");
    progress_.add(units);
  }

  void write_output(const K* keys, const unsigned char* values, std::size_t n) {
    if (!keys_writer_) {
      keys_writer_ = std::make_unique<ElementWriter>(keys_out_, job_.format, job_.type);
      if (values_out_)
        values_writer_ = std::make_unique<ElementWriter>(*values_out_, job_.format, job_.values_type);
    }
    keys_writer_->write(keys, n);
    if (values_writer_) values_writer_->write(values, n);
  }

  void spill(std::size_t off, std::size_t n, std::uint64_t units) {
    stage("spill");
    const std::string dir = directory_of(job_.args.output);
    Run r(SpillFile{dir});
    r.keys.write(keys_.data() + off, n * sizeof(K));
    if (vb_) {
      r.values.emplace(dir);
      r.values->write(values_.data() + off * vb_, n * vb_);
    }
    r.left = n;
    runs_.push_back(std::move(r));
    limit_runs();
    progress_.add(units);
  }

  bool refill(Run& r, std::size_t batch) {
    if (r.left == 0) return false;
    const std::size_t m = std::min(batch, r.left);
    r.kbuf.resize(m);
    r.vbuf.resize(m * vb_);
    if (r.keys.read(r.kbuf.data(), m * sizeof(K)) != m * sizeof(K) ||
        (vb_ && r.values->read(r.vbuf.data(), m * vb_) != m * vb_))
      throw CliError("a temporary run file came back short");
    r.left -= m;
    r.pos = 0;
    r.count = m;
    return true;
  }

  /// Merges `runs` into `sink(keys, values, n)` by clsort's key order (encode_key bits, which also order
  /// NaNs the way the device does), equal keys in run order: runs hold consecutive input ranges, so a
  /// stable device sort stays stable overall and the output matches a single-pass sort bit for bit.
  template <class Sink>
  void merge_runs(std::vector<Run>& runs, Sink&& sink) {
    const std::size_t batch = std::clamp<std::size_t>(
        (std::size_t(64) << 20) / runs.size() / (sizeof(K) + vb_), std::size_t(1), std::size_t(1) << 20);
    const bool descending = job_.options.order == clsort::Order::descending;
    // The bits the sort orders by (--begin-bit, --end-bit), as the device ordered the runs.
    constexpr unsigned kBits = sizeof(U) * 8;
    const unsigned begin = job_.options.begin_bit, end = job_.options.end_bit ? job_.options.end_bit : kBits;
    const U mask = U(U(end == kBits ? U(~U(0)) : U((U(1) << end) - 1)) & U(~U((U(1) << begin) - 1)));
    auto code = [&](K k) { return U(clsort::encode_key(k, descending) & mask); };
    using Head = std::pair<U, std::size_t>;  // (encoded key, run index)
    std::priority_queue<Head, std::vector<Head>, std::greater<Head>> heap;
    for (std::size_t i = 0; i < runs.size(); ++i) {
      runs[i].keys.rewind();
      if (runs[i].values) runs[i].values->rewind();
      if (refill(runs[i], batch)) heap.emplace(code(runs[i].kbuf[0]), i);
    }
    const std::size_t out_batch = std::size_t(1) << 16;
    std::vector<K> okeys;
    std::vector<unsigned char> ovalues;
    okeys.reserve(out_batch);
    ovalues.reserve(out_batch * vb_);
    while (!heap.empty()) {
      const std::size_t i = heap.top().second;
      heap.pop();
      Run& r = runs[i];
      okeys.push_back(r.kbuf[r.pos]);
      if (vb_) ovalues.insert(ovalues.end(), &r.vbuf[r.pos * vb_], &r.vbuf[r.pos * vb_] + vb_);
      if (++r.pos < r.count || refill(r, batch)) heap.emplace(code(r.kbuf[r.pos]), i);
      if (okeys.size() == out_batch || heap.empty()) {
        sink(okeys.data(), ovalues.data(), okeys.size());
        okeys.clear();
        ovalues.clear();
      }
    }
  }

  /// Bounds the open run files (file descriptors, merge buffers): past kMaxRuns the runs so far are
  /// merged into one. They are the earliest input, so run order, and with it stability, is kept.
  void limit_runs() {
    constexpr std::size_t kMaxRuns = 128;
    if (runs_.size() < kMaxRuns) return;
    const std::string dir = directory_of(job_.args.output);
    Run merged(SpillFile{dir});
    if (vb_) merged.values.emplace(dir);
    merge_runs(runs_, [&](const K* k, const unsigned char* v, std::size_t n) {
      merged.keys.write(k, n * sizeof(K));
      if (vb_) merged.values->write(v, n * vb_);
      merged.left += n;
    });
    runs_.clear();
    runs_.push_back(std::move(merged));
  }

  void merge(std::size_t total) {
    label_.clear();
    stage("merge");
    keys_.clear();
    keys_.shrink_to_fit();
    values_.clear();
    values_.shrink_to_fit();
    const double units_per_key = total ? double(keys_file_.consumed()) / double(total) : 0.0;
    merge_runs(runs_, [&](const K* k, const unsigned char* v, std::size_t n) {
      write_output(k, v, n);
      progress_.add(std::uint64_t(units_per_key * double(n)));
    });
  }

  const Job& job_;
  ElementReader& keys_in_;
  ElementReader* values_in_;
  Input& keys_file_;
  Output& keys_out_;
  Output* values_out_;
  std::size_t vb_;
  clsort::Sorter sorter_;
  Progress progress_;
  std::string label_;
  std::vector<K> keys_;
  std::vector<unsigned char> values_;
  cl::Buffer kbuf_, vbuf_;
  std::vector<Run> runs_;
  std::size_t passes_ = 0;
  std::size_t cap_ = 0;          // keys per chunk read and per device pass
  std::size_t buffer_keys_ = 0;  // what kbuf_ (and vbuf_) hold
  std::unique_ptr<ElementWriter> keys_writer_, values_writer_;
};

// Every element of `in`.
template <class T>
void read_all(ElementReader& in, std::vector<T>& out) {
  std::vector<T> chunk(1 << 16);
  while (const std::size_t got = in.read(chunk.data(), chunk.size()))
    out.insert(out.end(), chunk.begin(), chunk.begin() + std::ptrdiff_t(got));
}

}  // namespace

CLI::App* add_sort_command(CLI::App& app, SortArgs& a) {
  CLI::App* cmd =
      app.add_subcommand("sort", "Sort a file of keys (and optionally values) on an OpenCL device");
  cmd->footer(
      "Files hold native little-endian keys back to back, or one number per line with --text. '-' reads\n"
      "stdin / writes stdout. Inputs larger than the device's memory are sorted in chunks and merged on\n"
      "the host. Outputs appear only when the sort succeeded: they are written to a temporary file in\n"
      "the same directory and renamed, so an existing OUTPUT is untouched by a failed run.\n"
      "Order: by value; for floats -0 before +0 and NaNs after +inf; --descending is the exact reverse.\n"
      "\nExamples:\n"
      "  clsort sort --type f32 data.f32 -o sorted.f32\n"
      "  seq 10 -1 1 | clsort sort --type i64 --text -\n"
      "  clsort sort --type u32 keys.bin -o k.sorted --values payload.bin --values-type u64 --values-out "
      "p.sorted\n"
      "  clsort sort --type f32 --top-k 10 --descending scores.f32 -o best.f32 --indices-out best.idx\n"
      "  clsort sort --type u32 --segments offsets.u64 keys.u32 -o sorted.u32");
  cmd->add_option("--type,-t", a.type, "Key type")->required()->check(CLI::IsMember(key_type_names()));
  cmd->add_flag("--descending,-d", a.descending, "Sort in descending order");
  cmd->add_option("--begin-bit", a.begin_bit,
                  "Radix sort by bits [BEGIN, END) of each key's order-preserving code only (stable; "
                  "CUB's begin_bit)");
  cmd->add_option("--end-bit", a.end_bit, "See --begin-bit; default: the key's width");
  cmd->add_option("--algorithm,-a", a.algorithm, "Algorithm (automatic picks by n and device)")
      ->check(CLI::IsMember(algorithm_names(true)))
      ->capture_default_str();
  cmd->add_option("--device", a.device,
                  "Device: gpu, cpu, a name substring or PLATFORM:DEVICE (see `clsort devices`); "
                  "default: CLSORT_DEVICE, else the first GPU, else the first CPU device");
  cmd->add_flag("--text", a.text, "Keys and values are text, one number per line (input and output)");
  cmd->add_option("--values", a.values, "File of values to reorder with the keys (stable sort by key)");
  cmd->add_option("--values-type", a.values_type, "Type of the values (any key type's name: 1 to 8 bytes)")
      ->check(CLI::IsMember(key_type_names()));
  cmd->add_option("--values-out", a.values_out, "Where the reordered values go (default: OUTPUT.values)");
  cmd->add_option("INPUT", a.input, "Input file of keys, '-' for stdin")->required();
  cmd->add_option("-o,--output", a.output, "Output file, '-' for stdout")->capture_default_str();
  cmd->add_flag("--verbose,-v", a.verbose, "Report the device, passes and time on stderr");
  cmd->add_option("--top-k", a.top_k,
                  "Write only the first K keys in order (sorted; equal keys by lower input index), found by "
                  "radix selection; the input must fit the device")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--indices-out", a.indices_out, "With --top-k: where the K input indices go (u32)");
  cmd->add_option("--segments", a.segments,
                  "Sort each segment on its own (stable): FILE holds num_segments + 1 offsets into the keys "
                  "(u64; one per line with --text), non-decreasing; keys outside every segment are written "
                  "unchanged; the input must fit the device");
  // For tests: force chunked sorting and the host merge on small inputs.
  cmd->add_option("--chunk-keys", a.chunk_keys, "Keys per device pass")
      ->check(CLI::PositiveNumber)
      ->group("");
  // For tests: passes above this many keys fail as if the device ran out of memory.
  cmd->add_option("--device-limit-keys", a.device_limit_keys, "Simulated device limit")
      ->check(CLI::PositiveNumber)
      ->group("");
  return cmd;
}

int run_sort(const SortArgs& a) {
  Job job{a,
          parse_key_type(a.type),
          clsort::KeyType::u32,
          !a.values.empty(),
          a.text ? Format::text : Format::binary,
          {},
          {}};
  job.options.order = a.descending ? clsort::Order::descending : clsort::Order::ascending;
  job.options.algorithm = clsort::parse_algorithm(a.algorithm);
  job.options.begin_bit = a.begin_bit;
  job.options.end_bit = a.end_bit;
  if (a.begin_bit || a.end_bit) {  // the library's checks, before any file is touched
    const unsigned bits = unsigned(clsort::key_size(job.type)) * 8, end = a.end_bit ? a.end_bit : bits;
    if (a.end_bit > bits)
      throw CliError("--end-bit " + std::to_string(a.end_bit) + " is past the " + std::to_string(bits) +
                     " bits of " + a.type + " keys");
    if (a.begin_bit > end)
      throw CliError("--begin-bit " + std::to_string(a.begin_bit) + " is past the end bit " +
                     std::to_string(end));
    if (job.options.algorithm != clsort::Algorithm::automatic &&
        job.options.algorithm != clsort::Algorithm::radix)
      throw CliError("--begin-bit and --end-bit need radix sort, not " + a.algorithm);
  }
  std::string values_out = a.values_out;
  if (job.with_values) {
    if (a.values_type.empty()) throw CliError("--values needs --values-type (the type of the values)");
    job.values_type = parse_key_type(a.values_type);
    if (a.values == "-" && a.input == "-") throw CliError("keys and values cannot both come from stdin");
    if (values_out.empty()) {
      if (a.output == "-") throw CliError("--values-out is needed when the keys go to stdout");
      values_out = a.output + ".values";
    }
    if (values_out == a.output && a.output != "-")
      throw CliError("--values-out and the output are the same file: " + a.output);
    if (values_out == "-" && a.output == "-") throw CliError("keys and values cannot both go to stdout");
  } else if (!a.values_type.empty() || !a.values_out.empty()) {
    throw CliError(std::string(a.values_type.empty() ? "--values-out" : "--values-type") +
                   " given without --values");
  }
  if (a.top_k >= 0) {
    if (job.with_values) throw CliError("--top-k takes no --values: use --indices-out for the positions");
    if (!a.indices_out.empty() && a.indices_out == a.output && a.output != "-")
      throw CliError("--indices-out and the output are the same file: " + a.output);
    if (a.indices_out == "-" && a.output == "-") throw CliError("keys and indices cannot both go to stdout");
  } else if (!a.indices_out.empty()) {
    throw CliError("--indices-out given without --top-k");
  }
  if (!a.segments.empty()) {
    if (a.top_k >= 0) throw CliError("--segments and --top-k cannot be combined");
    if (a.segments == "-" && (a.input == "-" || a.values == "-"))
      throw CliError("the offsets and the keys or values cannot both come from stdin");
  }
  if (job.format == Format::binary && stdout_is_terminal() &&
      (a.output == "-" || values_out == "-" || a.indices_out == "-"))
    throw CliError("refusing to write binary data to a terminal: use -o FILE, a redirection or --text");

  // Every input is opened and checked, and every output created, before the device does any work.
  Input keys_file(a.input, "key");
  ElementReader keys_in(keys_file, job.format, job.type);
  std::unique_ptr<Input> values_file;
  std::unique_ptr<ElementReader> values_in;
  if (job.with_values) {
    values_file = std::make_unique<Input>(a.values, "value");
    values_in = std::make_unique<ElementReader>(*values_file, job.format, job.values_type);
    if (job.format == Format::binary && keys_file.size() >= 0 && values_file->size() >= 0) {
      const auto nk = std::uint64_t(keys_file.size()) / clsort::key_size(job.type);
      const auto nv = std::uint64_t(values_file->size()) / clsort::key_size(job.values_type);
      if (nk != nv)
        throw CliError(values_file->name() + ": holds " + std::to_string(nv) + " values but " +
                       keys_file.name() + " holds " + std::to_string(nk) +
                       " keys; they must have the same count");
    }
  }
  job.device = open_device(a.device);
  Output keys_out(a.output, "keys");
  std::unique_ptr<Output> values_output;
  if (job.with_values) values_output = std::make_unique<Output>(values_out, "values");

  if (!a.segments.empty()) {
    Input offsets_file(a.segments, "offset");
    ElementReader offsets_in(offsets_file, job.format, clsort::KeyType::u64);
    std::vector<std::uint64_t> offsets;
    read_all(offsets_in, offsets);
    visit_key_type(job.type, [&](auto tag) {
      using K = typename decltype(tag)::type;
      std::vector<K> keys;
      read_all(keys_in, keys);
      clsort::Sorter sorter(job.device);
      const auto t0 = std::chrono::steady_clock::now();
      auto fail = [&](const clsort::Error& e) {
        return CliError(e.where() == "offsets" ? offsets_file.name() + ": " + e.what()
                                               : std::string(e.what()));
      };
      if (job.with_values) {
        auto with = [&](auto value_tag) {
          using V = decltype(value_tag);
          std::vector<V> values;
          read_all(*values_in, values);
          if (values.size() != keys.size())
            throw CliError(values_file->name() + ": holds " + std::to_string(values.size()) + " values but " +
                           keys_file.name() + " holds " + std::to_string(keys.size()) +
                           " keys; they must have the same count");
          try {
            sorter.sort_segments_by_key(keys, values, offsets, job.options);
          } catch (const clsort::Error& e) {
            throw fail(e);
          }
          ElementWriter(*values_output, job.format, job.values_type).write(values.data(), values.size());
        };
        if (clsort::key_size(job.values_type) == 4)
          with(std::uint32_t{});
        else
          with(std::uint64_t{});
      } else {
        try {
          sorter.sort_segments(keys, offsets, job.options);
        } catch (const clsort::Error& e) {
          throw fail(e);
        }
      }
      if (a.verbose)
        std::fprintf(
            stderr, "clsort: %zu segments of %zu keys on %s in %.3f ms\n",
            offsets.empty() ? 0 : offsets.size() - 1, keys.size(), describe_device(job.device).c_str(),
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
      ElementWriter(keys_out, job.format, job.type).write(keys.data(), keys.size());
      keys_out.commit();
      if (values_output) values_output->commit();
    });
    return 0;
  }
  if (a.top_k >= 0) {
    std::unique_ptr<Output> indices_output;
    if (!a.indices_out.empty()) indices_output = std::make_unique<Output>(a.indices_out, "indices");
    visit_key_type(job.type, [&](auto tag) {
      using K = typename decltype(tag)::type;
      std::vector<K> keys;
      std::vector<K> chunk(1 << 16);
      while (const std::size_t got = keys_in.read(chunk.data(), chunk.size()))
        keys.insert(keys.end(), chunk.begin(), chunk.begin() + std::ptrdiff_t(got));
      const std::size_t k = std::size_t(a.top_k);
      if (k > keys.size())
        throw CliError("--top-k " + std::to_string(k) + " exceeds the " + std::to_string(keys.size()) +
                       " keys of " + keys_file.name());
      clsort::Sorter sorter(job.device);
      const auto t0 = std::chrono::steady_clock::now();
      const clsort::TopK<K> top = sorter.top_k(keys, k, job.options);
      if (a.verbose)
        std::fprintf(
            stderr, "clsort: top %zu of %zu keys on %s in %.3f ms\n", k, keys.size(),
            describe_device(job.device).c_str(),
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
      ElementWriter(keys_out, job.format, job.type).write(top.keys.data(), k);
      keys_out.commit();
      if (indices_output) {
        ElementWriter(*indices_output, job.format, clsort::KeyType::u32).write(top.indices.data(), k);
        indices_output->commit();
      }
    });
    return 0;
  }
  visit_key_type(job.type, [&](auto tag) {
    using K = typename decltype(tag)::type;
    Sorting<K>(job, keys_in, values_in.get(), keys_file, keys_out, values_output.get()).run();
  });
  return 0;
}

}  // namespace clsort_cli
