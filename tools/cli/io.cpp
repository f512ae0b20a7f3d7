// Reading and writing key and value files for `clsort sort`: binary (native little-endian) and text
// formats, outputs made visible only by a final rename, spill files and the progress bar.
#include "io.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <system_error>
#include <type_traits>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace clsort_cli {
namespace {

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
constexpr bool kBigEndianHost = true;
#else
constexpr bool kBigEndianHost = false;
#endif

// Files are little-endian; a big-endian host swaps every element on the way in and out.
void swap_elements(void* data, std::size_t n, std::size_t width) {
  auto* p = static_cast<unsigned char*>(data);
  for (std::size_t i = 0; i < n; ++i, p += width) std::reverse(p, p + width);
}

std::string errno_text() {
  return std::strerror(errno);
}

// ---- Removing temporary outputs when the process is interrupted. Fixed-size storage: the handler may
// only touch memory that is valid at any moment and call async-signal-safe functions (unlink).
constexpr int kSlots = 32;
constexpr std::size_t kPathMax = 4096;
char g_temp_paths[kSlots][kPathMax];
volatile std::sig_atomic_t g_slot_used[kSlots];

extern "C" void remove_temps_and_reraise(int sig) {
  for (int i = 0; i < kSlots; ++i)
    if (g_slot_used[i]) ::unlink(g_temp_paths[i]);
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

void install_signal_handlers() {
  static bool installed = false;
  if (installed) return;
  installed = true;
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction sa {};
    sa.sa_handler = remove_temps_and_reraise;
    sigemptyset(&sa.sa_mask);
    sigaction(sig, &sa, nullptr);
  }
}

int register_temp(const std::string& path) {
  install_signal_handlers();
  if (path.size() >= kPathMax) return -1;
  for (int i = 0; i < kSlots; ++i) {
    if (g_slot_used[i]) continue;
    std::memcpy(g_temp_paths[i], path.c_str(), path.size() + 1);
    g_slot_used[i] = 1;
    return i;
  }
  return -1;  // more outputs than slots: such files are then only removed on ordinary errors
}

void unregister_temp(int slot) {
  if (slot >= 0) g_slot_used[slot] = 0;
}

// ---- Numbers in text.
std::string_view trim(std::string_view s) {
  const char* ws = " \t\r\v\f";
  const auto b = s.find_first_not_of(ws);
  if (b == std::string_view::npos) return {};
  return s.substr(b, s.find_last_not_of(ws) - b + 1);
}

template <class T>
std::errc parse_number(std::string_view s, T& out) {
  if (s.size() > 1 && s[0] == '+' && s[1] != '-') s.remove_prefix(1);  // from_chars rejects '+'
  const char* end = s.data() + s.size();
  const auto [p, ec] = std::from_chars(s.data(), end, out);
  if (ec != std::errc()) return ec;
  return p == end ? std::errc() : std::errc::invalid_argument;
}

// 16-bit floats read as floats, rounded to nearest (exact for every value one of them wrote).
template <class T>
std::errc parse_float16(std::string_view s, T& out) {
  float f = 0;
  const std::errc ec = parse_number(s, f);
  if (ec == std::errc()) out = T(f);
  return ec;
}
std::errc parse_number(std::string_view s, clsort::half& out) {
  return parse_float16(s, out);
}
std::errc parse_number(std::string_view s, clsort::bfloat16& out) {
  return parse_float16(s, out);
}

template <class T>
void append_number(std::string& out, T v) {
  char buf[64];
  const auto [p, ec] = std::to_chars(buf, buf + sizeof buf, v);  // floats: shortest exact round trip
  out.append(buf, ec == std::errc() ? p : buf);
  out.push_back('\n');
}
// Written as the float of the same value (exact): the shortest text that reads back as that float, which
// reads back as the same 16-bit value.
void append_number(std::string& out, clsort::half v) {
  append_number(out, float(v));
}
void append_number(std::string& out, clsort::bfloat16 v) {
  append_number(out, float(v));
}

}  // namespace

// ---------------------------------------------------------------------------------------------- Input

