#include "cli/terminal_ui.hpp"

#include <fmt/chrono.h>
#include <fmt/format.h>
#include <iostream>
#include <string>
#include <unistd.h>

#include "util/duration.hpp"

namespace cli {

namespace {

constexpr auto k_plain_interval = std::chrono::seconds(10);

std::string clock_time(std::chrono::system_clock::time_point t) {
    auto secs = std::chrono::floor<std::chrono::seconds>(t);
    return fmt::format("{:%H:%M:%S} UTC", secs);
}

} // namespace

TerminalUi::TerminalUi(const util::Redactor& redactor, ProgressMode progress, AssumeYes yes)
    : m_redactor(redactor),
      m_enabled(progress == ProgressMode::automatic),
      m_live(isatty(STDERR_FILENO) == 1),
      m_ask(yes == AssumeYes::no && isatty(STDIN_FILENO) == 1 && isatty(STDERR_FILENO) == 1),
      m_started(std::chrono::steady_clock::now()),
      m_last_plain(m_started) {}

TerminalUi::~TerminalUi() {
    clear_line();
}

bool TerminalUi::wants_confirmation() const {
    return m_ask;
}

bool TerminalUi::confirm(const runner::Preview& p) {
    clear_line();
    std::string text = fmt::format(
        "Campaign {}: {} rows in the CSV — {} to send now, {} invalid, {} duplicates, {} already recorded\n"
        "Rate: {}/s, {} in flight. Result log: {}\n"
        "First message (to {}):\n  {}\n",
        p.campaign_name, p.rows, p.to_send, p.invalid, p.duplicates, p.already_done, p.per_second, p.concurrency,
        p.results_path, p.first_wa_id, p.first_body);
    fmt::print(stderr, "{}Send {} message{}? [y/N] ", m_redactor.apply(text), p.to_send, p.to_send == 1 ? "" : "s");
    std::fflush(stderr);
    std::string answer;
    if (!std::getline(std::cin, answer)) {
        return false;
    }
    return answer == "y" || answer == "Y" || answer == "yes";
}

void TerminalUi::notice(std::string_view text) {
    clear_line();
    fmt::print(stderr, "wacamp: {}\n", m_redactor.apply(text));
    std::fflush(stderr);
}

void TerminalUi::warning(std::string_view text) {
    clear_line();
    fmt::print(stderr, "wacamp: warning: {}\n", m_redactor.apply(text));
    std::fflush(stderr);
}

void TerminalUi::clear_line() {
    if (m_line_showing) {
        fmt::print(stderr, "\r\033[K");
        std::fflush(stderr);
        m_line_showing = false;
    }
}

void TerminalUi::progress(const queue::Progress& p, std::int64_t total) {
    if (!m_enabled) {
        return;
    }
    auto now = std::chrono::steady_clock::now();
    if (!m_live && now - m_last_plain < k_plain_interval) {
        return;
    }
    m_last_plain = now;
    std::string line = fmt::format("sent {} · failed {} · unknown {}", p.sent, p.failed, p.unknown);
    if (total > 0) {
        std::int64_t remaining = std::max<std::int64_t>(0, total - p.sent - p.failed - p.unknown);
        line += fmt::format(" · remaining {}", remaining);
        if (p.achieved_rate > 0.1 && remaining > 0) {
            auto eta = std::chrono::milliseconds(static_cast<long long>(remaining / p.achieved_rate * 1000));
            line += " · ETA " + util::format_duration(eta);
        }
    }
    line += fmt::format(" · in flight {} · {:.1f}/s", p.in_flight, p.achieved_rate);
    if (p.retry_waiting > 0) {
        line += fmt::format(" · {} waiting to retry", p.retry_waiting);
    }
    if (!p.pause_reason.empty()) {
        line += " · paused: " + p.pause_reason;
        if (p.paused_until) {
            line += " until " + clock_time(*p.paused_until);
        }
    }
    line += " · " + util::format_duration(std::chrono::duration_cast<std::chrono::milliseconds>(now - m_started));
    if (m_live) {
        fmt::print(stderr, "\r\033[K{}", line);
        m_line_showing = true;
    } else {
        fmt::print(stderr, "wacamp: progress: {}\n", line);
    }
    std::fflush(stderr);
}

} // namespace cli
