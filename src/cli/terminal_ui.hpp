#pragma once
// The person's side of a run: the confirmation question, notices, and progress — a live line
// on a terminal, a plain line every few seconds otherwise.

#include <chrono>
#include <cstdio>
#include <string>

#include "runner/ui.hpp"
#include "util/redact.hpp"

namespace cli {

enum class ProgressMode { automatic, off };
enum class AssumeYes { no, yes };

class TerminalUi final : public runner::RunUi {
public:
    TerminalUi(const util::Redactor& redactor, ProgressMode progress, AssumeYes yes);
    ~TerminalUi() override;

    bool wants_confirmation() const override;
    bool confirm(const runner::Preview& preview) override;
    void notice(std::string_view text) override;
    void warning(std::string_view text) override;
    void progress(const queue::Progress& progress, std::int64_t total) override;

    // Clears the live line, if one is showing, so that other output starts on a clean line.
    void clear_line() override;

private:
    const util::Redactor& m_redactor;
    bool m_enabled;
    bool m_live;            // stderr is a terminal: redraw one line
    bool m_ask;             // stdin and stderr are terminals and --yes was not given
    bool m_line_showing = false;
    std::chrono::steady_clock::time_point m_started;
    std::chrono::steady_clock::time_point m_last_plain{};
};

} // namespace cli
