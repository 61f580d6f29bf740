#pragma once
// One run per campaign at a time: an exclusive flock(2) on "<log>.lock", held for the run.

#include <string>
#include <utility>

#include "util/result.hpp"

namespace results {

class RunLock {
public:
    // Checks `log_path` with resolve_log_path (refusing, untouched, what it refuses), then
    // locks "`log_path`.lock" (creating it and its folders; the pid is written into it)
    // without waiting. Fails with "another wacamp process is running this campaign (lock
    // held on PATH by pid N)" when another open of it holds the lock, in this process or
    // another, or with the OS reason when the file cannot be made.
    static util::Result<RunLock> acquire(const std::string& log_path);

    RunLock(RunLock&& other) noexcept;
    RunLock& operator=(RunLock&& other) noexcept;
    RunLock(const RunLock&) = delete;
    RunLock& operator=(const RunLock&) = delete;
    // Releases the lock. The file stays: removing it would let a third process lock a new
    // file while a second still holds the old one.
    ~RunLock();

    // Returns the path of the lock file.
    const std::string& path() const { return m_path; }
    // Returns the log's path with symlinks followed: where to create or replace it.
    const std::string& log_path() const { return m_log_path; }

private:
    RunLock(int fd, std::string path, std::string log_path)
        : m_fd(fd), m_path(std::move(path)), m_log_path(std::move(log_path)) {}
    void release();

    int m_fd = -1;
    std::string m_path;
    std::string m_log_path;
};

} // namespace results
