// `clsort lexsort`: the stable permutation that orders the rows of several key columns (files of one key
// type each, of equal length) by the first column, then the second, and so on (Sorter::lexsort).
#include <chrono>

#include "commands.hpp"
#include "io.hpp"

namespace clsort_cli {
namespace {

struct ColumnSpec {
  clsort::KeyType type;
  clsort::Order order;
  std::string path;
};

// "TYPE[:asc|:desc]=FILE".
ColumnSpec parse_column(const std::string& spec) {
  const std::size_t eq = spec.find('=');
  if (eq == std::string::npos || eq + 1 == spec.size())
    throw CliError("--key " + spec + ": expected TYPE[:desc]=FILE, e.g. f64:desc=price.bin");
  std::string type = spec.substr(0, eq);
  clsort::Order order = clsort::Order::ascending;
  if (const std::size_t colon = type.find(':'); colon != std::string::npos) {
    const std::string o = type.substr(colon + 1);
    if (o == "desc" || o == "descending")
      order = clsort::Order::descending;
    else if (o != "asc" && o != "ascending")
      throw CliError("--key " + spec + ": the order is asc or desc, not " + o);
    type = type.substr(0, colon);
  }
  return {parse_key_type(type), order, spec.substr(eq + 1)};
}

}  // namespace

CLI::App* add_lexsort_command(CLI::App& app, LexsortArgs& a) {
  CLI::App* cmd = app.add_subcommand(
      "lexsort", "Write the stable permutation (u32 row indices) that orders rows by several key columns");
  cmd->footer(
      "Each --key is one column, TYPE[:desc]=FILE, the first the most significant (ORDER BY a, b DESC).\n"
      "A column's NaNs tie, so the next columns order them; rows equal in every column keep their order.\n"
      "Examples:\n"
      "  clsort lexsort -k u16=country.bin -k f64:desc=price.bin -o rows.u32\n"
      "  clsort lexsort --text -k i32=a.txt -k f32:desc=b.txt");
  cmd->add_option("--key,-k", a.keys, "A key column: TYPE[:desc]=FILE ('-' for stdin, at most one)")
      ->required();
  cmd->add_option("--device", a.device,
                  "Device: gpu, cpu, a name substring or PLATFORM:DEVICE (see `clsort devices`); "
                  "default: CLSORT_DEVICE, else the first GPU, else the first CPU device");
  cmd->add_flag("--text", a.text, "Columns and output are text, one number per line");
  cmd->add_option("-o,--output", a.output, "Output file of u32 row indices, '-' for stdout")
      ->capture_default_str();
  cmd->add_flag("--verbose,-v", a.verbose, "Report the device and time on stderr");
  return cmd;
}

int run_lexsort(const LexsortArgs& a) {
  const Format format = a.text ? Format::text : Format::binary;
  std::vector<ColumnSpec> specs;
  int from_stdin = 0;
  for (const std::string& k : a.keys) {
    specs.push_back(parse_column(k));
    from_stdin += specs.back().path == "-";
  }
  if (from_stdin > 1) throw CliError("at most one --key column can come from stdin");
  if (format == Format::binary && stdout_is_terminal() && a.output == "-")
    throw CliError("refusing to write binary data to a terminal: use -o FILE, a redirection or --text");
  // Every column is read whole, and the output created, before the device does any work.
  std::vector<std::vector<unsigned char>> data(specs.size());
  std::vector<clsort::Column> columns;
  std::string first_name;
  for (std::size_t i = 0; i < specs.size(); ++i) {
    Input file(specs[i].path, "key");
    ElementReader reader(file, format, specs[i].type);
    const std::size_t width = clsort::key_size(specs[i].type);
    std::vector<unsigned char> chunk((std::size_t(1) << 16) * width);
    while (const std::size_t got = reader.read(chunk.data(), chunk.size() / width))
      data[i].insert(data[i].end(), chunk.begin(), chunk.begin() + std::ptrdiff_t(got * width));
    const std::size_t rows = data[i].size() / width;
    if (i == 0) first_name = file.name();
    if (i > 0 && rows != columns[0].n)
      throw CliError(file.name() + ": holds " + std::to_string(rows) + " keys but " + first_name + " holds " +
                     std::to_string(columns[0].n) + "; every column must have the same count");
    columns.push_back({specs[i].type, data[i].data(), rows, specs[i].order});
  }
  const cl::Device device = open_device(a.device);
  Output out(a.output, "indices");
  clsort::Sorter sorter(device);
  const auto t0 = std::chrono::steady_clock::now();
  const std::vector<std::uint32_t> rows = sorter.lexsort(columns);
  if (a.verbose)
    std::fprintf(stderr, "clsort: lexsort of %zu rows by %zu columns on %s in %.3f ms\n", rows.size(),
                 columns.size(), describe_device(device).c_str(),
                 std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  ElementWriter(out, format, clsort::KeyType::u32).write(rows.data(), rows.size());
  out.commit();
  return 0;
}

}  // namespace clsort_cli