Input::Input(const std::string& path, std::string role) : role_(std::move(role)) {
  if (path == "-") {
    file_ = stdin;
    name_ = "stdin";
  } else {
    name_ = path;
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) throw CliError(path + ": is a directory");
    file_ = std::fopen(path.c_str(), "rb");
    if (!file_) throw CliError(path + ": cannot open " + role_ + " file: " + errno_text());
    owned_ = true;
  }
  struct stat st {};
  if (::fstat(::fileno(file_), &st) == 0 && S_ISREG(st.st_mode)) size_ = st.st_size;
}

Input::~Input() {
  if (owned_) std::fclose(file_);
}

void Input::fail_read() {
  throw CliError(name_ + ": read error: " + errno_text());
}

std::size_t Input::read(void* dst, std::size_t bytes) {
  const std::size_t got = std::fread(dst, 1, bytes, file_);
  if (got < bytes && std::ferror(file_)) fail_read();
  consumed_ += got;
  return got;
}

bool Input::at_end() {
  const int c = std::getc(file_);
  if (c == EOF) {
    if (std::ferror(file_)) fail_read();
    return true;
  }
  std::ungetc(c, file_);
  return false;
}

bool Input::next_line(std::string_view& line) {
  if (buf_.empty()) buf_.resize(std::size_t(1) << 20);
  for (;;) {
    const char* begin = buf_.data() + pos_;
    if (const void* nl = std::memchr(begin, '\n', end_ - pos_)) {
      const std::size_t len = static_cast<const char*>(nl) - begin;
      line = std::string_view(begin, len);
      pos_ += len + 1;
      ++line_;
      return true;
    }
    if (eof_) {
      if (pos_ == end_) return false;
      line = std::string_view(begin, end_ - pos_);  // a last line without '\n'
      pos_ = end_;
      ++line_;
      return true;
    }
    if (pos_ == 0 && end_ == buf_.size())
      throw CliError(name_ + ": line " + std::to_string(line_ + 1) + ": longer than " +
                     std::to_string(buf_.size()) + " bytes, not one number");
    std::memmove(buf_.data(), buf_.data() + pos_, end_ - pos_);
    end_ -= pos_;
    pos_ = 0;
    const std::size_t got = read(buf_.data() + end_, buf_.size() - end_);
    end_ += got;
    if (got == 0) eof_ = true;
  }
}

// -------------------------------------------------------------------------------------- ElementReader

ElementReader::ElementReader(Input& in, Format format, clsort::KeyType type)
    : in_(in), format_(format), type_(type), width_(clsort::key_size(type)) {
  if (format_ == Format::binary && in_.size() >= 0 && in_.size() % std::int64_t(width_) != 0)
    throw CliError(in_.name() + ": size " + std::to_string(in_.size()) + " bytes is not a multiple of " +
                   std::to_string(width_) + " bytes (one " + clsort::to_string(type_) + " " + in_.role() +
                   "): wrong --type, or a text file (--text)?");
}

bool ElementReader::parse_line(std::string_view raw, void* dst) {
  const std::string_view s = trim(raw);
  std::errc ec = std::errc::invalid_argument;
  if (!s.empty())
    visit_key_type(type_, [&](auto tag) {
      typename decltype(tag)::type v{};
      ec = parse_number(s, v);
      if (ec == std::errc()) std::memcpy(dst, &v, sizeof v);
    });
  if (ec == std::errc()) return true;
  const std::string where = in_.name() + ": line " + std::to_string(in_.line_number()) + ": ";
  const char* type = clsort::to_string(type_);
  if (s.empty()) throw CliError(where + "empty line (expected one " + type + " per line)");
  std::string shown(s.substr(0, 40));
  if (s.size() > 40) shown += "...";
  if (ec == std::errc::result_out_of_range)
    throw CliError(where + "'" + shown + "' is out of range for " + type);
  throw CliError(where + "cannot parse '" + shown + "' as " + type +
                 (format_ == Format::text && in_.line_number() == 1 && raw.find('\0') != raw.npos
                      ? " (binary data? drop --text)"
                      : ""));
}

