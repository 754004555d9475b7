#pragma once
/// \file
/// File helpers that never leave a half-written file behind.

#include <filesystem>
#include <string>
#include <string_view>

namespace vxsynth {

/// Reads a whole file. Throws vxsynth::Error naming the path and the OS reason (strerror) if it
/// cannot be opened or read, including "Is a directory" for a directory (which open(2) accepts).
[[nodiscard]] std::string read_file(const std::filesystem::path& path);

/// Replaces `path` atomically: writes a temporary file in the same directory, fsyncs it and renames
/// it over `path`. A crash leaves either the old or the new content, never a mix.
/// Throws vxsynth::Error on any I/O failure; the message starts with `path` (the target, never the
/// temporary file), gives the OS reason (strerror), and names the temporary file after it.
void write_file_atomic(const std::filesystem::path& path, std::string_view content);

/// Appends one record (a line; a trailing '\n' is added if missing) with a single O_APPEND write
/// followed by fsync, so concurrent readers and a crash never see a torn record.
/// Throws vxsynth::Error on any I/O failure, including a short write; the message starts with
/// `path` and gives the OS reason (strerror).
void append_line_atomic(const std::filesystem::path& path, std::string_view line);

/// An exclusive advisory lock (flock(2)) on `path`, created if missing, held for the object's
/// lifetime: the constructor blocks until no other holder remains, in this or any other process.
/// Throws vxsynth::Error naming the path and the OS reason if it cannot be opened or locked.
class ExclusiveFileLock {
 public:
  explicit ExclusiveFileLock(const std::filesystem::path& path);
  ~ExclusiveFileLock();
  ExclusiveFileLock(const ExclusiveFileLock&) = delete;
  ExclusiveFileLock& operator=(const ExclusiveFileLock&) = delete;

 private:
  int fd_;
};

/// Checks, before a long run, that `path` can be written when it ends: its directory exists and
/// `path` is not a directory. Throws vxsynth::Error naming `what` (e.g. "VXSIM_MEM_PROFILE") and the
/// path otherwise.
void check_output_path(const std::filesystem::path& path, std::string_view what);

/// Ownership of a directory a run writes into: an exclusive flock(2) on the directory itself (no
/// file is added to it), taken without waiting and held for the object's lifetime, so that a
/// second vxsynth process working in the same run or suite directory is refused instead of
/// interleaving its writes. Not inherited by child processes (O_CLOEXEC). Throws vxsynth::Error
/// naming the directory when another process holds it, or when it cannot be opened.
class DirectoryOwnerLock {
 public:
  explicit DirectoryOwnerLock(const std::filesystem::path& dir);
  ~DirectoryOwnerLock();
  DirectoryOwnerLock(const DirectoryOwnerLock&) = delete;
  DirectoryOwnerLock& operator=(const DirectoryOwnerLock&) = delete;

 private:
  int fd_;
};

/// Whether another process holds `dir`'s DirectoryOwnerLock now (false when `dir` cannot be opened).
[[nodiscard]] bool directory_owned_elsewhere(const std::filesystem::path& dir);

}  // namespace vxsynth
