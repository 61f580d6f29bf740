#pragma once
// One run per result log at a time, whatever the log's path is called: an exclusive flock(2)
// on "<log>.lock" beside the file the path resolves to (so symlinks agree), and on the log
// file itself once it exists (so hard links agree too), held for the run.

#include <string>
#include <utility>

#include "util/result.hpp"

namespace results {

class RunLock {
public:
    // Checks `log_path` with resolve_log_path (refusing, untouched, what it refuses), then
    // locks "<resolved>.lock" (creating it and its folders; the pid is written into it) and,
    // when the log exists, the log file itself, without waiting. Fails with "another wacamp
    // process is running this campaign (…)" when another open of either holds the lock, in
    // this process or another, or with the OS reason when the lock file cannot be made.
    static util::Result<RunLock> acquire(const std::string& log_path);

    RunLock(RunLock&& other) noexcept;
    RunLock& operator=(RunLock&& other) noexcept;
    RunLock(const RunLock&) = delete;
    RunLock& operator=(const RunLock&) = delete;
    // Releases the locks. The lock file stays: removing it would let a third process lock a
    // new file while a second still holds the old one.
    ~RunLock();

    // Locks the file at `file` as the log, in place of the one locked before: call it on a
    // new log (or on the file about to be renamed into the log's place) so that a hard link
    // made to it later finds it locked. Fails as acquire() does.
    util::Result<void> cover(const std::string& file);

    // Removes the lock file (while still holding it) and releases the locks: for a run that
    // made the lock file and ended before writing anything, so that it leaves nothing behind.
    // A process that opened the old file meanwhile finds, once it has locked it, that it is
    // no longer the one at the path, and tries again (acquire).
    void discard();

    // Returns the path of the lock file.
    const std::string& path() const { return m_path; }
    // Returns the log's path with symlinks followed: where to read and write it.
    const std::string& log_path() const { return m_log_path; }
    // Whether the lock file was there before this run made it: a run has taken this lock
    // before (the file stays), so an empty file at the log's path is not a new campaign's.
    bool earlier_run() const { return m_earlier_run; }

private:
    RunLock(int fd, std::string path, std::string log_path)
        : m_fd(fd), m_path(std::move(path)), m_log_path(std::move(log_path)) {}
    void release();

    int m_fd = -1;      // the lock file
    int m_log_fd = -1;  // the log file itself, once it exists
    std::string m_path;
    std::string m_log_path;
    bool m_earlier_run = false;
};

}  // namespace results