std::size_t ElementReader::read(void* dst, std::size_t max) {
  auto* out = static_cast<unsigned char*>(dst);
  if (format_ == Format::binary) {
    const std::size_t got = in_.read(out, max * width_);
    if (got % width_ != 0)
      throw CliError(in_.name() + ": ends in a partial element: " + std::to_string(in_.consumed()) +
                     " bytes is not a multiple of " + std::to_string(width_) + " bytes (one " +
                     clsort::to_string(type_) + " " + in_.role() + ")");
    if (kBigEndianHost) swap_elements(out, got / width_, width_);
    elements_ += got / width_;
    return got / width_;
  }
  std::size_t n = 0;
  if (pending_ && max > 0) {
    std::memcpy(out, pending_value_, width_);
    pending_ = false;
    ++n;
  }
  std::string_view line;
  while (n < max && in_.next_line(line)) {
    parse_line(line, out + n * width_);
    ++n;
  }
  elements_ += n;
  return n;
}

bool ElementReader::at_end() {
  if (format_ == Format::binary) return in_.at_end();
  if (pending_) return false;
  std::string_view line;
  if (!in_.next_line(line)) return true;
  parse_line(line, pending_value_);
  pending_ = true;
  return false;
}

// --------------------------------------------------------------------------------------------- Output

std::string directory_of(const std::string& path) {
  if (path == "-") return std::filesystem::temp_directory_path().string();
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  return parent.empty() ? std::string(".") : parent.string();
}

Output::Output(const std::string& path, std::string role) : path_(path), role_(std::move(role)) {
  if (path_ == "-") {
    file_ = stdout;
    name_ = "stdout";
    direct_ = true;
    return;
  }
  name_ = path_;
  target_ = path_;
  struct stat st {};
  const bool exists = ::stat(path_.c_str(), &st) == 0;  // follows symlinks
  if (exists && S_ISDIR(st.st_mode)) throw CliError(path_ + ": is a directory");
  if (exists && !S_ISREG(st.st_mode)) {
    // A device or FIFO (/dev/null, a named pipe) must be written, never replaced by a rename.
    file_ = std::fopen(path_.c_str(), "wb");
    if (!file_) throw CliError(path_ + ": cannot open for writing: " + errno_text());
    direct_ = true;
    return;
  }
  // Through a symlink, the file it points to is replaced and the link kept.
  std::error_code ec;
  if (std::filesystem::is_symlink(path_, ec)) {
    const std::filesystem::path resolved = std::filesystem::weakly_canonical(path_, ec);
    if (!ec) target_ = resolved.string();
  }
  const std::filesystem::path p(target_);
  const std::string dir = directory_of(target_);
  std::string pattern =
      (std::filesystem::path(dir) / ("." + p.filename().string() + ".clsort-XXXXXX")).string();
  const int fd = ::mkstemp(pattern.data());
  if (fd < 0)
    throw CliError(path_ + ": cannot create the " + role_ + " file in '" + dir + "': " + errno_text());
  temp_ = pattern;
  slot_ = register_temp(temp_);
  // mkstemp makes the file private: give the result the permissions of the file it replaces, or those
  // a plain create would give.
  if (exists) {
    ::fchmod(fd, st.st_mode & 07777);
  } else {
    const mode_t mask = ::umask(0);
    ::umask(mask);
    ::fchmod(fd, 0666 & ~mask);
  }
  file_ = ::fdopen(fd, "wb");
  if (!file_) {
    ::close(fd);
    ::unlink(temp_.c_str());
    unregister_temp(slot_);
    throw CliError(path_ + ": " + errno_text());
  }
}

Output::~Output() {
  if (committed_) return;
  if (direct_) {
    if (file_ != stdout) std::fclose(file_);
    return;
  }
  if (file_) std::fclose(file_);
  ::unlink(temp_.c_str());
  unregister_temp(slot_);
}

void Output::fail_write() {
  throw CliError(name_ + ": write error: " + errno_text());
}

void Output::write(const void* data, std::size_t bytes) {
  if (bytes && std::fwrite(data, 1, bytes, file_) != bytes) fail_write();
}

void Output::commit() {
  if (direct_) {
    const bool flushed = std::fflush(file_) == 0;
    const bool closed = file_ == stdout || std::fclose(file_) == 0;
    committed_ = true;
    if (!flushed || !closed) fail_write();
    return;
  }
  if (std::fflush(file_) != 0 || ::fsync(::fileno(file_)) != 0) fail_write();
  const int closed = std::fclose(file_);
  file_ = nullptr;
  if (closed != 0) fail_write();
  if (std::rename(temp_.c_str(), target_.c_str()) != 0)
    throw CliError(path_ + ": cannot replace with the sorted " + role_ + ": " + errno_text());
  unregister_temp(slot_);
  committed_ = true;
}

