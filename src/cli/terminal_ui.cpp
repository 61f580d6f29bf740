#include "cli/terminal_ui.hpp"

#include <fmt/format.h>
#include <unistd.h>
#include <cmath>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "cli/send_causes.hpp"
#include "util/text.hpp"
#include "util/time.hpp"

namespace cli {

namespace {

constexpr auto k_plain_interval = std::chrono::seconds(10);

// What one progress report says, worked out once for both formats.
struct Figures {
    std::int64_t held_back = 0;             // rows the account's ledger held back
    std::string held_back_causes;           // "suppressed 2, frequency_cap 1"
    std::optional<std::int64_t> remaining;  // unknown without a total
    std::optional<std::chrono::milliseconds> eta;
    std::chrono::milliseconds elapsed{0};
};

Figures figures_of(const queue::Progress& p, const runner::RunFigures& run, std::chrono::milliseconds elapsed) {
    Figures f;
    f.elapsed = elapsed;
    f.held_back = total_of(run.held_back);
    f.held_back_causes = cause_list(run.held_back);
    f.remaining = run.remaining(p);
    if (f.remaining && p.achieved_rate > 0.1 && *f.remaining > 0) {
        f.eta = std::chrono::milliseconds(static_cast<long long>(*f.remaining / p.achieved_rate * 1000));
    }
    return f;
}

std::string progress_line(const queue::Progress& p, const Figures& f) {
    std::string line = fmt::format("sent {} · failed {} · unknown {}", p.sent, p.failed, p.unknown);
    if (f.held_back > 0) {
        line += fmt::format(" · held back {} ({})", f.held_back, f.held_back_causes);
    }
    if (f.remaining) {
        line += fmt::format(" · remaining {}", *f.remaining);
        if (f.eta) {
            line += " · ETA " + util::format_duration(*f.eta, util::DurationStyle::compact);
        }
    }
    // "in flight 97/125": the requests out and the most the queue allows now (auto's window).
    line += fmt::format(" · in flight {}", p.in_flight);
    if (p.in_flight_limit > 0) {
        line += fmt::format("/{}", p.in_flight_limit);
    }
    line += fmt::format(" · {:.1f}/s", p.achieved_rate);
    if (p.retry_waiting > 0) {
        line += fmt::format(" · {} waiting to retry", p.retry_waiting);
    }
    if (!p.pause_reason.empty()) {
        line += " · paused: " + p.pause_reason;
        if (p.paused_until) {
            line += " until " + util::format_wall_time(*p.paused_until, std::chrono::system_clock::now());
        }
    }
    return line + " · " + util::format_duration(f.elapsed, util::DurationStyle::compact);
}

nlohmann::ordered_json progress_fields(const queue::Progress& p, const runner::RunFigures& run, const Figures& f) {
    using nlohmann::ordered_json;
    const auto seconds = [](std::chrono::milliseconds d) {
        return std::llround(static_cast<double>(d.count()) / 1000);
    };
    return {{"sent", p.sent},
            {"failed", p.failed},
            {"unknown", p.unknown},
            {"held_back", cause_counts_json(run.held_back)},
            {"remaining", f.remaining ? ordered_json(*f.remaining) : ordered_json()},
            {"in_flight", p.in_flight},
            {"in_flight_limit", p.in_flight_limit},
            {"retry_waiting", p.retry_waiting},
            {"rate", std::round(p.achieved_rate * 10) / 10},
            {"eta_seconds", f.eta ? ordered_json(seconds(*f.eta)) : ordered_json()},
            {"paused", !p.pause_reason.empty()},
            {"pause_reason", p.pause_reason.empty() ? ordered_json() : ordered_json(p.pause_reason)},
            {"paused_until", p.paused_until && !p.pause_reason.empty()
                                 ? ordered_json(util::format_timestamp(*p.paused_until))
                                 : ordered_json()},
            {"elapsed_ms", f.elapsed.count()}};
}

}  // namespace

bool would_ask(AssumeYes yes) {
    return yes == AssumeYes::no && isatty(STDIN_FILENO) == 1 && isatty(STDERR_FILENO) == 1;
}

TerminalUi::TerminalUi(Output& out, ProgressMode progress, AssumeYes yes)
    : m_out(out),
      m_enabled(progress == ProgressMode::automatic),
      m_ask(out.format() == LogFormat::text && would_ask(yes)),
      m_started(std::chrono::steady_clock::now()),
      // Plain lines start after one interval; a log collector gets the first object at once,
      // with the total to send.
      m_next_plain(out.format() == LogFormat::json ? m_started : m_started + k_plain_interval) {}

TerminalUi::~TerminalUi() {
    m_out.clear_line();
}

bool TerminalUi::wants_confirmation() const {
    return m_ask;
}

bool TerminalUi::confirm(const runner::Preview& p) {
    if (!m_ask) {
        return false;  // json never asks; run refuses that case before it starts
    }
    std::string counts = fmt::format("{} to send now", p.to_send);
    if (const auto held = total_of(p.held_back); held > 0) {
        counts += fmt::format(", {} held back by the account's ledger ({})", held, cause_list(p.held_back));
    }
    counts += fmt::format(", {} invalid, {}, {} already recorded", p.invalid, util::counted(p.duplicates, "duplicate"),
                          p.already_done);
    if (p.beyond_limit > 0) {
        counts += fmt::format(", {} left for a later run (--limit)", p.beyond_limit);
    }
    std::string timing = "Starts " + p.starts;
    if (!p.takes.empty()) {
        timing += "; takes " + p.takes;
    }
    const std::string text = fmt::format(
        "Campaign {}: {} in the CSV — {}\n"
        "{}.\n"
        "Rate: {}, {} in flight. Result log: {}\n"
        "First message to be sent (to {}):\n  {}\n",
        p.campaign_name, util::counted(p.rows, "row"), counts, timing, p.per_second, p.concurrency, p.results_path,
        p.first_wa_id, p.first_body);
    m_out.prompt(fmt::format("{}Send {}? [y/N] ", text, util::counted(p.to_send, "message")));
    std::string answer;
    if (!std::getline(std::cin, answer)) {
        return false;
    }
    return answer == "y" || answer == "Y" || answer == "yes";
}

void TerminalUi::notice(std::string_view text) {
    m_out.notice(text);
}

void TerminalUi::warning(std::string_view text) {
    m_out.warning(text);
}

void TerminalUi::clear_line() {
    m_out.clear_line();
}

void TerminalUi::progress(const queue::Progress& p, const runner::RunFigures& run) {
    if (!m_enabled) {
        return;
    }
    auto now = std::chrono::steady_clock::now();
    if (!m_out.live_lines()) {
        if (now < m_next_plain) {
            return;
        }
        m_next_plain = now + k_plain_interval;
    }
    const auto f = figures_of(p, run, std::chrono::duration_cast<std::chrono::milliseconds>(now - m_started));
    m_out.progress(progress_line(p, f), progress_fields(p, run, f));
}

}  // namespace cli
