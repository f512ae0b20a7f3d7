// The on-disk program cache. Each entry is one file named by a hash of its key, holding a header (magic,
// key length, payload length, payload checksum), the full key (so a hash collision reads as a miss) and
// the binary. Files are created 0600 in a 0700 directory and appear only complete, through rename().
#include "engine/disk_cache.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include "engine/program_cache.hpp"

namespace clsort::detail {
namespace {

constexpr char kMagic[8] = {'C', 'L', 'S', 'O', 'R', 'T', 'B', '1'};

struct Header {
  char magic[8];
  std::uint64_t key_size;
  std::uint64_t payload_size;
  std::uint64_t checksum;  // FNV-1a of key and payload
};

std::string entry_path(const std::string& dir, const std::string& key) {
  char name[32];
  std::snprintf(name, sizeof name, "%016llx.bin", static_cast<unsigned long long>(fnv1a(key)));
  return dir + "/" + name;
}

bool make_dirs(const std::string& path) {
  std::string partial;
  for (std::size_t i = 0; i <= path.size(); ++i) {
    if (i == path.size() || (path[i] == '/' && i > 0)) {
      partial = path.substr(0, i);
      if (mkdir(partial.c_str(), 0700) != 0 && errno != EEXIST) return false;
    }
  }
  return true;
}

}  // namespace

std::string disk_cache_dir() {
  if (const char* off = std::getenv("CLSORT_CACHE"); off && std::string(off) == "0") return {};
  if (const char* dir = std::getenv("CLSORT_CACHE_DIR")) return dir;  // empty string: off
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg == '/')
    return std::string(xdg) + "/clsort";
  if (const char* home = std::getenv("HOME"); home && *home) return std::string(home) + "/.cache/clsort";
  return {};
}

std::vector<unsigned char> disk_cache_load(const std::string& key) {
  const std::string dir = disk_cache_dir();
  if (dir.empty()) return {};
  std::ifstream in(entry_path(dir, key), std::ios::binary);
  Header h{};
  if (!in.read(reinterpret_cast<char*>(&h), sizeof h)) return {};
  if (std::memcmp(h.magic, kMagic, sizeof kMagic) != 0 || h.key_size != key.size() || h.payload_size == 0 ||
      h.payload_size > (std::uint64_t(1) << 32))
    return {};
  std::string stored_key(h.key_size, '\0');
  std::vector<unsigned char> payload(h.payload_size);
  if (!in.read(&stored_key[0], std::streamsize(h.key_size)) ||
      !in.read(reinterpret_cast<char*>(payload.data()), std::streamsize(h.payload_size)) || stored_key != key)
    return {};
  const std::string bytes(payload.begin(), payload.end());
  if (fnv1a(bytes, fnv1a(key)) != h.checksum) return {};
  return payload;
}

void disk_cache_store(const std::string& key, const std::vector<unsigned char>& binary) {
  const std::string dir = disk_cache_dir();
  if (dir.empty() || binary.empty() || !make_dirs(dir)) return;
  static std::atomic<unsigned> counter{0};
  const std::string path = entry_path(dir, key);
  const std::string tmp = path + ".tmp." + std::to_string(getpid()) + "." + std::to_string(counter++);
  const int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0600);
  if (fd < 0) return;
  Header h{};
  std::memcpy(h.magic, kMagic, sizeof kMagic);
  h.key_size = key.size();
  h.payload_size = binary.size();
  h.checksum = fnv1a(std::string(binary.begin(), binary.end()), fnv1a(key));
  auto write_all = [fd](const void* data, std::size_t size) {
    const char* p = static_cast<const char*>(data);
    while (size > 0) {
      const ssize_t w = write(fd, p, size);
      if (w <= 0) return false;
      p += w;
      size -= std::size_t(w);
    }
    return true;
  };
  const bool ok =
      write_all(&h, sizeof h) && write_all(key.data(), key.size()) && write_all(binary.data(), binary.size());
  close(fd);
  if (!ok || rename(tmp.c_str(), path.c_str()) != 0) unlink(tmp.c_str());
}

}  // namespace clsort::detail