// -------------------------------------------------------------------------------------- ElementWriter

ElementWriter::ElementWriter(Output& out, Format format, clsort::KeyType type)
    : out_(out), format_(format), type_(type), width_(clsort::key_size(type)) {}

void ElementWriter::write(const void* src, std::size_t n) {
  if (format_ == Format::binary) {
    if (!kBigEndianHost) return out_.write(src, n * width_);
    swapped_.assign(static_cast<const unsigned char*>(src),
                    static_cast<const unsigned char*>(src) + n * width_);
    swap_elements(swapped_.data(), n, width_);
    return out_.write(swapped_.data(), swapped_.size());
  }
  visit_key_type(type_, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const auto* p = static_cast<const unsigned char*>(src);
    constexpr std::size_t kBatch = 1 << 16;
    for (std::size_t i = 0; i < n; i += kBatch) {
      text_.clear();
      for (std::size_t j = i; j < std::min(n, i + kBatch); ++j) {
        T v;
        std::memcpy(&v, p + j * sizeof(T), sizeof v);
        append_number(text_, v);
      }
      out_.write(text_.data(), text_.size());
    }
  });
}

// ------------------------------------------------------------------------------------------ SpillFile

SpillFile::SpillFile(const std::string& dir) {
  std::string pattern = (std::filesystem::path(dir) / ".clsort-run-XXXXXX").string();
  const int fd = ::mkstemp(pattern.data());
  if (fd < 0) throw CliError("cannot create a temporary run file in '" + dir + "': " + errno_text());
  ::unlink(pattern.c_str());  // anonymous from now on: the space is freed when we close it or die
  file_ = ::fdopen(fd, "w+b");
  if (!file_) {
    ::close(fd);
    throw CliError("temporary run file: " + errno_text());
  }
}

SpillFile::~SpillFile() {
  if (file_) std::fclose(file_);
}

void SpillFile::write(const void* data, std::size_t bytes) {
  if (bytes && std::fwrite(data, 1, bytes, file_) != bytes)
    throw CliError("writing a temporary run file: " + errno_text());
}

void SpillFile::rewind() {
  if (std::fflush(file_) != 0 || std::fseek(file_, 0, SEEK_SET) != 0)
    throw CliError("temporary run file: " + errno_text());
}

std::size_t SpillFile::read(void* dst, std::size_t bytes) {
  const std::size_t got = std::fread(dst, 1, bytes, file_);
  if (got < bytes && std::ferror(file_)) throw CliError("reading a temporary run file: " + errno_text());
  return got;
}

// ------------------------------------------------------------------------------------------- Progress

bool stderr_is_terminal() {
  return ::isatty(STDERR_FILENO) != 0;
}
bool stdout_is_terminal() {
  return ::isatty(STDOUT_FILENO) != 0;
}

void Progress::stage(const std::string& label) {
  label_ = label;
  draw(true);
}

void Progress::add(std::uint64_t units) {
  done_units_ += units;
  draw(false);
}

void Progress::draw(bool force) {
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  if (!force && now - last_ < std::chrono::milliseconds(100)) return;
  last_ = now;
  std::string line = "\rclsort: " + label_;
  line.resize(std::max<std::size_t>(line.size(), 34), ' ');
  if (total_ > 0) {
    const double f = std::min(1.0, double(done_units_) / double(total_));
    constexpr int kWidth = 30;
    const int filled = int(f * kWidth + 0.5);
    line += " [" + std::string(filled, '#') + std::string(kWidth - filled, '.') + "] ";
    char pct[16];
    std::snprintf(pct, sizeof pct, "%3d%%", int(f * 100));
    line += pct;
  } else {
    line += " " + format_bytes(done_units_);
  }
  line += "\033[K";
  std::fputs(line.c_str(), stderr);
  std::fflush(stderr);
  drawn_ = true;
}

void Progress::done() {
  if (!drawn_) return;
  std::fputs("\r\033[K", stderr);
  std::fflush(stderr);
  drawn_ = false;
}

}  // namespace clsort_cli
