#pragma once
// Appends records to the result log: each is one write(2) of one complete line, so a crash
// can tear at most the last line, and the reader skips a torn line with a warning.

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include "util/clock.hpp"
#include "util/result.hpp"

namespace results {

struct LogCheck;

// When appended lines are forced to the disk with fdatasync(2). Every policy survives a
// crash of the process (the OS has the data); they differ on a crash of the machine.
enum class Durability {
    none,          // leave it to the OS page cache
    interval,      // at most every `sync_interval`, checked on append, and on close
    every_record,  // after every line: the slowest, loses nothing
};

// What open() does with a log that exists.
enum class Existing {
    append,   // continue it
    replace,  // empty it first (in place: a symlink to it stays a symlink)
};

struct WriterOptions {
    Durability durability = Durability::interval;
    std::chrono::milliseconds sync_interval{1'000};
    const util::Clock* clock = nullptr;  // steady time for `interval`; the system's when null
    Existing existing = Existing::append;
};

class LogWriter {
public:
    // Opens `path` for appending, creating it and its parent folders as needed; never creates
    // a file through a symlink (a dangling one fails). If the file ends in a torn line (no
    // final '\n'), writes a '\n' so new records start on a fresh line. Fails with the path and
    // the OS reason, or when `path` is not a regular file (untouched).
    static util::Result<LogWriter> open(const std::string& path, const WriterOptions& options = {});

    LogWriter(LogWriter&& other) noexcept;
    LogWriter& operator=(LogWriter&& other) noexcept;
    LogWriter(const LogWriter&) = delete;
    LogWriter& operator=(const LogWriter&) = delete;
    // Syncs per the policy (errors ignored: call close() to see them) and closes.
    ~LogWriter();

    // Appends `line`, which must be one whole record ending in '\n' (see to_line), in one
    // write(2), then syncs per the policy. Fails on a write or sync error, and when the file
    // is no longer the log at path() or shorter than what was written to it (see
    // check_open_log; a deleted or moved log is first restored at its path from the open
    // file, and written there from then on). Not thread-safe: call it from one thread.
    // Lines added with append_batched() before it are written first.
    util::Result<void> append(std::string_view line);
    // Adds `line` to a batch written in one write(2) by the next flush(), append() or close(),
    // or at once when the batch passes 64 KiB. The dispatcher batches the lines of one turn of
    // its loop and flushes before any request leaves and before it waits, so no request
    // outruns its `attempt` line and a result waits only for the rest of its turn.
    util::Result<void> append_batched(std::string_view line);
    // Writes the batch (if any), then syncs per the policy; fails as append() does.
    util::Result<void> flush();
    // Has `line` written just before the next line appended (by either call), if any is: a
    // continued campaign's `campaign` record, which only a run that writes leaves.
    void begin_with(std::string line) { m_preamble = std::move(line); }
    // Forces what was appended to the disk now, whatever the policy.
    util::Result<void> sync();
    // Syncs per the policy and closes; later appends fail.
    util::Result<void> close();

    // Returns where the log is written (after a restore, where it was restored to).
    const std::string& path() const { return m_path; }
    // Returns the bytes the log holds once the batch is written: after flush(), the offset where
    // the next line starts (the ledger's fold mark).
    std::int64_t size() const { return m_written + static_cast<std::int64_t>(m_batch.size()); }
    // Returns how many times the file was synced (for tests and statistics).
    std::int64_t sync_count() const { return m_sync_count; }

private:
    LogWriter(int fd, std::string path, const WriterOptions& options);
    util::Result<void> write_all(std::string_view bytes);
    util::Result<void> write_line(std::string_view line);
    util::Result<void> check_line(std::string_view line) const;
    util::Result<void> take_preamble();
    util::Result<void> sync_per_policy();
    util::Result<void> verify();
    util::Result<void> recover(const LogCheck& check);
    std::chrono::steady_clock::time_point steady_now() const;
    void release();

    int m_fd = -1;
    std::string m_path;
    WriterOptions m_options;
    bool m_dirty = false;        // appended since the last sync
    bool m_torn = false;         // a failed write left part of a line: start the next on a new one
    std::int64_t m_written = 0;  // bytes the file holds at least: its size at open plus what was written
    std::string m_batch;         // whole lines not yet written (append_batched)
    std::string m_preamble;      // begin_with's line, until the next append
    std::chrono::steady_clock::time_point m_last_sync;
    std::int64_t m_sync_count = 0;
};

}  // namespace results
