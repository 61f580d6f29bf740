#include "cli/stream.hpp"

#include <fcntl.h>
#include <unistd.h>
#include <cerrno>
#include <string>

namespace cli {

namespace {

constexpr std::string_view k_erase_line = "\r\033[K";

}  // namespace

void Stream::put(std::string_view text) {
    if (m_failed) {
        return;  // a reader that went away will not come back
    }
    // Flushed at once, so that lines of stdout and stderr keep their order when both go to
    // one file.
    const bool written = std::fwrite(text.data(), 1, text.size(), m_file) == text.size();
    const bool flushed = std::fflush(m_file) == 0;
    // Some streams (glibc's fopencookie) report a failed write only in their error flag.
    if (!written || !flushed || std::ferror(m_file) != 0) {
        std::clearerr(m_file);
        m_failed = true;
    }
}

void Stream::write(std::string_view text) {
    std::lock_guard lock(m_mutex);
    if (m_live_showing) {
        put(k_erase_line);
        m_live_showing = false;
    }
    put(text);
}

void Stream::draw_live(std::string_view line) {
    std::lock_guard lock(m_mutex);
    std::string text(k_erase_line);
    text += line;
    put(text);
    m_live_showing = true;
}

void Stream::clear_live() {
    std::lock_guard lock(m_mutex);
    if (m_live_showing) {
        put(k_erase_line);
        m_live_showing = false;
    }
}

bool Stream::failed() const {
    std::lock_guard lock(m_mutex);
    return m_failed;
}

void keep_standard_streams_open() {
    for (const int fd : {STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO}) {
        if (fcntl(fd, F_GETFD) != -1 || errno != EBADF) {
            continue;
        }
        // The lowest free descriptor is `fd`: the ones below it are open by now.
        const int null = open("/dev/null", O_RDWR);
        if (null >= 0 && null != fd) {
            dup2(null, fd);
            close(null);
        }
    }
}

}  // namespace cli
