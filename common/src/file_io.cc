#include "vxsynth/common/file_io.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "vxsynth/common/error.h"

namespace vxsynth {
namespace {

/// Writes all of `data` to `fd` (retrying on EINTR and short writes). Errors name `target` (the
/// file the caller asked for) first and `tmp` (the temporary file actually written) second.
void write_all(int fd, std::string_view data, const std::filesystem::path& target,
               const std::filesystem::path& tmp) {
  while (!data.empty()) {
    const ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0) {
      const int err = errno;
      if (err == EINTR) continue;
      throw make_error("{}: write failed: {} (temporary file {})", target.string(),
                       std::strerror(err), tmp.string());
    }
    data.remove_prefix(static_cast<size_t>(n));
  }
}

}  // namespace

std::string read_file(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    throw make_error("{}: cannot open for reading: {}", path.string(), std::strerror(err));
  }
  struct FdCloser {
    int fd;
    ~FdCloser() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
    throw make_error("{}: cannot read: {}", path.string(), std::strerror(EISDIR));
  }
  std::string out;
  if (S_ISREG(st.st_mode) && st.st_size > 0) out.reserve(static_cast<size_t>(st.st_size));
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n == 0) break;
    if (n < 0) {
      const int err = errno;
      if (err == EINTR) continue;
      throw make_error("{}: read failed: {}", path.string(), std::strerror(err));
    }
    out.append(buf, static_cast<size_t>(n));
  }
  return out;
}

void write_file_atomic(const std::filesystem::path& path, std::string_view content) {
  const std::filesystem::path tmp = path.string() + ".tmp." + std::to_string(::getpid());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    const int err = errno;
    throw make_error("{}: cannot write: {} (creating temporary file {})", path.string(),
                     std::strerror(err), tmp.string());
  }
  try {
    write_all(fd, content, path, tmp);
    if (::fsync(fd) != 0) {
      const int err = errno;
      throw make_error("{}: fsync failed: {} (temporary file {})", path.string(),
                       std::strerror(err), tmp.string());
    }
  } catch (...) {
    ::close(fd);
    ::unlink(tmp.c_str());
    throw;
  }
  ::close(fd);
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    throw make_error("{}: cannot replace: {} (renaming temporary file {})", path.string(),
                     std::strerror(err), tmp.string());
  }
}

void append_line_atomic(const std::filesystem::path& path, std::string_view line) {
  std::string record(line);
  if (record.empty() || record.back() != '\n') record.push_back('\n');
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) {
    const int err = errno;
    throw make_error("{}: cannot open for append: {}", path.string(), std::strerror(err));
  }
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
    const int sync_err = errno;
    ::close(fd);
    throw make_error("{}: fsync failed: {}", path.string(), std::strerror(sync_err));
  }
  ::close(fd);
}

ExclusiveFileLock::ExclusiveFileLock(const std::filesystem::path& path)
    : fd_(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644)) {
  if (fd_ < 0) throw make_error("{}: cannot open the lock file: {}", path.string(), std::strerror(errno));
  while (::flock(fd_, LOCK_EX) != 0) {
    if (errno == EINTR) continue;
    const int err = errno;
    ::close(fd_);
    throw make_error("{}: cannot lock: {}", path.string(), std::strerror(err));
  }
}

ExclusiveFileLock::~ExclusiveFileLock() { ::close(fd_); }

void check_output_path(const std::filesystem::path& path, std::string_view what) {
  const std::filesystem::path dir = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec))
    throw make_error("{} {}: directory {} does not exist (checked before the run)", what, path.string(), dir.string());
  if (std::filesystem::is_directory(path, ec))
    throw make_error("{} {}: is a directory, not a file (checked before the run)", what, path.string());
  if (::access(dir.c_str(), W_OK) != 0)
    throw make_error("{} {}: directory {} is not writable: {} (checked before the run)", what, path.string(),
                     dir.string(), std::strerror(errno));
}

DirectoryOwnerLock::DirectoryOwnerLock(const std::filesystem::path& dir)
    : fd_(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)) {
  if (fd_ < 0) throw make_error("{}: cannot open the directory to lock it: {}", dir.string(), std::strerror(errno));
  while (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    if (errno == EINTR) continue;
    const int err = errno;
    ::close(fd_);
    if (err == EWOULDBLOCK)
      throw make_error("{}: another vxsynth process is working in this directory; wait for it to end (or stop it) "
                       "before running another here", dir.string());
    throw make_error("{}: cannot lock: {}", dir.string(), std::strerror(err));
  }
}

DirectoryOwnerLock::~DirectoryOwnerLock() { ::close(fd_); }

bool directory_owned_elsewhere(const std::filesystem::path& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return false;
  int rc = 0;
  while ((rc = ::flock(fd, LOCK_SH | LOCK_NB)) != 0 && errno == EINTR) {
  }
  const bool held = rc != 0 && errno == EWOULDBLOCK;
  ::close(fd);
  return held;
}

}  // namespace vxsynth
