// File handling for `clsort sort`: reading keys and values (binary or one number per line), writing
// outputs through a temporary file that is renamed on success, spill files for sorted runs, and the
// progress bar.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "cli_common.hpp"

namespace clsort_cli {

enum class Format { binary, text };

/// A file or stdin ("-"), read either in raw blocks or line by line (not both).
class Input {
 public:
  Input(const std::string& path, std::string role);
  ~Input();
  Input(const Input&) = delete;
  Input& operator=(const Input&) = delete;

  const std::string& name() const { return name_; }
  const std::string& role() const { return role_; }
  /// The size of a regular file, known before reading; -1 for pipes and terminals.
  std::int64_t size() const { return size_; }
  std::uint64_t consumed() const { return consumed_; }

  /// Reads up to `bytes`; fewer only at the end of the input.
  std::size_t read(void* dst, std::size_t bytes);
  /// The next line without its '\n' (or "\r\n"); false at the end of the input.
  bool next_line(std::string_view& line);
  std::uint64_t line_number() const { return line_; }
  /// Whether nothing is left (binary reads only).
  bool at_end();

 private:
  [[noreturn]] void fail_read();
  std::FILE* file_ = nullptr;
  bool owned_ = false;
  std::string name_, role_;
  std::int64_t size_ = -1;
  std::uint64_t consumed_ = 0;
  std::vector<char> buf_;  // text mode: unread bytes are buf_[pos_, end_)
  std::size_t pos_ = 0, end_ = 0;
  bool eof_ = false;
  std::uint64_t line_ = 0;
  std::string long_line_;
};

/// Reads elements of one key type (keys, or values given a type) in either format.
class ElementReader {
 public:
  ElementReader(Input& in, Format format, clsort::KeyType type);
  /// Up to `max` elements into dst, fewer only at the end of the input. Throws CliError for a trailing
  /// partial element or a line that is not one number of the type.
  std::size_t read(void* dst, std::size_t max);
  /// Whether the input is exhausted (peeks for binary; for text, reads ahead one line).
  bool at_end();
  clsort::KeyType type() const { return type_; }

 private:
  bool parse_line(std::string_view line, void* dst);
  Input& in_;
  Format format_;
  clsort::KeyType type_;
  std::size_t width_;
  std::uint64_t elements_ = 0;
  bool pending_ = false;  // text: a parsed element waits in pending_value_
  unsigned char pending_value_[8] = {};
};

/// An output file written to a temporary file in its directory and renamed onto `path` by commit(); if
/// commit() never runs (error, exception, SIGINT/SIGTERM) the temporary file is removed and an existing
/// file at `path` is left untouched. "-" (stdout), devices and FIFOs are written directly; through a
/// symlink the file it points to is replaced.
class Output {
 public:
  Output(const std::string& path, std::string role);
  ~Output();
  Output(const Output&) = delete;
  Output& operator=(const Output&) = delete;

  bool is_stdout() const { return path_ == "-"; }
  const std::string& name() const { return name_; }
  void write(const void* data, std::size_t bytes);
  void commit();

 private:
  [[noreturn]] void fail_write();
  std::FILE* file_ = nullptr;
  std::string path_, name_, temp_, role_;
  std::string target_;   // the file the rename replaces: path_, or where a symlink at path_ points
  bool direct_ = false;  // stdout, a device or a FIFO: written in place, nothing to rename
  int slot_ = -1;        // in the signal handler's list of files to remove
  bool committed_ = false;
};

/// Writes elements of one key type in either format.
class ElementWriter {
 public:
  ElementWriter(Output& out, Format format, clsort::KeyType type);
  void write(const void* src, std::size_t n);

 private:
  Output& out_;
  Format format_;
  clsort::KeyType type_;
  std::size_t width_;
  std::string text_;
  std::vector<unsigned char> swapped_;
};

/// An anonymous temporary file (removed when closed, also after a crash) holding a sorted run.
class SpillFile {
 public:
  explicit SpillFile(const std::string& dir);
  ~SpillFile();
  SpillFile(SpillFile&& o) noexcept : file_(o.file_) { o.file_ = nullptr; }
  SpillFile& operator=(const SpillFile&) = delete;
  void write(const void* data, std::size_t bytes);
  void rewind();
  std::size_t read(void* dst, std::size_t bytes);

 private:
  std::FILE* file_ = nullptr;
};

/// The directory new files for `path` go to ("." for a bare name; the temp directory for "-").
std::string directory_of(const std::string& path);

/// A one-line progress bar on stderr, drawn only when enabled (stderr is a terminal). Work is counted in
/// units (bytes); with an unknown total only the stage and the units done are shown.
class Progress {
 public:
  explicit Progress(bool enabled) : enabled_(enabled) {}
  ~Progress() { done(); }
  bool enabled() const { return enabled_; }
  void set_total(std::uint64_t units) { total_ = units; }
  void stage(const std::string& label);
  void add(std::uint64_t units);
  /// Erases the bar.
  void done();

 private:
  void draw(bool force);
  bool enabled_;
  bool drawn_ = false;
  std::uint64_t total_ = 0, done_units_ = 0;
  std::string label_;
  std::chrono::steady_clock::time_point last_{};
};

/// Whether stderr is a terminal (progress bars) and whether stdout is (no binary to terminals).
bool stderr_is_terminal();
bool stdout_is_terminal();

}  // namespace clsort_cli
