#include "cli/terminal_ui.hpp"

#include <fmt/format.h>
#include <unistd.h>
#include <cmath>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "cli/line_fit.hpp"
#include "cli/send_causes.hpp"
#include "util/text.hpp"
#include "util/time.hpp"

namespace cli {

namespace {

constexpr auto k_plain_interval = std::chrono::seconds(10);
constexpr std::size_t k_default_columns = 80;  // a terminal that does not say its size

// What one progress report says, worked out once for both formats.
struct Figures {
    std::int64_t held_back = 0;             // rows the account's ledger held back
    std::string held_back_causes;           // "suppressed 2, frequency_cap 1"
    std::optional<std::int64_t> remaining;  // unknown without a total
    std::optional<std::chrono::milliseconds> eta;
};

Figures figures_of(const queue::Progress& p, const runner::RunFigures& run) {
    Figures f;
    f.held_back = total_of(run.held_back);
    f.held_back_causes = cause_list(run.held_back);
    f.remaining = run.remaining(p);
    if (const auto left = run.jobs_left(p); left && p.achieved_rate > 0.1 && *left > 0) {
        f.eta = std::chrono::milliseconds(static_cast<long long>(*left / p.achieved_rate * 1000));
    }
    return f;
}

// `t` for people: on the campaign's zone's clock beside UTC, or in UTC without a zone.
std::string moment_text(util::TimePoint t, const LineClock& clock) {
    return clock.zone != nullptr ? util::format_zoned_time(t, clock.now, *clock.zone)
                                 : util::format_wall_time(t, clock.now);
}

// `t` as short as it stays clear: on the zone's clock only, or in UTC without a zone.
std::string short_moment_text(util::TimePoint t, const LineClock& clock) {
    return clock.zone != nullptr ? util::format_zone_clock(t, clock.now, *clock.zone)
                                 : util::format_wall_time(t, clock.now);
}

// The pause's forms: its reason and end in full, then the end on the zone's clock only, then
// the end alone, then the word. A pause outlives the line's other news: only the counts and
// what remains are kept longer.
LinePart pause_part(const queue::Progress& p, const LineClock& clock) {
    if (p.pause_reason.empty()) {
        return {};
    }
    if (!p.paused_until) {
        return {{"paused: " + p.pause_reason, 66}, {"paused", 88}};
    }
    return {{fmt::format("paused: {} until {}", p.pause_reason, moment_text(*p.paused_until, clock)), 65},
            {fmt::format("paused: {} until {}", p.pause_reason, short_moment_text(*p.paused_until, clock)), 68},
            {"paused until " + short_moment_text(*p.paused_until, clock), 72},
            {"paused", 88}};
}

// The progress line's fields in the order shown, each with the rank of its forms (fit_line):
// the counts of sent and failed always; then what remains, the pause, the ETA, the retries
// waiting, the rate, the requests in flight, the rows held back, the time elapsed. A count of
// unknown is kept with the counts when there are some, and goes first when there are none.
std::vector<LinePart> progress_parts(const queue::Progress& p, const runner::RunFigures& run, const LineClock& clock) {
    const Figures f = figures_of(p, run);
    std::vector<LinePart> parts;
    parts.push_back({{fmt::format("sent {} · failed {}", p.sent, p.failed), k_always}});
    parts.push_back({{fmt::format("unknown {}", p.unknown), p.unknown > 0 ? 90 : 5}});
    if (f.held_back > 0) {
        parts.push_back({{fmt::format("held back {} ({})", f.held_back, f.held_back_causes), 15},
                         {fmt::format("held back {}", f.held_back), 25}});
    }
    if (f.remaining) {
        parts.push_back({{fmt::format("remaining {}", *f.remaining), 75}, {fmt::format("left {}", *f.remaining), 85}});
    }
    if (f.eta) {
        parts.push_back({{"ETA " + util::format_duration(*f.eta, util::DurationStyle::compact), 60}});
    }
    // "in flight 97/125": the requests out and the most the queue allows now (auto's window).
    LinePart in_flight{{fmt::format("in flight {}", p.in_flight), 35}};
    if (p.in_flight_limit > 0) {
        in_flight.insert(in_flight.begin(), {fmt::format("in flight {}/{}", p.in_flight, p.in_flight_limit), 30});
    }
    parts.push_back(std::move(in_flight));
    parts.push_back({{fmt::format("{:.1f}/s", p.achieved_rate), 40}});
    if (p.retry_waiting > 0) {
        parts.push_back({{fmt::format("{} waiting to retry", p.retry_waiting), 50},
                         {fmt::format("{} to retry", p.retry_waiting), 55}});
    }
    if (p.set_aside > 0) {
        // Rows waiting for their recipients' windows (timezone: recipient), and the next opening.
        if (p.next_opening) {
            parts.push_back({{fmt::format("{} waiting for their window (next {})", p.set_aside,
                                          short_moment_text(*p.next_opening, clock)),
                              45},
                             {fmt::format("{} wait for windows", p.set_aside), 52}});
        } else {
            parts.push_back({{fmt::format("{} waiting for their window", p.set_aside), 45},
                             {fmt::format("{} wait for windows", p.set_aside), 52}});
        }
    }
    parts.push_back(pause_part(p, clock));
    parts.push_back({{util::format_duration(clock.elapsed, util::DurationStyle::compact), 10}});
    return parts;
}

// `t` for a JSON object: UTC (RFC 3339), and on the zone's clock with the zone's name (nulls
// without a zone), under the names `name`, `name`_local and time_zone.
void add_moment(nlohmann::ordered_json& fields, const std::string& name, std::optional<util::TimePoint> t,
                const util::TimeZone* zone) {
    using nlohmann::ordered_json;
    fields[name] = t ? ordered_json(util::format_timestamp(*t)) : ordered_json();
    fields[name + "_local"] =
        t && zone != nullptr ? ordered_json(util::format_zoned_timestamp(*t, *zone)) : ordered_json();
    fields["time_zone"] = zone != nullptr ? ordered_json(zone->name()) : ordered_json();
}

// The progress object; `zone`: the campaign's, for the _local fields (null: none).
nlohmann::ordered_json progress_fields(const queue::Progress& p, const runner::RunFigures& run, const LineClock& clock,
                                       const util::TimeZone* zone) {
    using nlohmann::ordered_json;
    const Figures f = figures_of(p, run);
    const auto seconds = [](std::chrono::milliseconds d) {
        return std::llround(static_cast<double>(d.count()) / 1000);
    };
    ordered_json fields = {{"sent", p.sent},
                           {"failed", p.failed},
                           {"unknown", p.unknown},
                           {"held_back", cause_counts_json(run.held_back)},
                           {"remaining", f.remaining ? ordered_json(*f.remaining) : ordered_json()},
                           {"in_flight", p.in_flight},
                           {"in_flight_limit", p.in_flight_limit},
                           {"retry_waiting", p.retry_waiting},
                           {"waiting_for_window", p.set_aside},
                           {"rate", std::round(p.achieved_rate * 10) / 10},
                           {"eta_seconds", f.eta ? ordered_json(seconds(*f.eta)) : ordered_json()},
                           {"paused", !p.pause_reason.empty()},
                           {"pause_reason", p.pause_reason.empty() ? ordered_json() : ordered_json(p.pause_reason)}};
    add_moment(fields, "paused_until", p.pause_reason.empty() ? std::nullopt : p.paused_until, zone);
    fields["next_window_opening"] =
        p.set_aside > 0 && p.next_opening ? ordered_json(util::format_timestamp(*p.next_opening)) : ordered_json();
    fields["elapsed_ms"] = clock.elapsed.count();
    return fields;
}

}  // namespace

std::string progress_line(const queue::Progress& progress, const runner::RunFigures& run, const LineClock& clock,
                          std::size_t columns) {
    return fit_line(progress_parts(progress, run, clock), " · ", columns);
}

std::string countdown_line(util::TimePoint at, const LineClock& clock, std::size_t columns) {
    const auto left = std::chrono::duration_cast<util::Millis>(at - clock.now);
    const std::vector<LinePart> parts{
        LinePart{{"starts in " + util::format_duration(left, util::DurationStyle::countdown), k_always}},
        LinePart{{"at " + moment_text(at, clock), 50}, {"at " + short_moment_text(at, clock), 60}}};
    return fit_line(parts, " — ", columns);
}

bool would_ask(AssumeYes yes) {
    // A person can answer when standard input is a terminal: the question goes there whatever
    // standard output and error are redirected to (Output::prompt).
    return yes == AssumeYes::no && isatty(STDIN_FILENO) == 1;
}

TerminalUi::TerminalUi(Output& out, ProgressMode progress, AssumeYes yes, util::TimeZone machine)
    : m_out(out),
      m_enabled(progress == ProgressMode::automatic),
      m_ask(out.format() == LogFormat::text && would_ask(yes)),
      m_started(std::chrono::steady_clock::now()),
      // Plain lines start after one interval; a log collector gets the first object at once,
      // with the total to send.
      m_next_plain(out.format() == LogFormat::json ? m_started : m_started + k_plain_interval),
      m_machine(std::move(machine)) {}

TerminalUi::~TerminalUi() {
    m_out.clear_line();
}

bool TerminalUi::wants_confirmation() const {
    return m_ask;
}

bool TerminalUi::can_ask() const {
    return m_ask;
}

bool TerminalUi::confirm(const runner::Preview& p) {
    if (!m_ask) {
        return false;  // json never asks; run refuses that case before it starts
    }
    std::string counts = fmt::format("{} to send now", p.to_send);
    if (const auto paused = p.held_back[results::Cause::region_paused]; paused > 0) {
        counts += fmt::format(", {} not sent to message.paused_regions (region_paused)", paused);
    }
    const auto by_ledger = ledger_causes(p.held_back);
    if (const auto held = total_of(by_ledger); held > 0) {
        counts += fmt::format(", {} held back by the account's ledger ({})", held, cause_list(by_ledger));
    }
    if (p.recovered > 0) {
        counts += fmt::format(", {} recovered from the account's ledger (the result log had lost them; not sent)",
                              p.recovered);
    }
    counts += fmt::format(", {} invalid, {}, {} already recorded", p.invalid, util::counted(p.duplicates, "duplicate"),
                          p.already_done);
    if (p.beyond_limit > 0) {
        counts += fmt::format(", {} left for a later run (--limit)", p.beyond_limit);
    }
    if (p.messaged_day && p.messaged_week) {
        counts += fmt::format(
            ". Of those to send, the account already messaged {} in the last 24 h and {} in the last "
            "7 days (its ledger; each campaign counts on its own unless rate.per_recipient is set)",
            *p.messaged_day, *p.messaged_week);
    }
    std::string timing = "Starts " + p.starts;
    if (!p.takes.empty()) {
        timing += "; takes " + p.takes;
    }
    std::string spent;
    if (!p.category_was.empty()) {
        spent = fmt::format(
            "the template was {} when this campaign last sent and is {} now: the estimate is at {} prices\n",
            util::printable(p.category_was), p.cost.category, p.cost.category);
    }
    if (p.spent > 0) {
        spent += fmt::format("spent so far: about {:.2f} {}\n", p.spent, p.cost.currency);
    }
    const std::string text = fmt::format(
        "Campaign {}: {} in the CSV — {}\n"
        "{}.\n"
        "Rate: {}, {} in flight. Result log: {}\n"
        "{}{}"
        "First message to be sent (to {}):\n  {}\n",
        p.campaign_name, util::counted(p.rows, "row"), counts, timing, p.per_second, p.concurrency, p.results_path,
        campaign::describe(p.cost), spent, p.first_wa_id, p.first_body);
    if (!m_out.prompt(fmt::format("{}Send {}? [y/N] ", text, util::counted(p.to_send, "message")))) {
        m_out.warning(
            "cannot show the question: standard input is a terminal, but neither standard error nor "
            "/dev/tty can be written; nothing is sent (add --yes to send without asking)");
        return false;
    }
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

void TerminalUi::time_zone(const util::TimeZone& zone) {
    m_zone = zone;
}

void TerminalUi::clear_line() {
    m_out.clear_line();
}

std::size_t TerminalUi::live_columns() const {
    return std::max<std::size_t>(m_out.terminal_columns().value_or(k_default_columns), 2) - 1;
}

void TerminalUi::waiting_to_start(util::TimePoint at, util::TimePoint now) {
    const LineClock clock{.now = now, .elapsed = {}, .zone = shown_zone()};
    if (m_start_told != at) {
        m_start_told = at;
        nlohmann::ordered_json fields;
        add_moment(fields, "start_at", at, zone());
        m_out.notice_with_fields(fmt::format("waiting until {} to start (schedule.start_at)", moment_text(at, clock)),
                                 fields);
    }
    if (!m_enabled || !m_out.live_lines()) {
        return;  // told once: no line a second in a log
    }
    std::string line = countdown_line(at, clock, live_columns());
    if (line != m_countdown) {
        m_out.draw_live(line);
        m_countdown = std::move(line);
    }
}

void TerminalUi::paused(const queue::Progress& p) {
    const LineClock clock{.now = std::chrono::system_clock::now(), .elapsed = {}, .zone = shown_zone()};
    nlohmann::ordered_json fields = {{"pause_reason", p.pause_reason}};
    add_moment(fields, "paused_until", p.paused_until, zone());
    m_out.notice_with_fields(
        p.paused_until ? fmt::format("paused: {} until {}", p.pause_reason, moment_text(*p.paused_until, clock))
                       : "paused: " + p.pause_reason,
        fields);
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
    const LineClock clock{.now = std::chrono::system_clock::now(),
                          .elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(now - m_started),
                          .zone = shown_zone()};
    // A log keeps the whole line; the live line gives way to the terminal's width.
    const std::string line = progress_line(p, run, clock);
    const std::string live = m_out.live_lines() ? progress_line(p, run, clock, live_columns()) : line;
    m_out.progress(line, progress_fields(p, run, clock, zone()), live);
}

}  // namespace cli
