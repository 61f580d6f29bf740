#pragma once
// The person's side of a run: the confirmation question, notices, and progress — a live line
// on a terminal, fitted to its width, a plain line every few seconds otherwise, a progress
// object with --log-format json — all printed through one Output. Times are shown in the
// campaign's zone (its send window's; without one, the machine's) beside UTC.

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "cli/output.hpp"
#include "runner/ui.hpp"
#include "util/zone.hpp"

namespace cli {

enum class ProgressMode { automatic, off };
enum class AssumeYes { no, yes };

// What a progress or countdown line says of time besides the figures: the wall clock's `now`,
// the time since the run began, and the zone the campaign's times are shown in (null: UTC only).
struct LineClock {
    std::chrono::system_clock::time_point now;
    std::chrono::milliseconds elapsed{0};
    const util::TimeZone* zone = nullptr;
};

// Returns the progress line for `progress` and `run` at `clock`: "sent 12 · failed 0 · unknown 0
// · remaining 88 · ETA 44s · in flight 2/4 · 2.0/s · 6.0s", with "held back", "waiting to retry"
// and "paused: … until …" when they apply. Fitted to `columns` display columns: the fields that
// matter least are shortened or dropped first (the order is in docs/commands.md, "Progress").
std::string progress_line(const queue::Progress& progress, const runner::RunFigures& run, const LineClock& clock,
                          std::size_t columns = SIZE_MAX);

// Returns the line counting down to schedule.start_at `at`, fitted to `columns`: "starts in
// 1h 02m 05s — at 2026-11-28 10:00 Asia/Kolkata (04:30 UTC)", the time given up before the count.
std::string countdown_line(util::TimePoint at, const LineClock& clock, std::size_t columns);

class TerminalUi : public runner::RunUi {
public:
    // Shows times on `machine`'s clock (beside UTC) until time_zone() gives the campaign's.
    TerminalUi(Output& out, ProgressMode progress, AssumeYes yes,
               util::TimeZone machine = util::TimeZone::local(util::ProcessEnvironment()));
    ~TerminalUi() override;

    bool wants_confirmation() const override;
    bool can_ask() const override;
    bool confirm(const runner::Preview& preview) override;
    void notice(std::string_view text) override;
    void warning(std::string_view text) override;
    void time_zone(const util::TimeZone& zone) override;
    // Says once what the run waits for; on a terminal, then draws the countdown as a live line.
    void waiting_to_start(util::TimePoint at, util::TimePoint now) override;
    void paused(const queue::Progress& progress) override;
    void progress(const queue::Progress& progress, const runner::RunFigures& figures) override;

    // Clears the live line, if one is showing, so that other output starts on a clean line.
    void clear_line() override;

protected:
    // The zone of times in text: the campaign's, else the machine's (JSON's _local fields are
    // the campaign's only).
    const util::TimeZone* shown_zone() const { return m_zone ? &*m_zone : &m_machine; }

private:
    // The columns a live line may take: one less than the terminal's, so that the cursor never
    // reaches the last column (where terminals wrap); 80 columns when the terminal does not say.
    std::size_t live_columns() const;
    const util::TimeZone* zone() const { return m_zone ? &*m_zone : nullptr; }

    Output& m_out;
    bool m_enabled;
    bool m_ask;  // text, stdin and stderr are terminals, and --yes was not given
    std::chrono::steady_clock::time_point m_started;
    std::chrono::steady_clock::time_point m_next_plain;  // when the next plain line (or object) is due
    std::optional<util::TimeZone> m_zone;                // the campaign's, when it has a send window
    util::TimeZone m_machine;                            // the machine's, for text without m_zone
    std::optional<util::TimePoint> m_start_told;         // the start_at the waiting notice was given for
    std::string m_countdown;                             // the countdown line last drawn
};

// Whether `run` would ask before sending: stdin and stderr are terminals and `yes` is no.
bool would_ask(AssumeYes yes);

}  // namespace cli
