#include "vxsynth/common/file_io.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "vxsynth/common/error.h"

namespace vxsynth {
namespace {

void write_all(int fd, std::string_view data, const std::filesystem::path& path) {
  while (!data.empty()) {
    const ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      throw make_error("{}: write failed: {}", path.string(), std::strerror(errno));
    }
    data.remove_prefix(static_cast<size_t>(n));
  }
}

}  // namespace

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw make_error("{}: cannot open for reading", path.string());
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) throw make_error("{}: read failed", path.string());
  return ss.str();
}

void write_file_atomic(const std::filesystem::path& path, std::string_view content) {
  const std::filesystem::path tmp = path.string() + ".tmp." + std::to_string(::getpid());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw make_error("{}: cannot create: {}", tmp.string(), std::strerror(errno));
  try {
    write_all(fd, content, tmp);
    if (::fsync(fd) != 0) throw make_error("{}: fsync failed: {}", tmp.string(), std::strerror(errno));
  } catch (...) {
    ::close(fd);
    ::unlink(tmp.c_str());
    throw;
  }
  ::close(fd);
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    throw make_error("{}: rename failed: {}", path.string(), std::strerror(err));
  }
}

void append_line_atomic(const std::filesystem::path& path, std::string_view line) {
  std::string record(line);
  if (record.empty() || record.back() != '\n') record.push_back('\n');
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) throw make_error("{}: cannot open for append: {}", path.string(), std::strerror(errno));
  // One write() call: with O_APPEND the kernel places the whole buffer at the end atomically for
  // regular files; a short write is reported as an error (the record is then truncated by the
  // reader's last-line validation, never silently accepted).
  const ssize_t n = ::write(fd, record.data(), record.size());
  const int err = errno;
  if (n != static_cast<ssize_t>(record.size())) {
    ::close(fd);
    throw make_error("{}: append failed ({} of {} bytes): {}", path.string(), n < 0 ? 0 : n,
                     record.size(), std::strerror(err));
  }
  if (::fsync(fd) != 0) {
    ::close(fd);
    throw make_error("{}: fsync failed: {}", path.string(), std::strerror(errno));
  }
  ::close(fd);
}

}  // namespace vxsynth
