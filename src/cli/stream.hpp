#pragma once
// One of the process's output streams (stdout or stderr) as cli/ writes to it. The logger's
// sinks and Output share one Stream for stderr, so a live progress line is always cleared
// before a log line, and a stream that failed is left alone by every writer.

#include <cstdio>
#include <mutex>
#include <string_view>

namespace cli {

class Stream {
public:
    explicit Stream(std::FILE* file) : m_file(file) {}
    Stream(const Stream&) = delete;
    Stream& operator=(const Stream&) = delete;

    // Writes `text` and flushes, after erasing the live line if one is showing. Never
    // throws: a failed write (its reader went away, a closed descriptor, a full disk) marks
    // the stream failed, and nothing is written to it again.
    void write(std::string_view text);
    // Draws `line` as the live line, redrawn in place: "\r\033[K" then `line`, no line break.
    void draw_live(std::string_view line);
    // Erases the live line, if one is showing, so that what follows starts on a clean line.
    void clear_live();
    // Whether a write to the stream has failed.
    bool failed() const;
    // The file written to.
    std::FILE* file() const { return m_file; }

private:
    // Writes `text` unless the stream failed before; the caller holds m_mutex.
    void put(std::string_view text);

    std::FILE* m_file;
    mutable std::mutex m_mutex;  // spdlog sinks and Output may write from different threads
    bool m_failed = false;
    bool m_live_showing = false;
};

// Opens /dev/null on each of stdin, stdout and stderr that was closed when the process
// started (`2>&-`), so that no file opened later (a journal, a result log) takes the
// descriptor and receives what is written there. Call it before anything is opened.
void keep_standard_streams_open();

}  // namespace cli
